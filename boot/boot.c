/*
 * boot.c: recognise the boot protocol and fill struct bootinfo.
 */
#include "boot/boot.h"

#include <stdint.h>

#include "arch/cpu.h"
#include "boot/fwcfg.h"
#include "boot/mb2/mb2.h"
#include "kernel/log.h"

/* QEMU fw_cfg file whose contents are appended to the command line: lets
 * tools/memboot pass per-run arguments without rebuilding the ISO. */
#define FWCFG_CMDLINE_FILE "opt/memboot/cmdline"

static void append_fwcfg_cmdline(struct bootinfo *bi)
{
	char extra[BOOTINFO_CMDLINE_BYTES];
	size_t len;

	if (!cpu_features.has_hypervisor)
		return;   /* fw_cfg exists only in QEMU; don't poke ports on metal */
	if (!fwcfg_read_file(FWCFG_CMDLINE_FILE, extra, sizeof(extra) - 1, &len))
		return;
	extra[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (extra[i] == '\n' || extra[i] == '\r' || extra[i] == '\0')
			extra[i] = ' ';
	bootinfo_append_cmdline(bi, extra);
}

bool boot_collect(uint32_t magic, uint32_t info, struct bootinfo *bi)
{
	bool ok;

	if (magic == MB2_BOOTLOADER_MAGIC) {
		enum mb2_status st = mb2_parse(magic, (const void *)(uintptr_t)info,
					       MB2_INFO_MAX_BYTES, bi);
		ok = st == MB2_OK;
		if (!ok)
			pr_err("boot: Multiboot2 information at 0x%x unusable (%s)",
			       info, mb2_status_name(st));
	} else {
		bootinfo_init(bi, BOOT_PATH_UNKNOWN);
		pr_err("boot: unknown boot magic 0x%08x (info 0x%x): not a Multiboot2 or PVH loader",
		       magic, info);
		ok = false;
	}
	append_fwcfg_cmdline(bi);
	return ok;
}

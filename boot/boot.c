/*
 * boot.c: recognise the boot protocol and fill struct bootinfo.
 */
#include "boot/boot.h"

#include <stdint.h>

#include "arch/cpu.h"
#include "arch/map.h"
#include "boot/fwcfg_files.h"
#include "boot/handoff.h"
#include "boot/mb2/mb2.h"
#include "boot/pvh/pvh.h"
#include "boot/smbios_ep.h"
#include "kernel/services/log.h"

static void append_fwcfg_cmdline(struct bootinfo *bi)
{
	/* One byte more than the command line holds: a file that long is cut
	 * inside bootinfo_append_cmdline_from(), which then sees the byte after
	 * the cut and drops a word cut in two. */
	static char extra[BOOTINFO_CMDLINE_BYTES + 1];
	size_t len;

	if (!arch_cpu_info.has_hypervisor)
		return;   /* fw_cfg exists only in QEMU; don't poke ports on metal */
	if (!fwcfg_read_file(FWCFG_CMDLINE_FILE, extra, sizeof(extra) - 1, &len))
		return;
	extra[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (extra[i] == '\n' || extra[i] == '\r' || extra[i] == '\0')
			extra[i] = ' ';
	bootinfo_append_cmdline_from(bi, extra, "the fw_cfg command line (" FWCFG_CMDLINE_FILE ")");
}

static void find_fwcfg_replay(struct bootinfo *bi)
{
	struct fwcfg_blob f;

	if (!arch_cpu_info.has_hypervisor || !fwcfg_find_file(FWCFG_REPLAY_FILE, &f))
		return;
	bi->replay = f;
}

/* Test facility, QEMU only (boot/fwcfg_files.h, FWCFG_MB2_OVERRIDE_FILE). */
static uint8_t mb2_override[64 << 10] __attribute__((aligned(8)));

bool boot_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi)
{
	/* Every protocol so far (Multiboot2, PVH, memboot's UEFI loader) hands
	 * over a 32-bit magic and a 32-bit address; another value in the upper
	 * halves is none of them. */
	const bool narrow = arg0 <= UINT32_MAX && arg1 <= UINT32_MAX;
	const uint32_t magic = (uint32_t)arg0, info = (uint32_t)arg1;
	bool ok;

	if (narrow && magic == MB2_BOOTLOADER_MAGIC) {
		const void *mbi = (const void *)(uintptr_t)info;
		size_t avail = MB2_INFO_MAX_BYTES, len;

		if (arch_cpu_info.has_hypervisor &&
		    fwcfg_read_file(FWCFG_MB2_OVERRIDE_FILE, (char *)mb2_override,
				    sizeof(mb2_override), &len)) {
			pr_warn("boot: parsing %zu bytes from fw_cfg %s instead of the loader's Multiboot2 information",
				len, FWCFG_MB2_OVERRIDE_FILE);
			mbi = mb2_override;
			avail = len;
		}
		enum mb2_status st = mb2_parse(magic, mbi, avail, bi);
		ok = st == MB2_OK;
		if (!ok)
			pr_err("boot: Multiboot2 information at 0x%x unusable (%s)",
			       info, mb2_status_name(st));
	} else if (narrow && magic == HANDOFF_ENTRY_MAGIC) {      /* memboot UEFI loader */
		enum handoff_status st = handoff_parse(magic, (const void *)(uintptr_t)info,
						       HANDOFF_MAX_BYTES, bi);
		ok = st == HANDOFF_OK;
		if (!ok)
			pr_err("boot: UEFI loader hand-off at 0x%x unusable (%s)",
			       info, handoff_status_name(st));
	} else if (narrow && magic == PVH_BOOT_MAGIC) {          /* QEMU -kernel (PVH) */
		enum pvh_status st = pvh_parse(magic, info, arch_map_phys, NULL, bi);
		ok = st == PVH_OK;
		if (!ok)
			pr_err("boot: PVH start info at 0x%x unusable (%s)",
			       info, pvh_status_name(st));
	} else {
		bootinfo_init(bi, BOOT_PATH_UNKNOWN);
		pr_err("boot: unknown boot magic 0x%08llx (info 0x%llx): not Multiboot2, PVH or the memboot UEFI loader",
		       (unsigned long long)arg0, (unsigned long long)arg1);
		ok = false;
	}
	if (ok)
		boot_find_smbios(bi);
	append_fwcfg_cmdline(bi);
	find_fwcfg_replay(bi);
	return ok;
}

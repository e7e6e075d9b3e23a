/*
 * boot.c: recognise the boot protocol and fill struct bootinfo.
 */
#include "boot/boot.h"

#include <stdint.h>
#include <stdio.h>

#include "arch/cpu.h"
#include "arch/map.h"
#include "boot/fwcfg_files.h"
#include "boot/handoff.h"
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

extern const struct boot_protocol __start_boot_protocols[], __stop_boot_protocols[];

/* memboot's UEFI loader (boot/efi/), whichever the architecture: its
 * hand-off is generic (boot/handoff.h). */
static enum boot_match handoff_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				     const struct dt_machine **dt)
{
	(void)dt;
	if (arg0 > UINT32_MAX || arg1 > UINT32_MAX || (uint32_t)arg0 != HANDOFF_ENTRY_MAGIC)
		return BOOT_NOT_MINE;
	enum handoff_status st = handoff_parse((uint32_t)arg0, (const void *)arg1,
					       HANDOFF_MAX_BYTES, bi);
	if (st == HANDOFF_OK)
		return BOOT_OK;
	pr_err("boot: UEFI loader hand-off at 0x%x unusable (%s)",
	       (uint32_t)arg1, handoff_status_name(st));
	return BOOT_BAD;
}
BOOT_PROTOCOL(handoff_protocol, "the memboot UEFI loader", handoff_collect);

bool boot_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi, const struct dt_machine **dt)
{
	enum boot_match m = BOOT_NOT_MINE;
	bool ok;

	*dt = NULL;
	for (const struct boot_protocol *p = __start_boot_protocols;
	     m == BOOT_NOT_MINE && p < __stop_boot_protocols; p++)
		m = p->collect(arg0, arg1, bi, dt);
	ok = m == BOOT_OK;
	if (m == BOOT_NOT_MINE) {
		char names[160] = "";
		size_t n = 0;

		for (const struct boot_protocol *p = __start_boot_protocols;
		     p < __stop_boot_protocols && n < sizeof(names); p++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
					      n ? ", " : "", p->name);
		bootinfo_init(bi, BOOT_PATH_UNKNOWN);
		pr_err("boot: unknown boot magic 0x%08llx (info 0x%llx): not %s",
		       (unsigned long long)arg0, (unsigned long long)arg1, names);
	}
	if (ok)
		boot_find_smbios(bi);
	append_fwcfg_cmdline(bi);
	find_fwcfg_replay(bi);
	return ok;
}

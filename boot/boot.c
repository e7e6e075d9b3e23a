/*
 * boot.c: recognise the boot protocol and fill struct bootinfo.
 */
#include "boot/boot.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/fwcfg.h"
#include "arch/map.h"
#include "boot/fwcfg_files.h"
#include "boot/handoff.h"
#include "boot/smbios_ep.h"
#include "kernel/firmware/dt.h"
#include "kernel/firmware/mmio.h"
#include "kernel/services/log.h"

/*
 * Whether the firmware says the machine is QEMU's own (its fixed places
 * may then be trusted where no table names them): a device tree's root
 * compatible "linux,dummy-virt" (QEMU virt's), or ACPI tables whose RSDP
 * names QEMU's OEM ID, "BOCHS " (hw/acpi's ACPI_BUILD_APPNAME6; AAVMF
 * installs QEMU's tables as they are).
 */
static bool firmware_says_qemu(const struct bootinfo *bi, const struct dt_machine *dt,
			       const char **how)
{
	if (dt) {
		*how = "the device tree's root is \"linux,dummy-virt\"";
		return !strcmp(dt->compatible, "linux,dummy-virt");
	}
	*how = "the ACPI tables' OEM ID is QEMU's \"BOCHS \"";
	return bi->rsdp_len && !memcmp(bi->rsdp + 9, "BOCHS ", 6);
}

/*
 * Where QEMU's fw_cfg device is, before anything reads it: nothing to find
 * where it is not memory-mapped (x86's ports) or absent (POWER). A
 * memory-mapped one is where the device tree's "qemu,fw-cfg-mmio" node
 * says; without one (UEFI with ACPI, where only the DSDT's AML names it),
 * at QEMU's fixed place, and only on a machine the firmware says is
 * QEMU's. Either way only clear of RAM (the check a firmware's UART
 * passes, kernel/firmware/mmio.h), mapped, and answering with fw_cfg's
 * signature; otherwise named and not read.
 */
static void locate_fwcfg(const struct bootinfo *bi, const struct dt_machine *dt)
{
	struct arch_fwcfg_regs place;
	const char *from, *qemu_how;
	char why[160], sig[4];

	if (!arch_fwcfg_default(&place) || !place.bytes)
		return;
	if (dt && dt->fwcfg_bytes) {
		place.base = dt->fwcfg_base;
		place.bytes = dt->fwcfg_bytes;
		from = "the device tree's qemu,fw-cfg-mmio";
	} else if (firmware_says_qemu(bi, dt, &qemu_how)) {
		from = place.name;
		pr_info("fw_cfg: %s names no fw_cfg device, and %s: %s, MMIO 0x%llx",
			dt ? "the device tree" : "no table memboot reads", qemu_how, place.name,
			(unsigned long long)place.base);
	} else {
		pr_info("fw_cfg: %s names no fw_cfg device, and the machine is not QEMU's "
			"(%s is not so): none read", dt ? "the device tree" : "no table memboot reads",
			qemu_how);
		return;
	}
	if (!fw_mmio_clear_of_ram(place.base, place.bytes, bi->ranges, bi->nr_ranges, why,
				  sizeof(why))) {
		pr_warn("fw_cfg: the device at MMIO 0x%llx (%s) refused: %s",
			(unsigned long long)place.base, from, why);
		return;
	}
	if (!arch_map_phys(NULL, place.base, place.bytes)) {
		pr_warn("fw_cfg: the device at MMIO 0x%llx (%s) is not mapped; not read",
			(unsigned long long)place.base, from);
		return;
	}
	arch_fwcfg_use(place.base);
	arch_fwcfg_select(ARCH_FWCFG_SIGNATURE);
	if (!arch_fwcfg_read(sig, sizeof(sig)) || memcmp(sig, "QEMU", 4) != 0) {
		arch_fwcfg_use(0);
		pr_warn("fw_cfg: no fw_cfg device answers at MMIO 0x%llx (%s): not read",
			(unsigned long long)place.base, from);
		return;
	}
	pr_info("fw_cfg: the device at MMIO 0x%llx (%s)", (unsigned long long)place.base, from);
}

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
	if (arg0 > UINT32_MAX || arg1 > UINT32_MAX || (uint32_t)arg0 != HANDOFF_ENTRY_MAGIC)
		return BOOT_NOT_MINE;
	enum handoff_status st = handoff_parse((uint32_t)arg0, (const void *)arg1,
					       HANDOFF_MAX_BYTES, bi);
	if (st == HANDOFF_OK) {
		/* ACPI describes the machine where the firmware gives it (Arm's
		 * SBBR servers); a device-tree board's UEFI publishes a tree
		 * instead, read by the protocol that reads trees. */
		for (const struct boot_protocol *p = __start_boot_protocols;
		     !bi->rsdp_len && !*dt && p < __stop_boot_protocols; p++)
			if (p->efi_tree)
				*dt = p->efi_tree(bi);
		return BOOT_OK;
	}
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
	if (arch_cpu_info.has_hypervisor)
		locate_fwcfg(bi, *dt);
	append_fwcfg_cmdline(bi);
	find_fwcfg_replay(bi);
	return ok;
}

/*
 * collect.c: Multiboot2 as one of boot_collect()'s protocols (GRUB's
 * hand-over: EAX the magic, EBX the information's 32-bit address).
 */
#include <stdint.h>

#include "arch/cpu.h"
#include "boot/boot.h"
#include "boot/fwcfg_files.h"
#include "boot/mb2/mb2.h"
#include "kernel/services/log.h"

/* Test facility, QEMU only (boot/fwcfg_files.h, FWCFG_MB2_OVERRIDE_FILE). */
static uint8_t mb2_override[64 << 10] __attribute__((aligned(8)));

static enum boot_match mb2_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				     const struct dt_machine **dt)
{
	(void)dt;
	if (arg0 > UINT32_MAX || arg1 > UINT32_MAX || (uint32_t)arg0 != MB2_BOOTLOADER_MAGIC)
		return BOOT_NOT_MINE;
	const uint32_t info = (uint32_t)arg1;
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
	enum mb2_status st = mb2_parse((uint32_t)arg0, mbi, avail, bi);
	if (st == MB2_OK)
		return BOOT_OK;
	pr_err("boot: Multiboot2 information at 0x%x unusable (%s)", info, mb2_status_name(st));
	return BOOT_BAD;
}
BOOT_PROTOCOL(mb2_protocol, "Multiboot2", mb2_collect);

/*
 * bootinfo.c: phase `bootinfo`: takes the loader's registers (arch/entry.h);
 * builds `bs.bootinfo` (the normalized memory map, RSDP, command line, boot
 * path, SMBIOS entry point, framebuffer), the one structure every later
 * phase reads instead of a boot protocol's.
 */
#include "kernel/init/bootinfo.h"

#include "boot/boot.h"
#include "kernel/services/report/efivars.h"

bool init_bootinfo(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi, const struct dt_machine **dt)
{
	bool ok = boot_collect(arg0, arg1, bi, dt);

	/* Where a UEFI boot's summary records will be kept: the system table
	 * and the runtime code the identity map must keep executable. */
	efivars_setup(bi->efi_system_table, bi->efi_runtime_code, bi->nr_efi_runtime_code);
	return ok;
}

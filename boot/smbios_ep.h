/*
 * smbios_ep.h: find the SMBIOS entry point the firmware published and copy
 * it into struct bootinfo (bi->smbios_ep, smbios_ep_len 0 if none).
 *
 * UEFI boots (bi->efi_system_table set): the EFI configuration table's
 * SMBIOS3 entry, else its SMBIOS one. Others (PVH, Multiboot2 under BIOS):
 * the BIOS area 0xF0000-0xFFFFF, "_SM3_" preferred to "_SM_". Call after
 * the boot path filled @bi; the kernel parses what was copied
 * (kernel/firmware/smbios.h).
 */
#ifndef MEMBOOT_BOOT_SMBIOS_EP_H
#define MEMBOOT_BOOT_SMBIOS_EP_H

#include "boot/bootinfo.h"

void boot_find_smbios(struct bootinfo *bi);

#endif

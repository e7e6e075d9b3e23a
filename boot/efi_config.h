/*
 * efi_config.h: entries of the EFI configuration table, for the boot paths
 * that have the EFI system table's address (memboot's loader, GRUB's
 * Multiboot2 tag 12).
 */
#ifndef MEMBOOT_BOOT_EFI_CONFIG_H
#define MEMBOOT_BOOT_EFI_CONFIG_H

#include <stdint.h>

#include "boot/bootinfo.h"

/*
 * The pointer of the first entry with @guid (16 bytes, in the order
 * EFI_GUID lies in memory) in the configuration table of @bi's EFI system
 * table, or 0: none, or no system table. A table that cannot be read is
 * warned about once per call, naming @what was looked for.
 */
uint64_t boot_efi_config_find(const struct bootinfo *bi, const uint8_t guid[16], const char *what);

#endif

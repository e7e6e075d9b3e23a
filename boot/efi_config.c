/*
 * efi_config.c: the EFI configuration table (boot/efi_config.h).
 *
 * Rules obeyed: UEFI 2.10 4.3, the system table's NumberOfTableEntries is
 * at offset 104 and ConfigurationTable at 112 (64-bit tables); UEFI 4.6,
 * each entry is a 16-byte VendorGuid and an 8-byte VendorTable pointer.
 */
#include "boot/efi_config.h"

#include <string.h>

#include "arch/map.h"
#include "kernel/services/log.h"

#define EFI_ST_SIGNATURE 0x5453595320494249ULL   /* "IBI SYST" */
#define EFI_ST_NR_TABLES 104
#define EFI_ST_TABLES 112
#define EFI_ST_BYTES 120
#define EFI_CONFIG_ENTRY_BYTES 24
#define EFI_MAX_CONFIG_ENTRIES 1024             /* more is not a real table */

uint64_t boot_efi_config_find(const struct bootinfo *bi, const uint8_t guid[16], const char *what)
{
	const uint8_t *st, *tables;
	uint64_t sig, n, at;

	if (!bi->efi_system_table)
		return 0;
	st = arch_map_phys(NULL, bi->efi_system_table, EFI_ST_BYTES);
	if (!st || (memcpy(&sig, st, 8), sig != EFI_ST_SIGNATURE)) {
		if (what)
			pr_warn("boot: the EFI system table at 0x%llx is not mapped or has no \"IBI SYST\" signature; no %s",
				(unsigned long long)bi->efi_system_table, what);
		return 0;
	}
	memcpy(&n, st + EFI_ST_NR_TABLES, 8);
	memcpy(&at, st + EFI_ST_TABLES, 8);
	if (n > EFI_MAX_CONFIG_ENTRIES ||
	    !(tables = arch_map_phys(NULL, at, n * EFI_CONFIG_ENTRY_BYTES))) {
		if (what)
			pr_warn("boot: the EFI configuration table (%llu entries at 0x%llx) is not mapped; no %s",
				(unsigned long long)n, (unsigned long long)at, what);
		return 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = tables + i * EFI_CONFIG_ENTRY_BYTES;
		uint64_t phys;

		if (memcmp(e, guid, 16) != 0)
			continue;
		memcpy(&phys, e + 16, 8);
		if (phys)
			return phys;
	}
	return 0;
}

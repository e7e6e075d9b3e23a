/*
 * efi_map.c: UEFI memory map conversion (pure C, host-testable).
 */
#include "boot/efi_map.h"

#include <string.h>

#include "kernel/services/log.h"

enum mem_type efi_mem_type(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MEM_USABLE;
	case EFI_UNUSABLE_MEMORY:
		return MEM_UNUSABLE;
	case EFI_ACPI_RECLAIM_MEMORY:
		return MEM_ACPI;
	case EFI_ACPI_MEMORY_NVS:
		return MEM_NVS;
	default:
		/* Runtime services, MMIO, PAL code, persistent memory, OEM and
		 * unknown types: never hand these out as RAM. */
		return MEM_RESERVED;
	}
}

long efi_map_add(struct bootinfo *bi, const void *map, size_t map_bytes,
		 size_t desc_size)
{
	const unsigned char *p = map;
	size_t count;

	if (desc_size < sizeof(struct efi_memory_descriptor)) {
		pr_err("efi: memory map descriptor size %zu is smaller than the %zu-byte descriptor",
		       desc_size, sizeof(struct efi_memory_descriptor));
		return -1;
	}
	count = map_bytes / desc_size;
	if (map_bytes % desc_size)
		pr_warn("efi: memory map size %zu is not a multiple of descriptor size %zu; %zu trailing bytes ignored",
			map_bytes, desc_size, map_bytes % desc_size);

	for (size_t i = 0; i < count; i++) {
		struct efi_memory_descriptor d;
		uint64_t len;

		/* memcpy: the map need not be 8-byte aligned in the host fuzzer. */
		memcpy(&d, p + i * desc_size, sizeof(d));
		if (d.number_of_pages > (UINT64_MAX >> PAGE_SHIFT)) {
			pr_warn("efi: descriptor %zu at 0x%llx claims 0x%llx pages; clipped",
				i, (unsigned long long)d.physical_start,
				(unsigned long long)d.number_of_pages);
			len = UINT64_MAX;
		} else {
			len = d.number_of_pages << PAGE_SHIFT;
		}
		/* UEFI 2.8: EFI_MEMORY_SP marks memory meant for a specific use
		 * (a driver's); Linux keeps such conventional memory out of the
		 * page allocator (soft reserved), and so does memboot. */
		if (d.type == EFI_CONVENTIONAL_MEMORY && (d.attribute & EFI_MEMORY_SP) && len) {
			if (bi->nr_soft_reserved < BOOTINFO_MAX_SOFT_RESERVED)
				bi->soft_reserved[bi->nr_soft_reserved] = (struct mem_range){
					d.physical_start, d.physical_start + len > d.physical_start ?
					d.physical_start + len : UINT64_MAX, MEM_RESERVED };
			bi->nr_soft_reserved++;
			bootinfo_add_raw(bi, d.physical_start, len, MEM_RESERVED);
			continue;
		}
		bootinfo_add_raw(bi, d.physical_start, len, efi_mem_type(d.type));
		if (d.type == EFI_RUNTIME_SERVICES_CODE && len &&
		    bi->nr_efi_runtime_code < BOOTINFO_MAX_EFI_RUNTIME &&
		    d.physical_start + len > d.physical_start)
			bi->efi_runtime_code[bi->nr_efi_runtime_code++] = (struct mem_range){
				d.physical_start, d.physical_start + len, MEM_RESERVED };
	}
	return (long)count;
}

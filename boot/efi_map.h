/*
 * efi_map.h: UEFI memory map descriptors into struct bootinfo.
 *
 * Used by every path that receives a UEFI memory map: Multiboot2 tag 17 today,
 * the gnu-efi loader later. The descriptor stride is the firmware's
 * DescriptorSize, never sizeof(): UEFI 2.x lets it grow (OVMF reports 48 for a
 * 40-byte structure), and code that steps by sizeof() reads garbage.
 */
#ifndef MEMBOOT_BOOT_EFI_MAP_H
#define MEMBOOT_BOOT_EFI_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

/* EFI_MEMORY_DESCRIPTOR, UEFI 2.10 section 7.2 (GetMemoryMap). */
struct efi_memory_descriptor {
	uint32_t type;
	uint32_t pad;
	uint64_t physical_start;
	uint64_t virtual_start;
	uint64_t number_of_pages;  /* 4 KiB pages, whatever the CPU page size */
	uint64_t attribute;
};
_Static_assert(sizeof(struct efi_memory_descriptor) == 40, "EFI descriptor is 40 bytes");
_Static_assert(offsetof(struct efi_memory_descriptor, physical_start) == 8, "layout");
_Static_assert(offsetof(struct efi_memory_descriptor, number_of_pages) == 24, "layout");

/* EFI_MEMORY_TYPE values that matter here. */
enum {
	EFI_RESERVED_MEMORY = 0,
	EFI_LOADER_CODE = 1,
	EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3,
	EFI_BOOT_SERVICES_DATA = 4,
	EFI_RUNTIME_SERVICES_CODE = 5,
	EFI_RUNTIME_SERVICES_DATA = 6,
	EFI_CONVENTIONAL_MEMORY = 7,
	EFI_UNUSABLE_MEMORY = 8,
	EFI_ACPI_RECLAIM_MEMORY = 9,
	EFI_ACPI_MEMORY_NVS = 10,
	EFI_MEMORY_MAPPED_IO = 11,
	EFI_MEMORY_MAPPED_IO_PORT_SPACE = 12,
	EFI_PAL_CODE = 13,
	EFI_PERSISTENT_MEMORY = 14,
};

/* EFI_MEMORY_DESCRIPTOR attribute bits, UEFI 2.10 7.2. */
#define EFI_MEMORY_SP (1ull << 18)   /* specific-purpose memory (UEFI 2.8) */
#define EFI_MEMORY_WC (1ull << 1)    /* write-combining: MMIO such as a flash */
#define EFI_MEMORY_RUNTIME (1ull << 63)   /* the firmware's runtime services use it */

/*
 * The kernel's view of an EFI type once boot services have exited: loader and
 * boot-services memory is RAM again; runtime services, MMIO and anything
 * unknown stay reserved.
 */
enum mem_type efi_mem_type(uint32_t efi_type);

/*
 * Add the descriptors of a UEFI memory map of @map_bytes bytes, stepping by
 * @desc_size, to bi->raw. Conventional memory with EFI_MEMORY_SP is added
 * as reserved and listed in bi->soft_reserved. Returns the number of descriptors read, or -1 if
 * @desc_size is smaller than the descriptor structure (nothing is added).
 */
long efi_map_add(struct bootinfo *bi, const void *map, size_t map_bytes,
		 size_t desc_size);

#endif

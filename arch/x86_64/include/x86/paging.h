/*
 * arch/paging.h: the kernel's page tables (4-level paging; Intel SDM vol. 3A,
 * 4.5).
 *
 * Boot runs on a temporary identity map of the first 64 GiB with 2 MiB pages
 * (entry32.S). The "pagetables" phase replaces it with the kernel's own
 * identity map, built from the memory map: the first 4 GiB (RAM, firmware
 * and MMIO such as the local APIC) and every RAM and ACPI range above, with
 * the largest pages that fit (1 GiB where the CPU has them), and the kernel
 * image W^X in 4 KiB pages: text read-execute, rodata read-only, data and
 * .bss read-write no-execute.
 */
#ifndef MEMBOOT_ARCH_PAGING_H
#define MEMBOOT_ARCH_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/mem_range.h"

#define BOOT_MAP_BYTES (64ULL << 30)

/* Returns the physical address of a fresh 4 KiB page for a table, below
 * 4 GiB (the SMP trampoline loads CR3 in 32-bit mode), or 0. */
typedef uint64_t (*pt_alloc_fn)(void *ctx);

struct direct_map_stats {
	uint64_t bytes_1g, bytes_2m, bytes_4k;
	uint32_t tables;
	uint64_t top;            /* highest mapped address + 1 */
};

/*
 * Build the kernel's identity map of [0, 4 GiB) and of the usable, ACPI and
 * NVS ranges of the memory map map[0, nr_map) (struct mem_range, byte
 * addresses), and switch this CPU to it. Returns false (and keeps the boot
 * map) if a table could not be allocated.
 */
bool arch_direct_map(const struct mem_range *map, uint32_t nr_map, pt_alloc_fn alloc,
		     void *ctx, struct direct_map_stats *st);

/*
 * Windows for the page descriptor arrays: node n's array starts at
 * ARCH_MEMMAP_WINDOW_BASE + n * ARCH_MEMMAP_WINDOW_BYTES, and only the parts
 * describing present memory are mapped (mm/memmap.h, sparse storage). A
 * window holds 2^32 descriptors of up to 64 bytes (a node's links are 32-bit
 * indices); 256 windows end at 0xffffe00000000000, below nothing else the
 * kernel maps (it runs identity mapped in the low half).
 */
#define ARCH_MEMMAP_WINDOW_BASE 0xffffa00000000000ULL
#define ARCH_MEMMAP_WINDOW_BYTES (1ULL << 38)

/*
 * Map [virt, virt + bytes) to [phys, phys + bytes) read-write, no-execute,
 * global, in the kernel's page tables, with 2 MiB pages where both addresses
 * are 2 MiB aligned and 2 MiB remain, else 4 KiB pages. All three values are
 * 4 KiB multiples. Refuses (false) to replace an existing mapping. New
 * entries only fill not-present ones, which no CPU caches (SDM vol. 3A
 * 4.10.2.3), so CPUs already running on these tables need no flush.
 */
bool arch_map_range(uint64_t virt, uint64_t phys, uint64_t bytes, pt_alloc_fn alloc, void *ctx);

/*
 * Clear (@exec) or set the no-execute bit of every page-table leaf covering
 * [start, end) of the identity map, whatever its size, and flush: the UEFI
 * runtime services' code must run in place while memboot calls them
 * (kernel/services/report/efivars.c), and is data again afterwards. False if a page there
 * is not mapped (nothing after it is changed).
 */
bool arch_set_executable(uint64_t start, uint64_t end, bool exec);

/* Highest address + 1 of the current identity map. */
uint64_t arch_mapped_top(void);

/*
 * @len bytes at physical address @phys through the identity map (the boot
 * map, then the kernel's own), or NULL if any of them lies beyond it: for
 * parsers that reach firmware data through a callback (ACPI tables, PVH
 * start info), so a bad address is refused instead of faulted on.
 */
const void *arch_map_phys(void *ctx, uint64_t phys, size_t len);

/*
 * Make the 4 KiB page at @addr not present (a guard page), splitting a 1 GiB
 * or 2 MiB mapping into smaller entries first if needed.
 * Only for use before other CPUs run on these tables (no TLB shootdown).
 */
bool arch_unmap_page(uint64_t addr, pt_alloc_fn alloc, void *ctx);

#endif

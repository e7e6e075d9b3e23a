/*
 * arch/paging.h: changes to the boot identity map (4-level paging; Intel SDM
 * vol. 3A, 4.5). The boot map covers the first 64 GiB with 2 MiB pages.
 */
#ifndef MEMBOOT_ARCH_PAGING_H
#define MEMBOOT_ARCH_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#define BOOT_MAP_BYTES (64ULL << 30)

/*
 * Make the 4 KiB page at @addr not present (a guard page), splitting its
 * 2 MiB mapping into 4 KiB entries first if needed; @alloc_table returns the
 * physical address of a fresh 4 KiB page for the new table (0 if none).
 * Only for use before other CPUs run on these tables (no TLB shootdown).
 */
bool arch_unmap_page(uint64_t addr, uint64_t (*alloc_table)(void *ctx), void *ctx);

/* True if @addr is mapped (for tests of the guard page). */
bool arch_is_mapped(uint64_t addr);

#endif

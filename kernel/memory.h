/*
 * memory.h: the kernel's physical memory state (phase "physmem").
 */
#ifndef MEMBOOT_KERNEL_MEMORY_H
#define MEMBOOT_KERNEL_MEMORY_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "mm/physmem.h"

extern struct physmem physmem;

/*
 * Feed the usable ranges of @bi to physmem and reserve what is already in
 * use: page 0 (real-mode IVT and BIOS data, and a NULL that must never be a
 * valid allocation), the kernel image with its .bss.
 */
void memory_init_physmem(const struct bootinfo *bi, bool dump);

/* A zeroed-on-use 4 KiB page for a page table, below 4 GiB ("pagetable"). */
uint64_t memory_alloc_pagetable(void *ctx);

/*
 * The buddy allocator now owns all free memory: physmem allocations are
 * over (page tables come from the page allocator). Remembers how many pages
 * physmem had reserved, for the census.
 */
void memory_retire_physmem(void);
uint64_t memory_retired_reserved_pages(void);

/* Build the kernel's identity map of all RAM, W^X, and switch to it. */
void memory_direct_map(const struct bootinfo *bi);

#endif

/*
 * pt_pages.h: where the boot's page-table pages come from, for every
 * mapping made after the kernel's own tables (the descriptor windows of
 * phase memmap, the APs' guard pages of phase smp): physmem until it
 * retires, the page allocator after.
 */
#ifndef MEMBOOT_MM_PT_PAGES_H
#define MEMBOOT_MM_PT_PAGES_H

#include <stdint.h>

#include "mm/physmem.h"

/* Where memory_alloc_pagetable() takes a page: from @pm on @node
 * (PHYSMEM_ANY_NODE: any node), until physmem retires; then from the page
 * allocator (on @node, or node 0). */
struct memory_pt_source {
	struct physmem *pm;
	uint32_t node;
};

/* A 4 KiB page for a page table, below 4 GiB ("pagetable"): its physical
 * address, 0 when there is none; @ctx is a struct memory_pt_source (the
 * page source the architecture's mapping functions call back). */
uint64_t memory_alloc_pagetable(void *ctx);

#endif

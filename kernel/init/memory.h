/*
 * memory.h: the kernel's physical memory state (phase "physmem").
 */
#ifndef MEMBOOT_KERNEL_MEMORY_H
#define MEMBOOT_KERNEL_MEMORY_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "mm/physmem.h"

/*
 * Phase "physmem": fill @pm with the usable ranges of @bi and reserve what
 * is already in use: page 0 (real-mode IVT and BIOS data, and a NULL that
 * must never be a valid allocation), the kernel image with its .bss. Page
 * tables come from @pm from here until memory_retire_physmem().
 */
void memory_init_physmem(const struct bootinfo *bi, bool dump, struct physmem *pm);

/* Where memory_alloc_pagetable() takes a page: from @pm on @node
 * (PHYSMEM_ANY_NODE: any node), until physmem retires; then from the page
 * allocator (on @node, or node 0). */
struct memory_pt_source {
	struct physmem *pm;
	uint32_t node;
};

/* A 4 KiB page for a page table, below 4 GiB ("pagetable"); @ctx is a
 * struct memory_pt_source (a pt_alloc_fn, arch/paging.h). */
uint64_t memory_alloc_pagetable(void *ctx);

/*
 * The buddy allocator now owns all free memory: physmem allocations are
 * over (@pm->retired: page tables come from the page allocator). Returns
 * the pages @pm keeps reserved for good, for the census baseline.
 */
uint64_t memory_retire_physmem(struct physmem *pm);
/* Its `physmem_retire` record and line: apart, so the printing can wait
 * until the time-critical part of memory init is over. */
void memory_report_retired(const struct physmem *pm);

/* Phase "pagetables": build the kernel's identity map of the ranges of
 * @bi, W^X, its tables from @pm, and switch to it. */
void memory_direct_map(const struct bootinfo *bi, struct physmem *pm);

#endif

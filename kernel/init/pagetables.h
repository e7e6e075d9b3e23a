/*
 * pagetables.h: phase `pagetables`, the kernel's own W^X identity map, and
 * the page-table page source every later mapping of the boot calls back
 * (phases memmap and smp).
 */
#ifndef MEMBOOT_KERNEL_INIT_PAGETABLES_H
#define MEMBOOT_KERNEL_INIT_PAGETABLES_H

#include <stdint.h>

#include "arch/map.h"
#include "boot/bootinfo.h"
#include "mm/physmem.h"

/* Where memory_alloc_pagetable() takes a page: from @pm on @node
 * (PHYSMEM_ANY_NODE: any node), until physmem retires; then from the page
 * allocator (on @node, or node 0). */
struct memory_pt_source {
	struct physmem *pm;
	uint32_t node;
};

/* A 4 KiB page for a page table, below 4 GiB ("pagetable"); @ctx is a
 * struct memory_pt_source (an arch_pt_alloc_fn, arch/map.h). */
uint64_t memory_alloc_pagetable(void *ctx);

/* Phase "pagetables": build the kernel's identity map of the ranges of
 * @bi, W^X, its tables from @pm, and switch to it; its figures go into
 * @dm (the boot state's, which the `direct_map` record reads when the
 * consoles drain). */
void init_pagetables(const struct bootinfo *bi, struct physmem *pm,
		     struct arch_direct_map_stats *dm);

#endif

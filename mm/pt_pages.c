/*
 * pt_pages.c: the boot's page-table pages (pt_pages.h).
 */
#include "mm/pt_pages.h"

#include "mm/alloc/alloc.h"

uint64_t memory_alloc_pagetable(void *ctx)
{
	const struct memory_pt_source *src = ctx;

	if (src->pm->retired) {
		uint64_t pfn = alloc_pages(src->node == PHYSMEM_ANY_NODE ? 0 : src->node, 0, 0);
		return pfn == ALLOC_NO_PFN ? 0 : pfn << PAGE_SHIFT;
	}
	return physmem_alloc_range(src->pm, 4096, 4096, 0, 1ULL << 32, src->node, false,
				   PHYSMEM_RESV_PAGETABLE);
}

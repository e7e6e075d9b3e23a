/*
 * hugetlb.c: phase `hugetlb`: takes `bs.topo`, `bs.memmap`, the allocator;
 * builds `bs.hugetlb`'s 2 MiB pools per node, filled in parallel (the pools
 * are mm/hugetlb/pool.c).
 */
#include "kernel/init/hugetlb.h"

#include "mm/alloc/alloc.h"
#include "mm/numa.h"

/* After memory init: the allocator, on the pool's node if it can. */
static void *table_from_allocator(void *ctx, size_t bytes, uint32_t node)
{
	unsigned order = 0;

	while ((PAGE_SIZE_BYTES << order) < bytes && order < ALLOC_MAX_ORDER)
		order++;
	if ((PAGE_SIZE_BYTES << order) < bytes)
		return NULL;
	uint64_t pfn = alloc_pages(node, order, 0);
	return pfn == ALLOC_NO_PFN ? NULL : (void *)(uintptr_t)(pfn << PAGE_SHIFT);
}

void init_hugetlb(const struct numa_topology *topo, const struct memmap *mm,
		  const struct hugetlb_settings *params, bool trace, struct hugetlb_pools *hp,
		  struct hugetlb_state *hs)
{
	bool has_mem[HUGETLB_MAX_NODES] = { false };

	hugetlb_nodes_with_memory(topo, has_mem);
	/* A CPU-less node's pools are built by the CPUs that initialised its
	 * memory (phase tiers chose them). */
	for (uint32_t n = 0; n < topo->nr_nodes && n < HUGETLB_MAX_NODES; n++)
		hs->cpu_node[n] = topo->nodes[n].init_node;
	hp->cpu_node = hs->cpu_node;
	hugetlb_build_pools(hp, &params->config, params->zero, has_mem, mm,
			    table_from_allocator, NULL);
	hugetlb_report(hp, trace);
}

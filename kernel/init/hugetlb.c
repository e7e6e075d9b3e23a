/*
 * hugetlb.c: the huge page pools' boot phases (the pools are mm/hugetlb/pool.c).
 */
#include "kernel/init/hugetlb.h"

#include "arch/cpu.h"
#include "mm/alloc/alloc.h"
#include "mm/numa.h"
#include "mm/physmem.h"

/* Below 1 GiB: page 0 is always reserved, so [0, 1 GiB) never holds a 1 GiB
 * page, and the boot identity map covers it before the "pagetables" phase. */
#define TABLE_LIMIT_BYTES (1ULL << 30)

static void *table_from_physmem(void *ctx, size_t bytes, uint32_t node)
{
	uint64_t size = (bytes + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
	uint64_t at = physmem_alloc_range(ctx, size, PAGE_SIZE_BYTES, 0, TABLE_LIMIT_BYTES,
					  PHYSMEM_ANY_NODE, false,
					  PHYSMEM_RESV_HUGETLB_TABLES);
	return at ? (void *)(uintptr_t)at : NULL;
}

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

static void nodes_with_memory(const struct numa_topology *topo, bool has_mem[HUGETLB_MAX_NODES])
{
	for (uint32_t n = 0; n < topo->nr_nodes && n < HUGETLB_MAX_NODES; n++)
		has_mem[n] = topo->nodes[n].mem_bytes != 0;
}

void hugetlb_boot_reserve(struct hugetlb_pools *hp, const struct hugetlb_settings *params,
			  const struct numa_topology *topo, struct physmem *pm)
{
	bool has_mem[HUGETLB_MAX_NODES] = { false };

	/* The kernel runs identity mapped: a page's address is its own. */
	hugetlb_pools_init(hp, topo->nr_nodes, 0, boot_tsc_at_entry);
	nodes_with_memory(topo, has_mem);
	hugetlb_reserve_gigantic(hp, &params->config, has_mem, cpu_features.pdpe1gb, pm,
				 table_from_physmem, pm);
}

void hugetlb_boot_pools(struct hugetlb_pools *hp, const struct hugetlb_settings *params,
			const struct numa_topology *topo, const struct memmap *mm, bool trace)
{
	static uint32_t cpu_node[HUGETLB_MAX_NODES];
	bool has_mem[HUGETLB_MAX_NODES] = { false };

	nodes_with_memory(topo, has_mem);
	/* A CPU-less node's pools are built by the CPUs that initialised its
	 * memory (phase tiers chose them). */
	for (uint32_t n = 0; n < topo->nr_nodes && n < HUGETLB_MAX_NODES; n++)
		cpu_node[n] = topo->nodes[n].init_node;
	hp->cpu_node = cpu_node;
	hugetlb_build_pools(hp, &params->config, params->zero, has_mem, mm,
			    table_from_allocator, NULL);
	hugetlb_report(hp, trace);
}

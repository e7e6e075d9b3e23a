/*
 * hugetlb1g.c: phase `hugetlb1g`: takes `bs.topo`, `bs.physmem`; builds
 * `bs.hugetlb`'s 1 GiB pages, reserved on their exact node before anything
 * large is allocated (the pools are mm/hugetlb/pool.c).
 */
#include "kernel/init/hugetlb1g.h"

#include "arch/counter.h"
#include "arch/cpu.h"
#include "mm/numa.h"
#include "mm/physmem.h"

extern char __kernel_start[];

/* In the 1 GiB-aligned block that holds the kernel image: the image is
 * reserved there, so that block never holds a 1 GiB page, and the boot
 * identity map covers it before the "pagetables" phase. That block is
 * [0, 1 GiB) where the kernel is linked low (x86_64, at 1 MiB) and the first
 * GiB of RAM where RAM starts above it (arm64 virt: 0x40000000), where
 * [0, 1 GiB) has no memory at all. */
#define TABLE_BLOCK_BYTES (1ULL << 30)

static void *table_from_physmem(void *ctx, size_t bytes, uint32_t node)
{
	uint64_t size = (bytes + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
	uint64_t low = (uint64_t)(uintptr_t)__kernel_start & ~(TABLE_BLOCK_BYTES - 1);
	uint64_t at = physmem_alloc_range(ctx, size, PAGE_SIZE_BYTES, low,
					  low + TABLE_BLOCK_BYTES, PHYSMEM_ANY_NODE, false,
					  PHYSMEM_RESV_HUGETLB_TABLES);
	return at ? (void *)(uintptr_t)at : NULL;
}

void init_hugetlb1g(const struct numa_topology *topo, const struct hugetlb_settings *params,
		    struct physmem *pm, struct hugetlb_pools *hp)
{
	bool has_mem[HUGETLB_MAX_NODES] = { false };

	/* The kernel runs identity mapped: a page's address is its own. */
	hugetlb_pools_init(hp, topo->nr_nodes, 0, arch_counter_at_entry);
	hugetlb_nodes_with_memory(topo, has_mem);
	hugetlb_reserve_gigantic(hp, &params->config, has_mem, arch_cpu_info.huge_1g, pm,
				 table_from_physmem, pm);
}

/*
 * hugetlb.h: phase `hugetlb`, the 2 MiB huge page pools per node, built
 * from the allocator once memory is usable (the 1 GiB pages came first:
 * kernel/init/hugetlb1g.h, which says what these phases give the pools).
 */
#ifndef MEMBOOT_KERNEL_INIT_HUGETLB_H
#define MEMBOOT_KERNEL_INIT_HUGETLB_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/hugetlb/hugetlb.h"

struct numa_topology;
struct memmap;

/* Who builds each node's pools, in the boot state: the pools keep a
 * pointer to it (struct hugetlb_pools' cpu_node) for good. */
struct hugetlb_state {
	uint32_t cpu_node[HUGETLB_MAX_NODES];
};

/* Phase "hugetlb": build the 2 MiB pools of @params from the allocator
 * over @mm into @hp (their builders in @hs), zero if asked, and report
 * every pool (@trace: each page too). */
void init_hugetlb(const struct numa_topology *topo, const struct memmap *mm,
		  const struct hugetlb_settings *params, bool trace, struct hugetlb_pools *hp,
		  struct hugetlb_state *hs);

#endif

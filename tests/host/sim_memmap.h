/*
 * sim_memmap.h: the page descriptors of a simulated machine, for host tests
 * of what runs after the kernel's memmap phase (memory init, the census, the
 * huge page pools).
 *
 * A test describes its machine as each node's span and the usable ranges
 * with their nodes (the same shape the kernel's numa phase produces); these
 * helpers build the memmap over it and mark each node's holes, as
 * kernel/init/memprep.c does, so every test starts from the kernel's state.
 */
#ifndef MEMBOOT_TESTS_HOST_SIM_MEMMAP_H
#define MEMBOOT_TESTS_HOST_SIM_MEMMAP_H

#include <stdint.h>

#include "mm/mminit.h"
#include "mm/memmap.h"

/*
 * The three-node machine test_init and test_hugetlb share (pfns): node 0
 * has a hole at [0x8000, 0x9000), node 2 has memory but, in those tests, no
 * CPUs (CPUs 0-1 on node 0, 2-3 on node 1: sim3_cpu_nodes).
 */
#define SIM3_NR_NODES 3
#define SIM3_NR_USABLE 4
#define SIM3_NR_CPUS 4
#define SIM3_TOP_PFN 0x48000ULL
extern const struct mm_node_range sim3_usable[SIM3_NR_USABLE];
extern const struct memmap_range sim3_span[SIM3_NR_NODES];
extern const uint32_t sim3_cpu_nodes[SIM3_NR_CPUS];

/*
 * Fill @mm for @nr_nodes nodes: node n spans @span[n] ([start_pfn, end_pfn)),
 * its descriptor array is malloc'ed into @arrays[n] and poisoned (0xa5) so a
 * descriptor nobody wrote is visible; each @usable range gets its node in the
 * node-id table, malloc'ed into *@nid_table for [0, @top_pfn). Free both
 * with sim_memmap_free().
 */
void sim_memmap_build(struct memmap *mm, memmap_nid_t **nid_table, struct page **arrays,
		      const struct memmap_range *span, uint32_t nr_nodes,
		      const struct mm_node_range *usable, uint32_t nr_usable, uint64_t top_pfn);

/* Mark every node's holes in @mi: its span outside its @usable ranges. */
void sim_memmap_mark_holes(struct mminit *mi, uint32_t nr_nodes,
			   const struct mm_node_range *usable, uint32_t nr_usable);

void sim_memmap_free(memmap_nid_t *nid_table, struct page **arrays, uint32_t nr_nodes);

#endif

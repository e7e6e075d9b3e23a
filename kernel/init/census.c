/*
 * census.c: phase `census`: takes `bs.topo`, `bs.memmap`, `bs.census`
 * (and `bs.meminit`: the pages memtest kept out); builds every page counted
 * exactly once; a lost page fails the boot (status 5). The self-tests'
 * censuses and the last one are this count too.
 */
#include "kernel/init/census.h"

#include "kernel/init/meminit.h"
#include "kernel/vm/vm.h"
#include "mm/census.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)

bool init_census(const struct numa_topology *topo, const struct memmap *mm,
		 const struct census_baseline *base, const struct meminit_state *mis,
		 struct census_ranges *ranges, const char *when)
{
	/* Tables of live address spaces came from the allocator after boot:
	 * they are PAGE_PAGETABLE, but not among the early reservations (the
	 * vm layer counts them); the 1 GiB pool pages are, with PAGE_HUGE heads. */
	struct census_input in = {
		.mm = mm, .ranges = ranges->r, .nr_ranges = topo->nr_ranges,
		.fixed_pages = base->retired_reserved_pages - base->gigantic_pages -
			       base->badram_pages + vm_table_pages(),
		.bad_pages = base->badram_pages,
	};
	struct census c;

	/* The pages memtest kept out are the engine's count (its work lists
	 * stay reserved for good). */
	for (uint32_t nid = 0; nid < mis->mi.nr_nodes; nid++)
		in.bad_pages += mis->mi.nodes[nid].bad_pages;
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		ranges->r[i] = (struct mm_node_range){ PFN(topo->ranges[i].start),
						       PFN(topo->ranges[i].end), topo->ranges[i].node };
	return census_take(&in, when, &c);
}

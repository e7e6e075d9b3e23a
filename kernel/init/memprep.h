/*
 * memprep.h: phase `memprep`, everything the nodes' CPUs need before their
 * first chunk of phase meminit (meminit.h), done while an AP still
 * measures the clock (phase clockcheck).
 */
#ifndef MEMBOOT_KERNEL_INIT_MEMPREP_H
#define MEMBOOT_KERNEL_INIT_MEMPREP_H

#include "kernel/init/census.h"
#include "kernel/init/meminit.h"
#include "mm/alloc/pcp_mem.h"

struct hugetlb_pools;
struct memtest_settings;
struct numa_topology;
struct physmem;

/* Phase "memprep": start the allocator over @mm, reserve the per-CPU
 * lists' memory (@pcp, as @pcps sizes them), take @pm's free ranges as the
 * init engine's work in @st (under @set; memtest=N of @mt tests them), @pm
 * retires, and what it keeps reserved is @base; write the fixed
 * descriptors (reserved pages, holes; the 1 GiB pool pages of @hp get
 * their heads). */
void init_memprep(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		  const struct meminit_settings *set, const struct memtest_settings *mt,
		  const struct pcp_settings *pcps, struct physmem *pm, struct memmap *mm,
		  struct pcp_state *pcp, struct meminit_state *st, struct census_baseline *base);

#endif

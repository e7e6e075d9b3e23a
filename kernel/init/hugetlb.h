/*
 * hugetlb.h: the huge page pools' boot phases. The pools themselves are
 * mm/hugetlb/hugetlb.h (pure C, host-tested); these wrappers only give them the
 * machine: the CPU's 1 GiB page support, memory for their tables (physmem
 * below 1 GiB before memory init, the allocator after), the identity map and
 * the boot clock.
 */
#ifndef MEMBOOT_KERNEL_HUGETLB_H
#define MEMBOOT_KERNEL_HUGETLB_H

#include <stdbool.h>

#include "mm/hugetlb/hugetlb.h"

struct numa_topology;
struct physmem;
struct memmap;

/* Phase "hugetlb1g": reserve the 1 GiB pages of @params from @pm into @hp. */
void hugetlb_boot_reserve(struct hugetlb_pools *hp, const struct hugetlb_settings *params,
			  const struct numa_topology *topo, struct physmem *pm);
/* Phase "hugetlb": build the 2 MiB pools from the allocator over @mm, zero
 * if asked, and report every pool. */
void hugetlb_boot_pools(struct hugetlb_pools *hp, const struct hugetlb_settings *params,
			const struct numa_topology *topo, const struct memmap *mm, bool trace);

#endif

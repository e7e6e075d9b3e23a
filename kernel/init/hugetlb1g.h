/*
 * hugetlb1g.h: phase `hugetlb1g`, the 1 GiB huge pages reserved before
 * anything large is allocated. The pools themselves are mm/hugetlb/hugetlb.h
 * (pure C, host-tested); the boot phases (this one and phase hugetlb,
 * kernel/init/hugetlb.h) only give them the machine: the CPU's 1 GiB page
 * support, memory for their tables (physmem below 1 GiB before memory
 * init, the allocator after), the identity map and the boot clock.
 */
#ifndef MEMBOOT_KERNEL_INIT_HUGETLB1G_H
#define MEMBOOT_KERNEL_INIT_HUGETLB1G_H

#include <stdbool.h>

#include "mm/hugetlb/hugetlb.h"

struct numa_topology;
struct physmem;

/* Phase "hugetlb1g": reserve the 1 GiB pages of @params from @pm into @hp. */
void init_hugetlb1g(const struct numa_topology *topo, const struct hugetlb_settings *params,
		    struct physmem *pm, struct hugetlb_pools *hp);

#endif

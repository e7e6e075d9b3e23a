/*
 * numa_select.c: a balanced choice of CPUs over groups (nodes), for a limit
 * below the CPUs there are: numa_balanced_quota() and numa_select_balanced()
 * (mm/numa.h). The builder keeps at most NUMA_MAX_CPUS of the MADT's
 * processors with it, the SMP bring-up applies maxcpus= with it.
 */
#include "mm/numa.h"

#include "kernel/services/panic.h"

uint32_t numa_balanced_quota(const uint32_t *count, uint32_t nr_groups, uint32_t limit,
			     uint32_t first, uint32_t *quota)
{
	uint32_t left = limit ? limit : 1, total = 0;

	for (uint32_t g = 0; g < nr_groups; g++)
		quota[g] = 0;
	if (first >= nr_groups)
		first = 0;
	/* Water-filling: each round gives every group still short of its
	 * CPUs an equal share; a round that saturates no group leaves less
	 * than one CPU per open group, handed out one by one from @first. */
	while (left) {
		uint32_t open = 0, share;

		for (uint32_t g = 0; g < nr_groups; g++)
			open += quota[g] < count[g];
		if (!open)
			break;
		share = left / open;
		if (!share) {
			for (uint32_t k = 0; k < nr_groups && left; k++) {
				uint32_t g = (first + k) % nr_groups;

				if (quota[g] < count[g]) {
					quota[g]++;
					left--;
				}
			}
			break;
		}
		for (uint32_t g = 0; g < nr_groups; g++) {
			uint32_t add = count[g] - quota[g] < share ? count[g] - quota[g] : share;

			quota[g] += add;
			left -= add;
		}
	}
	for (uint32_t g = 0; g < nr_groups; g++)
		total += quota[g];
	return total;
}

uint32_t numa_select_balanced(const uint32_t *group_of, uint32_t n, uint32_t nr_groups,
			      uint32_t limit, bool *keep, uint32_t *quota)
{
	uint32_t count[NUMA_MAX_NODES] = { 0 }, taken[NUMA_MAX_NODES] = { 0 }, kept = 0;

	ASSERT(nr_groups >= 1 && nr_groups <= NUMA_MAX_NODES, "%u groups", nr_groups);
	for (uint32_t i = 0; i < n; i++) {
		ASSERT(group_of[i] < nr_groups, "cpu %u in group %u of %u", i, group_of[i], nr_groups);
		count[group_of[i]]++;
	}
	if (n == 0)
		return 0;
	numa_balanced_quota(count, nr_groups, limit, group_of[0], quota);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = group_of[i];

		/* The boot CPU is first in its group: the quota's first place. */
		keep[i] = taken[g] < quota[g];
		taken[g] += keep[i];
		kept += keep[i];
	}
	return kept;
}

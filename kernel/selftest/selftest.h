/*
 * selftest.h: in-kernel self-tests and deliberate faults chosen on the
 * command line (memboot.selftest=, memboot.fault=).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_H
#define MEMBOOT_KERNEL_SELFTEST_H

#include <stdbool.h>

struct fwcfg_blob;
struct hugetlb_pools;
struct memmap;
struct numa_topology;

/* Run the self-tests memboot.selftest names (kernel/selftest/select.h), the
 * hugetlb and pt ones on @pools, replay on the trace in fw_cfg @replay,
 * each followed by a census of the pages of @topo in @mm; false if any
 * failed. */
bool selftests_run(const struct numa_topology *topo, struct memmap *mm,
		   struct hugetlb_pools *pools, const struct fwcfg_blob *replay);

/* Raise the fault named by memboot.fault, if any (does not return then);
 * memboot.fault=lose-page wipes a descriptor in @mm. */
void fault_inject(struct memmap *mm);

#endif

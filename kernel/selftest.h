/*
 * selftest.h: in-kernel self-tests and deliberate faults chosen on the
 * command line (memboot.selftest=, memboot.fault=).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_H
#define MEMBOOT_KERNEL_SELFTEST_H

#include <stdbool.h>

struct hugetlb_pools;

/* Run the self-tests memboot.selftest names (kernel/selftest_keys.h), the
 * hugetlb and pt ones on @pools; false if any failed. */
bool selftests_run(struct hugetlb_pools *pools);

/* Raise the fault named by memboot.fault, if any (does not return then). */
void fault_inject(void);

#endif

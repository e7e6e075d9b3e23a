/*
 * selftest.c: phase `selftest`: takes `bs.topo`, `bs.memmap`, `bs.hugetlb`,
 * `bs.tiers` and the census, handed over as a `struct selftest_ctx`, and
 * what the command line asks; builds the self-tests' verdicts
 * (kernel/selftest/list.h; `memboot.selftest=list` prints the table). A
 * fault asked for with memboot.fault is raised first: after bring-up and
 * the boot census, where each is meant to strike.
 */
#include "kernel/init/selftest.h"

#include "kernel/fault/fault.h"

bool init_selftest(const struct selftest_ctx *ctx)
{
	fault_inject(ctx->mm);
	return selftests_run(ctx);
}

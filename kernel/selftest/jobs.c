/*
 * jobs.c: memboot.selftest=jobs, jobs of odd sizes on every node and on all
 * CPUs, each unit done exactly once (the checks are job_selftest(),
 * kernel/services/jobs/job.c, host-tested too).
 */
#include <stdint.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/selftest/tests.h"
#include "mm/alloc/alloc.h"
#include "mm/numa.h"

/*
 * The counters want 1 MiB in one block; with less, the shapes that fit in
 * the largest block there is run (job_selftest() skips the others), and
 * with not even a page the test is skipped: no memory is not a failure.
 */
bool selftest_jobs(const struct selftest_ctx *ctx, const char **skipped)
{
	unsigned order = 8;                       /* 1 MiB of counters */
	uint64_t pfn = ALLOC_NO_PFN;
	bool ok;

	for (;;) {
		pfn = alloc_pages(this_cpu_state()->mem_node, order, 0);
		if (pfn != ALLOC_NO_PFN || order == 0)
			break;
		order--;
	}
	if (pfn == ALLOC_NO_PFN) {
		*skipped = "not enough memory";
		return true;
	}
	if (order < 8)
		pr_info("selftest jobs: %llu KiB of scratch, not 1 MiB: the larger shapes are skipped",
			(unsigned long long)(4ULL << order));
	ok = job_selftest((uint8_t *)(uintptr_t)(pfn << 12), 4096ULL << order, ctx->topo->nr_nodes);
	alloc_free(pfn, order);
	return ok;
}

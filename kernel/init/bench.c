/*
 * bench.c: phase `bench`: takes `bs.topo`, `bs.memmap` and `bs.hugetlb`
 * (as a `struct selftest_ctx`) and memboot.bench; builds seed 003's
 * page-table fault-in table in the guest (`pt_bench` records,
 * kernel/bench/pt.c). The phase runs only when memboot.bench asks.
 */
#include "kernel/init/bench.h"

void init_bench(const struct selftest_ctx *ctx, const struct bench_settings *s)
{
	if (s->pt)
		bench_pt_run(ctx, s);
}

/*
 * bench.h: benchmarks run in the guest after the self-tests, chosen with
 * memboot.bench= (docs/pagetables.md): the boot's phase `bench`.
 *
 * Their keys and settings are kernel/bench/settings.c (pure C: the host
 * tests parse them); the benchmarks are the other files here, handed the
 * boot's state as the self-tests are (struct selftest_ctx).
 */
#ifndef MEMBOOT_KERNEL_BENCH_H
#define MEMBOOT_KERNEL_BENCH_H

#include <stdbool.h>
#include <stdint.h>

struct selftest_ctx;

struct bench_settings {
	bool pt;                   /* memboot.bench=pt: the fault-in benchmark */
	uint64_t ptbench_mib;      /* its region */
	uint64_t ptbench_reps;     /* runs per cell (the median is reported) */
};

extern struct bench_settings bench_settings;
struct param_table;
extern const struct param_table bench_param_table;

/* Whether memboot.bench asked for any benchmark: the phase runs only then. */
bool bench_wanted(const struct bench_settings *s);

/* memboot.bench=pt: seed 003's fault-in table from real page faults
 * (kernel/bench/pt.c). */
void bench_pt_run(const struct selftest_ctx *ctx, const struct bench_settings *s);

#endif

/*
 * bench.h: phase `bench` (kernel/init/phases.h): only with memboot.bench.
 */
#ifndef MEMBOOT_KERNEL_INIT_BENCH_H
#define MEMBOOT_KERNEL_INIT_BENCH_H

#include "kernel/bench/bench.h"
#include "kernel/selftest/selftest.h"

/* The benchmarks @s asks for, on what @ctx hands them (the self-tests'
 * view of the boot). */
void init_bench(const struct selftest_ctx *ctx, const struct bench_settings *s);

#endif

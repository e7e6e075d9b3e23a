/*
 * settings.c: memboot.bench and the benchmarks' keys (docs/cmdline.md).
 */
#include "kernel/bench/bench.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"

struct bench_settings bench_settings = {
	.pt = false,
	.ptbench_mib = 64,
	.ptbench_reps = 3,
};

bool bench_wanted(const struct bench_settings *s)
{
	return s->pt;
}

/* The benchmarks memboot.bench= can name (one so far), in bit order. */
static const char *const bench_names[] = { "pt", NULL };

static bool bench_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
		       size_t err_bytes)
{
	(void)sign;
	for (unsigned i = 0; bench_names[i]; i++) {
		if (strcmp(item, bench_names[i]) == 0) {
			*(uint32_t *)ctx |= 1u << i;
			*key = i;
			return true;
		}
	}
	snprintf(err, err_bytes, "'%s' is not one", item);
	return false;
}

/* memboot.bench=pt[,...] or all: the benchmarks to run. */
static bool parse_bench(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint32_t mask = 0;
	const struct cmdline_list list = {
		.what = "benchmark names from: pt (or all)", .item = bench_item, .ctx = &mask };

	if (value && strcmp(value, "all") == 0)
		mask = (1u << (sizeof(bench_names) / sizeof(bench_names[0]) - 1)) - 1;
	else if (!cmdline_parse_list(value, &list, err, err_bytes))
		return false;
	*(bool *)ptr = mask & 1u;
	return true;
}

static const struct param bench_params[] = {
	{ .key = "memboot.bench", .type = PARAM_FUNC, .ptr = &bench_settings.pt,
	  .fn = parse_bench, .help = "in-guest benchmarks to run: pt, or all" },
	{ .key = "memboot.ptbench_mib", .type = PARAM_U64, .ptr = &bench_settings.ptbench_mib,
	  .min = 2, .max = 65536, .help = "region size of the page-table fault-in benchmark" },
	{ .key = "memboot.ptbench_reps", .type = PARAM_U64, .ptr = &bench_settings.ptbench_reps,
	  .min = 1, .max = 15, .help = "runs per cell of the fault-in benchmark (median)" },
};
PARAM_TABLE(bench_param_table, "bench", bench_params);

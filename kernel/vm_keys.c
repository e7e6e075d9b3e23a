/*
 * vm_keys.c: the page-table keys (vm_keys.h), apart from kernel/vm*.c so
 * the host tests parse them.
 */
#include "kernel/vm_keys.h"

#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "mm/pt.h"

struct vm_settings vm_settings = {
	.ptlock = PT_LOCK_SPLIT,
	.pt_zero = true,
	.bench_pt = false,
	.ptbench_mib = 64,
	.ptbench_reps = 3,
};

/* In the order of enum pt_lock_mode. */
static const char *const ptlock_names[] = { "split", "global", NULL };

/* memboot.bench=pt: the benchmarks to run (only one so far). */
static bool parse_bench(const char *value, void *ptr, char *err, size_t err_bytes)
{
	if (!value || strcmp(value, "pt") != 0) {
		snprintf(err, err_bytes, "unknown benchmark '%s' (known: pt)", value ? value : "");
		return false;
	}
	*(bool *)ptr = true;
	return true;
}

static const struct param vm_params[] = {
	{ .key = "memboot.ptlock", .type = PARAM_ENUM, .ptr = &vm_settings.ptlock,
	  .choices = ptlock_names, .help = "page-table locks: a lock per PMD table, or one per space" },
	{ .key = "memboot.pt_zero", .type = PARAM_BOOL, .ptr = &vm_settings.pt_zero,
	  .help = "zero each page a fault maps (on by default)" },
	{ .key = "memboot.bench", .type = PARAM_FUNC, .ptr = &vm_settings.bench_pt,
	  .fn = parse_bench, .help = "in-guest benchmarks to run: pt" },
	{ .key = "memboot.ptbench_mib", .type = PARAM_U64, .ptr = &vm_settings.ptbench_mib,
	  .min = 2, .max = 65536, .help = "region size of the page-table fault-in benchmark" },
	{ .key = "memboot.ptbench_reps", .type = PARAM_U64, .ptr = &vm_settings.ptbench_reps,
	  .min = 1, .max = 15, .help = "runs per cell of the fault-in benchmark (median)" },
};
PARAM_TABLE(vm_param_table, "vm", vm_params);

/*
 * meminit_settings.c: memory init's command-line keys (meminit_settings.h).
 */
#include "mm/meminit_settings.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"
#include "mm/mminit.h"

struct meminit_settings meminit_settings = {
	.policy = MMINIT_DEFERRED,
	.threads_mode = INIT_THREADS_NODE,
	.threads = 0,
	.early_pages = 32768,              /* one 128 MiB section, as Linux starts */
	.early_alloc_pages = 0,
	.trace = false,
	.deadline_ms = 10000,
};

/* In the order of enum mminit_policy. */
static const char *const init_names[] = { "serial", "deferred", "lazy", NULL };
_Static_assert(MMINIT_SERIAL == 0 && MMINIT_DEFERRED == 1 && MMINIT_LAZY == 2,
	       "init_names[] follows enum mminit_policy");

/* memboot.init_threads=1|node|all|N, into the struct meminit_settings at @ptr. */
static bool parse_init_threads(const char *value, void *ptr, char *err, size_t err_bytes)
{
	struct meminit_settings *s = ptr;
	uint64_t n;

	if (value && strcmp(value, "node") == 0) {
		s->threads_mode = INIT_THREADS_NODE;
	} else if (value && strcmp(value, "all") == 0) {
		s->threads_mode = INIT_THREADS_ALL;
	} else if (value && cmdline_parse_u64(value, &n) && n >= 1 && n <= 256) {
		s->threads_mode = n == 1 ? INIT_THREADS_ONE : INIT_THREADS_N;
		s->threads = n;
	} else {
		snprintf(err, err_bytes, "1, node, all, or a thread count 1..256");
		return false;
	}
	return true;
}

static const struct param meminit_params[] = {
	{ .key = "memboot.init", .type = PARAM_ENUM, .ptr = &meminit_settings.policy,
	  .choices = init_names, .help = "how page descriptors are initialised" },
	{ .key = "memboot.init_threads", .type = PARAM_FUNC, .ptr = &meminit_settings,
	  .fn = parse_init_threads, .help = "threads per node for the parallel init" },
	{ .key = "memboot.early_pages", .type = PARAM_U64, .ptr = &meminit_settings.early_pages,
	  .min = 0, .max = 1ULL << 40, .help = "pages the boot CPU initialises before the parallel part" },
	{ .key = "memboot.early_alloc_pages", .type = PARAM_U64,
	  .ptr = &meminit_settings.early_alloc_pages, .min = 0, .max = 1ULL << 40,
	  .help = "debug: early page allocations before the parallel part" },
	{ .key = "memboot.trace", .type = PARAM_BOOL, .ptr = &meminit_settings.trace,
	  .help = "print a record per chunk of the parallel init" },
	{ .key = "memboot.init_deadline_ms", .type = PARAM_U64, .ptr = &meminit_settings.deadline_ms,
	  .min = 0, .max = 3600000,
	  .help = "a node CPU silent this long mid-chunk is lost, its work redone (0: never)" },
};
PARAM_TABLE(meminit_param_table, "meminit", meminit_params);

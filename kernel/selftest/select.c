/*
 * select.c: which self-tests and faults the command line asks for
 * (select.h). Pure C, apart from the ring-0 self-tests of this directory, so
 * the host tests parse the same table. The names are kernel/selftest/list.h's.
 */
#include "kernel/selftest/select.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"

struct selftest_settings selftest_settings = {
	.selftests = 0,
	.list = false,
	.deadline_ms = 300000,
	.clock_ms = 1000,
	.fault = FAULT_NONE,
};

#define SELFTEST_FIELDS(id, name, fn, needs, desc) { name, needs, desc },
static const struct {
	const char *name, *needs, *description;
} selftest_entries[SELFTEST_COUNT] = { SELFTEST_LIST(SELFTEST_FIELDS) };
#undef SELFTEST_FIELDS

/* "clock, jobs, ...": the list's names, for the key's help and messages. */
#define SELFTEST_CSV(id, name, fn, needs, desc) ", " name
#define SELFTEST_NAMES (&(SELFTEST_LIST(SELFTEST_CSV))[2])
#define SELFTEST_SPACED(id, name, fn, needs, desc) " " name

const char *selftest_name(unsigned i)
{
	return i < SELFTEST_COUNT ? selftest_entries[i].name : NULL;
}

const char *selftest_needs(unsigned i)
{
	return i < SELFTEST_COUNT ? selftest_entries[i].needs : NULL;
}

const char *selftest_description(unsigned i)
{
	return i < SELFTEST_COUNT ? selftest_entries[i].description : NULL;
}

static const char *const fault_names[] = {
	"none", "de", "ud", "gp", "pf", "df", "panic", "assert", "ap-ud", "ap-guard", "write-text",
	"exec-data", "lose-page", "ap-park", "null-write", "ap-stall", "hang", "alloc-loop",
	NULL };

const char *selftest_fault_name(unsigned fault)
{
	return fault < sizeof(fault_names) / sizeof(fault_names[0]) - 1 ? fault_names[fault] : "?";
}

unsigned selftest_count(const struct selftest_settings *s)
{
	return s->list ? 0 : (unsigned)__builtin_popcountll(s->selftests);
}

struct selftest_pick {
	uint64_t mask;
	bool list;
};

/* One name of memboot.selftest=a,b,c (or list) into the struct selftest_pick at @ctx. */
static bool selftest_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
			  size_t err_bytes)
{
	struct selftest_pick *pick = ctx;

	if (strcmp(item, "list") == 0) {
		pick->list = true;
		*key = SELFTEST_COUNT;
		return true;
	}
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		if (strcmp(item, selftest_entries[i].name) == 0) {
			pick->mask |= 1ull << i;
			*key = i;
			return true;
		}
	}
	snprintf(err, err_bytes, "'%s' is not one", item);
	return false;
}

/* memboot.selftest=a,b,c: a list of self-test names (cmdline_parse_list's
 * rule), or `list` among them: print the table and run none. */
static bool parse_selftests(const char *value, void *ptr, char *err, size_t err_bytes)
{
	struct selftest_settings *set = ptr;
	struct selftest_pick pick = { 0 };
	char what[160];
	const struct cmdline_list list = { .what = what, .item = selftest_item, .ctx = &pick };

	snprintf(what, sizeof(what), "self-test names from: %s, or list", SELFTEST_NAMES);
	if (!cmdline_parse_list(value, &list, err, err_bytes))
		return false;
	set->selftests = pick.mask;
	set->list = pick.list;
	return true;
}

static const struct param selftest_params[] = {
	{ .key = "memboot.selftest", .type = PARAM_FUNC, .ptr = &selftest_settings,
	  .fn = parse_selftests, .help = "self-tests to run, or list (print them, run none):"
	  SELFTEST_LIST(SELFTEST_SPACED) },
	{ .key = "memboot.selftest_deadline_ms", .type = PARAM_U64,
	  .ptr = &selftest_settings.deadline_ms, .min = 0, .max = 3600000,
	  .help = "a self-test still running after this long ends the boot (status 4); 0: never" },
	{ .key = "memboot.clock_ms", .type = PARAM_U64, .ptr = &selftest_settings.clock_ms,
	  .min = 10, .max = 60000, .help = "length of the clock self-test busy-wait" },
	{ .key = "memboot.fault", .type = PARAM_ENUM, .ptr = &selftest_settings.fault,
	  .choices = fault_names, .help = "raise a fault on purpose, to test reporting" },
};
PARAM_TABLE(selftest_param_table, "selftest", selftest_params);

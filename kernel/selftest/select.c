/*
 * select.c: which self-tests and faults the command line asks for
 * (select.h). Pure C, apart from the ring-0 self-tests of this directory, so
 * the host tests parse the same table.
 */
#include "kernel/selftest/select.h"

#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"

struct selftest_settings selftest_settings = {
	.selftests = 0,
	.clock_ms = 1000,
	.fault = FAULT_NONE,
};

/* Bit i of enum selftest_bits is selftest_names[i]. */
static const char *const selftest_names[] = { "clock", "jobs", "alloc", "hugetlb", "pt", "churn", NULL };

static const char *const fault_names[] = {
	"none", "de", "ud", "gp", "pf", "df", "panic", "assert", "ap-ud", "ap-guard", "write-text",
	"exec-data", "lose-page", NULL };

const char *selftest_fault_name(unsigned fault)
{
	return fault < sizeof(fault_names) / sizeof(fault_names[0]) - 1 ? fault_names[fault] : "?";
}

/* One name of memboot.selftest=a,b,c into the mask at @ctx. */
static bool selftest_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
			  size_t err_bytes)
{
	for (unsigned i = 0; selftest_names[i]; i++) {
		if (strcmp(item, selftest_names[i]) == 0) {
			*(uint64_t *)ctx |= 1ull << i;
			*key = i;
			return true;
		}
	}
	snprintf(err, err_bytes, "'%s' is not one", item);
	return false;
}

/* memboot.selftest=a,b,c: a list of self-test names (cmdline_parse_list's rule). */
static bool parse_selftests(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t mask = 0;
	const struct cmdline_list list = {
		.what = "self-test names from: clock, jobs, alloc, hugetlb, pt, churn",
		.item = selftest_item, .ctx = &mask };

	if (!cmdline_parse_list(value, &list, err, err_bytes))
		return false;
	*(uint64_t *)ptr = mask;
	return true;
}

static const struct param selftest_params[] = {
	{ .key = "memboot.selftest", .type = PARAM_FUNC, .ptr = &selftest_settings.selftests,
	  .fn = parse_selftests, .help = "self-tests to run: clock, jobs, alloc, hugetlb, pt, churn" },
	{ .key = "memboot.clock_ms", .type = PARAM_U64, .ptr = &selftest_settings.clock_ms,
	  .min = 10, .max = 60000, .help = "length of the clock self-test busy-wait" },
	{ .key = "memboot.fault", .type = PARAM_ENUM, .ptr = &selftest_settings.fault,
	  .choices = fault_names, .help = "raise a fault on purpose, to test reporting" },
};
PARAM_TABLE(selftest_param_table, "selftest", selftest_params);

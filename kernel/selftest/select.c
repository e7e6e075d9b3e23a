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
static const char *const selftest_names[] = { "clock", "jobs", "alloc", "hugetlb", "pt", "churn", "replay", NULL };

static const char *const fault_names[] = {
	"none", "de", "ud", "gp", "pf", "df", "panic", "assert", "ap-ud", "ap-guard", "write-text",
	"exec-data", "lose-page", NULL };

const char *selftest_fault_name(unsigned fault)
{
	return fault < sizeof(fault_names) / sizeof(fault_names[0]) - 1 ? fault_names[fault] : "?";
}

/* memboot.selftest=a,b,c: a comma-separated list of self-test names. */
static bool parse_selftests(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t mask = 0;
	const char *s = value;

	if (!value || !*value) {
		snprintf(err, err_bytes, "a comma-separated list of names from: clock, jobs, alloc, hugetlb, pt, churn, replay");
		return false;
	}
	while (*s) {
		size_t n = strcspn(s, ",");
		bool found = false;
		for (unsigned i = 0; selftest_names[i]; i++) {
			if (strlen(selftest_names[i]) == n && strncmp(s, selftest_names[i], n) == 0) {
				mask |= 1ull << i;
				found = true;
			}
		}
		if (!found) {
			snprintf(err, err_bytes, "names from: clock, jobs, alloc, hugetlb, pt, churn, replay; '%.*s' is not one",
				 (int)n, s);
			return false;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	*(uint64_t *)ptr = mask;
	return true;
}

static const struct param selftest_params[] = {
	{ .key = "memboot.selftest", .type = PARAM_FUNC, .ptr = &selftest_settings.selftests,
	  .fn = parse_selftests, .help = "self-tests to run: clock, jobs, alloc, hugetlb, pt, churn, replay" },
	{ .key = "memboot.clock_ms", .type = PARAM_U64, .ptr = &selftest_settings.clock_ms,
	  .min = 10, .max = 60000, .help = "length of the clock self-test busy-wait" },
	{ .key = "memboot.fault", .type = PARAM_ENUM, .ptr = &selftest_settings.fault,
	  .choices = fault_names, .help = "raise a fault on purpose, to test reporting" },
};
PARAM_TABLE(selftest_param_table, "selftest", selftest_params);

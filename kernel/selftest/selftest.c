/*
 * selftest.c: the runner over the self-test table (kernel/selftest/list.h).
 */
#include "kernel/selftest/selftest.h"

#include <stdio.h>

#include "kernel/services/exit.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/watchdog/watchdog.h"
#include "kernel/selftest/select.h"
#include "kernel/selftest/tests.h"

struct selftest {
	const char *name;
	bool (*run)(const struct selftest_ctx *ctx, const char **skipped);
};

#define SELFTEST_ENTRY(id, name, fn, needs, desc) [SELFTEST_INDEX_##id] = { name, fn },
static const struct selftest selftests[SELFTEST_COUNT] = { SELFTEST_LIST(SELFTEST_ENTRY) };
#undef SELFTEST_ENTRY

/* A self-test that could not run here (too little memory): a line and a
 * record saying so, and not a failure. */
static void selftest_skipped(const char *name, const char *why)
{
	struct record r;

	rec_begin(&r, "selftest");
	rec_str(&r, "name", name);
	rec_bool(&r, "ok", true);
	rec_bool(&r, "skipped", true);
	rec_str(&r, "reason", why);
	record_report(&r, LOG_INFO, "selftest {name}: skipped: {reason}");
}

static void selftest_result(const struct selftest_ctx *ctx, const char *name, bool ok)
{
	struct record r;

	/* Every page accounted for after every self-test, not only at the end. */
	ok = ctx->census(ctx->census_arg, name) && ok;
	rec_begin(&r, "selftest");
	rec_str(&r, "name", name);
	rec_bool(&r, "ok", ok);
	if (ok)
		record_report(&r, LOG_INFO, "selftest {name}: passed");
	else
		record_report(&r, LOG_ERR, "selftest {name}: FAILED");
}

/*
 * The self-test @arg (its name) is still running at its deadline: on the
 * boot CPU, as the watch tick's NMI, wherever that CPU was (in the test, or
 * waiting for other CPUs in it). The test's record says it hung, and the
 * boot ends with the self-test status.
 */
static void selftest_hung(void *arg)
{
	const char *name = arg;
	struct record r;
	char why[96];

	rec_begin(&r, "selftest");
	rec_str(&r, "name", name);
	rec_bool(&r, "ok", false);
	rec_bool(&r, "hung", true);
	rec_u64(&r, "deadline_ms", selftest_settings.deadline_ms);
	record_report(&r, LOG_ERR, "selftest {name}: still running after {deadline_ms} ms "
		      "(memboot.selftest_deadline_ms): ended by the boot's watchdog");
	snprintf(why, sizeof(why), "self-test %s did not finish within %llu ms", name,
		 (unsigned long long)selftest_settings.deadline_ms);
	kernel_exit(EXIT_SELFTEST, why);
}

/* Watch the self-test about to run (once a boot, a line if it cannot be). */
static void selftest_watch(const char *name)
{
	static bool told;
	char why[160];

	if (!selftest_settings.deadline_ms)
		return;
	if (!watchdog_watch(selftest_settings.deadline_ms * 1000000ull, selftest_hung,
			    (void *)name, why, sizeof(why)) && !told) {
		told = true;
		pr_info("selftest: no watch on the self-tests (%s): one that hangs is ended only by "
			"the machine's watchdog, a reset, where one is armed", why);
	}
}

/* memboot.selftest=list: the table as lines and records, in its order. */
static void selftests_list(void)
{
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		struct record r;

		rec_begin(&r, "selftest_entry");
		rec_str(&r, "name", selftest_name(i));
		rec_str(&r, "needs", selftest_needs(i));
		rec_str(&r, "description", selftest_description(i));
		record_report(&r, LOG_INFO, "selftest {name:,-8} {description}; needs {needs}");
	}
}

bool selftests_run(const struct selftest_ctx *ctx)
{
	bool all_ok = true;

	if (selftest_settings.list) {
		selftests_list();
		return true;
	}
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		const char *skipped = NULL;
		bool ok;

		if (!(selftest_settings.selftests & (1ull << i)))
			continue;
		selftest_watch(selftests[i].name);
		ok = selftests[i].run(ctx, &skipped);
		if (selftest_settings.deadline_ms)
			watchdog_unwatch();
		if (skipped)
			selftest_skipped(selftests[i].name, skipped);
		else
			selftest_result(ctx, selftests[i].name, ok);
		all_ok &= ok;
	}
	return all_ok;
}

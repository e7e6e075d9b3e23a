/*
 * selftest.c: the runner over the self-test table (kernel/selftest/list.h).
 */
#include "kernel/selftest/selftest.h"

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
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
		ok = selftests[i].run(ctx, &skipped);
		if (skipped)
			selftest_skipped(selftests[i].name, skipped);
		else
			selftest_result(ctx, selftests[i].name, ok);
		all_ok &= ok;
	}
	return all_ok;
}

/*
 * test_clock.c: the clock's one story (kernel/services/clock/clock.c) over
 * a simulated architecture (the arch/clock.h hooks below): a figure given
 * and no second reference (arm64's way), none without the tables, none at
 * all, a poor one checked in phase acpi, the best reference refining it on
 * an AP while the others cross-check it, a reference refused or not
 * readable. The simulated CPUs are job_host's threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arch/clock.h"
#include "kernel/services/clock/clock.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/console.h"
#include "kernel/services/jobs/platform.h"
#include "tests/host/host_support.h"
#include "tests/host/job_host.h"

/* ---- the simulated architecture ---------------------------------------- */

static struct {
	struct arch_clock_first first;      /* what arch_clock_first() finds */
	uint64_t late_hz;                   /* what arch_clock_first_late() finds */
	const char *late_method, *late_missing;
	struct arch_clock_ref refs[ARCH_CLOCK_MAX_REFS];
	uint32_t nr_refs;
	bool open_fails[ARCH_CLOCK_MAX_REFS];
	struct clockcal_result res[ARCH_CLOCK_MAX_REFS];
	const char *refused[ARCH_CLOCK_MAX_REFS];
	uint32_t opened[ARCH_CLOCK_MAX_REFS], measured[ARCH_CLOCK_MAX_REFS];
	uint32_t measured_on[ARCH_CLOCK_MAX_REFS];
	uint32_t late_calls, reports;
	struct arch_clock_first reported;   /* the last report's figure */
} fk;

uint64_t arch_counter_at_entry;

void arch_clock_first(struct arch_clock_first *out)
{
	*out = fk.first;
	out->phase = "early";
}

void arch_clock_first_late(const struct arch_clock_tables *t, struct arch_clock_first *f)
{
	fk.late_calls++;
	if (fk.late_hz) {
		f->hz = fk.late_hz;
		f->method = fk.late_method;
		f->uncertainty_ppm = 400;
		f->known = ARCH_CLOCK_CALIBRATED;
	}
	snprintf(f->missing, sizeof(f->missing), "%s", fk.late_missing ? fk.late_missing : "");
}

void arch_clock_first_report(const struct arch_clock_first *f)
{
	fk.reports++;
	fk.reported = *f;
}

uint32_t arch_clock_refs(const struct arch_clock_tables *t, struct arch_clock_ref *refs,
			 uint32_t cap)
{
	uint32_t n = fk.nr_refs < cap ? fk.nr_refs : cap;

	memcpy(refs, fk.refs, n * sizeof(*refs));
	return n;
}

bool arch_clock_ref_open(struct arch_clock_ref *ref)
{
	fk.opened[ref->kind]++;
	return !fk.open_fails[ref->kind];
}

bool arch_clock_ref_measure(struct arch_clock_ref *ref, struct clockcal_result *out)
{
	fk.measured[ref->kind]++;
	fk.measured_on[ref->kind] = job_platform_this_cpu();
	*out = fk.res[ref->kind];
	ref->refused = fk.refused[ref->kind];
	return out->hz != 0;
}

/* The console's deferral, made at once: the report sees the copy. */
void console_defer_copy(void (*fn)(void *arg), const void *data, size_t data_bytes,
			size_t out_bytes)
{
	static unsigned char copy[1024];

	assert_true(data_bytes <= sizeof(copy));
	memcpy(copy, data, data_bytes);
	fn(copy);
}

/* ---- helpers ------------------------------------------------------------ */

static struct clock_state clock;
static const struct arch_clock_tables tables;   /* the fake ignores them */

static int setup(void **state)
{
	memset(&fk, 0, sizeof(fk));
	memset(&clock, 0, sizeof(clock));
	/* The clock in force, as at a boot's entry. */
	counter_hz = 0;
	counter_method = "none";
	counter_uncertainty_ppm = 0;
	clock_final = false;
	host_log_reset();
	return 0;
}

/* Phase early's figure: 3 GHz, "quick", good to @ppm. */
static void quick_first(uint32_t ppm, enum arch_clock_known known)
{
	fk.first = (struct arch_clock_first){ .hz = 3000000000ULL, .method = "quick",
					      .uncertainty_ppm = ppm, .known = known };
}

static void ref(uint32_t i, const char *name, uint64_t hz, uint32_t ppm)
{
	fk.refs[i] = (struct arch_clock_ref){ .name = name, .where_key = "port", .where = 0x600 + i,
					      .bits = 24, .kind = i };
	fk.res[i] = (struct clockcal_result){ .hz = hz, .uncertainty_ppm = ppm, .kept = 900 };
	if (i + 1 > fk.nr_refs)
		fk.nr_refs = i + 1;
}

/* The clock_check records logged, in order, as "reference:adopted". */
static void checks_logged(char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < host_log_total(); i++) {
		const char *l = host_log_line(i), *r, *a;

		if (!l || !strstr(l, "\"event\":\"clock_check\""))
			continue;
		r = strstr(l, "\"reference\":\"");
		a = strstr(l, "\"adopted\":");
		assert_non_null(r);
		assert_non_null(a);
		r += strlen("\"reference\":\"");
		at += (size_t)snprintf(out + at, len - at, "%s%.*s:%s", at ? "," : "",
				       (int)(strchr(r, '"') - r), r,
				       !strncmp(a + 10, "true", 4) ? "adopted" : "checked");
	}
}

/* ---- the tests ---------------------------------------------------------- */

/* arm64's way: the hardware gives the rate, no table names a reference.
 * The figure is the clock from phase early on, made final in clockcheck,
 * never measured, and said to be not cross-checked. */
static void test_given_figure_without_references(void **state)
{
	char got[128];

	fk.first = (struct arch_clock_first){ .hz = 1000000000, .method = "cntfrq",
					      .known = ARCH_CLOCK_GIVEN };
	clock_early(&clock);
	assert_int_equal(counter_hz, 1000000000);
	assert_string_equal(counter_method, "cntfrq");
	assert_false(clock_final);
	assert_int_equal(fk.reports, 1);
	assert_string_equal(fk.reported.phase, "early");

	clock_tables(&clock, &tables, false);
	assert_int_equal(fk.late_calls, 0);
	assert_int_equal(fk.reports, 1);
	clock_checks_start(&clock);
	assert_true(host_log_contains("the cntfrq figure (given) is not cross-checked: no second "
				      "reference"));
	clock_checks_finish(&clock);
	assert_true(clock_final);
	assert_int_equal(counter_hz, 1000000000);
	checks_logged(got, sizeof(got));
	assert_string_equal(got, "");
}

/* No figure without the tables and none from them: 1 GHz assumed, said
 * so with what is missing, reported once, in phase acpi. */
static void test_nothing_at_all_is_assumed_and_said(void **state)
{
	fk.late_missing = "a,b";
	clock_early(&clock);
	assert_int_equal(counter_hz, 0);
	assert_int_equal(fk.reports, 0);

	clock_tables(&clock, &tables, false);
	assert_int_equal(fk.late_calls, 1);
	assert_int_equal(counter_hz, 1000000000);
	assert_string_equal(counter_method, "assumed");
	assert_int_equal(counter_uncertainty_ppm, CLOCKCAL_UNKNOWN_PPM);
	assert_int_equal(fk.reports, 1);
	assert_int_equal(fk.reported.known, ARCH_CLOCK_ASSUMED);
	assert_string_equal(fk.reported.phase, "acpi");
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("no clock reference (missing: a,b); assuming 1 GHz"));
}

/* No figure without the tables, one from them: that is the first figure,
 * taken in phase acpi, and nothing is assumed. */
static void test_first_figure_from_the_tables(void **state)
{
	fk.late_hz = 2400000000ULL;
	fk.late_method = "tablet";
	clock_early(&clock);
	clock_tables(&clock, &tables, false);
	assert_int_equal(counter_hz, 2400000000ULL);
	assert_string_equal(counter_method, "tablet");
	assert_false(clock_final);
	assert_int_equal(fk.reports, 1);
	assert_string_equal(fk.reported.phase, "acpi");
	assert_int_equal(fk.reported.known, ARCH_CLOCK_CALIBRATED);
	assert_int_equal(host_log_count(LOG_WARN), 0);
}

/* memboot.tsc_coarse makes the first figure poor wherever it came from:
 * phase early's, or the tables' in phase acpi; its record keeps the figure
 * as measured. An assumed figure stays as it is (unknown, not 2 %). */
static void test_coarse_makes_any_measured_first_figure_poor(void **state)
{
	quick_first(100, ARCH_CLOCK_GIVEN);
	clock_early(&clock);
	clock_tables(&clock, &tables, true);
	assert_int_equal(counter_hz, 3000000000ULL + 3000ULL * TIME_COARSE_OFF_PPM);
	assert_int_equal(counter_uncertainty_ppm, TIME_COARSE_PPM);
	assert_true(host_log_contains("memboot.tsc_coarse: the quick quick estimate"));

	setup(state);
	fk.late_hz = 2000000000ULL;
	fk.late_method = "tablet";
	clock_early(&clock);
	clock_tables(&clock, &tables, true);
	assert_int_equal(counter_hz, 2000000000ULL + 2000ULL * TIME_COARSE_OFF_PPM);
	assert_int_equal(counter_uncertainty_ppm, TIME_COARSE_PPM);
	assert_string_equal(counter_method, "tablet");
	assert_int_equal(fk.reported.hz, 2000000000ULL);
	assert_true(host_log_contains("memboot.tsc_coarse: the quick tablet estimate"));

	setup(state);
	clock_early(&clock);
	clock_tables(&clock, &tables, true);
	assert_int_equal(counter_hz, 1000000000ULL);
	assert_int_equal(counter_uncertainty_ppm, CLOCKCAL_UNKNOWN_PPM);
	assert_false(host_log_contains("memboot.tsc_coarse"));
}

/* A usable first figure: one reference (the first the architecture
 * lists) is measured by an idle AP off the boot CPU's node, the others by
 * the boot CPU in clockcheck; the best becomes the clock, every other one
 * cross-checks it: one clock_check record each. */
static void test_best_reference_refines_the_others_check(void **state)
{
	static const uint32_t nodes[] = { 0, 1 };
	char got[128];

	quick_first(8000, ARCH_CLOCK_CALIBRATED);
	ref(0, "coarse", 3000900000ULL, 300);
	ref(1, "fine", 3000300000ULL, 100);
	job_host_start(2, nodes);
	clock_early(&clock);
	clock_tables(&clock, &tables, false);
	assert_int_equal(fk.measured[0] + fk.measured[1], 0);   /* good enough for timeouts */
	clock_checks_start(&clock);
	clock_checks_finish(&clock);
	job_host_stop();

	assert_int_equal(fk.opened[0], 1);
	assert_int_equal(fk.opened[1], 1);
	assert_int_equal(fk.measured[0], 1);
	assert_int_equal(fk.measured[1], 1);
	assert_int_equal(fk.measured_on[0], 1);   /* the AP */
	assert_int_equal(fk.measured_on[1], 0);   /* the boot CPU */
	assert_true(clock_final);
	assert_int_equal(counter_hz, 3000300000ULL);
	assert_string_equal(counter_method, "fine");
	assert_int_equal(counter_uncertainty_ppm, 100);
	checks_logged(got, sizeof(got));
	assert_string_equal(got, "fine:adopted,coarse:checked");
}

/* The quick figure is better than every reference: none replaces it, each
 * cross-checks it. With no AP the boot CPU measures them all. */
static void test_no_reference_better_than_the_figure(void **state)
{
	char got[128];

	quick_first(50, ARCH_CLOCK_GIVEN);
	ref(0, "coarse", 3000900000ULL, 300);
	ref(1, "fine", 3000300000ULL, 100);
	clock_early(&clock);
	clock_tables(&clock, &tables, false);
	clock_checks_start(&clock);
	clock_checks_finish(&clock);
	assert_int_equal(fk.measured_on[0], 0);
	assert_int_equal(fk.measured_on[1], 0);
	assert_int_equal(counter_hz, 3000000000ULL);
	assert_string_equal(counter_method, "quick");
	checks_logged(got, sizeof(got));
	assert_string_equal(got, "coarse:checked,fine:checked");
}

/* A figure too poor for timeouts is measured against every reference in
 * phase acpi, on the boot CPU; nothing is measured again later. */
static void test_poor_figure_is_checked_in_phase_acpi(void **state)
{
	char got[128];

	quick_first(TIME_TIMEOUT_PPM + 1, ARCH_CLOCK_CALIBRATED);
	ref(0, "coarse", 3000900000ULL, 3000);
	ref(1, "fine", 3000300000ULL, 1000);
	clock_early(&clock);
	clock_tables(&clock, &tables, false);
	assert_int_equal(fk.measured[0], 1);
	assert_int_equal(fk.measured[1], 1);
	/* The first adopted (much better than the poor figure), the second
	 * cross-checks the first's. */
	assert_string_equal(counter_method, "coarse");
	clock_checks_start(&clock);
	clock_checks_finish(&clock);
	assert_int_equal(fk.measured[0], 1);
	assert_int_equal(fk.measured[1], 1);
	assert_true(clock_final);
	checks_logged(got, sizeof(got));
	assert_string_equal(got, "coarse:adopted,fine:checked");
}

/* A reference the architecture refuses (out of spec) gets its warning and
 * no record; one that cannot be opened is never measured. */
static void test_refused_and_unreadable_references(void **state)
{
	static const uint32_t nodes[] = { 0, 1 };
	char got[128];

	quick_first(8000, ARCH_CLOCK_CALIBRATED);
	ref(0, "unmapped", 3000900000ULL, 300);
	ref(1, "odd", 0, 0);
	ref(2, "fine", 3000300000ULL, 100);
	fk.open_fails[0] = true;
	fk.refused[1] = "fake: odd is out of spec";
	job_host_start(2, nodes);
	clock_early(&clock);
	clock_tables(&clock, &tables, false);
	clock_checks_start(&clock);
	clock_checks_finish(&clock);
	job_host_stop();
	assert_int_equal(fk.measured[0], 0);
	assert_int_equal(fk.measured[1], 1);
	assert_int_equal(fk.measured_on[1], 1);   /* the first readable one: the AP's */
	assert_int_equal(fk.measured[2], 1);
	assert_true(host_log_contains("fake: odd is out of spec"));
	assert_string_equal(counter_method, "fine");
	checks_logged(got, sizeof(got));
	assert_string_equal(got, "fine:adopted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_given_figure_without_references, setup),
		cmocka_unit_test_setup(test_nothing_at_all_is_assumed_and_said, setup),
		cmocka_unit_test_setup(test_first_figure_from_the_tables, setup),
		cmocka_unit_test_setup(test_coarse_makes_any_measured_first_figure_poor, setup),
		cmocka_unit_test_setup(test_best_reference_refines_the_others_check, setup),
		cmocka_unit_test_setup(test_no_reference_better_than_the_figure, setup),
		cmocka_unit_test_setup(test_poor_figure_is_checked_in_phase_acpi, setup),
		cmocka_unit_test_setup(test_refused_and_unreadable_references, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

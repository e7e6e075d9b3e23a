/*
 * test_clockcal.c: TSC calibration arithmetic against simulated hosts:
 * clean brackets, brackets stretched by a descheduled vCPU, gaps between
 * samples, a wrapping reference counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/clockcal.h"
#include "tests/host/host_support.h"

#define PIT_HZ 1193182ULL
#define TSC_HZ 2596124000ULL
#define MAX_SAMPLES 2048

static uint64_t rng_state = 12345;

static uint64_t rnd(uint64_t bound)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rng_state >> 33) % bound;
}

static uint64_t tsc_at(uint64_t ns) { return (uint64_t)((unsigned __int128)ns * TSC_HZ / 1000000000ULL); }
static uint64_t ref_at(uint64_t ns) { return (uint64_t)((unsigned __int128)ns * PIT_HZ / 1000000000ULL); }

/*
 * Samples over @span_ns of host time, each bracket @bracket_ns wide with the
 * read somewhere inside. Every @bad_every-th sample (0: none) is stretched
 * by @stall_ns, with the read at the far end of the stall (the vCPU lost the
 * CPU between the first TSC read and the port read), which biases a
 * calibration that trusts it.
 */
static uint32_t simulate(struct clockcal_sample *s, uint64_t span_ns, uint64_t bracket_ns,
			 uint32_t bad_every, uint64_t stall_ns, uint64_t gap_ns)
{
	uint64_t t = 1000000;
	uint32_t n = 0;

	while (t < 1000000 + span_ns && n < MAX_SAMPLES) {
		uint64_t w = bracket_ns + rnd(bracket_ns / 4 + 1);
		uint64_t read = t + rnd(w + 1);
		if (bad_every && n % bad_every == bad_every - 1) {
			read = t + stall_ns + rnd(w + 1);
			w += stall_ns;
		}
		s[n].tsc_before = tsc_at(t);
		s[n].ref = ref_at(read);
		s[n].tsc_after = tsc_at(t + w);
		n++;
		t += w + 200 + gap_ns;
	}
	return n;
}

static struct clockcal_sample samples[MAX_SAMPLES];
static uint64_t scratch[MAX_SAMPLES];

static void test_clean_samples_agree_to_a_tenth_of_a_percent(void **state)
{
	struct clockcal_result r;
	uint32_t n = simulate(samples, 3000000, 3000, 0, 0, 0);

	assert_true(n > 100);
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) < 1000);
	/* The bound it reports must cover the true error. */
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
	assert_true(r.uncertainty_ppm < 5000);
	assert_int_equal(r.kept + r.rejected, n);
	assert_true(r.pairs >= 5);
}

/* The failure the issue measured: a vCPU descheduled inside a bracket. */
static void test_stretched_brackets_are_rejected(void **state)
{
	struct clockcal_result r;
	uint32_t n = simulate(samples, 20000000, 3000, 7, 2000000, 0);
	const struct clockcal_sample *a = &samples[6], *b = &samples[n - 2];
	uint64_t naive;

	assert_true(n > 50);
	/* The data is hostile: a stretched sample (the 7th) paired with a
	 * clean one near the end, trusted blindly, is more than 2 % off. */
	naive = (uint64_t)((unsigned __int128)((b->tsc_before + b->tsc_after) -
					       (a->tsc_before + a->tsc_after)) *
			   PIT_HZ / (2 * (b->ref - a->ref)));
	assert_true(clockcal_ppm_diff(naive, TSC_HZ) > 20000);

	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) < 1000);
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
	/* Exactly the stretched ones went. */
	assert_int_equal(r.rejected, n / 7);
	assert_true(r.bracket_limit < tsc_at(10000));
}

/* Time lost between samples (not inside a bracket) costs nothing. */
static void test_gaps_between_samples_do_not_bias(void **state)
{
	struct clockcal_result r;
	uint32_t n = simulate(samples, 20000000, 3000, 0, 0, 150000);

	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_int_equal(r.rejected, 0);
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) < 300);
}

static void test_too_few_samples_give_no_estimate(void **state)
{
	struct clockcal_result r;
	uint32_t n = simulate(samples, 3000000, 3000, 0, 0, 0);

	assert_false(clockcal_estimate(samples, CLOCKCAL_MIN_SAMPLES - 1, PIT_HZ, scratch, &r));
	assert_int_equal(r.hz, 0);
	/* A reference that never moves (no PIT) gives nothing either. */
	for (uint32_t i = 0; i < n; i++)
		samples[i].ref = 42;
	assert_false(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_int_equal(r.hz, 0);
	/* Nor does a reference rate of zero. */
	n = simulate(samples, 3000000, 3000, 0, 0, 0);
	assert_false(clockcal_estimate(samples, n, 0, scratch, &r));
}

/* Two in three stretched: the clean third still decides. */
static void test_mostly_bad_brackets(void **state)
{
	struct clockcal_result r;
	uint32_t n = simulate(samples, 3000000, 3000, 0, 0, 0);

	/* Stretched by 1 ms with the read at the far end. */
	for (uint32_t i = 0; i < n; i++) {
		if (i % 3 == 0)
			continue;
		samples[i].tsc_after += tsc_at(1000000);
		samples[i].ref += ref_at(1000000);
	}
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) < 1000);
	assert_true(r.rejected >= n / 2);
}

static void test_unwrap(void **state)
{
	/* No prediction: take the raw distance. */
	assert_int_equal(clockcal_unwrap(100, 16, 0), 100);
	/* One full PIT period lost while descheduled. */
	assert_int_equal(clockcal_unwrap(100, 16, 65536 + 90), 65636);
	assert_int_equal(clockcal_unwrap(100, 16, 3 * 65536 + 30000), 3 * 65536 + 100);
	/* A prediction a little short of the raw value does not add a period. */
	assert_int_equal(clockcal_unwrap(5000, 16, 4000), 5000);
	assert_int_equal(clockcal_unwrap(5000, 16, 5000 + 32000), 5000);
	/* The 24-bit PM timer. */
	assert_int_equal(clockcal_unwrap(7, 24, (1u << 24) + 9), (1u << 24) + 7);
}

static void test_median_and_ppm(void **state)
{
	uint64_t v[] = { 9, 1, 5, 7, 3 };
	uint64_t w[] = { 4 };

	assert_int_equal(clockcal_median(v, 5), 5);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[4], 9);
	assert_int_equal(clockcal_median(w, 1), 4);
	assert_int_equal(clockcal_ppm_diff(1001000, 1000000), 1000);
	assert_int_equal(clockcal_ppm_diff(999000, 1000000), 1000);
	assert_int_equal(clockcal_ppm_diff(UINT64_MAX, 1), UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_samples_agree_to_a_tenth_of_a_percent),
		cmocka_unit_test(test_stretched_brackets_are_rejected),
		cmocka_unit_test(test_gaps_between_samples_do_not_bias),
		cmocka_unit_test(test_too_few_samples_give_no_estimate),
		cmocka_unit_test(test_mostly_bad_brackets),
		cmocka_unit_test(test_unwrap),
		cmocka_unit_test(test_median_and_ppm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

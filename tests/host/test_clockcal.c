/*
 * test_clockcal.c: TSC calibration arithmetic against simulated hosts:
 * clean brackets, brackets stretched by a descheduled vCPU, gaps between
 * samples, a wrapping reference counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/clock/clockcal.h"
#include "x86/tsc_first.h"
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
		s[n].counter_before = tsc_at(t);
		s[n].ref = ref_at(read);
		s[n].counter_after = tsc_at(t + w);
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
	naive = (uint64_t)((unsigned __int128)((b->counter_before + b->counter_after) -
					       (a->counter_before + a->counter_after)) *
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
		samples[i].counter_after += tsc_at(1000000);
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
	/* Sorted whatever the input order: ascending, descending, equal
	 * runs and a pseudo-random mix, checked against each other. */
	{
		enum { N = 1537 };
		static uint64_t a[N];
		uint64_t x = 88172645463325252ULL;

		for (int kind = 0; kind < 4; kind++) {
			for (uint32_t i = 0; i < N; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				a[i] = kind == 0 ? i : kind == 1 ? N - i : kind == 2 ? i % 3 : x % 1000;
			}
			uint64_t m = clockcal_median(a, N);
			for (uint32_t i = 1; i < N; i++)
				assert_true(a[i - 1] <= a[i]);
			assert_int_equal(m, a[N / 2]);
		}
	}
	assert_int_equal(clockcal_ppm_diff(1001000, 1000000), 1000);
	assert_int_equal(clockcal_ppm_diff(999000, 1000000), 1000);
	assert_int_equal(clockcal_ppm_diff(UINT64_MAX, 1), UINT32_MAX);
}

/*
 * A simulated reference behind clockcal_sample(): host time advances
 * @read_ns (plus up to a quarter of it, at random) inside every reference
 * read, the way a port read takes a millisecond under QEMU TCG with
 * hundreds of vCPU threads, and 20 ns per TSC read. The counter is @bits
 * wide, counting down or up at @hz.
 */
struct sim_ref {
	uint64_t t_ns, read_ns, hz;
	unsigned bits;
	bool down, stuck;
	/* The vCPU descheduled once, for @stall_ns, just before TSC read
	 * number @stall_at (counted from 1; 0: never). */
	uint64_t stall_ns, tsc_reads;
	uint32_t stall_at;
};

static uint64_t sim_tsc(void *ctx)
{
	struct sim_ref *r = ctx;
	if (r->stall_at && ++r->tsc_reads == r->stall_at)
		r->t_ns += r->stall_ns;
	r->t_ns += 20;
	return tsc_at(r->t_ns);
}

static uint64_t sim_read(void *ctx)
{
	struct sim_ref *r = ctx;
	uint64_t took = r->read_ns + rnd(r->read_ns / 4 + 1);
	uint64_t at = r->t_ns + rnd(took + 1);   /* the device answers somewhere inside */
	uint64_t ticks = r->stuck ? 0 : (uint64_t)((unsigned __int128)at * r->hz / 1000000000ULL);

	r->t_ns += took;
	return r->down ? (0 - ticks) & ((1ULL << r->bits) - 1) : ticks & ((1ULL << r->bits) - 1);
}

static uint32_t sample_sim(struct sim_ref *r, const struct clockcal_window *w, uint64_t *reads)
{
	const struct clockcal_source src = { sim_tsc, sim_read, r, r->bits, r->down };
	return clockcal_sample(&src, w, samples, MAX_SAMPLES, reads);
}

/* A PIT that answers in 2 us: the window ends at its first figure, with
 * samples spread over it, and the estimate is as good as before. */
static void test_fast_reference_stops_at_the_short_window(void **state)
{
	struct sim_ref pit = { .t_ns = 1000000, .read_ns = 2000, .hz = PIT_HZ, .bits = 16,
			       .down = true };
	const struct clockcal_window w = { PIT_HZ * 3 / 1000, PIT_HZ * 20 / 1000, 32 };
	struct clockcal_result r;
	uint64_t reads;
	uint32_t n = sample_sim(&pit, &w, &reads);

	assert_true(n > 500);
	assert_true(samples[n - 1].ref >= w.min_ticks && samples[n - 1].ref < w.min_ticks + 10);
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
	assert_true(r.uncertainty_ppm < 5000);
}

/*
 * The failure of issue 21: a PIT read costs 1 ms. A fixed 3 ms window
 * holds four samples and gives no estimate at all (and the kernel then
 * assumed 1 GHz); the stretching window keeps reading until it has enough,
 * and the estimate is right within the bound it reports.
 */
static void test_slow_reference_stretches_the_window(void **state)
{
	struct sim_ref pit = { .t_ns = 1000000, .read_ns = 1000000, .hz = PIT_HZ, .bits = 16,
			       .down = true };
	const struct clockcal_window fixed = { PIT_HZ * 3 / 1000, PIT_HZ * 3 / 1000, 32 };
	const struct clockcal_window w = { PIT_HZ * 3 / 1000, PIT_HZ * 40 / 1000, 32 };
	struct clockcal_result r;
	uint64_t reads;
	uint32_t n = sample_sim(&pit, &fixed, &reads);

	assert_true(n < CLOCKCAL_MIN_SAMPLES);
	assert_false(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));

	pit.t_ns = 1000000;
	n = sample_sim(&pit, &w, &reads);
	assert_true(n >= 30);
	assert_true(samples[n - 1].ref > w.min_ticks);
	/* More than one PIT period (55 ms) of host time: the wraps are undone. */
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) < 20000);
	/* Slow reads are an uncertain figure, and it says so. */
	assert_true(r.uncertainty_ppm > 5000);

	/* The HPET beside it answers in 1 us: a much better figure. */
	struct sim_ref hpet = { .t_ns = 1000000, .read_ns = 1000, .hz = 100000000, .bits = 32 };
	const struct clockcal_window hw = { 200000, 2000000, 32 };
	struct clockcal_result h;
	n = sample_sim(&hpet, &hw, &reads);
	assert_true(clockcal_estimate(samples, n, 100000000, scratch, &h));
	assert_true(clockcal_ppm_diff(h.hz, TSC_HZ) <= h.uncertainty_ppm);
	assert_true(h.uncertainty_ppm * 10 < r.uncertainty_ppm);

	/* And the choice takes the HPET, never an assumed figure. */
	const struct clockcal_candidate c[] = {
		{ "pit", r.hz, r.uncertainty_ppm, true },
		{ "hpet", h.hz, h.uncertainty_ppm, true },
	};
	assert_int_equal(clockcal_choose(c, 2, 5000), 1);
}

/*
 * One stall of the vCPU inside the quick 0.5 ms PIT window, between reads
 * that take a microsecond: the window stretches past the stall, few
 * samples lie before it, and the figure claims several per cent (two boots
 * under host load claimed 2.5 % and 6.7 %). clockcal_retake() takes it
 * again; a second window without the stall is precise. A window that
 * stretched because every read is slow is not retaken, nor a good figure.
 */
static void test_a_stall_in_the_quick_window_is_retaken(void **state)
{
	const struct clockcal_window quick = { PIT_HZ / 2000, PIT_HZ * 20 / 1000, 32 };
	const struct clockcal_window precise = { PIT_HZ * 3 / 1000, PIT_HZ * 20 / 1000, 32 };
	const uint64_t short_ticks = PIT_HZ * 3 / 1000, slow_read = PIT_HZ / 20000;
	struct clockcal_result r;
	uint64_t reads;
	uint32_t poor = 0;

	for (uint32_t at = 3; at <= 21; at += 2) {
		struct sim_ref pit = { .t_ns = 1000000, .read_ns = 800, .hz = PIT_HZ, .bits = 16,
				       .down = true, .stall_ns = 4000000, .stall_at = at };
		uint32_t n = sample_sim(&pit, &quick, &reads);

		assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
		/* The claim covers the error, stall or not. */
		assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
		/* Stretched past the stall: the old rule (short windows only)
		 * kept whatever figure this was. */
		assert_true(samples[n - 1].ref >= short_ticks);
		if (r.uncertainty_ppm > 10000) {
			poor++;
			assert_true(clockcal_retake(&r, samples[n - 1].ref, PIT_HZ, short_ticks,
						    slow_read, 10000));
		} else {
			assert_false(clockcal_retake(&r, samples[n - 1].ref, PIT_HZ, short_ticks,
						     slow_read, 10000));
		}
	}
	assert_true(poor >= 5);   /* the case is real: most stall places give one */

	/* The second window, the stall over. */
	struct sim_ref pit = { .t_ns = 9000000, .read_ns = 800, .hz = PIT_HZ, .bits = 16,
			       .down = true };
	uint32_t n = sample_sim(&pit, &precise, &reads);
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(r.uncertainty_ppm < 2000);
	assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);

	/* Slow reads (1 ms each) stretch the window and give a poor figure:
	 * another window would be as slow, and is not taken. */
	struct sim_ref slow = { .t_ns = 1000000, .read_ns = 1000000, .hz = PIT_HZ, .bits = 16,
				.down = true };
	n = sample_sim(&slow, &quick, &reads);
	assert_true(clockcal_estimate(samples, n, PIT_HZ, scratch, &r));
	assert_true(r.uncertainty_ppm > 10000);
	assert_false(clockcal_retake(&r, samples[n - 1].ref, PIT_HZ, short_ticks, slow_read, 10000));
}

/* The rule itself, on figures made up for each case. */
static void test_retake_rule(void **state)
{
	const uint64_t short_ticks = 3579, slow = 59;
	/* 1 GHz TSC, PIT ticks: 59 ticks = 49.4 us = 49,400 cycles. */
	struct clockcal_result good = { .hz = 1000000000, .uncertainty_ppm = 6000, .bracket_limit = 1500 };
	struct clockcal_result poor_fast = { .hz = 1000000000, .uncertainty_ppm = 25000, .bracket_limit = 1500 };
	struct clockcal_result poor_slow = { .hz = 1000000000, .uncertainty_ppm = 25000,
					     .bracket_limit = 2000000 };
	struct clockcal_result none = { 0 };

	assert_false(clockcal_retake(&good, 600, PIT_HZ, short_ticks, slow, 10000));
	assert_false(clockcal_retake(&good, 6000, PIT_HZ, short_ticks, slow, 10000));
	assert_true(clockcal_retake(&poor_fast, 600, PIT_HZ, short_ticks, slow, 10000));
	assert_true(clockcal_retake(&poor_fast, 6000, PIT_HZ, short_ticks, slow, 10000));
	assert_true(clockcal_retake(&poor_slow, 600, PIT_HZ, short_ticks, slow, 10000));
	assert_false(clockcal_retake(&poor_slow, 6000, PIT_HZ, short_ticks, slow, 10000));
	assert_true(clockcal_retake(&none, 600, PIT_HZ, short_ticks, slow, 10000));
	assert_false(clockcal_retake(&none, 6000, PIT_HZ, short_ticks, slow, 10000));
	/* At the edge: a bracket of exactly the slow read's length is slow. */
	struct clockcal_result edge = { .hz = PIT_HZ * 1000, .uncertainty_ppm = 25000,
					.bracket_limit = 59 * 1000 };
	assert_false(clockcal_retake(&edge, 6000, PIT_HZ, short_ticks, slow, 10000));
	edge.bracket_limit--;
	assert_true(clockcal_retake(&edge, 6000, PIT_HZ, short_ticks, slow, 10000));
}

/* A counter that does not count gives up after its reads, not never. */
static void test_stuck_reference_gives_up(void **state)
{
	struct sim_ref pm = { .t_ns = 1000000, .read_ns = 1000, .hz = 3579545, .bits = 24,
			      .stuck = true };
	const struct clockcal_window w = { 7159, 71590, 32 };
	struct clockcal_result r;
	uint64_t reads;
	uint32_t n = sample_sim(&pm, &w, &reads);

	assert_int_equal(reads, 64ULL * MAX_SAMPLES + 1);
	assert_false(clockcal_estimate(samples, n, 3579545, scratch, &r));
}

/* The probe the kernel runs before it samples a reference (arch/x86_64/
 * tsc.c: 8 reads, 50,000 cycles, 4096 reads at most). */
#define PROBE_MIN_READS 8
#define PROBE_MIN_CYCLES 50000
#define PROBE_MAX_READS 4096

static bool probe(struct sim_ref *r, uint32_t *reads)
{
	const struct clockcal_source src = { sim_tsc, sim_read, r, r->bits, r->down };
	return clockcal_counter_counts(&src, PROBE_MIN_READS, PROBE_MIN_CYCLES, PROBE_MAX_READS,
				       reads);
}

/* A PIT that is not there (QEMU -machine pit=off: one fixed value) is found
 * in microseconds: a few dozen reads, not the 131,072 the sampler would
 * make before giving up. */
static void test_absent_counter_found_in_microseconds(void **state)
{
	struct sim_ref pit = { .t_ns = 1000000, .read_ns = 650, .hz = PIT_HZ, .bits = 16,
			       .down = true, .stuck = true };
	uint64_t t0 = pit.t_ns;
	uint32_t reads;

	assert_false(probe(&pit, &reads));
	assert_true(reads >= PROBE_MIN_READS);
	assert_true(reads < 100);
	/* 50,000 cycles of a 2.6 GHz TSC (19 us) and one read more. */
	assert_true(pit.t_ns - t0 < 25000);
	assert_true(pit.t_ns - t0 >= 19000);
}

/* A counting PIT, read slowly (a TCG port read) or far faster than its
 * 838 ns tick (real hardware's fastest): it moves before the probe gives
 * up, however many reads fit in one tick. */
static void test_counting_counter_is_found(void **state)
{
	const uint64_t read_ns[] = { 20, 100, 650, 2000, 1000000 };

	for (size_t i = 0; i < sizeof(read_ns) / sizeof(read_ns[0]); i++) {
		struct sim_ref pit = { .t_ns = 1000000, .read_ns = read_ns[i], .hz = PIT_HZ,
				       .bits = 16, .down = true };
		struct sim_ref pm = { .t_ns = 1000000, .read_ns = read_ns[i], .hz = 3579545,
				      .bits = 24 };
		uint32_t reads;

		assert_true(probe(&pit, &reads));
		assert_true(reads <= 2 + 1000 / read_ns[i] * 2);
		assert_true(probe(&pm, &reads));
	}
}

/* A TSC that does not advance must not make the probe spin forever. */
static uint64_t frozen_tsc(void *ctx) { (void)ctx; return 42; }

static void test_probe_bounded_without_a_tsc(void **state)
{
	struct sim_ref pit = { .t_ns = 1000000, .read_ns = 650, .hz = PIT_HZ, .bits = 16,
			       .down = true, .stuck = true };
	const struct clockcal_source src = { frozen_tsc, sim_read, &pit, 16, true };
	uint32_t reads;

	assert_false(clockcal_counter_counts(&src, PROBE_MIN_READS, PROBE_MIN_CYCLES,
					     PROBE_MAX_READS, &reads));
	assert_int_equal(reads, PROBE_MAX_READS);
}

/* Every combination of references: the first figure comes from CPUID or
 * the PIT where either is there, else waits for the ACPI tables, then the
 * HPET before the PM timer; a figure is assumed only with none at all. */
static void test_first_reference_for_every_combination(void **state)
{
	for (unsigned have = 0; have <= TSC_HAVE_ALL; have++) {
		enum tsc_first before = tsc_first(have, false);
		enum tsc_first after = tsc_first(have, true);

		if (have & (TSC_HAVE_CPUID | TSC_HAVE_PIT)) {
			assert_int_equal(before, TSC_FIRST_EARLY);
			assert_int_equal(after, TSC_FIRST_EARLY);
			continue;
		}
		assert_int_equal(before, TSC_FIRST_WAIT);
		if (have & TSC_HAVE_HPET)
			assert_int_equal(after, TSC_FIRST_HPET);
		else if (have & TSC_HAVE_PM_TIMER)
			assert_int_equal(after, TSC_FIRST_PM_TIMER);
		else
			assert_int_equal(after, TSC_FIRST_ASSUMED);
		/* Never assumed while anything is there. */
		assert_true(after != TSC_FIRST_ASSUMED || have == 0);
	}
	/* An HPET that gave no figure is taken out: the PM timer is next. */
	assert_int_equal(tsc_first(TSC_HAVE_HPET | TSC_HAVE_PM_TIMER, true),
			 TSC_FIRST_HPET);
	assert_int_equal(tsc_first(TSC_HAVE_PM_TIMER, true), TSC_FIRST_PM_TIMER);
}

static void test_missing_names(void **state)
{
	char buf[64], small[8];

	assert_int_equal(tsc_missing(TSC_HAVE_ALL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	tsc_missing(TSC_HAVE_CPUID | TSC_HAVE_PM_TIMER, buf, sizeof(buf));
	assert_string_equal(buf, "pit,hpet");
	assert_int_equal(tsc_missing(0, buf, sizeof(buf)), strlen("cpuid,pit,hpet,pm_timer"));
	assert_string_equal(buf, "cpuid,pit,hpet,pm_timer");
	/* Cut to fit, terminated. */
	assert_int_equal(tsc_missing(0, small, sizeof(small)), strlen("cpuid,pit,hpet,pm_timer"));
	assert_string_equal(small, "cpuid,p");
}

static void test_choose(void **state)
{
	const struct clockcal_candidate none[] = {
		{ "cpuid16", 0, 0, false }, { "pit", 0, 0, true }, { "hpet", 0, 0, true },
	};
	const struct clockcal_candidate cpuid_only[] = {
		{ "cpuid16", 2600000000ULL, 192, false }, { "pit", 0, 0, true },
	};
	const struct clockcal_candidate cpuid_agrees[] = {
		{ "cpuid15", 2600000000ULL, 0, false }, { "pit", 2601000000ULL, 600, true },
	};
	/* A TCG guest told a tsc-frequency its TSC does not run at. */
	const struct clockcal_candidate cpuid_wrong[] = {
		{ "cpuid15", 3000000000ULL, 0, false }, { "pit", 2596000000ULL, 600, true },
		{ "hpet", 2596100000ULL, 100, true },
	};

	assert_int_equal(clockcal_choose(none, 3, 5000), -1);
	assert_int_equal(clockcal_choose(cpuid_only, 2, 5000), 0);
	assert_int_equal(clockcal_choose(cpuid_agrees, 2, 5000), 0);
	assert_int_equal(clockcal_choose(cpuid_wrong, 3, 5000), 2);
}

/* Issue 21: an assumed 1 GHz (uncertainty UINT32_MAX) "agreed" with a
 * PM timer 159.6 % away. Unknown uncertainty agrees with nothing. */
static void test_unknown_uncertainty_never_agrees(void **state)
{
	uint64_t allowed;

	assert_false(clockcal_agree(1596000, CLOCKCAL_UNKNOWN_PPM, 900, 1000, &allowed));
	assert_int_equal(allowed, CLOCKCAL_UNKNOWN_PPM);
	assert_false(clockcal_agree(0, 900, CLOCKCAL_UNKNOWN_PPM, 1000, &allowed));
	assert_true(clockcal_agree(1999, 500, 500, 1000, &allowed));
	assert_int_equal(allowed, 2000);
	assert_false(clockcal_agree(2001, 500, 500, 1000, &allowed));
	/* Large but known bounds saturate below "unknown" and still decide. */
	assert_true(clockcal_agree(100, UINT32_MAX - 1, UINT32_MAX - 1, 1000, &allowed));
	assert_int_equal(allowed, CLOCKCAL_UNKNOWN_PPM - 1);
}

/*
 * The bracket bound clockcal_estimate() claimed before its linearity check,
 * worked out again from the result's bracket limit: the worst over the
 * pairs it forms of (width_a + width_b) / twice_dt + one reference tick
 * over the pair's reference span, in ppm.
 */
static uint32_t bracket_bound_ppm(const struct clockcal_sample *s, uint32_t n,
				  const struct clockcal_result *r)
{
	static uint32_t idx[MAX_SAMPLES];
	uint32_t kept = 0, third;
	uint64_t worst = 0;

	for (uint32_t i = 0; i < n; i++)
		if (s[i].counter_after - s[i].counter_before <= r->bracket_limit)
			idx[kept++] = i;
	assert_int_equal(kept, r->kept);
	third = kept / 3;
	for (uint32_t j = 0; j < CLOCKCAL_PAIRS && j < third; j++) {
		uint32_t ka = j * third / (CLOCKCAL_PAIRS < third ? CLOCKCAL_PAIRS : third);
		const struct clockcal_sample *a = &s[idx[ka]], *b = &s[idx[kept - third + ka]];
		uint64_t twice_dt = (b->counter_before + b->counter_after) -
				    (a->counter_before + a->counter_after);
		uint64_t dref = b->ref - a->ref;
		uint64_t bound = ((a->counter_after - a->counter_before) +
				  (b->counter_after - b->counter_before)) * 1000000u / twice_dt +
				 (1000000u + dref - 1) / dref;

		if (bound > worst)
			worst = bound;
	}
	return worst > UINT32_MAX ? UINT32_MAX : (uint32_t)worst;
}

/* Linear samples: an estimate, no step, and the brackets' bound unchanged. */
static void expect_linear(const struct clockcal_sample *s, uint32_t n, uint64_t ref_hz,
			  uint64_t *work)
{
	struct clockcal_result r;

	assert_true(clockcal_estimate(s, n, ref_hz, work, &r));
	assert_int_equal(r.step_cycles, 0);
	assert_int_equal(r.uncertainty_ppm, bracket_bound_ppm(s, n, &r));
}

#define HPET_HZ 100000000ULL
#define PM_HZ 3579545ULL

/*
 * Samples of a reference at @ref_hz over @span_ns, brackets @bracket_ns
 * wide (plus up to a quarter) with the read anywhere inside, @gap_ns
 * between them and no more than 1500 in all (as clockcal_sample() spaces
 * them over its window). From host time @step_at_ns on the guest TSC reads
 * @step_cycles more: a step between two samples, as QEMU TCG's guest TSC
 * takes when the host's clock runs ahead of it, with every bracket as
 * narrow as before.
 */
static uint32_t simulate_step(struct clockcal_sample *s, uint64_t ref_hz, uint64_t span_ns,
			      uint64_t bracket_ns, uint64_t gap_ns, uint64_t step_at_ns,
			      uint64_t step_cycles)
{
	uint64_t t = 1000000;
	uint32_t n = 0;

	while (t < 1000000 + span_ns && n < MAX_SAMPLES) {
		uint64_t w = bracket_ns + rnd(bracket_ns / 4 + 1);
		uint64_t read = t + rnd(w + 1);
		uint64_t step = t >= 1000000 + step_at_ns ? step_cycles : 0;

		s[n].counter_before = tsc_at(t) + step;
		s[n].ref = (uint64_t)((unsigned __int128)read * ref_hz / 1000000000ULL);
		s[n].counter_after = tsc_at(t + w) + step;
		n++;
		t += w + 200 + gap_ns > span_ns / 1500 ? w + 200 + gap_ns : span_ns / 1500;
	}
	return n;
}

/* Linear samples, jittered inside their brackets: no step, and exactly
 * the bracket bound, for every kind of data the tests above feed. */
static void test_linear_samples_keep_the_bracket_bound(void **state)
{
	struct clockcal_result r;
	uint32_t n;

	struct { uint64_t ref_hz, span_ns, bracket_ns, gap_ns; } refs[] = {
		{ PIT_HZ, 3000000, 3000, 0 },
		{ PIT_HZ, 20000000, 3000, 150000 },
		{ HPET_HZ, 1000000, 100, 300 },
		{ HPET_HZ, 1000000, 20, 0 },
		{ PM_HZ, 1000000, 300, 200 },
		{ PM_HZ, 1000000, 50, 0 },
	};
	for (uint32_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
		n = simulate_step(samples, refs[k].ref_hz, refs[k].span_ns, refs[k].bracket_ns,
				  refs[k].gap_ns, 0, 0);
		assert_true(n > 100);
		assert_true(clockcal_estimate(samples, n, refs[k].ref_hz, scratch, &r));
		assert_int_equal(r.step_cycles, 0);
		assert_int_equal(r.uncertainty_ppm, bracket_bound_ppm(samples, n, &r));
		assert_true(clockcal_ppm_diff(r.hz, TSC_HZ) <= r.uncertainty_ppm);
	}

	/* Stretched brackets (rejected), and two in three stretched. */
	n = simulate(samples, 20000000, 3000, 7, 2000000, 0);
	expect_linear(samples, n, PIT_HZ, scratch);
	n = simulate(samples, 3000000, 3000, 0, 0, 0);
	for (uint32_t i = 0; i < n; i++) {
		if (i % 3 == 0)
			continue;
		samples[i].counter_after += tsc_at(1000000);
		samples[i].ref += ref_at(1000000);
	}
	expect_linear(samples, n, PIT_HZ, scratch);

	/* References behind clockcal_sample(): fast, a millisecond a read,
	 * the HPET. */
	struct sim_ref pit = { .t_ns = 1000000, .read_ns = 2000, .hz = PIT_HZ, .bits = 16,
			       .down = true };
	const struct clockcal_window pw = { PIT_HZ * 3 / 1000, PIT_HZ * 20 / 1000, 32 };
	uint64_t reads;
	n = sample_sim(&pit, &pw, &reads);
	expect_linear(samples, n, PIT_HZ, scratch);

	struct sim_ref slow = { .t_ns = 1000000, .read_ns = 1000000, .hz = PIT_HZ, .bits = 16,
				.down = true };
	const struct clockcal_window sw = { PIT_HZ * 3 / 1000, PIT_HZ * 40 / 1000, 32 };
	n = sample_sim(&slow, &sw, &reads);
	expect_linear(samples, n, PIT_HZ, scratch);

	struct sim_ref hpet = { .t_ns = 1000000, .read_ns = 1000, .hz = HPET_HZ, .bits = 32 };
	const struct clockcal_window hw = { 200000, 2000000, 32 };
	n = sample_sim(&hpet, &hw, &reads);
	expect_linear(samples, n, HPET_HZ, scratch);
}

/*
 * A TSC step of @step cycles at @at_permille of a 1 ms window against
 * @ref_hz. The claim must cover the error, and the step be seen for about
 * its size. Returns the error in ppm.
 */
static uint32_t check_step(uint64_t ref_hz, uint64_t bracket_ns, uint64_t gap_ns,
			   uint64_t at_permille, uint64_t step)
{
	struct clockcal_result r;
	uint32_t n = simulate_step(samples, ref_hz, 1000000, bracket_ns, gap_ns,
				   1000000 * at_permille / 1000, step);
	uint32_t err;

	assert_true(n > 100);
	assert_true(clockcal_estimate(samples, n, ref_hz, scratch, &r));
	err = clockcal_ppm_diff(r.hz, TSC_HZ);
	print_message("ref %llu Hz, step %llu cycles at %llu/1000: %u ppm off, claims %u ppm "
		      "(brackets alone %u), step_cycles %llu\n",
		      (unsigned long long)ref_hz, (unsigned long long)step,
		      (unsigned long long)at_permille, err, r.uncertainty_ppm,
		      bracket_bound_ppm(samples, n, &r), (unsigned long long)r.step_cycles);
	assert_true(err <= r.uncertainty_ppm);
	assert_true(r.step_cycles * 2 >= step);
	assert_true(r.step_cycles <= 2 * step);
	return err;
}

/* The boot that adopted a wrong HPET figure: a step in the middle of the
 * window biases every pair, and the brackets alone claimed far less than
 * the error. */
static void test_tsc_step_mid_window_is_claimed(void **state)
{
	struct clockcal_result r;
	uint32_t n, err;

	/* The HPET and the PM timer, wide and narrow brackets. */
	err = check_step(HPET_HZ, 100, 300, 500, 10000);
	assert_true(err > 3000);
	err = check_step(HPET_HZ, 20, 0, 500, 10000);
	assert_true(err > 3000);
	err = check_step(PM_HZ, 300, 200, 500, 10000);
	assert_true(err > 3000);
	err = check_step(PM_HZ, 50, 0, 500, 10000);
	assert_true(err > 3000);
	/* Just off the middle, and a step of a tenth the size. */
	check_step(HPET_HZ, 100, 300, 400, 10000);
	check_step(PM_HZ, 300, 200, 600, 10000);
	check_step(HPET_HZ, 100, 300, 500, 1000);

	/* Without the check the claim would have been the brackets' alone,
	 * well short of the error. */
	n = simulate_step(samples, HPET_HZ, 1000000, 100, 300, 500000, 10000);
	assert_true(clockcal_estimate(samples, n, HPET_HZ, scratch, &r));
	assert_true(bracket_bound_ppm(samples, n, &r) * 2 < clockcal_ppm_diff(r.hz, TSC_HZ));
}

/* A step near either end. At 10 % or 90 % of the window most pairs do not
 * span it and the median is right, but which pairs did cannot be told, so
 * the claim still covers a step spanned; at 20 % or 80 % most do. */
static void test_tsc_step_near_the_ends_is_claimed(void **state)
{
	check_step(HPET_HZ, 100, 300, 100, 10000);
	check_step(HPET_HZ, 100, 300, 900, 10000);
	check_step(PM_HZ, 300, 200, 100, 10000);
	check_step(PM_HZ, 300, 200, 900, 10000);
	check_step(HPET_HZ, 20, 0, 200, 10000);
	check_step(PM_HZ, 50, 0, 800, 10000);
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
		cmocka_unit_test(test_fast_reference_stops_at_the_short_window),
		cmocka_unit_test(test_slow_reference_stretches_the_window),
		cmocka_unit_test(test_stuck_reference_gives_up),
		cmocka_unit_test(test_a_stall_in_the_quick_window_is_retaken),
		cmocka_unit_test(test_retake_rule),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_absent_counter_found_in_microseconds),
		cmocka_unit_test(test_counting_counter_is_found),
		cmocka_unit_test(test_probe_bounded_without_a_tsc),
		cmocka_unit_test(test_first_reference_for_every_combination),
		cmocka_unit_test(test_missing_names),
		cmocka_unit_test(test_unknown_uncertainty_never_agrees),
		cmocka_unit_test(test_linear_samples_keep_the_bracket_bound),
		cmocka_unit_test(test_tsc_step_mid_window_is_claimed),
		cmocka_unit_test(test_tsc_step_near_the_ends_is_claimed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

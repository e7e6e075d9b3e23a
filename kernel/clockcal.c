/*
 * clockcal.c: sample rejection and the median estimate (kernel/clockcal.h).
 */
#include "kernel/clockcal.h"

#include <stddef.h>

/* Move v[i] down the max-heap v[0, n) until both children are smaller. */
static void sift_down(uint64_t *v, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t big = i, l = 2 * i + 1, r = l + 1;
		uint64_t t;

		if (l < n && v[l] > v[big])
			big = l;
		if (r < n && v[r] > v[big])
			big = r;
		if (big == i)
			return;
		t = v[i];
		v[i] = v[big];
		v[big] = t;
		i = big;
	}
}

uint64_t clockcal_median(uint64_t *v, uint32_t n)
{
	/* Heapsort: in place, no recursion, n log n whatever the order. An
	 * insertion sort of the 1500 bracket widths of a 1 ms HPET window
	 * was 2 ms of a TCG guest's time, longer than the window itself. */
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (uint32_t end = n; end > 1; end--) {
		uint64_t t = v[0];

		v[0] = v[end - 1];
		v[end - 1] = t;
		sift_down(v, 0, end - 1);
	}
	return v[n / 2];
}

uint32_t clockcal_ppm_diff(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;
	unsigned __int128 ppm = (unsigned __int128)d * 1000000u / b;

	return ppm > UINT32_MAX ? UINT32_MAX : (uint32_t)ppm;
}

uint64_t clockcal_unwrap(uint64_t delta_raw, unsigned bits, uint64_t predicted_ticks)
{
	uint64_t period = 1ULL << bits;
	uint64_t k;

	if (predicted_ticks <= delta_raw)
		return delta_raw;
	/* Nearest k: round((predicted - raw) / period). */
	k = (predicted_ticks - delta_raw + period / 2) / period;
	return delta_raw + k * period;
}

static uint64_t width_of(const struct clockcal_sample *s)
{
	return s->tsc_after >= s->tsc_before ? s->tsc_after - s->tsc_before : UINT64_MAX;
}

/* Index of the @k-th kept sample (0-based), or @n if there are not that many. */
static uint32_t nth_kept(const struct clockcal_sample *s, uint32_t n, uint64_t limit, uint32_t k)
{
	for (uint32_t i = 0; i < n; i++)
		if (width_of(&s[i]) <= limit && k-- == 0)
			return i;
	return n;
}

bool clockcal_estimate(const struct clockcal_sample *s, uint32_t n, uint64_t ref_hz,
		       uint64_t *scratch, struct clockcal_result *out)
{
	uint64_t limit, p25, worst_ppm = 0;
	uint32_t kept = 0, third, pairs = 0;

	*out = (struct clockcal_result){ 0 };
	if (n < CLOCKCAL_MIN_SAMPLES || ref_hz == 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		scratch[i] = width_of(&s[i]);
	clockcal_median(scratch, n);   /* sorts */
	p25 = scratch[n / 4];
	if (p25 == UINT64_MAX)
		return false;
	/* Twice the lower quartile: a clean bracket varies by a few cycles of
	 * port I/O, a descheduled one by the host's time slice (milliseconds). */
	limit = p25 > UINT64_MAX / 2 ? UINT64_MAX - 1 : 2 * p25 + 1;
	for (uint32_t i = 0; i < n; i++)
		kept += width_of(&s[i]) <= limit;
	out->kept = kept;
	out->rejected = n - kept;
	out->bracket_limit = limit;
	if (kept < CLOCKCAL_MIN_SAMPLES)
		return false;

	/* Pair the j-th sample of the first third with the j-th of the last
	 * third: every pair spans at least a third of the run, and no sample
	 * is used twice. */
	third = kept / 3;
	for (uint32_t j = 0; j < CLOCKCAL_PAIRS && j < third; j++) {
		uint32_t ka = (uint32_t)((uint64_t)j * third / (CLOCKCAL_PAIRS < third ? CLOCKCAL_PAIRS : third));
		uint32_t a = nth_kept(s, n, limit, ka);
		uint32_t b = nth_kept(s, n, limit, kept - third + ka);
		uint64_t twice_dt, dref, hz, bound_ppm;

		if (a >= n || b >= n || s[b].ref <= s[a].ref)
			continue;
		/* Midpoints, doubled to stay in integers. */
		twice_dt = (s[b].tsc_before + s[b].tsc_after) - (s[a].tsc_before + s[a].tsc_after);
		if ((int64_t)twice_dt <= 0)
			continue;
		dref = s[b].ref - s[a].ref;
		hz = (uint64_t)((unsigned __int128)twice_dt * ref_hz / (2 * (unsigned __int128)dref));
		/* Each end is off by at most half its bracket; the reference's
		 * reading by less than one tick. */
		bound_ppm = (uint64_t)((unsigned __int128)(width_of(&s[a]) + width_of(&s[b])) *
				       1000000u / twice_dt) +
			    (1000000u + dref - 1) / dref;
		if (bound_ppm > worst_ppm)
			worst_ppm = bound_ppm;
		scratch[pairs++] = hz;
		if (s[b].ref - s[a].ref > out->span_ref)
			out->span_ref = s[b].ref - s[a].ref;
	}
	if (pairs == 0)
		return false;
	out->pairs = pairs;
	out->hz = clockcal_median(scratch, pairs);
	out->uncertainty_ppm = worst_ppm > UINT32_MAX ? UINT32_MAX : (uint32_t)worst_ppm;
	return out->hz != 0;
}

uint32_t clockcal_sample(const struct clockcal_source *src, const struct clockcal_window *w,
			 struct clockcal_sample *s, uint32_t cap, uint64_t *reads_out)
{
	const uint64_t mask = src->bits >= 64 ? UINT64_MAX : (1ULL << src->bits) - 1;
	const uint64_t stride = cap > 1 ? w->min_ticks / (cap - 1) + 1 : 1;
	uint64_t prev_raw = 0, prev_tsc = 0, total = 0;
	uint64_t reads = 0, max_reads = 64ULL * cap;
	uint32_t n = 0;

	while (n < cap && reads++ < max_reads) {
		struct clockcal_sample *c = &s[n];
		uint64_t raw, delta, predicted = 0;

		c->tsc_before = src->read_tsc(src->ctx);
		raw = src->read_ref(src->ctx);
		c->tsc_after = src->read_tsc(src->ctx);
		raw &= mask;
		if (reads > 1) {
			delta = (src->down ? prev_raw - raw : raw - prev_raw) & mask;
			/* Predict from the TSC once 256 ticks give a rough rate. */
			if (total >= 256) {
				uint64_t run = prev_tsc - s[0].tsc_before;
				uint64_t gap = c->tsc_after - prev_tsc;
				predicted = (uint64_t)((unsigned __int128)gap * total / (run ? run : 1));
			}
			total += clockcal_unwrap(delta, src->bits, predicted);
		}
		prev_raw = raw;
		prev_tsc = c->tsc_after;
		c->ref = total;
		if (n == 0 || total - s[n - 1].ref >= stride) {
			n++;
			if (total >= w->max_ticks ||
			    (total >= w->min_ticks && n >= w->min_samples))
				break;
		}
	}
	if (reads_out)
		*reads_out = reads;
	return n;
}

bool clockcal_agree(uint32_t diff_ppm, uint32_t unc_a_ppm, uint32_t unc_b_ppm,
		    uint32_t slack_ppm, uint64_t *allowed_ppm)
{
	uint64_t allowed = (uint64_t)unc_a_ppm + unc_b_ppm + slack_ppm;

	/* Known bounds saturate just below "unknown". */
	if (allowed >= CLOCKCAL_UNKNOWN_PPM)
		allowed = CLOCKCAL_UNKNOWN_PPM - 1;
	if (unc_a_ppm == CLOCKCAL_UNKNOWN_PPM || unc_b_ppm == CLOCKCAL_UNKNOWN_PPM)
		allowed = CLOCKCAL_UNKNOWN_PPM;
	if (allowed_ppm)
		*allowed_ppm = allowed;
	return allowed != CLOCKCAL_UNKNOWN_PPM && diff_ppm <= allowed;
}

int clockcal_choose(const struct clockcal_candidate *c, uint32_t n, uint32_t trust_ppm)
{
	int best = -1, reported = -1;

	for (uint32_t i = 0; i < n; i++) {
		if (!c[i].hz)
			continue;
		if (!c[i].measured) {
			if (reported < 0)
				reported = (int)i;
			continue;
		}
		if (best < 0 || c[i].uncertainty_ppm < c[best].uncertainty_ppm)
			best = (int)i;
	}
	if (best < 0)
		return reported;
	if (reported < 0)
		return best;
	/* The CPU's own figure is exact (0x15) or good to its rounding; a TCG
	 * guest's may name a rate the emulated TSC does not run at, which
	 * the measurement shows. */
	return clockcal_agree(clockcal_ppm_diff(c[best].hz, c[reported].hz),
			      c[best].uncertainty_ppm, c[reported].uncertainty_ppm, trust_ppm, NULL)
		       ? reported : best;
}

/*
 * clockcal.c: sample rejection and the median estimate (kernel/services/clock/clockcal.h).
 */
#include "kernel/services/clock/clockcal.h"

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
	 * insertion sort of the 1500 bracket widths of a 1 ms window of a
	 * 14 MHz reference was 2 ms of a TCG guest's time, longer than the
	 * window itself. */
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
	return s->counter_after >= s->counter_before ? s->counter_after - s->counter_before : UINT64_MAX;
}

/* Index of the @k-th kept sample (0-based), or @n if there are not that many. */
static uint32_t nth_kept(const struct clockcal_sample *s, uint32_t n, uint64_t limit, uint32_t k)
{
	for (uint32_t i = 0; i < n; i++)
		if (width_of(&s[i]) <= limit && k-- == 0)
			return i;
	return n;
}

/* Offsets from the line are clamped to this (doubled cycles): only samples
 * that make no sense come near it, and it keeps every sum below in range. */
#define LINE_OFFSET_MAX (1LL << 61)

/* floor(2 * @dref * @hz / @ref_hz): reference ticks as doubled counter cycles,
 * clamped to LINE_OFFSET_MAX. */
static uint64_t ticks_to_cycles2(uint64_t dref, uint64_t hz, uint64_t ref_hz)
{
	/* A window's product fits 64 bits (20 ms of 14 MHz ticks times 5 GHz is
	 * 1e16): one native division, not libgcc's 128-bit one, for each of
	 * 1500 samples on the AP that measures. Same result either way. */
	if (hz == 0 || dref <= UINT64_MAX / hz) {
		uint64_t p = dref * hz, q = p / ref_hz, r = p % ref_hz;
		if (q < (uint64_t)LINE_OFFSET_MAX / 2)
			return 2 * q + (r >= ref_hz - r);
	}
	unsigned __int128 prod = (unsigned __int128)dref * hz;
	unsigned __int128 q = prod / ref_hz;
	uint64_t rem = (uint64_t)(prod % ref_hz);

	if (q >= (uint64_t)LINE_OFFSET_MAX / 2)
		return (uint64_t)LINE_OFFSET_MAX;
	/* 2 * rem >= ref_hz without overflowing rem + rem. */
	return (uint64_t)(2 * q) + (rem >= ref_hz - rem);
}

/*
 * Sample @i's doubled counter midpoint less the one predicted for it by the
 * line of slope hz / ref_hz through sample @o's, given @ref_cycles2, the
 * reference ticks between them as doubled cycles (ticks_to_cycles2()):
 *   (counter_before_i + counter_after_i) - (counter_before_o + counter_after_o)
 *     - 2 * (ref_i - ref_o) * hz / ref_hz,
 * clamped to +-LINE_OFFSET_MAX.
 */
static int64_t line_offset2(const struct clockcal_sample *i, const struct clockcal_sample *o,
			    uint64_t ref_cycles2)
{
	__int128 d = ((__int128)i->counter_before + i->counter_after) -
		     ((__int128)o->counter_before + o->counter_after);

	if (i->ref >= o->ref)
		d -= ref_cycles2;
	else
		d += ref_cycles2;
	if (d > LINE_OFFSET_MAX)
		return LINE_OFFSET_MAX;
	if (d < -LINE_OFFSET_MAX)
		return -LINE_OFFSET_MAX;
	return (int64_t)d;
}

/*
 * The linearity check: by how many counter cycles the kept samples stray from
 * a line of slope @hz / @ref_hz beyond what their brackets, the reference's
 * tick and the claimed @bracket_ppm explain (0: not at all).
 *
 * Why: the bracket bound assumes the counter and the reference run in
 * proportion over the whole window. Under QEMU TCG on a busy host they need
 * not: the guest's counter follows the host's clock with a monotonic correction
 * and can step forward against the reference between two samples, every
 * bracket as narrow as before. A bracket sees only what happens between its
 * own two counter reads, never a step between samples; every pair spans the
 * step, all their rates are biased the same way and the median keeps the
 * bias (an x86 boot measured one reference 4000 ppm off claiming 389 ppm,
 * another 5300 ppm off claiming 1157). The samples themselves show the step:
 * their midpoints leave the line.
 *
 * In doubled cycles (exact integers), sample i's offset o_i is its
 * midpoint counter_before_i + counter_after_i less the one the line through the
 * first kept sample predicts (line_offset2()). For linear samples two
 * offsets o_i, o_j differ by no more than
 *  - their readings' places in their brackets: width_i + width_j;
 *  - the reference's readings, each up to a tick late: less than 2 * tick,
 *    tick = hz / ref_hz cycles rounded up;
 *  - the slope, off by no more than the bracket bound claims:
 *    2 * cycles(|ref_i - ref_j|) * bracket_ppm / 1e6;
 *  - rounding: a few units.
 * So the excess of a pair,
 *   |o_i - o_j| - A_i - A_j - 2 * cycles(|ref_i - ref_j|) * bracket_ppm / 1e6,
 *   A_i = width_i + tick + 2,
 * is never positive for linear samples, whatever the line's intercept, and
 * their uncertainty stays what the brackets give. Across a step of S
 * cycles, from a sample just before it to one just after, it is 2S less
 * the noise allowed: the largest excess over all pairs, halved to cycles,
 * is returned as about the step. (The slope's allowance aside, that is
 * twice the largest excess of one sample's offset from a line, in cycles
 * (|o_i - c| - A_i) / 2, for the intercept c that makes it least, midway
 * between the extremes; a median intercept is a few cycles off centre by
 * chance and then flags clean samples whose reading sat at the edge of a
 * bracket.)
 *
 * With sl_i = ceil(2 * cycles(ref_i - ref_first) * bracket_ppm / 1e6), the
 * excess of (i, j), j before i, is the larger of
 * (o_i - A_i - sl_i) - (o_j + A_j - sl_j) and
 * (o_j - A_j + sl_j) - (o_i + A_i + sl_i): one pass in time order keeps
 * the least of the second term of the first and the greatest of the first
 * term of the second so far.
 */
static uint64_t step_excess(const struct clockcal_sample *s, uint32_t n, uint64_t limit,
			    uint64_t hz, uint64_t ref_hz, uint64_t bracket_ppm)
{
	const struct clockcal_sample *o = &s[nth_kept(s, n, limit, 0)];
	const __int128 tick = hz / ref_hz + (hz % ref_hz != 0);
	__int128 low = 0, high = 0, worst2 = 0;
	bool first = true;

	if (bracket_ppm > 1000000)
		bracket_ppm = 1000000;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = width_of(&s[i]), cycles2;
		__int128 off, allow, sl, d;

		if (w > limit)
			continue;
		cycles2 = ticks_to_cycles2(s[i].ref >= o->ref ? s[i].ref - o->ref : o->ref - s[i].ref,
					   hz, ref_hz);
		off = line_offset2(&s[i], o, cycles2);
		allow = (w > (uint64_t)LINE_OFFSET_MAX ? LINE_OFFSET_MAX : (__int128)w) + tick + 2;
		/* ceil(bracket_ppm / 1e6 * doubled cycles from the first) */
		if (cycles2 <= (UINT64_MAX - 1000000) / 1000000)   /* 64 bits suffice (above) */
			sl = (__int128)((cycles2 * bracket_ppm + 1000000 - 1) / 1000000);
		else
			sl = ((unsigned __int128)cycles2 * bracket_ppm + 1000000 - 1) / 1000000;
		if (s[i].ref < o->ref)
			sl = -sl;
		if (!first) {
			d = off - allow - sl - low;
			if (d > worst2)
				worst2 = d;
			d = high - (off + allow + sl);
			if (d > worst2)
				worst2 = d;
		}
		if (first || off + allow - sl < low)
			low = off + allow - sl;
		if (first || off - allow + sl > high)
			high = off - allow + sl;
		first = false;
	}
	return (uint64_t)((worst2 + 1) / 2);
}

bool clockcal_estimate(const struct clockcal_sample *s, uint32_t n, uint64_t ref_hz,
		       uint64_t *scratch, struct clockcal_result *out)
{
	uint64_t limit, p25, worst_ppm = 0, twice_dt_min = UINT64_MAX;
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
	 * a register read, a descheduled one by the host's time slice
	 * (milliseconds). */
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
		twice_dt = (s[b].counter_before + s[b].counter_after) -
			   (s[a].counter_before + s[a].counter_after);
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
		if (twice_dt < twice_dt_min)
			twice_dt_min = twice_dt;
		scratch[pairs++] = hz;
		if (s[b].ref - s[a].ref > out->span_ref)
			out->span_ref = s[b].ref - s[a].ref;
	}
	if (pairs == 0)
		return false;
	out->pairs = pairs;
	out->hz = clockcal_median(scratch, pairs);
	if (worst_ppm > UINT32_MAX)
		worst_ppm = UINT32_MAX;
	out->uncertainty_ppm = (uint32_t)worst_ppm;
	if (out->hz == 0)
		return false;
	/* A step of R cycles (step_excess()) between samples biases a pair
	 * that spans it by the step over the pair's span: by up to about
	 * R / dt_min, dt_min the shortest pair's span in cycles, R being
	 * within the noise allowed of the step. Twice that is claimed: when
	 * few samples lie near the step their noise hides part of it, and a
	 * slope biased by the step spreads the offsets a little wider than
	 * the step on one side and narrower on the other. Linear samples
	 * leave R at 0 and the bound as it was. */
	out->step_cycles = step_excess(s, n, limit, out->hz, ref_hz, worst_ppm);
	if (out->step_cycles) {
		/* 2R / dt_min = 4R / twice_dt_min, in ppm, rounded up. */
		unsigned __int128 step_ppm = ((unsigned __int128)out->step_cycles * 4000000u +
					      twice_dt_min - 1) / twice_dt_min;

		out->uncertainty_ppm = step_ppm >= UINT32_MAX - worst_ppm
					       ? UINT32_MAX : (uint32_t)(worst_ppm + step_ppm);
	}
	return true;
}

bool clockcal_retake(const struct clockcal_result *r, uint64_t window_ticks, uint64_t ref_hz,
		     uint64_t short_ticks, uint64_t slow_read_ticks, uint32_t target_ppm)
{
	if (r->hz && r->uncertainty_ppm <= target_ppm)
		return false;
	if (window_ticks < short_ticks)
		return true;
	/* No figure from a stretched window: too few clean samples in all
	 * that time, slow reads. Else the kept brackets tell the read time:
	 * a stall rejects the one bracket it falls in, if any, and leaves the
	 * others as narrow as ever. */
	if (!r->hz)
		return false;
	return (unsigned __int128)r->bracket_limit * ref_hz < (unsigned __int128)slow_read_ticks * r->hz;
}

uint32_t clockcal_sample(const struct clockcal_source *src, const struct clockcal_window *w,
			 struct clockcal_sample *s, uint32_t cap, uint64_t *reads_out)
{
	const uint64_t mask = src->bits >= 64 ? UINT64_MAX : (1ULL << src->bits) - 1;
	const uint64_t stride = cap > 1 ? w->min_ticks / (cap - 1) + 1 : 1;
	uint64_t prev_raw = 0, prev_counter = 0, total = 0;
	uint64_t reads = 0, max_reads = 64ULL * cap;
	uint32_t n = 0;

	while (n < cap && reads++ < max_reads) {
		struct clockcal_sample *c = &s[n];
		uint64_t raw, delta, predicted = 0;

		c->counter_before = src->read_counter(src->ctx);
		raw = src->read_ref(src->ctx);
		c->counter_after = src->read_counter(src->ctx);
		raw &= mask;
		if (reads > 1) {
			delta = (src->down ? prev_raw - raw : raw - prev_raw) & mask;
			/* Predict from the counter once 256 ticks give a rough rate. */
			if (total >= 256) {
				uint64_t run = prev_counter - s[0].counter_before;
				uint64_t gap = c->counter_after - prev_counter;
				predicted = (uint64_t)((unsigned __int128)gap * total / (run ? run : 1));
			}
			total += clockcal_unwrap(delta, src->bits, predicted);
		}
		prev_raw = raw;
		prev_counter = c->counter_after;
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
	/* The CPU's own figure is exact or good to its rounding; a TCG
	 * guest's may name a rate the emulated counter does not run at, which
	 * the measurement shows. */
	return clockcal_agree(clockcal_ppm_diff(c[best].hz, c[reported].hz),
			      c[best].uncertainty_ppm, c[reported].uncertainty_ppm, trust_ppm, NULL)
		       ? reported : best;
}

bool clockcal_counter_counts(const struct clockcal_source *src, uint32_t min_reads,
			     uint64_t min_cycles, uint32_t max_reads, uint32_t *reads_out)
{
	const uint64_t mask = src->bits >= 64 ? UINT64_MAX : (1ULL << src->bits) - 1;
	const uint64_t t0 = src->read_counter(src->ctx);
	const uint64_t first = src->read_ref(src->ctx) & mask;
	uint32_t reads = 1;
	bool counts = false;

	while (reads < max_reads) {
		uint64_t v = src->read_ref(src->ctx) & mask;

		reads++;
		if (v != first) {
			counts = true;
			break;
		}
		if (reads >= min_reads && src->read_counter(src->ctx) - t0 >= min_cycles)
			break;
	}
	if (reads_out)
		*reads_out = reads;
	return counts;
}

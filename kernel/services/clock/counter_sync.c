/*
 * counter_sync.c: the counters' agreement, estimate and decision
 * (kernel/services/clock/counter_sync.h).
 */
#include "kernel/services/clock/counter_sync.h"

void counter_sync_from_bounds(int64_t lo, int64_t hi, uint32_t samples,
			      struct counter_sync_estimate *out)
{
	*out = (struct counter_sync_estimate){ .lo = lo, .hi = hi, .samples = samples };
	out->consistent = samples > 0 && lo != INT64_MIN && hi != INT64_MAX && lo <= hi;
	if (!out->consistent) {
		out->offset = lo != INT64_MIN && hi != INT64_MAX ? lo / 2 + hi / 2 : 0;
		out->uncertainty = UINT64_MAX;
		out->warp = lo != INT64_MIN && lo > 0 ? (uint64_t)lo
			    : hi != INT64_MAX && hi < 0 ? 0 - (uint64_t)hi : 0;
		return;
	}
	/* Differences of counters read microseconds apart: they fit. */
	out->offset = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
	out->uncertainty = ((uint64_t)hi - (uint64_t)lo + 1) / 2;
	out->warp = lo > 0 ? (uint64_t)lo : hi < 0 ? 0 - (uint64_t)hi : 0;
}

void counter_sync_estimate(const struct counter_sync_sample *s, uint32_t n,
			   struct counter_sync_estimate *out)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		int64_t l = (int64_t)(s[i].t1 - s[i].t2), h = (int64_t)(s[i].t1 - s[i].t0);

		if (l > lo)
			lo = l;
		if (h < hi)
			hi = h;
	}
	counter_sync_from_bounds(lo, hi, n, out);
}

uint64_t counter_sync_tolerance_cycles(uint64_t hz, uint64_t uncertainty_ppm)
{
	/* hz * ppm / 1e6 cycles a second of error, times the span in seconds;
	 * in steps that cannot overflow for any hz below 2^44 and ppm below
	 * 2^20. */
	uint64_t per_s, t;

	if (uncertainty_ppm >= 1000000)
		return UINT64_MAX;     /* an unknown uncertainty: nothing is beyond it */
	per_s = hz / 1000000 * uncertainty_ppm + hz % 1000000 * uncertainty_ppm / 1000000;
	t = per_s / (1000000000ULL / COUNTER_SYNC_SPAN_NS);
	return t ? t : 1;
}

enum counter_sync_verdict counter_sync_decide(const struct counter_sync_estimate *e,
					      uint64_t tolerance_cycles)
{
	if (!e->consistent)
		return COUNTER_SYNC_UNRELIABLE;
	if (e->warp <= tolerance_cycles)
		return COUNTER_SYNC_OK;
	return e->uncertainty <= tolerance_cycles ? COUNTER_SYNC_CORRECTED : COUNTER_SYNC_UNRELIABLE;
}

const char *counter_sync_verdict_name(enum counter_sync_verdict v)
{
	return v == COUNTER_SYNC_OK ? "ok" : v == COUNTER_SYNC_CORRECTED ? "corrected" : "unreliable";
}

void counter_sync_bounds_init(struct counter_sync_bounds *b)
{
	*b = (struct counter_sync_bounds){ .lo = INT64_MIN, .hi = INT64_MAX };
}

void counter_sync_ap_saw(struct counter_sync_bounds *b, uint64_t ref_pub, uint64_t own_after)
{
	int64_t h = (int64_t)(own_after - ref_pub);

	if (h < b->hi)
		b->hi = h;
	b->n_hi++;
}

void counter_sync_boot_saw(struct counter_sync_bounds *b, uint64_t own_pub, uint64_t ref_after)
{
	int64_t l = (int64_t)(own_pub - ref_after);

	if (l > b->lo)
		b->lo = l;
	b->n_lo++;
}

bool counter_sync_judge(const struct counter_sync_bounds *b, uint64_t tolerance_cycles,
		    struct counter_sync_estimate *e, enum counter_sync_verdict *v)
{
	if (b->n_lo == 0 || b->n_hi == 0)
		return false;
	counter_sync_from_bounds(b->lo, b->hi, b->n_lo + b->n_hi, e);
	*v = counter_sync_decide(e, tolerance_cycles);
	return true;
}

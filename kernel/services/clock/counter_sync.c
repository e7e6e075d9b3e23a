/*
 * tsc_sync.c: the TSC-sync estimate and decision (kernel/services/clock/tsc_sync.h).
 */
#include "kernel/services/clock/tsc_sync.h"

void tsc_sync_from_bounds(int64_t lo, int64_t hi, uint32_t samples, struct tsc_sync_estimate *out)
{
	*out = (struct tsc_sync_estimate){ .lo = lo, .hi = hi, .samples = samples };
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

void tsc_sync_estimate(const struct tsc_sync_sample *s, uint32_t n, struct tsc_sync_estimate *out)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		int64_t l = (int64_t)(s[i].t1 - s[i].t2), h = (int64_t)(s[i].t1 - s[i].t0);

		if (l > lo)
			lo = l;
		if (h < hi)
			hi = h;
	}
	tsc_sync_from_bounds(lo, hi, n, out);
}

uint64_t tsc_sync_tolerance_cycles(uint64_t hz, uint64_t uncertainty_ppm)
{
	/* hz * ppm / 1e6 cycles a second of error, times the span in seconds;
	 * in steps that cannot overflow for any hz below 2^44 and ppm below
	 * 2^20. */
	uint64_t per_s, t;

	if (uncertainty_ppm >= 1000000)
		return UINT64_MAX;     /* an unknown uncertainty: nothing is beyond it */
	per_s = hz / 1000000 * uncertainty_ppm + hz % 1000000 * uncertainty_ppm / 1000000;
	t = per_s / (1000000000ULL / TSC_SYNC_SPAN_NS);
	return t ? t : 1;
}

enum tsc_sync_verdict tsc_sync_decide(const struct tsc_sync_estimate *e, uint64_t tolerance_cycles)
{
	if (!e->consistent)
		return TSC_SYNC_UNRELIABLE;
	if (e->warp <= tolerance_cycles)
		return TSC_SYNC_OK;
	return e->uncertainty <= tolerance_cycles ? TSC_SYNC_CORRECTED : TSC_SYNC_UNRELIABLE;
}

const char *tsc_sync_verdict_name(enum tsc_sync_verdict v)
{
	return v == TSC_SYNC_OK ? "ok" : v == TSC_SYNC_CORRECTED ? "corrected" : "unreliable";
}

void tsc_sync_bounds_init(struct tsc_sync_bounds *b)
{
	*b = (struct tsc_sync_bounds){ .lo = INT64_MIN, .hi = INT64_MAX };
}

void tsc_sync_ap_saw(struct tsc_sync_bounds *b, uint64_t ref_pub, uint64_t own_after)
{
	int64_t h = (int64_t)(own_after - ref_pub);

	if (h < b->hi)
		b->hi = h;
	b->n_hi++;
}

void tsc_sync_boot_saw(struct tsc_sync_bounds *b, uint64_t own_pub, uint64_t ref_after)
{
	int64_t l = (int64_t)(own_pub - ref_after);

	if (l > b->lo)
		b->lo = l;
	b->n_lo++;
}

bool tsc_sync_judge(const struct tsc_sync_bounds *b, uint64_t tolerance_cycles,
		    struct tsc_sync_estimate *e, enum tsc_sync_verdict *v)
{
	if (b->n_lo == 0 || b->n_hi == 0)
		return false;
	tsc_sync_from_bounds(b->lo, b->hi, b->n_lo + b->n_hi, e);
	*v = tsc_sync_decide(e, tolerance_cycles);
	return true;
}

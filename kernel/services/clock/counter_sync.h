/*
 * tsc_sync.h: do the CPUs' time stamp counters agree? The estimate and the
 * decision, pure C (host-tested over simulated skewed CPUs); the boot CPU's
 * measurement of each AP is kernel/init/smp.c's.
 *
 * The measurement, in the spirit of Linux's arch/x86/kernel/tsc_sync.c: the
 * boot CPU reads its TSC (t0) and then releases the AP through a shared
 * word; the AP, having seen it, reads its own TSC (t1) and hands it back;
 * the boot CPU, having seen that, reads its TSC again (t2). The AP's reading
 * happened between the boot CPU's two, so the AP's offset (its TSC minus
 * the boot CPU's at the same instant) lies in [t1 - t2, t1 - t0]. A few
 * rounds narrow the interval (the tightest bounds of all rounds). If t1 < t0
 * or t2 < t1, one CPU saw time run backwards relative to the other: that
 * step is the warp Linux's check looks for, and it is the distance from 0
 * to the interval. An interval that is empty (lo > hi) means the readings
 * cannot come from two counters at a fixed offset: the TSCs drift.
 */
#ifndef MEMBOOT_KERNEL_TSC_SYNC_H
#define MEMBOOT_KERNEL_TSC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* Rounds per AP: enough for a tight interval, bounded for thousands of CPUs. */
#define TSC_SYNC_ROUNDS 5
/* The calibration's error is taken over this span as the tolerance (see
 * tsc_sync_tolerance_cycles()). */
#define TSC_SYNC_SPAN_NS 1000000ULL

struct tsc_sync_sample {
	uint64_t t0;    /* boot CPU, before releasing the AP */
	uint64_t t1;    /* the AP, after seeing the release */
	uint64_t t2;    /* boot CPU, after seeing t1 */
};

struct tsc_sync_estimate {
	int64_t lo, hi;          /* AP's TSC minus the boot CPU's lies in [lo, hi] (cycles) */
	int64_t offset;          /* the interval's middle */
	uint64_t uncertainty;    /* half its width */
	uint64_t warp;           /* the largest backwards step seen: distance from 0 to [lo, hi] */
	bool consistent;         /* lo <= hi */
	uint32_t samples;
};

enum tsc_sync_verdict {
	TSC_SYNC_OK,             /* within the tolerance of the boot CPU's */
	TSC_SYNC_CORRECTED,      /* off by a known offset: its timestamps are corrected */
	TSC_SYNC_UNRELIABLE,     /* off by an amount not known well enough, or drifting */
};

/*
 * The estimate from bounds found otherwise: the AP's offset is at least @lo
 * (the boot CPU read the AP's published TSC, then its own: AP's minus boot's
 * then was at least their difference) and at most @hi (the AP read the boot
 * CPU's published TSC, then its own). INT64_MIN / INT64_MAX: that bound was
 * never found (not consistent). This is how all APs are checked at once
 * (kernel/init/smp.c); tsc_sync_estimate() is the one-pair form.
 */
void tsc_sync_from_bounds(int64_t lo, int64_t hi, uint32_t samples, struct tsc_sync_estimate *out);

/* The estimate from @n samples (n == 0: not consistent, no samples). */
void tsc_sync_estimate(const struct tsc_sync_sample *s, uint32_t n, struct tsc_sync_estimate *out);

/*
 * The tolerance: the error the calibration already allows (@uncertainty_ppm
 * of @hz) over TSC_SYNC_SPAN_NS, the scale of the shortest timings memboot
 * reports. An offset below it changes no reported time by more than the
 * calibration may; at least 1 cycle; saturates for an unknown uncertainty.
 */
uint64_t tsc_sync_tolerance_cycles(uint64_t hz, uint64_t uncertainty_ppm);

/*
 * OK when the warp is at most @tolerance_cycles (the TSCs agree as far as
 * anything memboot reports can tell); CORRECTED when they disagree by more
 * but the offset is known to within the tolerance (uncertainty <=
 * tolerance); UNRELIABLE otherwise, and always for an inconsistent estimate.
 */
enum tsc_sync_verdict tsc_sync_decide(const struct tsc_sync_estimate *e, uint64_t tolerance_cycles);

const char *tsc_sync_verdict_name(enum tsc_sync_verdict v);

/*
 * The one-writer scheme, every AP at once (kernel/init/smp.c): the boot CPU
 * keeps publishing its TSC to one shared word and reads each AP's published
 * TSC; each AP reads the boot CPU's word and keeps publishing its own. The
 * bounds each side's readings give, gathered per AP:
 */
struct tsc_sync_bounds {
	int64_t lo, hi;          /* AP's TSC minus the boot CPU's lies in [lo, hi] */
	uint32_t n_lo, n_hi;     /* readings that gave each side (0: never bounded) */
};

void tsc_sync_bounds_init(struct tsc_sync_bounds *b);
/* The AP read the boot CPU's published @ref_pub, then its own TSC @own_after:
 * the boot CPU's TSC had passed ref_pub, so the offset is at most the
 * difference. */
void tsc_sync_ap_saw(struct tsc_sync_bounds *b, uint64_t ref_pub, uint64_t own_after);
/* The boot CPU read the AP's published @own_pub, then its own TSC
 * @ref_after: the offset is at least the difference. */
void tsc_sync_boot_saw(struct tsc_sync_bounds *b, uint64_t own_pub, uint64_t ref_after);

/*
 * Judge one AP from its bounds: false ("not checked") when either side was
 * never read, since one bound alone says nothing about agreement; else
 * true, with the estimate in @e and the verdict (tsc_sync_decide()) in @v.
 */
bool tsc_sync_judge(const struct tsc_sync_bounds *b, uint64_t tolerance_cycles,
		    struct tsc_sync_estimate *e, enum tsc_sync_verdict *v);

#endif

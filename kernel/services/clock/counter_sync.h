/*
 * counter_sync.h: do the CPUs' cycle counters agree? The estimate and the
 * decision, pure C (host-tested over simulated skewed CPUs); the boot CPU's
 * measurement of the APs is kernel/services/clock/cpu_sync.c's, run where
 * the architecture does not promise agreement (ARCH_COUNTER_AGREES 0).
 *
 * The measurement, in the spirit of Linux's check of x86's counters: the
 * boot CPU reads its counter (t0) and then releases the AP through a shared
 * word; the AP, having seen it, reads its own counter (t1) and hands it
 * back; the boot CPU, having seen that, reads its counter again (t2). The
 * AP's reading happened between the boot CPU's two, so the AP's offset (its
 * counter minus the boot CPU's at the same instant) lies in [t1 - t2,
 * t1 - t0]. A few
 * rounds narrow the interval (the tightest bounds of all rounds). If t1 < t0
 * or t2 < t1, one CPU saw time run backwards relative to the other: that
 * step is the warp Linux's check looks for, and it is the distance from 0
 * to the interval. An interval that is empty (lo > hi) means the readings
 * cannot come from two counters at a fixed offset: the counters drift.
 */
#ifndef MEMBOOT_KERNEL_CLOCK_COUNTER_SYNC_H
#define MEMBOOT_KERNEL_CLOCK_COUNTER_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* Rounds per AP: enough for a tight interval, bounded for thousands of CPUs. */
#define COUNTER_SYNC_ROUNDS 5
/* The calibration's error is taken over this span as the tolerance (see
 * counter_sync_tolerance_cycles()). */
#define COUNTER_SYNC_SPAN_NS 1000000ULL

struct counter_sync_sample {
	uint64_t t0;    /* boot CPU, before releasing the AP */
	uint64_t t1;    /* the AP, after seeing the release */
	uint64_t t2;    /* boot CPU, after seeing t1 */
};

struct counter_sync_estimate {
	int64_t lo, hi;          /* AP's counter minus the boot CPU's lies in [lo, hi] (cycles) */
	int64_t offset;          /* the interval's middle */
	uint64_t uncertainty;    /* half its width */
	uint64_t warp;           /* the largest backwards step seen: distance from 0 to [lo, hi] */
	bool consistent;         /* lo <= hi */
	uint32_t samples;
};

enum counter_sync_verdict {
	COUNTER_SYNC_OK,             /* within the tolerance of the boot CPU's */
	COUNTER_SYNC_CORRECTED,      /* off by a known offset: its timestamps are corrected */
	COUNTER_SYNC_UNRELIABLE,     /* off by an amount not known well enough, or drifting */
};

/*
 * The estimate from bounds found otherwise: the AP's offset is at least @lo
 * (the boot CPU read the AP's published counter, then its own: AP's minus boot's
 * then was at least their difference) and at most @hi (the AP read the boot
 * CPU's published counter, then its own). INT64_MIN / INT64_MAX: that bound was
 * never found (not consistent). This is how all APs are checked at once
 * (kernel/services/clock/cpu_sync.c); counter_sync_estimate() is the one-pair form.
 */
void counter_sync_from_bounds(int64_t lo, int64_t hi, uint32_t samples,
			      struct counter_sync_estimate *out);

/* The estimate from @n samples (n == 0: not consistent, no samples). */
void counter_sync_estimate(const struct counter_sync_sample *s, uint32_t n,
			   struct counter_sync_estimate *out);

/*
 * The tolerance: the error the calibration already allows (@uncertainty_ppm
 * of @hz) over COUNTER_SYNC_SPAN_NS, the scale of the shortest timings memboot
 * reports. An offset below it changes no reported time by more than the
 * calibration may; at least 1 cycle; saturates for an unknown uncertainty.
 */
uint64_t counter_sync_tolerance_cycles(uint64_t hz, uint64_t uncertainty_ppm);

/*
 * OK when the warp is at most @tolerance_cycles (the counters agree as far as
 * anything memboot reports can tell); CORRECTED when they disagree by more
 * but the offset is known to within the tolerance (uncertainty <=
 * tolerance); UNRELIABLE otherwise, and always for an inconsistent estimate.
 */
enum counter_sync_verdict counter_sync_decide(const struct counter_sync_estimate *e,
					      uint64_t tolerance_cycles);

const char *counter_sync_verdict_name(enum counter_sync_verdict v);

/*
 * The one-writer scheme, every AP at once (kernel/services/clock/cpu_sync.c): the boot CPU
 * keeps publishing its counter to one shared word and reads each AP's published
 * counter; each AP reads the boot CPU's word and keeps publishing its own. The
 * bounds each side's readings give, gathered per AP:
 */
struct counter_sync_bounds {
	int64_t lo, hi;          /* AP's counter minus the boot CPU's lies in [lo, hi] */
	uint32_t n_lo, n_hi;     /* readings that gave each side (0: never bounded) */
};

void counter_sync_bounds_init(struct counter_sync_bounds *b);
/* The AP read the boot CPU's published @ref_pub, then its own counter @own_after:
 * the boot CPU's counter had passed ref_pub, so the offset is at most the
 * difference. */
void counter_sync_ap_saw(struct counter_sync_bounds *b, uint64_t ref_pub, uint64_t own_after);
/* The boot CPU read the AP's published @own_pub, then its own counter
 * @ref_after: the offset is at least the difference. */
void counter_sync_boot_saw(struct counter_sync_bounds *b, uint64_t own_pub, uint64_t ref_after);

/*
 * Judge one AP from its bounds: false ("not checked") when either side was
 * never read, since one bound alone says nothing about agreement; else
 * true, with the estimate in @e and the verdict (counter_sync_decide()) in @v.
 */
bool counter_sync_judge(const struct counter_sync_bounds *b, uint64_t tolerance_cycles,
		    struct counter_sync_estimate *e, enum counter_sync_verdict *v);

#endif

/*
 * clockcal.h: the arithmetic of calibrating the cycle counter
 * (arch/counter.h) against a reference of known rate, with no I/O, so the
 * host tests can feed it samples from a simulated busy host. The
 * architecture reads its references (arch/clock.h); this is what every
 * architecture that measures shares.
 *
 * A sample is one reading of a reference counter bracketed by two counter
 * reads: counter_before, ref, counter_after. The reference was read at some
 * instant inside [counter_before, counter_after]; a bracket that is wide
 * means the vCPU was descheduled (or firmware took the CPU) between the
 * reads, and the sample's time is uncertain by up to the bracket's width.
 * Linux's x86 calibration reasons the same way: the error of a calibration
 * is the uncertainty of its end points divided by its length.
 *
 * clockcal_estimate() drops wide brackets, forms several estimates from pairs
 * of kept samples that each span about half of the run, and keeps their
 * median, so a few bad pairs cannot move the answer. The uncertainty it
 * reports is the bound implied by the worst pair's brackets and the
 * reference's tick, widened by what the samples show of a counter that did
 * not run in proportion to the reference (a step between samples, which no
 * bracket sees: QEMU TCG on a busy host): the kept samples' midpoints are
 * compared with the line the estimate predicts, and offsets further apart
 * than their brackets, the tick and that bound explain are taken as a step
 * the pairs may span (step_cycles).
 */
#ifndef MEMBOOT_KERNEL_CLOCKCAL_H
#define MEMBOOT_KERNEL_CLOCKCAL_H

#include <stdbool.h>
#include <stdint.h>

struct clockcal_sample {
	uint64_t counter_before;
	uint64_t counter_after;
	uint64_t ref;          /* reference ticks, unwrapped (monotonic) */
};

/* How many pair estimates the median is taken over. */
#define CLOCKCAL_PAIRS 9
/* Fewer kept samples than this: no estimate. */
#define CLOCKCAL_MIN_SAMPLES 8

struct clockcal_result {
	uint64_t hz;               /* 0: no estimate */
	uint32_t uncertainty_ppm;  /* estimated relative error bound, parts per million */
	uint32_t kept;             /* samples whose bracket passed */
	uint32_t rejected;         /* samples dropped for a wide bracket */
	uint32_t pairs;            /* estimates the median was taken over */
	uint64_t bracket_limit;    /* counter cycles: the widest bracket kept */
	uint64_t span_ref;         /* reference ticks spanned by the kept samples */
	/*
	 * Counter cycles: how far the kept samples' midpoints stray from a line
	 * of slope hz beyond what their brackets, one reference tick each and
	 * the bracket bound allow: the largest over pairs of samples of the
	 * difference of their offsets from the line less those allowances
	 * (kernel/services/clock/clockcal.c, step_excess()). 0 for samples that are linear
	 * within their brackets, and uncertainty_ppm is then the bracket
	 * bound alone. Otherwise the counter stepped against the reference
	 * between samples by about this much (a QEMU TCG guest on a busy
	 * host), which no bracket shows, and uncertainty_ppm includes
	 * 2 * step_cycles over the shortest pair's span in cycles.
	 */
	uint64_t step_cycles;
};

/*
 * Estimate the counter's frequency from @n samples (in time order) of a reference
 * that ticks @ref_hz times a second. A sample is kept if its bracket is no
 * wider than twice the narrowest quarter's width (the 25th percentile), so a
 * host that deschedules the vCPU in some brackets costs those samples only.
 * Returns false (with out->hz 0) if fewer than CLOCKCAL_MIN_SAMPLES are kept
 * or they span no reference time. @scratch holds @n uint64_t.
 */
bool clockcal_estimate(const struct clockcal_sample *s, uint32_t n, uint64_t ref_hz,
		       uint64_t *scratch, struct clockcal_result *out);

/*
 * The true forward distance of a wrapping counter of @bits bits, given the
 * raw forward difference @delta_raw (already reduced modulo 2^bits) and a
 * prediction @predicted_ticks from elapsed counter time (0 when there is
 * none yet): the value delta_raw + k * 2^bits, k >= 0, nearest the
 * prediction. A vCPU descheduled for longer than the reference's period
 * (55 ms for a 16-bit one at 1.19 MHz) would otherwise make the reference
 * look as if almost no time passed.
 */
uint64_t clockcal_unwrap(uint64_t delta_raw, unsigned bits, uint64_t predicted_ticks);

/* An uncertainty nobody can bound (a figure assumed, not measured). */
#define CLOCKCAL_UNKNOWN_PPM UINT32_MAX

/*
 * A reference counter to sample: how to read it and the cycle counter
 * (callbacks, so the host tests can simulate a reference that is slow to
 * read), its width and direction.
 */
struct clockcal_source {
	uint64_t (*read_counter)(void *ctx);
	uint64_t (*read_ref)(void *ctx);   /* the raw reference */
	void *ctx;
	unsigned bits;                     /* 16, 24 or 32 */
	bool down;                         /* counts down */
};

/*
 * How long to sample. At least @min_ticks of reference time; past that,
 * on until @min_samples samples are kept or @max_ticks have passed. A
 * reference that answers in microseconds gives its samples well inside
 * @min_ticks; one whose every read costs a millisecond (an emulated
 * device's register under QEMU TCG with hundreds of vCPU threads) would
 * give four samples in a 3 ms window and no estimate: the window stretches
 * instead, up to @max_ticks, and the estimate's uncertainty says what the
 * slow reads cost.
 */
struct clockcal_window {
	uint64_t min_ticks, max_ticks;
	uint32_t min_samples;
};

/*
 * Take bracketed samples of @src into @s (room for @cap) as the window
 * says. Reads run back to back; a sample is kept only once the counter
 * has moved min_ticks/cap ticks past the last kept one, so the samples
 * cover the span however fast the reference answers. Wraps are undone with
 * a prediction from the counter's rate seen so far (clockcal_unwrap). Gives up
 * after 64 reads per slot with no progress (a counter that does not
 * count). Returns the samples taken; @reads gets the reads made.
 */
uint32_t clockcal_sample(const struct clockcal_source *src, const struct clockcal_window *w,
			 struct clockcal_sample *s, uint32_t cap, uint64_t *reads);

/*
 * Whether a measurement of a reference ticking @ref_hz times a second that
 * gave @r, its samples spanning @window_ticks, is worth taking again over a
 * longer window: it gave no figure, or one worse than @target_ppm, and
 * either its window stayed short (under @short_ticks) or its reads were
 * fast (the widest bracket it kept, r->bracket_limit, under
 * @slow_read_ticks of the reference). A window stretched by reads that are
 * all slow (a port read costs a millisecond under QEMU's TCG with hundreds
 * of vCPU threads) would stretch again and be no better. One stretched by
 * a single stall of the vCPU between reads that take a microsecond most
 * likely is: the stall left only a few samples on one side of it, and a
 * figure from pairs that span little (simulated: a 4 ms stall in a 0.5 ms
 * window of a 1.19 MHz reference claims 1.6-9 %).
 */
bool clockcal_retake(const struct clockcal_result *r, uint64_t window_ticks, uint64_t ref_hz,
		     uint64_t short_ticks, uint64_t slow_read_ticks, uint32_t target_ppm);

/*
 * Whether two figures whose relative difference is @diff_ppm agree, given
 * their uncertainties: within their sum plus @slack_ppm. A figure whose
 * uncertainty is CLOCKCAL_UNKNOWN_PPM agrees with nothing (an assumption
 * is not a measurement). @allowed_ppm gets the bound (saturated).
 */
bool clockcal_agree(uint32_t diff_ppm, uint32_t unc_a_ppm, uint32_t unc_b_ppm,
		    uint32_t slack_ppm, uint64_t *allowed_ppm);

/*
 * The counter frequency to use of @n candidates (a figure the hardware
 * reports, measurements against references): the measured one with the
 * smallest uncertainty; a reported figure is kept while it agrees with that
 * measurement (within both uncertainties plus @trust_ppm), else the
 * measurement wins. -1 only when no candidate has a figure: never is a
 * frequency assumed while one was measured.
 */
struct clockcal_candidate {
	const char *method;          /* the reference's or the report's name */
	uint64_t hz;                 /* 0: no figure */
	uint32_t uncertainty_ppm;
	bool measured;               /* against a reference, not reported by the CPU */
};
int clockcal_choose(const struct clockcal_candidate *c, uint32_t n, uint32_t trust_ppm);

/*
 * Whether @src's reference counts at all: read it until it shows a value
 * other than its first; give up once @min_reads reads have been made and
 * the cycle counter has advanced at least @min_cycles since the first
 * read, or after @max_reads reads whatever the counter did. @reads gets the
 * reads made.
 *
 * Why: a timer that is not there (a platform that gates it, a table that
 * names one that is not behind it, a timer QEMU was told to leave out)
 * answers a port or memory read with one fixed value, and sampling it as
 * if it counted costs clockcal_sample()'s 64 reads a slot before it gives
 * up: 131,072 reads, 85-100 ms of a TCG boot. A reference that ticks at
 * @ref_hz moves within two of its ticks; with @min_cycles at least twice
 * (counter cycles a second at the fastest counter there is) / @ref_hz, a
 * reference that did not move is not counting. Callers pass cycles for a
 * 10 GHz counter, above any shipped (the architecture's probes, arch/clock.h).
 */
bool clockcal_counter_counts(const struct clockcal_source *src, uint32_t min_reads,
			     uint64_t min_cycles, uint32_t max_reads, uint32_t *reads);

/* The median of @n values; sorts @v in place. @n must be at least 1. */
uint64_t clockcal_median(uint64_t *v, uint32_t n);

/* |a - b| / b in parts per million, saturated at UINT32_MAX; b > 0. */
uint32_t clockcal_ppm_diff(uint64_t a, uint64_t b);

#endif

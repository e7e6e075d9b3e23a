/*
 * time.h: kernel time in nanoseconds since the first instruction of the
 * 32-bit entry, from the TSC. Before calibration every reading is 0.
 */
#ifndef MEMBOOT_KERNEL_TIME_H
#define MEMBOOT_KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

struct clockcal_result;

extern uint64_t tsc_hz;
/* How tsc_hz was found ("pit", "cpuid15", ...) and its estimated error. */
extern const char *tsc_method;
extern uint32_t tsc_uncertainty_ppm;

/* The figure every time is rendered with, from now on; final. */
void time_init(uint64_t hz, const char *method, uint32_t uncertainty_ppm);
/*
 * A quick first estimate (well under a millisecond of measuring): good
 * enough for timeouts, not for what is printed. Until time_init() gives the
 * precise figure, tsc_final is false and the consoles are not drained
 * between phases (kernel/init/phase.c): lines, their stamps and records'
 * TSC values (rec_tsc_ns) wait in the log ring and are rendered with the
 * final figure. Times computed as nanoseconds before then are not: the
 * call sites that carry durations keep cycles instead.
 */
void time_init_provisional(uint64_t hz, const char *method, uint32_t uncertainty_ppm);
extern bool tsc_final;
/* A figure worse than this (ppm) would let timeouts drift from real time
 * by more than 5 %: it is replaced in phase acpi, before the SMP timeout
 * counts on it, on the boot CPU. A better one waits for the AP. */
#define TIME_TIMEOUT_PPM 50000
/* Beyond this uncertainty (ppm) the TSC figure gives way to a reference
 * that measures it at less than half its uncertainty. */
#define TIME_ADOPT_PPM 5000
/*
 * memboot.tsc_coarse (debug): the quick estimate is moved TIME_COARSE_OFF_PPM
 * off and claimed good to TIME_COARSE_PPM only, so that phase clockcheck
 * must replace it with a reference's figure whatever the host's timing (a
 * tight PIT window on one host, a loose one on another), and what was made
 * before shows whether it waited for the precise figure. Below
 * TIME_TIMEOUT_PPM: the boot's course (who measures, when) stays as it is.
 */
#define TIME_COARSE_OFF_PPM 10000
#define TIME_COARSE_PPM 20000
void time_coarsen(void);
/*
 * A second reference (at I/O port or address @where, recorded under
 * @where_key) measured the TSC at @res: print how far it is from
 * tsc_hz, emit a `clock_check` record, and warn if the two disagree by more
 * than both uncertainties plus 0.1 % (a figure of unknown uncertainty, an
 * assumed one, never agrees). tsc_hz changes only when the figure in use is
 * poor (uncertainty above TIME_ADOPT_PPM: a reference too slow to read, or
 * none) and @res is at least twice as good: then @res becomes the clock,
 * with a warning that times printed before are off by up to the old bound.
 */
void time_crosscheck(const char *reference, const char *where_key, uint64_t where,
		     const struct clockcal_result *res);
/*
 * The precise figure from @reference (measured at @res): it becomes the
 * clock (time_init) and a `clock_check` record with adopted true says how
 * far the quick estimate was (a warning if beyond both uncertainties).
 */
void time_refine(const char *reference, const char *where_key, uint64_t where,
		 const struct clockcal_result *res);
uint64_t tsc_cycles_to_ns(uint64_t cycles);
/* Nanoseconds from boot entry to the TSC value @tsc. */
uint64_t tsc_to_boot_ns(uint64_t tsc);
uint64_t ktime_ns(void);
/* Busy-wait @ns nanoseconds by the TSC; returns the TSC interval measured. */
uint64_t time_delay_ns(uint64_t ns);

#endif

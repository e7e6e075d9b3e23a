/*
 * time.h: kernel time in nanoseconds since the kernel's first instruction
 * (arch_counter_at_entry), from the cycle counter (arch/counter.h) and the
 * figure of its rate in force. Before there is a figure every reading is 0.
 */
#ifndef MEMBOOT_KERNEL_TIME_H
#define MEMBOOT_KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

struct clockcal_result;

/* The counter's rate in force (0: none yet). */
extern uint64_t counter_hz;
/* How counter_hz was found (the name of the first figure or reference that
 * gave it, arch/clock.h) and its estimated error. */
extern const char *counter_method;
extern uint32_t counter_uncertainty_ppm;

/* The figure every time is rendered with, from now on; final. */
void time_init(uint64_t hz, const char *method, uint32_t uncertainty_ppm);
/*
 * A quick first estimate (well under a millisecond of measuring): good
 * enough for timeouts, not for what is printed. Until time_init() gives the
 * precise figure, clock_final is false and the consoles are not drained
 * between phases (kernel/init/phase.c): lines, their stamps and records'
 * counter values (rec_cycles_ns) wait in the log ring and are rendered
 * with the final figure. Times computed as nanoseconds before then are not: the
 * call sites that carry durations keep cycles instead.
 */
void time_init_provisional(uint64_t hz, const char *method, uint32_t uncertainty_ppm);
extern bool clock_final;
/* A figure worse than this (ppm) would let timeouts drift from real time
 * by more than 5 %: it is replaced in phase acpi, before the SMP timeout
 * counts on it, on the boot CPU. A better one waits for the AP. */
#define TIME_TIMEOUT_PPM 50000
/* Beyond this uncertainty (ppm) the counter's figure gives way to a
 * reference that measures it at less than half its uncertainty. */
#define TIME_ADOPT_PPM 5000
/*
 * memboot.tsc_coarse (debug): the quick estimate is moved TIME_COARSE_OFF_PPM
 * off and claimed good to TIME_COARSE_PPM only, so that phase clockcheck
 * must replace it with a reference's figure whatever the host's timing (a
 * tight window for the first figure on one host, a loose one on another),
 * and what was made before shows whether it waited for the precise figure.
 * Below TIME_TIMEOUT_PPM: the boot's course (who measures, when) stays as
 * it is.
 */
#define TIME_COARSE_OFF_PPM 10000
#define TIME_COARSE_PPM 20000
void time_coarsen(void);
/*
 * A second reference (at @where, an address or a port, recorded under
 * @where_key) measured the counter at @res: print how far it is from
 * counter_hz, emit a `clock_check` record, and warn if the two disagree by
 * more than both uncertainties plus 0.1 % (a figure of unknown uncertainty,
 * an assumed one, never agrees). counter_hz changes only when the figure in
 * use is poor (uncertainty above TIME_ADOPT_PPM: a reference too slow to
 * read, or none) and @res is at least twice as good: then @res becomes the
 * clock, with a warning that times printed before are off by up to the old
 * bound.
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
/* @cycles of the counter as nanoseconds, at the figure in force. */
uint64_t cycles_to_ns(uint64_t cycles);
/* Nanoseconds from the kernel's entry to the counter value @counter. */
uint64_t counter_to_boot_ns(uint64_t counter);
uint64_t ktime_ns(void);
/* Busy-wait @ns nanoseconds by the counter; returns the cycles measured. */
uint64_t time_delay_ns(uint64_t ns);

#endif

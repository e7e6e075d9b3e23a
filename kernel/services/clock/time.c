/*
 * time.c: counter cycles to nanoseconds with a 32.32 fixed-point
 * multiplier, so the conversion costs one 64x64->128 multiply and no
 * division.
 */
#include "kernel/services/clock/time.h"

#include <stdio.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

uint64_t counter_hz;
const char *counter_method = "none";
uint32_t counter_uncertainty_ppm;
bool clock_final;
static uint64_t ns_per_cycle_q32;   /* (1e9 << 32) / counter_hz */

void time_init_provisional(uint64_t hz, const char *method, uint32_t uncertainty_ppm)
{
	time_init(hz, method, uncertainty_ppm);
	clock_final = false;
}

void time_init(uint64_t hz, const char *method, uint32_t uncertainty_ppm)
{
	clock_final = true;
	counter_hz = hz;
	counter_method = method;
	counter_uncertainty_ppm = uncertainty_ppm;
	ns_per_cycle_q32 = hz ? (uint64_t)(((unsigned __int128)1000000000ULL << 32) / hz) : 0;
}

void time_coarsen(void)
{
	/* Nothing to make poor: no figure, the final one, or an assumed one
	 * (which no claim may turn into a measurement). */
	if (clock_final || !counter_hz || counter_uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM)
		return;
	uint64_t hz = counter_hz + counter_hz / 1000000 * TIME_COARSE_OFF_PPM;

	pr_warn(ARCH_COUNTER_TAG ": memboot.tsc_coarse: the quick %s estimate moved from %llu to "
		"%llu Hz and claimed good to %u ppm only (debug: the precise reference must replace it)",
		counter_method, (unsigned long long)counter_hz, (unsigned long long)hz, TIME_COARSE_PPM);
	time_init_provisional(hz, counter_method, TIME_COARSE_PPM);
}

uint64_t cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_per_cycle_q32) >> 32);
}

uint64_t counter_to_boot_ns(uint64_t counter)
{
	return counter > arch_counter_at_entry ? cycles_to_ns(counter - arch_counter_at_entry) : 0;
}

uint64_t ktime_ns(void)
{
	return counter_to_boot_ns(arch_counter());
}

uint64_t time_delay_ns(uint64_t ns)
{
	uint64_t start = arch_counter();
	uint64_t cycles = (uint64_t)((unsigned __int128)ns * counter_hz / 1000000000ULL);
	uint64_t now;

	do {
		arch_cpu_relax();
		now = arch_counter();
	} while (now - start < cycles);
	return now - start;
}

/* The clock_check record of a reference measured against the counter, as
 * both the cross-check and the refinement report it (the figures before any
 * adoption: counter_hz is still the one the reference was compared with).
 * Its keys tsc_hz and tsc_method are x86's names of the figure in force
 * (docs/records.md). */
static void clock_check_begin(struct record *r, const char *reference, const char *where_key,
			      uint64_t where, const struct clockcal_result *res,
			      uint32_t diff_ppm, uint64_t allowed_ppm, bool agree)
{
	rec_begin(r, "clock_check");
	rec_str(r, "reference", reference);
	rec_hex(r, where_key, where);
	rec_u64(r, "hz", res->hz);
	rec_u64(r, "uncertainty_ppm", res->uncertainty_ppm);
	rec_u64(r, "tsc_hz", counter_hz);
	rec_str(r, "tsc_method", counter_method);
	rec_u64(r, "diff_ppm", diff_ppm);
	rec_u64(r, "allowed_ppm", allowed_ppm);
	rec_bool(r, "agree", agree);
	rec_u64(r, "kept", res->kept);
	rec_u64(r, "rejected", res->rejected);
	rec_u64(r, "step_cycles", res->step_cycles);
}

void time_crosscheck(const char *reference, const char *where_key, uint64_t where,
		     const struct clockcal_result *res)
{
	struct record r;
	uint32_t diff_ppm = res->hz && counter_hz ? clockcal_ppm_diff(res->hz, counter_hz) : 0;
	uint64_t allowed_ppm = 0;   /* clockcal_agree() is not called without a measurement */
	/* An assumed figure (unknown uncertainty) agrees with nothing. */
	bool agree = res->hz && clockcal_agree(diff_ppm, counter_uncertainty_ppm,
					       res->uncertainty_ppm, 1000, &allowed_ppm);
	/* A better reference than the one the counter was calibrated against
	 * (or one at all, where the figure was assumed) becomes the clock: a
	 * first reference too slow to read gives a poor figure, and timeouts
	 * from here on must hold in real time. */
	bool adopt = res->hz && counter_uncertainty_ppm > TIME_ADOPT_PPM &&
		     (uint64_t)res->uncertainty_ppm * 2 < counter_uncertainty_ppm;

	clock_check_begin(&r, reference, where_key, where, res, diff_ppm, allowed_ppm, agree);
	rec_bool(&r, "adopted", adopt);
	/* The key naming where the reference is differs by reference, so its
	 * line is made here; everything else comes from the record. */
	char tmpl[160];
	if (!res->hz) {
		snprintf(tmpl, sizeof(tmpl), ARCH_COUNTER_TAG ": {reference} at %s {%s} gave no "
			 "measurement ({kept} samples kept); the " ARCH_COUNTER_NAME " is not "
			 "cross-checked against it", where_key, where_key);
		record_report(&r, LOG_WARN, tmpl);
	} else if (adopt) {
		/* From an assumed figure every earlier time was a guess: warn.
		 * From a measured but poor one they are off by its bound. */
		bool was_assumed = counter_uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM;
		time_init(res->hz, reference, res->uncertainty_ppm);
		record_report(&r, was_assumed ? LOG_WARN : LOG_INFO, ARCH_COUNTER_TAG ": {reference} "
			      "measures {hz:MHz} MHz (+-{uncertainty_ppm:.4}%), {diff_ppm:.4}% from the "
			      "{tsc_method} figure {tsc_hz:MHz} MHz, which is good only to a wider bound: "
			      "using the {reference} figure from here on; times before this line are off "
			      "by up to that much");
	} else if (agree) {
		record_report(&r, LOG_INFO, ARCH_COUNTER_TAG ": {reference} cross-check: {hz:MHz} MHz, "
			      "{diff_ppm:.4}% from the {tsc_method} figure (both good to {allowed_ppm:.4}%)");
	} else {
		record_report(&r, LOG_WARN, ARCH_COUNTER_TAG ": {reference} measures {hz:MHz} MHz, "
			      "{diff_ppm:.4}% from the {tsc_method} figure {tsc_hz:MHz} MHz: the "
			      "references disagree, timings may be off by that much");
	}
}

void time_refine(const char *reference, const char *where_key, uint64_t where,
		 const struct clockcal_result *res)
{
	struct record r;
	uint32_t diff_ppm = counter_hz ? clockcal_ppm_diff(res->hz, counter_hz) : 0;
	uint64_t allowed_ppm = 0;   /* clockcal_agree() is not called without a measurement */
	bool agree = clockcal_agree(diff_ppm, counter_uncertainty_ppm, res->uncertainty_ppm, 1000,
				    &allowed_ppm);

	clock_check_begin(&r, reference, where_key, where, res, diff_ppm, allowed_ppm, agree);
	rec_bool(&r, "adopted", true);
	time_init(res->hz, reference, res->uncertainty_ppm);
	/* Everything still in the log ring renders with the new figure;
	 * only a ring that filled up early printed with the estimate. */
	record_report(&r, agree ? LOG_INFO : LOG_WARN,
		      ARCH_COUNTER_TAG ": Refined " ARCH_COUNTER_NAME " calibration against the "
		      "{reference}: {hz:MHz} MHz (+-{uncertainty_ppm:.4}%), {diff_ppm:.4}% from the "
		      "quick {tsc_method} estimate {tsc_hz:MHz} MHz");
}

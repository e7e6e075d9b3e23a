/*
 * tsc_report.c: the TSC calibration as a line and a `tsc` record
 * (docs/records.md), for the boot's first figure: phase early's, or phase
 * acpi's when early had none. Made when the consoles drain, in the place
 * of the log where the figure was taken (console_defer_copy(): before
 * memory is usable nothing is formatted on the spot, docs/design.md,
 * "Where things go"), from the figures as they were then.
 */
#include "kernel/services/clock/tsc_report.h"

#include "kernel/services/clock/clockcal.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

static void tsc_report_now(void *arg)
{
	const struct tsc_calibration *cal = arg;
	struct record r;

	rec_begin(&r, "tsc");
	rec_u64(&r, "hz", cal->hz);
	rec_str(&r, "method", cal->method);
	rec_u64(&r, "uncertainty_ppm", cal->uncertainty_ppm);
	rec_u64(&r, "cpuid_hz", cal->cpuid_hz);
	rec_str(&r, "cpuid_leaf", cal->cpuid_leaf);
	rec_str(&r, "phase", cal->phase);
	rec_str(&r, "missing", cal->missing);
	rec_bool(&r, "pit_present", cal->pit_present);
	rec_u64(&r, "pit_probe_reads", cal->pit_probe_reads);
	rec_u64(&r, "pit_hz", cal->pit.hz);
	rec_u64(&r, "pit_uncertainty_ppm", cal->pit.uncertainty_ppm);
	rec_u64(&r, "pit_samples", cal->pit_samples);
	rec_u64(&r, "pit_kept", cal->pit.kept);
	rec_u64(&r, "pit_reads", cal->pit_reads);
	rec_u64(&r, "pit_ticks", cal->pit_ticks);
	rec_u64(&r, "pit_windows", cal->pit_windows);
	rec_u64(&r, "pit_pairs", cal->pit.pairs);
	rec_u64(&r, "bracket_limit_cycles", cal->pit.bracket_limit);
	if (cal->cpuid_hz && cal->pit.hz)
		rec_u64(&r, "cpuid_vs_pit_ppm", cal->cpuid_vs_pit_ppm);
	rec_tsc_ns(&r, "ns", cal->cycles);
	if (!cal->pit_present)
		record_report(&r, cal->uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM ? LOG_WARN : LOG_INFO,
			      "tsc: Detected {hz:MHz} MHz processor ({method}, +-{uncertainty_ppm:.4}%, "
			      "{ns:us} us, phase {phase}; no PIT: it did not count in "
			      "{pit_probe_reads} reads; missing: {missing})");
	else
		record_report(&r, LOG_INFO, "tsc: Detected {hz:MHz} MHz processor ({method}, "
			      "+-{uncertainty_ppm:.4}%, {ns:us} us; PIT: {pit_kept} of {pit_samples} samples kept)");
}

void tsc_report(const struct tsc_calibration *cal)
{
	console_defer_copy(tsc_report_now, cal, sizeof(*cal), 2 * CONSOLE_DEFER_ITEM_BYTES);
}

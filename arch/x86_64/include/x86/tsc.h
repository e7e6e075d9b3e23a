/*
 * arch/tsc.h: the TSC frequency, from what the CPU says and from measuring it
 * against the PIT (and later the ACPI PM timer) with bracketed reads.
 */
#ifndef MEMBOOT_ARCH_TSC_H
#define MEMBOOT_ARCH_TSC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/clock/clockcal.h"

struct tsc_calibration {
	uint64_t hz;                /* what the kernel uses; 0: nothing worked */
	const char *method;         /* "hypervisor", "cpuid15", "cpuid16", "pit", "none";
	                             * "hpet", "pm_timer" or "assumed" when phase acpi
	                             * gave the figure (kernel/init/clockcheck.c) */
	uint32_t uncertainty_ppm;   /* estimated bound on hz's relative error */
	uint64_t cpuid_hz;          /* from CPUID (0x40000010, 0x15 or 0x16); 0 if none */
	const char *cpuid_leaf;     /* which one, or "" */
	bool pit_present;           /* PIT channel 2 counted (ref_counts()): sampled */
	uint32_t pit_probe_reads;   /* reads that told */
	struct clockcal_result pit; /* the PIT measurement (pit.hz 0: failed or absent) */
	uint32_t pit_samples;       /* kept for the estimate, of pit_reads */
	uint64_t pit_reads;
	uint64_t pit_ticks;         /* PIT ticks the samples span */
	uint32_t pit_windows;       /* 1, or 2 when a poor quick figure was retaken */
	uint32_t cpuid_vs_pit_ppm;  /* disagreement, when both exist */
	uint64_t cycles;            /* TSC cycles the calibration took */
	const char *phase;          /* where the figure came from: "early" or "acpi" */
	/* The references found missing by then (clockcal_missing(): phase
	 * early knows of CPUID and the PIT only), "" when none. */
	char missing[32];
};

/*
 * Find the TSC frequency: take CPUID's figure where the CPU (or hypervisor)
 * gives one, and measure against PIT channel 2 in about 1 ms wherever it
 * counts (a PIT that does not is found in microseconds); when the
 * two disagree by more than the measurement's uncertainty plus 0.5 %, warn
 * and trust the measurement (a TCG guest's CPUID may report a frequency the
 * emulated TSC does not run at).
 */
void arch_tsc_calibrate(struct tsc_calibration *out);

/*
 * Measure @tsc_hz's counterpart against the ACPI PM timer at I/O port @port
 * (@bits 24 or 32) for about 1 ms. Returns false if the timer does not count.
 */
bool arch_tsc_measure_pm_timer(uint16_t port, unsigned bits, struct clockcal_result *out);

/*
 * The same against the HPET whose 1 KiB register block is mapped at @regs:
 * enables its main counter if it is stopped, measures for about 1 ms, and
 * sets @ref_hz to the HPET's own rate (0 if its period is out of spec).
 */
bool arch_tsc_measure_hpet(const volatile void *regs, struct clockcal_result *out,
			   uint64_t *ref_hz);

#endif

/*
 * arch/clock.h: how the counter's rate (arch/counter.h) is known, and the
 * architecture's hooks in the clock's one story
 * (kernel/services/clock/clock.c, which every phase calls):
 *
 *   phase early       arch_clock_first(): the first figure, from what needs
 *                     no firmware table. x86: CPUID's leaves and a PIT
 *                     window (calibrated); arm64: CNTFRQ_EL0 (given);
 *                     POWER: the device tree's timebase-frequency (given).
 *   phase acpi        when early had none, arch_clock_first_late(): from
 *                     the firmware tables' timers (x86: the HPET, else the
 *                     ACPI PM timer); none left: the story assumes 1 GHz.
 *                     arch_clock_refs(): the second references the figure
 *                     is measured against (x86: the HPET and the PM timer;
 *                     none elsewhere: the figure is then reported as not
 *                     cross-checked).
 *   end of smp,       each reference opened on the boot CPU
 *   phase clockcheck  (arch_clock_ref_open()) and measured on an idle AP
 *                     or the boot CPU (arch_clock_ref_measure()); the best
 *                     refines the figure, the others cross-check it.
 *   phase tscsync     the per-CPU agreement check, where the counters are
 *                     not promised to agree (ARCH_COUNTER_AGREES).
 *
 * The measurement's arithmetic is generic and pure
 * (kernel/services/clock/clockcal.h: a counter against a reference).
 */
#ifndef MEMBOOT_ARCH_CLOCK_H
#define MEMBOOT_ARCH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/counter.h"
#include "kernel/services/clock/clockcal.h"

/* How a figure of the counter's rate is known. */
enum arch_clock_known {
	ARCH_CLOCK_GIVEN,          /* the hardware or firmware states it (CNTFRQ_EL0, CPUID 0x15) */
	ARCH_CLOCK_CALIBRATED,     /* measured against a reference of known rate */
	ARCH_CLOCK_ASSUMED,        /* nothing told: a guess, every time printed is unreliable */
};

/* The boot's first figure: what arch_clock_first() (or _late()) found. */
struct arch_clock_first {
	uint64_t hz;               /* 0: none (yet) */
	const char *method;        /* how: "cpuid15", "pit", "hpet", "cntfrq", "assumed" ... */
	uint32_t uncertainty_ppm;  /* bound on hz's relative error; CLOCKCAL_UNKNOWN_PPM: assumed */
	enum arch_clock_known known;
	uint64_t cycles;           /* counter cycles spent finding it */
	const char *phase;         /* where it came from: "early", or "acpi" (the tables') */
	/* The references found missing by then, comma-separated, "" when
	 * none (the architecture's names). */
	char missing[32];
	/* The architecture has no second reference on any machine (arm64,
	 * POWER): the figure is never cross-checked, and the `boot` record
	 * says so. false where references may exist (x86: the tables' HPET
	 * and PM timer, whose `clock_check` records report the check). */
	bool never_checked;
};

/*
 * The timers the firmware tables name, as phase acpi parsed them: what
 * arch_clock_refs() and arch_clock_first_late() may measure the counter
 * against. 0: not named. ACPI's HPET table gives the event timer block's
 * address; the FADT the PM timer's port and width (ACPI, "Power Management
 * Timer"). Architectures with neither leave them 0.
 */
struct arch_clock_tables {
	uint64_t timer_block;      /* HPET register block, physical */
	uint32_t timer_port;       /* PM timer I/O port */
	uint8_t timer_port_bits;   /* 24 or 32 */
};

/* A second reference, as arch_clock_refs() describes it. */
struct arch_clock_ref {
	const char *name;          /* "hpet", "pm_timer": the clock_check record's reference */
	const char *where_key;     /* the key naming where it is: "address", "port" */
	uint64_t where;
	unsigned bits;             /* the reference counter's width */
	unsigned kind;             /* the architecture's own */
	const volatile void *regs; /* its mapping, made by arch_clock_ref_open() */
	/* Set by arch_clock_ref_measure() when the reference cannot be used
	 * at all (its own registers out of spec): the warning to print, in
	 * the place of its clock_check record. NULL otherwise. */
	const char *refused;
};
/* No architecture has more. */
#define ARCH_CLOCK_MAX_REFS 4

/* The first figure, in phase early on the boot CPU (no memory, no
 * firmware table): @out's hz 0 when there is none without the tables.
 * Messages it prints go to the log; its record is arch_clock_first_report(). */
void arch_clock_first(struct arch_clock_first *out);

/* Phase early had none (@f's hz 0): the first figure from the timers @t
 * names, measured now on the boot CPU; hz stays 0 when none gives one.
 * Fills @f's missing. Called once, after the tables are parsed. */
void arch_clock_first_late(const struct arch_clock_tables *t, struct arch_clock_first *f);

/* The first figure's line and record (x86: `tsc`, docs/records.md), made
 * from @f and what arch_clock_first() measured. Called when the consoles
 * drain, in the place of the log where the figure was taken. */
void arch_clock_first_report(const struct arch_clock_first *f);

/* The second references @t names, best first (the finer, the quicker to
 * read), into @refs (room for @cap); returns how many. None: the figure
 * is not cross-checked. */
uint32_t arch_clock_refs(const struct arch_clock_tables *t, struct arch_clock_ref *refs,
			 uint32_t cap);

/* Make @ref readable (maps its registers), on the boot CPU, before any CPU
 * measures it; false, with a warning, when it cannot be (it is skipped).
 * May be called again (page tables rebuilt since). */
bool arch_clock_ref_open(struct arch_clock_ref *ref);

/* Measure the counter's rate against @ref for about a millisecond, on any
 * CPU, one CPU per reference at a time: @out (hz 0: no measurement, the
 * reference did not count); false when there is no figure. */
bool arch_clock_ref_measure(struct arch_clock_ref *ref, struct clockcal_result *out);

#endif

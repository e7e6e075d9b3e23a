/*
 * clock.h: the clock's one story, from the first figure of the counter's
 * rate to the precise one, on every architecture (the architecture's part
 * is arch/clock.h's hooks). The phases call it in order:
 *
 *   phase early       clock_early(): the first figure the architecture has
 *                     without firmware tables (a quick estimate: good for
 *                     timeouts; what is printed waits for the precise one,
 *                     time.h), or none yet.
 *   phase acpi        clock_tables(): the tables' references; a figure too
 *                     poor for timeouts cross-checked against them now;
 *                     the first figure from them when early had none, else
 *                     1 GHz assumed (every time of the boot then marked).
 *   end of phase smp  clock_checks_start(): one reference measured by an
 *                     idle AP while memory init runs.
 *   phase clockcheck  clock_checks_finish(): the others measured, the best
 *                     made the precise figure, every reference reported
 *                     (`clock_check` records); the figure in force is final.
 *   phase tscsync     the CPUs' counters checked against each other where
 *                     the architecture does not promise they agree
 *                     (cpu_sync.h).
 *
 * Its state is one struct clock_state, in the boot state (`bs.clock`).
 */
#ifndef MEMBOOT_KERNEL_CLOCK_CLOCK_H
#define MEMBOOT_KERNEL_CLOCK_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/clock.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/clock/cpu_sync.h"

/* One second reference and its measurement. */
struct clock_check {
	struct arch_clock_ref ref;
	bool open;                     /* arch_clock_ref_open() made it readable */
	uint32_t cpu;                  /* who measures it (0: the boot CPU) */
	volatile uint32_t done;        /* its measurement is in (res, ref.refused) */
	struct clockcal_result res;
};

struct clock_state {
	/* The boot's first figure (phase early's, or phase acpi's when early
	 * had none), which the `boot` record reports. */
	struct arch_clock_first first;
	/* The second references the tables name (clock_tables()). */
	struct clock_check checks[ARCH_CLOCK_MAX_REFS];
	uint32_t nr_checks;
	bool checked;                  /* cross-checked in phase acpi (the figure was poor) */
	bool pending;                  /* clock_checks_start() left work for _finish() */
	/* The per-CPU check's words, shared with the APs (an AP given up on
	 * may still read them late). */
	struct cpu_sync_words sync;
};

/* Phase early: the first figure (arch_clock_first()); with one, it is the
 * clock from here on (provisional) and its record is made in this place of
 * the log. Without, nothing before phase acpi has a figure: only the
 * consoles time anything (with an upper bound), and every stamp waits in
 * the log ring as counter cycles. */
void clock_early(struct clock_state *c);

/*
 * Phase acpi, once the tables are parsed (@t: the timers they name): with
 * @coarse (memboot.tsc_coarse, debug) the figure made poor; a figure too
 * poor for the SMP timeouts cross-checked against @t's references now (on
 * the boot CPU); and, when phase early had none, the first figure:
 * arch_clock_first_late()'s, else 1 GHz assumed with a warning naming what
 * is missing. Its record is made in this place of the log.
 */
void clock_tables(struct clock_state *c, const struct arch_clock_tables *t, bool coarse);

/* At the end of phase smp: the references opened (on the boot CPU) and the
 * first posted to an idle AP, which measures while memory init runs.
 * Nothing when they were measured in phase acpi; a line when there are
 * none (the figure is not cross-checked). */
void clock_checks_start(struct clock_state *c);

/* Phase clockcheck: the references no AP measured, measured here; the AP's
 * waited for; the best made the precise figure when it is better than the
 * one in force (time_refine()), every other one cross-checked
 * (time_crosscheck()); the figure in force is final from here on. */
void clock_checks_finish(struct clock_state *c);

/* How a figure is known, as the records name it: "given", "calibrated",
 * "assumed". */
const char *clock_known_name(enum arch_clock_known k);

#endif

/*
 * clockcheck.h: phase `clockcheck` (kernel/init/phases.h), and the TSC's
 * references measured in phase acpi.
 */
#ifndef MEMBOOT_KERNEL_INIT_CLOCKCHECK_H
#define MEMBOOT_KERNEL_INIT_CLOCKCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "x86/tsc.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/init/acpi.h"

/*
 * The clock cross-checks off the boot CPU's path: when the figure from the
 * early calibration is good (its uncertainty within TIME_ADOPT_PPM, so no
 * reference will replace it), phase acpi only finds the PM timer and the
 * HPET; init_clockcheck_start() then posts one measurement to an idle AP
 * (after phase smp), which measures while the boot CPU builds the
 * descriptor arrays and prepares memory init, and init_clockcheck()
 * (phase clockcheck, once memory is usable: nothing
 * before needs the precise figure, as nothing is printed or converted for
 * good until then) measures the other reference on the boot CPU, waits for
 * the AP's and reports, exactly as the checks in phase acpi do. With no AP
 * the boot CPU measures both in init_clockcheck().
 */
struct clock_checks {
	bool pending;                    /* start() posted or left work for finish() */
	/* An idle AP measures one reference from start() on (the HPET where
	 * there is one), the boot CPU the other in finish(); with no AP the
	 * boot CPU measures both, in finish(). (The HPET and the PM timer
	 * have sample space of their own, arch/x86_64/tsc.c.) */
	volatile uint32_t hpet_done, pm_done;
	uint32_t hpet_cpu, pm_cpu;       /* who measures (0: the boot CPU) */
	const struct discovered_acpi *acpi;
	const volatile void *hpet_regs;
	bool hpet_ok, pm_ok;
	uint64_t hpet_hz;
	struct clockcal_result hpet_res, pm_res;
};
/* Phase acpi's clock step, once the tables are parsed: with @coarse
 * (memboot.tsc_coarse, debug) the figure made poor; a figure too poor for
 * the SMP timeouts cross-checked now against @acpi's HPET and PM timer;
 * and, when phase early had no figure, the boot's first one (@first, its
 * `tsc` record): the HPET's or the PM timer's, else 1 GHz assumed. */
void init_clock_acpi(struct discovered_acpi *acpi, bool coarse, struct tsc_calibration *first);

/* At the end of phase smp: one reference posted to an idle AP, which
 * measures while memory init runs. */
void init_clockcheck_start(const struct discovered_acpi *acpi, struct clock_checks *cc);
/* Phase clockcheck: the other reference, the AP's waited for, the precise
 * figure in force. */
void init_clockcheck(struct clock_checks *cc);

#endif

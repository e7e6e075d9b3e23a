/*
 * clockcheck.h: phase `clockcheck` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_CLOCKCHECK_H
#define MEMBOOT_KERNEL_INIT_CLOCKCHECK_H

#include "kernel/services/clock/clock.h"

/*
 * The clock's second references, once memory is usable (nothing before
 * needs the precise figure, as nothing is printed or converted for good
 * until then): one was posted to an idle AP at the end of phase smp
 * (clock_checks_start()) and measured while the boot CPU prepared and ran
 * memory init; the others are measured here, the AP's waited for, the
 * best made the precise figure and every one reported (`clock_check`
 * records, docs/measuring.md); the figure in force is final from here on
 * (clock_checks_finish()). Where phase acpi measured them already (a poor
 * first figure), or there are none, only the last.
 */
void init_clockcheck(struct clock_state *clock);

#endif

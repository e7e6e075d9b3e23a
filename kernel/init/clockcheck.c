/*
 * clockcheck.c: phase `clockcheck`: takes `bs.clock` (an AP measured the
 * finest second reference from the end of phase smp; the boot CPU measures
 * the others here); builds the precise counter figure and the
 * `clock_check` records (docs/measuring.md). The story is the clock's
 * (kernel/services/clock/clock.h); the references are the architecture's.
 */
#include "kernel/init/clockcheck.h"

void init_clockcheck(struct clock_state *clock)
{
	clock_checks_finish(clock);
}

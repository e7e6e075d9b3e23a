/*
 * tscsync.c: phase `tscsync`: takes the online CPUs and `bs.smp`; builds
 * every AP's counter checked against the boot CPU's where the architecture
 * does not promise they agree (memboot.tsc_sync; the check is the clock's,
 * kernel/services/clock/cpu_sync.c), a known offset corrected from here
 * on, the verdicts in `bs.smp` and the `tsc_sync` records (one per node).
 * After memory is usable: nothing on the way there needs it, since each
 * CPU times its own work with its own counter, and the figures that
 * compare CPUs are made after it.
 */
#include "kernel/init/tscsync.h"

#include "arch/counter.h"
#include "kernel/services/clock/cpu_sync.h"
#include "kernel/services/percpu.h"

void init_tscsync(bool enabled, struct clock_state *clock, struct smp_report *rp)
{
	if (ARCH_COUNTER_AGREES || !enabled || nr_cpus_online < 2)
		return;
	cpu_sync_check(&clock->sync, &rp->sync);
	/* The bring-up's slowest CPU again, now that each AP's online_counter
	 * is in the boot CPU's time (cpu_sync_check() moved the corrected
	 * ones): kicked on the boot CPU, online on its own counter. */
	rp->slowest = 0;
	rp->slowest_cycles = 0;
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		const struct cpu_state *cs = cpu_states[i];

		if (!cs || !cs->online || !cs->kick_counter)
			continue;
		/* Off by the offset the check could not correct. */
		if (cpu_counter_unreliable(i))
			continue;
		if (cs->online_counter - cs->kick_counter > rp->slowest_cycles) {
			rp->slowest_cycles = cs->online_counter - cs->kick_counter;
			rp->slowest = i;
		}
	}
	rp->slowest_hwid = rp->slowest ? cpu_states[rp->slowest]->hwid : 0;
	/* The smp report normally prints later, with the verdicts in it; one
	 * printed already (an error drained the log at once) had none, so the
	 * per-node records come now, in this place of the log. */
	if (rp->printed)
		cpu_sync_records(rp->sync.tol_cycles);
}

/*
 * tscsync.h: phase `tscsync` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_TSCSYNC_H
#define MEMBOOT_KERNEL_INIT_TSCSYNC_H

#include <stdbool.h>

#include "kernel/init/smp.h"
#include "kernel/services/clock/clock.h"

/*
 * With @enabled (memboot.tsc_sync), an AP online and counters the
 * architecture does not promise agree (ARCH_COUNTER_AGREES 0): every online
 * AP's counter against the boot CPU's (cpu_sync_check(), through @clock's
 * shared words), @rp (phase smp's report) given the verdicts and its
 * slowest CPU found again in the boot CPU's time. An AP off by a known
 * offset has it subtracted from its readings from here on; one beyond
 * correction is unreliable (cpu_counter_unreliable(),
 * kernel/services/percpu.h): its times against the boot CPU's are printed
 * only marked as such. memboot.tsc_skew makes such a CPU on purpose.
 */
void init_tscsync(bool enabled, struct clock_state *clock, struct smp_report *rp);

#endif

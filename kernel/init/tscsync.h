/*
 * tscsync.h: phase `tscsync` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_TSCSYNC_H
#define MEMBOOT_KERNEL_INIT_TSCSYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/init/smp.h"

/* The words the boot CPU and the checking APs share (the job's argument;
 * in the boot state, as an AP given up on may still read them late). */
struct tscsync_shared {
	volatile uint64_t boot_pub;   /* the boot CPU's TSC, published */
	volatile uint32_t stop;       /* the budget has ended: every AP stops */
};

/*
 * With @enabled (memboot.tsc_sync) and an AP online: every online AP's TSC
 * against the boot CPU's, @rp (phase smp's report) given the verdicts. An
 * AP off by a known offset has it subtracted from its readings from here
 * on; one beyond correction is unreliable (cpu_tsc_unreliable(),
 * kernel/services/percpu.h): its times against the boot CPU's are printed only
 * marked as such. memboot.tsc_skew makes such a CPU on purpose.
 */
void init_tscsync(bool enabled, struct tscsync_shared *sh, struct smp_report *rp);

/* A `tsc_sync` record per node with online CPUs: its largest offset
 * (@tol: the tolerance the check used); phase smp's report makes them. */
void tscsync_records(uint64_t tol);

#endif

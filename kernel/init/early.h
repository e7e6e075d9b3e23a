/*
 * early.h: phase `early` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_EARLY_H
#define MEMBOOT_KERNEL_INIT_EARLY_H

#include "x86/percpu.h"
#include "x86/tsc.h"

/* COM1, the CPU's identity, the boot CPU's descriptor tables in @boot_pc,
 * and the TSC calibration: @first is the boot's first figure (hz 0 when
 * there is none yet: phase acpi then looks for one, init_clock_first()). */
void init_early(struct percpu *boot_pc, struct tsc_calibration *first);

#endif

/*
 * early.h: phase `early` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_EARLY_H
#define MEMBOOT_KERNEL_INIT_EARLY_H

#include "x86/tsc.h"

/* The first UART, the CPU's identity, the boot CPU's per-CPU data and
 * tables (arch/percpu.h), and the TSC calibration: @first is the boot's
 * first figure (hz 0 when there is none yet: phase acpi then looks for one,
 * init_clock_first()). */
void init_early(struct tsc_calibration *first);

#endif

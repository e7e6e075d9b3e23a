/*
 * early.h: phase `early` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_EARLY_H
#define MEMBOOT_KERNEL_INIT_EARLY_H

#include "kernel/services/clock/clock.h"

/* The first UART, the CPU's identity, the boot CPU's per-CPU data and
 * tables (arch/percpu.h), and the clock's first figure in @clock
 * (clock_early(): none yet when the architecture needs the firmware tables
 * for one: phase acpi then looks, clock_tables()). */
void init_early(struct clock_state *clock);

#endif

/*
 * early.h: phase `early` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_EARLY_H
#define MEMBOOT_KERNEL_INIT_EARLY_H

#include "x86/percpu.h"
#include "kernel/services/clock/clock.h"

/* COM1, the CPU's identity, the boot CPU's descriptor tables in @boot_pc,
 * and the clock's first figure in @clock (clock_early(): none yet when the
 * architecture needs the firmware tables for one: phase acpi then looks,
 * clock_tables()). */
void init_early(struct percpu *boot_pc, struct clock_state *clock);

#endif

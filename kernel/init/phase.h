/*
 * phase.h: timing of boot phases. Each phase prints a line and a `phase`
 * record (name, start_ns, ns, the APs' busy and idle time) when it ends.
 * Its name comes from the phase table (kernel/init/phases.h): a phase that
 * is not there does not compile.
 *
 *   PHASE(bootinfo, ok = init_bootinfo(magic, info, &bs.bootinfo));
 */
#ifndef MEMBOOT_KERNEL_PHASE_H
#define MEMBOOT_KERNEL_PHASE_H

#include <stdint.h>

#include "arch/counter.h"
#include "kernel/init/phases.h"

/* The APs' busy cycles in work they have finished, so far: taken as a phase
 * starts, so that its end counts what the APs did during it. */
uint64_t phase_ap_busy(void);
void phase_end(enum boot_phase phase, uint64_t start_counter, uint64_t start_ap_busy);

#define PHASE(name, ...)                                                   \
	do {                                                               \
		_Static_assert((int)BOOT_KIND_##name != (int)BOOT_WHEN_STEP,         \
			       #name " is a step of the table: STEP()");   \
		uint64_t phase_start_busy_ = phase_ap_busy();              \
		uint64_t phase_start_counter_ = arch_counter();                       \
		__VA_ARGS__;                                               \
		phase_end(BOOT_PHASE_##name, phase_start_counter_, phase_start_busy_); \
	} while (0)

/* A step of the table (kernel/init/phases.h, STEP): run in its place, not
 * timed as a phase (its time is the boot's, outside the phases). */
#define STEP(name, ...)                                                    \
	do {                                                               \
		_Static_assert((int)BOOT_KIND_##name == (int)BOOT_WHEN_STEP,         \
			       #name " is a phase of the table: PHASE()"); \
		__VA_ARGS__;                                               \
	} while (0)

#endif

/*
 * arch/counter.h: the CPU's cycle counter, the one clock every time memboot
 * measures is read from (the arch interface; each architecture defines the
 * inline part in its asm/counter.h).
 *
 * The counter counts up at a fixed rate whatever the CPU's power state; how
 * its rate is known is arch/clock.h's. Every generic read of it is one of
 * the two functions below, in the kernel and in the host builds alike (the
 * three counters are readable at user level on Linux: x86's TSC, arm64's
 * CNTVCT_EL0, POWER's timebase).
 *
 * Defined by asm/counter.h, with these contracts:
 *
 * uint64_t arch_counter(void)
 *	The counter now. Cheap, no side effect, not ordered against the
 *	loads and stores around it: for measuring a span of work on one CPU.
 *
 * uint64_t arch_counter_ordered(void)
 *	The counter read after every earlier load of this CPU has completed:
 *	a reading taken after seeing another CPU's store is later than that
 *	store (the cross-CPU check, kernel/services/clock/cpu_sync.c).
 *
 * ARCH_COUNTER_NAME
 *	The counter's name in messages ("TSC", "CNTVCT", "timebase").
 * ARCH_COUNTER_TAG
 *	The tag of the clock's log lines ("tsc", "cntvct", "timebase").
 * ARCH_COUNTER_AGREES
 *	1 when the architecture promises that every CPU's counter reads the
 *	same at the same instant (arm64's generic timer: one system counter
 *	seen by every PE, Arm ARM "The Generic Timer"; POWER's timebase, kept
 *	in step by the firmware, Power ISA Book II "Time Base"), so the
 *	per-CPU agreement check is not run; 0 where it is only checked
 *	(x86's TSCs: each CPU's is its own register, which firmware may
 *	write, SDM vol. 3B "Time-Stamp Counter").
 */
#ifndef MEMBOOT_ARCH_COUNTER_H
#define MEMBOOT_ARCH_COUNTER_H

#include <stdint.h>

#include "asm/counter.h"

/* The counter as it was at the kernel's first instruction (written by the
 * architecture's entry code before anything else): boot time 0. */
extern uint64_t arch_counter_at_entry;

#endif

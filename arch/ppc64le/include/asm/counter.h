/*
 * asm/counter.h (ppc64le): the timebase (arch/counter.h's contracts). Its
 * rate is the device tree's timebase-frequency (given: arch/clock.h).
 */
#ifndef MEMBOOT_ASM_COUNTER_H
#define MEMBOOT_ASM_COUNTER_H

#include <stdint.h>

#define ARCH_COUNTER_NAME "timebase"
#define ARCH_COUNTER_TAG "timebase"
/* The firmware keeps every thread's timebase in step (Power ISA Book II,
 * "Time Base"; OPAL resynchronises it where a core lost it). */
#define ARCH_COUNTER_AGREES 1

/* mfspr r,268: the 64-bit timebase (TBR 268, readable at user level;
 * Power ISA Book II, "Reading the Time Base"), what `mftb` assembles to. */
static inline uint64_t arch_counter(void)
{
	uint64_t v;

	__asm__ volatile("mfspr %0, 268" : "=r"(v));
	return v;
}

/* isync first: context synchronising, it lets no later instruction start
 * before every earlier one has completed (Power ISA Book II, "isync"), so
 * the timebase is read after the loads before it. */
static inline uint64_t arch_counter_ordered(void)
{
	uint64_t v;

	__asm__ volatile("isync\n\tmfspr %0, 268" : "=r"(v) : : "memory");
	return v;
}

#endif

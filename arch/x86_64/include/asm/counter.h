/*
 * asm/counter.h (x86_64): the time stamp counter (arch/counter.h's
 * contracts).
 */
#ifndef MEMBOOT_ASM_COUNTER_H
#define MEMBOOT_ASM_COUNTER_H

#include <stdint.h>

#define ARCH_COUNTER_NAME "TSC"
#define ARCH_COUNTER_TAG "tsc"
/* Every CPU's TSC is its own register, which firmware may write; an
 * invariant TSC keeps the rate, not the offset (SDM vol. 3B, "Time-Stamp
 * Counter"): the boot checks them (phase tscsync). */
#define ARCH_COUNTER_AGREES 0

/* RDTSC: not serializing, so it may run before earlier instructions
 * complete (SDM vol. 2B, RDTSC): fine for spans of work on one CPU. */
static inline uint64_t arch_counter(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* LFENCE first: RDTSC then waits for every earlier instruction, loads
 * included, to complete (SDM vol. 2B, RDTSC: "LFENCE before"), as Linux's
 * rdtsc_ordered(). */
static inline uint64_t arch_counter_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif

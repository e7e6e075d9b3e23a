/*
 * asm/counter.h (arm64): the generic timer's virtual count, CNTVCT_EL0
 * (arch/counter.h's contracts). Its rate is CNTFRQ_EL0's (given, not
 * measured: arch/clock.h).
 */
#ifndef MEMBOOT_ASM_COUNTER_H
#define MEMBOOT_ASM_COUNTER_H

#include <stdint.h>

#define ARCH_COUNTER_NAME "CNTVCT"
#define ARCH_COUNTER_TAG "cntvct"
/* One system counter drives every PE's view of it (Arm ARM, "The Generic
 * Timer", the system counter): the counts agree by construction. */
#define ARCH_COUNTER_AGREES 1

/* A read of CNTVCT_EL0 may be made out of order with the instructions
 * around it (Arm ARM, "The Generic Timer": reads are not ordered without
 * an ISB); a span of work on one CPU tolerates that as RDTSC's does. */
static inline uint64_t arch_counter(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* ISB first: the read is made after every earlier instruction has
 * completed (the Arm ARM's rule for ordering a counter read), as Linux's
 * __arch_counter_get_cntvct(). */
static inline uint64_t arch_counter_ordered(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#endif

/*
 * asm/cpu.h (arm64): the inline part of arch/cpu.h.
 *
 * Interrupts are PSTATE.I, set and cleared through DAIFSet/DAIFClr with the
 * immediate #2 (Arm ARM C5.2.3, DAIF; the I bit is bit 1 of the immediate);
 * DAIF reads all four masks, I at bit 7.
 */
#ifndef MEMBOOT_ASM_CPU_H
#define MEMBOOT_ASM_CPU_H

#include <stdint.h>

/* The hwid's name in messages: MPIDR_EL1's affinity fields. */
#define ARCH_HWID_NAME "MPIDR"

#define ARM64_DAIF_I (1u << 7)

/* YIELD: a hint that this thread spins (Arm ARM C6.2, YIELD). */
static inline void arch_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

/*
 * Wait for an interrupt with interrupts unmasked. WFI wakes on a pending
 * interrupt even while PSTATE.I masks it (Arm ARM D1.16.2, "wait for
 * interrupt"), so WFI first and the unmask after cannot lose one that
 * arrives between the two: it is taken right after the unmask.
 */
static inline void arch_irq_enable_and_wait(void)
{
	__asm__ volatile("wfi; msr daifclr, #2" ::: "memory");
}

static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("mrs %0, daif; msr daifclr, #2" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(uint64_t flags)
{
	if (flags & ARM64_DAIF_I)
		__asm__ volatile("msr daifset, #2" ::: "memory");
}

__attribute__((noreturn)) static inline void arch_halt_forever(void)
{
	for (;;)
		__asm__ volatile("msr daifset, #2; wfi" ::: "memory");
}

#endif

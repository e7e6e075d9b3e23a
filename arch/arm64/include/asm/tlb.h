/*
 * asm/tlb.h (arm64): how TLB invalidation reaches other CPUs, and the
 * interrupt mask around code that must answer IPIs (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* TLBI ...IS operations reach every CPU of the inner shareable domain,
 * complete after DSB ISH (Arm ARM, "TLB maintenance instructions"). */
#define ARCH_TLB_BROADCAST 1

/* PSTATE.I is DAIF bit 7 (as MRS DAIF reads it). */
#define A64_DAIF_I (1u << 7)

static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("mrs %0, daif\n\tmsr daifclr, #2" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(uint64_t flags)
{
	if (flags & A64_DAIF_I)
		__asm__ volatile("msr daifset, #2" ::: "memory");
}

#endif

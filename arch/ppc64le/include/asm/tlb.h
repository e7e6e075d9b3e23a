/*
 * asm/tlb.h (ppc64le): how TLB invalidation reaches other CPUs, and the
 * external-interrupt enable around code that must answer IPIs
 * (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* tlbie is broadcast to every processor; tlbsync and ptesync wait for all
 * of them (Power ISA 3.0 Book III 6.10, "translation lookaside buffer
 * management"). */
#define ARCH_TLB_BROADCAST 1

#define PPC_MSR_EE (1ULL << 15)

/* mtmsrd with L=1 changes only MSR[EE] and MSR[RI] (Power ISA Book III,
 * mtmsrd), which is all an interrupt mask needs. */
static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("mfmsr %0" : "=r"(flags));
	__asm__ volatile("mtmsrd %0, 1" : : "r"(flags | PPC_MSR_EE) : "memory");
	return flags;
}

static inline void arch_irq_restore(uint64_t flags)
{
	__asm__ volatile("mtmsrd %0, 1" : : "r"(flags) : "memory");
}

#endif

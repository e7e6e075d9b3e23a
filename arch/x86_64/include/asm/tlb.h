/*
 * asm/tlb.h (x86_64): how TLB invalidation reaches other CPUs, and the
 * interrupt flag around code that must answer it (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* INVLPG and CR3 loads act on this CPU only (SDM vol. 3A 4.10.4): other
 * CPUs are reached by IPIs. */
#define ARCH_TLB_BROADCAST 0

#define X86_RFLAGS_IF (1u << 9)

static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0; sti" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(uint64_t flags)
{
	if (!(flags & X86_RFLAGS_IF))
		__asm__ volatile("cli" ::: "memory");
}

#endif

/*
 * asm/cpu.h (ppc64le): the inline part of arch/cpu.h.
 *
 * External interrupts are MSR[EE] (0x8000). On a server (Book III-S)
 * processor "mtmsrd RS,1" writes only MSR[EE] and MSR[RI] from RS (Power
 * ISA 3.0 Book III 5.4.4, mtmsrd with L=1), so EE changes without a
 * read-modify-write of the MSR; Linux's __hard_irq_enable()/_disable() on
 * BOOK3S_64 write EE|RI and RI so.
 */
#ifndef MEMBOOT_ASM_CPU_H
#define MEMBOOT_ASM_CPU_H

#include <stdint.h>

/* The hwid's name in messages: the Processor Identification Register. */
#define ARCH_HWID_NAME "PIR"

#define PPC_MSR_EE 0x8000ull
#define PPC_MSR_RI 0x2ull

/* Thread priority low, then back to medium (Power ISA 3.0 Book II 3.2,
 * "or 1,1,1" and "or 2,2,2"), as Linux's spin_begin()/spin_end(). */
static inline void arch_cpu_relax(void)
{
	__asm__ volatile("or 1,1,1\n\tor 2,2,2" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("mtmsrd %0,1" : : "r"(PPC_MSR_RI) : "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ volatile("mtmsrd %0,1" : : "r"(PPC_MSR_EE | PPC_MSR_RI) : "memory");
}

/* Wait: POWER's wake-ups are polled (arch/ppc64le/smp.c), so the wait is
 * one spin at low thread priority, after which the caller's loop looks at
 * its mailbox again. MSR[EE] stays as it is: no interrupt wakes a CPU, and
 * the decrementer, which the kernel does not program, would fire on a CPU
 * that enabled it (its reset value counts down past zero). */
static inline void arch_irq_enable_and_wait(void)
{
	arch_cpu_relax();
}

static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("mfmsr %0" : "=r"(flags) : : "memory");
	arch_irq_enable();
	return flags;
}

static inline void arch_irq_restore(uint64_t flags)
{
	if (!(flags & PPC_MSR_EE))
		arch_irq_disable();
}

/* EE off, then spin at the lowest thread priority for good. */
__attribute__((noreturn)) static inline void arch_halt_forever(void)
{
	arch_irq_disable();
	for (;;)
		__asm__ volatile("or 1,1,1" ::: "memory");
}

#endif

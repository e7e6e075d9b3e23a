/*
 * asm/cpu.h (x86_64): the inline part of arch/cpu.h.
 *
 * Interrupts are RFLAGS.IF: cli clears it, sti sets it (Intel SDM vol. 2B,
 * CLI, STI; vol. 3A 6.8.1 "masking maskable hardware interrupts").
 */
#ifndef MEMBOOT_ASM_CPU_H
#define MEMBOOT_ASM_CPU_H

#include <stdint.h>

/* The hwid's name in messages: the local APIC id. */
#define ARCH_HWID_NAME "APIC"

#define X86_RFLAGS_IF (1u << 9)

/* The spin-wait hint: PAUSE (SDM vol. 2B, PAUSE: saves power and avoids the
 * memory-order violation on leaving a spin loop). The pure code's host
 * builds take this header too, also on other machines (the allocator lab
 * cross-built for arm64): there the hint is left to that machine. */
static inline void arch_cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

/*
 * Enable interrupts and halt until one arrives. sti delays interrupt
 * recognition by one instruction (SDM vol. 2B, STI), so "sti; hlt" cannot
 * lose an interrupt that arrives between the two.
 */
static inline void arch_irq_enable_and_wait(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* Interrupts on, returning RFLAGS from before (for arch_irq_restore()). */
static inline uint64_t arch_irq_save_enable(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0; sti" : "=r"(flags) : : "memory");
	return flags;
}

/* Interrupts off again if they were off when @flags was saved. */
static inline void arch_irq_restore(uint64_t flags)
{
	if (!(flags & X86_RFLAGS_IF))
		__asm__ volatile("cli" ::: "memory");
}

/* Interrupts off and halt for good: only an NMI or a reset ends it, and
 * an NMI's iretq lands on the next hlt. */
__attribute__((noreturn)) static inline void arch_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

#endif

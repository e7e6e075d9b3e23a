/*
 * asm/percpu.h (x86_64): the inline part of arch/percpu.h. The %gs base
 * (IA32_GS_BASE, MSR 0xc0000101) holds the CPU's struct percpu
 * (x86/percpu.h), whose word at offset 8 is its struct cpu_state.
 */
#ifndef MEMBOOT_ASM_PERCPU_H
#define MEMBOOT_ASM_PERCPU_H

struct cpu_state;

/* One %gs-relative load. */
static inline struct cpu_state *arch_this_cpu_state(void)
{
	struct cpu_state *s;
	__asm__ volatile("movq %%gs:8, %0" : "=r"(s));
	return s;
}

#endif

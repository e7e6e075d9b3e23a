/*
 * asm/percpu.h (ppc64le): the inline part of arch/percpu.h. r13 holds the
 * CPU's arch area for the kernel's whole life, as Linux keeps its paca
 * there (the ELFv2 ABI reserves r13 as the thread pointer, so compiled code
 * never uses it for anything else); the area's second doubleword is its
 * struct cpu_state.
 */
#ifndef MEMBOOT_ASM_PERCPU_H
#define MEMBOOT_ASM_PERCPU_H

struct cpu_state;

static inline struct cpu_state *arch_this_cpu_state(void)
{
	struct cpu_state *s;
	__asm__ volatile("ld %0, 8(13)" : "=r"(s));
	return s;
}

#endif

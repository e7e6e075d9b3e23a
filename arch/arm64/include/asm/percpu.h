/*
 * asm/percpu.h (arm64): the inline part of arch/percpu.h. TPIDR_EL1, the
 * EL1 software thread id register (Arm ARM D17.2.139, free for the OS to
 * use), holds the CPU's arch area, whose second word is its struct
 * cpu_state.
 */
#ifndef MEMBOOT_ASM_PERCPU_H
#define MEMBOOT_ASM_PERCPU_H

#include <stdint.h>

struct cpu_state;

static inline struct cpu_state *arch_this_cpu_state(void)
{
	uintptr_t area;
	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(area));
	return ((struct cpu_state *const *)area)[1];
}

#endif

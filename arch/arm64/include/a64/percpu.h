/*
 * a64/percpu.h: arm64's per-CPU area (arch/percpu.h), which TPIDR_EL1
 * points at: word 1 is the CPU's struct cpu_state (asm/percpu.h reads it);
 * a started CPU's entry (secondary.S) reads its stacks here, its own
 * exception stack included, and the GIC keeps its redistributor here.
 */
#ifndef MEMBOOT_A64_PERCPU_H
#define MEMBOOT_A64_PERCPU_H

#define A64_EXC_STACK_BYTES (8 * 1024)

/* Offsets secondary.S reads. */
#define A64_PERCPU_STACK_TOP 16
#define A64_PERCPU_EXC_TOP 24

#ifndef __ASSEMBLER__
#include <stdint.h>

struct cpu_state;

struct arm64_percpu {
	struct arm64_percpu *self;
	struct cpu_state *state;
	uint64_t stack_top;         /* the kernel stack's (SP_EL0) */
	uint64_t exc_top;           /* the exception stack's (SP_EL1) */
	uint64_t gicr;              /* this CPU's GICv3 redistributor (RD_base), 0 if none */
	/* An AP's exception stack (the boot CPU has entry.S's). */
	uint8_t exc_stack[A64_EXC_STACK_BYTES] __attribute__((aligned(16)));
};
_Static_assert(__builtin_offsetof(struct arm64_percpu, stack_top) == A64_PERCPU_STACK_TOP,
	       "secondary.S reads the stack there");
_Static_assert(__builtin_offsetof(struct arm64_percpu, exc_top) == A64_PERCPU_EXC_TOP,
	       "secondary.S reads the exception stack there");

static inline struct arm64_percpu *a64_this_percpu(void)
{
	struct arm64_percpu *pc;
	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(pc));
	return pc;
}
#endif

#endif

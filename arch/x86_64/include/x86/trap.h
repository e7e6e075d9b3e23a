/*
 * arch/trap.h: the register frame of an exception, as isr.S builds it.
 */
#ifndef MEMBOOT_ARCH_TRAP_H
#define MEMBOOT_ARCH_TRAP_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame matches isr.S");

/* Every exception is fatal except a page fault that arch_page_fault_hook
 * (arch/fault.h) resolves (or a fault of arch_probe_read/write): then it
 * returns and the instruction runs again (or the probe reports false). */
void arch_trap(struct trap_frame *frame);

#endif

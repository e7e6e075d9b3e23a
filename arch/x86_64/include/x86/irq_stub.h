/*
 * arch/irq_stub.h: the entry stub of an interrupt handled in C (assembly only).
 *
 * An interrupt may land between any two instructions, so the stub saves the
 * registers the System V AMD64 ABI lets a C function clobber (rax, rcx, rdx,
 * rsi, rdi, r8-r11) and the C handler saves the rest. The direction flag is
 * cleared because the ABI requires it clear on entry to a function. The
 * handler sends its own EOI (or none, where the interrupt needs none).
 */
#ifndef MEMBOOT_ARCH_IRQ_STUB_H
#define MEMBOOT_ARCH_IRQ_STUB_H

#ifdef __ASSEMBLER__
.macro IRQ_STUB name, handler
	.globl \name
\name:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	cld
	call \handler
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq
.endm
#endif

#endif

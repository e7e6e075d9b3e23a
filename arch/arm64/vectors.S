/*
 * vectors.S (arm64): the exception vector table (VBAR_EL1) and the probes
 * of arch/fault.h.
 *
 * The kernel runs at EL1 on SP_EL0 (EL1t); an exception switches to SP_EL1,
 * the exception stack (entry.S), so a kernel stack overflow is still
 * reported. Each of the 16 vectors (Arm ARM D1.10.2: current EL with SP0,
 * with SPx, lower EL AArch64, lower EL AArch32; synchronous, IRQ, FIQ,
 * SError each) saves x0-x30, the interrupted SP, ELR, SPSR, ESR and FAR in
 * a struct a64_frame (a64/trap.h) and calls arm64_trap(frame, vector). On
 * return (a resolved page fault, a probe's fixup) the frame is restored,
 * ELR possibly changed, and the exception returns.
 */
#include "a64/sysregs.h"

#define FRAME_BYTES (36 * 8)

	.macro vector, n
	.balign 128
	sub	sp, sp, #FRAME_BYTES
	stp	x0, x1, [sp, #0]
	mov	x0, #\n
	b	trap_common
	.endm

	.section .text
	.balign 2048
	.globl arm64_vectors
arm64_vectors:
	vector 0
	vector 1
	vector 2
	vector 3
	vector 4
	vector 5
	vector 6
	vector 7
	vector 8
	vector 9
	vector 10
	vector 11
	vector 12
	vector 13
	vector 14
	vector 15

trap_common:
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	/* The interrupted SP: SP_EL0 from EL1t, else SP_EL1 before the frame. */
	mrs	x2, sp_el0
	add	x3, sp, #FRAME_BYTES
	cmp	x0, #4
	csel	x2, x3, x2, hs
	cmp	x0, #8
	mrs	x3, sp_el0
	csel	x2, x3, x2, hs
	stp	x30, x2, [sp, #240]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #256]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [sp, #272]
	mov	x1, x0
	mov	x0, sp
	/* A frame record for the backtrace: the interrupted x29 and ELR. */
	ldr	x29, [sp, #232]
	bl	arm64_trap
	ldp	x2, x3, [sp, #256]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	ldr	x30, [sp, #240]
	add	sp, sp, #FRAME_BYTES
	eret

/* arch_probe_read(va, *val) / arch_probe_write(va, val): the one load or
 * store that may fault; arm64_trap() resumes a data abort there at the
 * fixup, which returns false. */
	.globl arch_probe_read, arch_probe_read_insn, arch_probe_read_fixup
arch_probe_read:
arch_probe_read_insn:
	ldr	x2, [x0]
	str	x2, [x1]
	mov	w0, #1
	ret
arch_probe_read_fixup:
	mov	w0, #0
	ret

/* a64_probe_read32(va, *val) (a64/trap.h): a device register's one load. */
	.globl a64_probe_read32, a64_probe_read32_insn, a64_probe_read32_fixup
a64_probe_read32:
a64_probe_read32_insn:
	ldr	w2, [x0]
	str	w2, [x1]
	mov	w0, #1
	ret
a64_probe_read32_fixup:
	mov	w0, #0
	ret

	.globl arch_probe_write, arch_probe_write_insn, arch_probe_write_fixup
arch_probe_write:
arch_probe_write_insn:
	str	x1, [x0]
	mov	w0, #1
	ret
arch_probe_write_fixup:
	mov	w0, #0
	ret

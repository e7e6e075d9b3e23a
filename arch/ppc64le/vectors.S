/*
 * vectors.S (ppc64le): the interrupt vectors (Power ISA 3.0 Book III
 * 7.5: each at its real address, 0x100 to 0xf60), copied to address 0 by
 * ppc_traps_init() (trap.c) once the firmware is no longer called.
 *
 * The hypervisor delivers interrupts big-endian (LPCR[ILE] is its: QEMU
 * refused H_SET_MODE's little-endian interrupts here), in real mode,
 * 64-bit, with SRR0/SRR1 the interrupted address and MSR. So each vector
 * is assembled here little-endian and byte-swapped word by word as it is
 * copied: it keeps r3 in SPRG1, SRR0 and SRR1 in SPRG2 and SPRG3, and
 * returns by rfid into ppc_trap_entry, little-endian, with its offset in
 * r3. Every interrupt is fatal in memboot on POWER: ppc_trap_entry saves
 * the registers on an exception stack of its own (a kernel stack overflow
 * is still reported), turns translation back on as the interrupted code
 * had it and calls ppc_trap().
 */
#include "p64/regs.h"

#define SPRG0 272
#define SPRG1 273
#define SPRG2 274
#define SPRG3 275
#define SPR_DSISR 18
#define SPR_DAR 19
#define SPR_HSPRG0 304
#define SPR_HSRR0 314
#define SPR_HSRR1 315

	.section .text, "ax"
	.balign 4096
	.globl ppc_vectors, ppc_vectors_end
ppc_vectors:
	/* The guest's vectors, 0x80 apart (the 0x20-apart ones at 0xe00 up
	 * are the hypervisor's, delivered only when the kernel is it). */
	.macro GUEST_VECTOR v
	.org	ppc_vectors + \v
	mtspr	SPRG1, 3
	mfsrr0	3
	mtspr	SPRG2, 3
	mfsrr1	3
	mtspr	SPRG3, 3
	mfmsr	3
	ori	3, 3, MSR_LE
	mtsrr1	3
	lis	3, ppc_trap_entry@h
	ori	3, 3, ppc_trap_entry@l
	mtsrr0	3
	li	3, \v
	rfid
	.endm
	.irp v, 0x100, 0x200, 0x300, 0x380, 0x400, 0x480, 0x500, 0x600, 0x700, 0x800, 0x900, 0x980, 0xa00, 0xb00, 0xc00, 0xd00
	GUEST_VECTOR \v
	.endr
	/* Between the guest's 0xd00 and the hypervisor's 0xe00: the rest of
	 * a hypervisor vector (r3 its offset; HSPRG0 a scratch register, the
	 * firmware being called no more before a fatal interrupt's report). */
	.org	ppc_vectors + 0xd80
.Lhv_tail:
	mtspr	SPR_HSPRG0, 4
	mfmsr	4
	ori	4, 4, MSR_LE
	mtsrr1	4
	lis	4, ppc_trap_entry@h
	ori	4, 4, ppc_trap_entry@l
	mtsrr0	4
	mfspr	4, SPR_HSPRG0
	rfid
	/* The hypervisor's vectors, 0x20 apart, delivered only when the kernel
	 * is the hypervisor (PowerNV: an illegal instruction there is a
	 * hypervisor emulation assistance interrupt, 0xe40), with HSRR0/HSRR1
	 * for SRR0/SRR1: the same state saved, then the common tail. */
	.irp v, 0xe00, 0xe20, 0xe40, 0xe60, 0xe80, 0xea0
	.org	ppc_vectors + \v
	mtspr	SPRG1, 3
	mfspr	3, SPR_HSRR0
	mtspr	SPRG2, 3
	mfspr	3, SPR_HSRR1
	mtspr	SPRG3, 3
	li	3, \v
	b	.Lhv_tail
	.endr
	GUEST_VECTOR 0xf00
	GUEST_VECTOR 0xf80
	.org	ppc_vectors + 0x1000
ppc_vectors_end:

/* The frame (struct ppc_frame, p64/trap.h): r0..r31, then SRR0, SRR1,
 * LR, CR, DAR, DSISR. */
#define FRAME_BYTES (38 * 8)

	.globl ppc_trap_entry
ppc_trap_entry:
	mtspr	SPRG0, 1
	lis	1, ppc_exception_stack_top@h
	ori	1, 1, ppc_exception_stack_top@l
	subi	1, 1, FRAME_BYTES + 128
	std	0, 128 + 0 * 8(1)
	mfspr	0, SPRG0
	std	0, 128 + 1 * 8(1)       /* r1, the interrupted stack */
	std	2, 128 + 2 * 8(1)
	mfspr	0, SPRG1
	std	0, 128 + 3 * 8(1)       /* r3 */
	.irp r, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	std	\r, 128 + \r * 8(1)
	.endr
	mfspr	0, SPRG2                /* SRR0 */
	std	0, 128 + 32 * 8(1)
	mfspr	0, SPRG3                /* SRR1 */
	std	0, 128 + 33 * 8(1)
	mflr	0
	std	0, 128 + 34 * 8(1)
	mfcr	0
	std	0, 128 + 35 * 8(1)
	mfspr	0, SPR_DAR
	std	0, 128 + 36 * 8(1)
	mfspr	0, SPR_DSISR
	std	0, 128 + 37 * 8(1)
	li	0, 0
	std	0, 0(1)                 /* the back chain ends here */
	/* Translation as the interrupted code had it (SRR1's IR and DR);
	 * floating point on again (newlib's printf). */
	ld	0, 128 + 33 * 8(1)
	andi.	0, 0, MSR_IR | MSR_DR
	mfmsr	4
	or	4, 4, 0
	ori	4, 4, MSR_FP
	mtmsrd	4
	isync
	bcl	20, 31, 1f
1:	mflr	12
	addis	2, 12, (.TOC. - 1b)@ha
	addi	2, 2, (.TOC. - 1b)@l
	mr	4, 3
	addi	3, 1, 128
	bl	ppc_trap
	nop
2:	b	2b

	.section .bss
	.balign 16
	.globl ppc_exception_stack_bottom, ppc_exception_stack_top
ppc_exception_stack_bottom:
	.skip	16 << 10
ppc_exception_stack_top:

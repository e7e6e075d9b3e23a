/*
 * entry.S (ppc64le): the boot CPU's first steps, entered in one of two
 * ways, possibly big-endian, in real mode, at the ELF's first byte:
 *  - pseries: by Open Firmware (QEMU's VOF or SLOF; IEEE 1275 and its
 *    PowerPC binding; Linux enters prom_init the same way), r5 the client
 *    interface's entry, at the link address;
 *  - PowerNV: by skiboot, in hypervisor mode, r3 the flattened device tree,
 *    r5 0, r8 and r9 OPAL's base and entry, wherever the file was loaded
 *    (QEMU's powernv: 0x20000000 + the entry's file offset).
 *
 *  1. little-endian: the first two words read as "b .+8" to a big-endian
 *     CPU, which then runs a byte-swapped sequence that sets MSR[LE] and
 *     returns here by rfid (the trampoline Linux's FIXUP_ENDIAN uses, its
 *     instruction words as the ISA encodes them); a little-endian CPU
 *     skips it;
 *  2. 64-bit mode (MSR[SF]), the timebase at entry (boot time 0); PowerNV
 *     told from pseries by r5 0 and the tree's magic at r3;
 *  3. r2, the TOC, from where the code runs (bcl 20,31), and a check that
 *     this is where it is linked (no relocation): PowerNV's copy is moved
 *     to its link address and entered again there; else a message and stop;
 *  4. .bss cleared, the boot stack, r13 0 until the per-CPU area exists,
 *     MSR[FP] on (newlib's printf may use the floating-point registers;
 *     kernel code is built soft-float and never does);
 *  5. pseries: ofw_flatten(r5), the firmware's tree read through the client
 *     interface into a flattened tree in .bss (boot/ofw), while the
 *     firmware's memory is still as it left it; PowerNV: opal_take_tree(r3)
 *     (boot/opal), what the arch needs first read from skiboot's tree;
 *  6. ppc_mmu_boot(): the radix boot map and translation on (paging.c);
 *     ppc_traps_init(): the interrupt vectors at 0 (trap.c, vectors.S),
 *     the firmware being called no more (OPAL, which needs no vectors of
 *     the kernel's, still is);
 *  7. kernel_main(tree, 0) (arch/entry.h): the tree's address in the first
 *     argument, as OPAL and kexec hand one over in r3.
 */
#include "p64/regs.h"

/* The big-endian trampoline: each .long is an instruction byte-swapped. */
#define FIXUP_ENDIAN                                                          \
	tdi	0, 0, 0x48;        /* big-endian: b .+8 */                    \
	b	191f;              /* little-endian already */                \
	.long	0xa600607d;        /* mfmsr r11 */                            \
	.long	0x01006b69;        /* xori r11,r11,1 (MSR[LE]) */             \
	.long	0x00004039;        /* li r10,0 */                             \
	.long	0x6401417d;        /* mtmsrd r10,1 (EE and RI off) */         \
	.long	0x05009f42;        /* bcl 20,31,$+4 */                        \
	.long	0xa602487d;        /* mflr r10 */                             \
	.long	0x14004a39;        /* addi r10,r10,20 */                      \
	.long	0xa6035a7d;        /* mtsrr0 r10 */                           \
	.long	0xa6037b7d;        /* mtsrr1 r11 */                           \
	.long	0x2400004c;        /* rfid */                                 \
191:

/*
 * A call into firmware that runs 32-bit and big-endian (Open Firmware's
 * client interface, RTAS). FW_CALL_SAVE: a frame of 288 bytes holding r2,
 * r13-r31, CR and the MSR whole, since the firmware keeps only the low
 * halves of the registers it saves (the MSR is left in r11).
 * FW_CALL_ENTER, SRR0 set: the firmware entered by rfid with that MSR less
 * MSR[SF] and the bits @clear, its LR the trampoline right after, which
 * turns the CPU little-endian again when the firmware returns (r10, r12
 * used). FW_CALL_RETURN, once the caller made r1 whole again: the MSR
 * restored (64-bit mode, translation as it was), then the registers, and
 * back to the caller (r3 kept).
 */
.macro FW_CALL_SAVE
	mflr	0
	std	0, 16(1)
	stdu	1, -288(1)
	std	2, 32(1)
	std	13, 40(1)
	.irp	n, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	std	\n, (48 + (\n - 14) * 8)(1)
	.endr
	mfcr	10
	std	10, 192(1)
	mfmsr	11
	std	11, 200(1)
.endm

.macro FW_CALL_ENTER clear
	bcl	20, 31, .Lfw_here\@
.Lfw_here\@:
	mflr	10
	addi	10, 10, .Lfw_back\@ - .Lfw_here\@
	mtlr	10
	li	12, 1
	rldicr	12, 12, MSR_SF_BIT, 0
	ori	12, 12, \clear
	andc	11, 11, 12
	mtsrr1	11
	rfid
.Lfw_back\@:
	FIXUP_ENDIAN
.endm

.macro FW_CALL_RETURN
	ld	0, 200(1)
	mtmsrd	0
	isync
	ld	2, 32(1)
	ld	13, 40(1)
	.irp	n, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	ld	\n, (48 + (\n - 14) * 8)(1)
	.endr
	ld	4, 192(1)
	mtcr	4
	addi	1, 1, 288
	ld	0, 16(1)
	mtlr	0
	blr
.endm

	.section .text.head, "ax"
	.globl _start
_start:
	FIXUP_ENDIAN
	mfmsr	11
	li	12, 1
	rldicr	12, 12, MSR_SF_BIT, 0
	or	11, 11, 12
	ori	11, 11, MSR_FP
	mtmsrd	11
	isync
	mfspr	14, 268                 /* the timebase */
	/* PowerNV: r5 (no client interface) 0 and r3 a flattened tree. */
	li	15, 0
	cmpdi	5, 0
	bne	.Lfw_known
	lwbrx	11, 0, 3
	lis	12, 0xd00dfeed@h        /* the tree's magic, big-endian */
	ori	12, 12, 0xd00dfeed@l
	cmplw	11, 12
	bne	.Lfw_known
	li	15, 1
.Lfw_known:
	bcl	20, 31, 1f
1:	mflr	12
	addis	2, 12, (.TOC. - 1b)@ha
	addi	2, 2, (.TOC. - 1b)@l
	/* Linked here? The TOC holds 1b's link-time address. */
	addis	10, 2, .Lhere@toc@ha
	ld	10, .Lhere@toc@l(10)
	cmpd	10, 12
	beq	.Lplaced
	cmpdi	15, 0
	beq	wrong_place
	/*
	 * skiboot runs the ELF where it loaded the file (its first byte at
	 * 0x20000000), not at its link address: the image, laid out in the
	 * file as in memory from .text to .bss (linker/ppc64le.ld), is
	 * copied to where it is linked, the caches made coherent, and
	 * _start entered again there (r3, r5, r8 and r9 kept).
	 */
	subf	16, 10, 12              /* run - link */
	addis	17, 2, .Lkstart@toc@ha
	ld	17, .Lkstart@toc@l(17)
	addis	18, 2, .Lbss@toc@ha
	ld	18, .Lbss@toc@l(18)
	mr	19, 17
	add	20, 17, 16
11:	cmpld	19, 18
	bge	12f
	ld	0, 0(20)
	std	0, 0(19)
	addi	19, 19, 8
	addi	20, 20, 8
	b	11b
12:	sync
	mr	19, 17
13:	cmpld	19, 18
	bge	14f
	dcbst	0, 19
	addi	19, 19, 128
	b	13b
14:	sync
	mr	19, 17
15:	cmpld	19, 18
	bge	16f
	icbi	0, 19
	addi	19, 19, 128
	b	15b
16:	sync
	isync
	mtctr	17
	bctr

.Lplaced:
	addis	10, 2, arch_counter_at_entry@toc@ha
	std	14, arch_counter_at_entry@toc@l(10)
	addis	10, 2, ppc_ofw_entry@toc@ha
	std	5, ppc_ofw_entry@toc@l(10)
	cmpdi	15, 0
	beq	17f
	addis	10, 2, ppc_opal_base@toc@ha
	std	8, ppc_opal_base@toc@l(10)
	addis	10, 2, ppc_opal_entry@toc@ha
	std	9, ppc_opal_entry@toc@l(10)
17:
	/* .bss, in doublewords */
	addis	10, 2, .Lbss@toc@ha
	ld	10, .Lbss@toc@l(10)
	addis	11, 2, .Lbss_end@toc@ha
	ld	11, .Lbss_end@toc@l(11)
	li	0, 0
2:	cmpld	10, 11
	bge	3f
	std	0, 0(10)
	addi	10, 10, 8
	b	2b
3:
	addis	1, 2, .Lstack_top@toc@ha
	ld	1, .Lstack_top@toc@l(1)
	li	0, 0
	stdu	0, -128(1)              /* a frame with a null back chain */
	li	13, 0
	cmpdi	15, 0
	beq	18f
	bl	opal_take_tree          /* r3 the tree: kept, read for the arch */
	nop
	b	19f
18:	mr	3, 5
	bl	ofw_flatten
	nop
19:	mr	31, 3
	bl	ppc_mmu_boot            /* the radix boot map, translation on */
	nop
	bl	ppc_traps_init          /* the interrupt vectors */
	nop
	mr	3, 31
	li	4, 0
	bl	kernel_main
	nop
4:	b	4b

/*
 * Loaded somewhere else than linked: "memboot: loaded at the wrong
 * address" through H_PUT_TERM_CHAR (16 bytes a call, big-endian in r6
 * and r7), then stop. Nothing else can be trusted here (no TOC).
 */
wrong_place:
	bcl	20, 31, 5f
5:	mflr	31
	addi	31, 31, .Lmisload - 5b
	li	30, 4                   /* calls of 16 bytes */
6:	li	3, H_PUT_TERM_CHAR
	li	4, 0
	li	5, 16
	ldbrx	6, 0, 31                /* the bytes in memory order, big-endian */
	addi	8, 31, 8
	ldbrx	7, 0, 8
	.long	0x44000022              /* sc 1 */
	addi	31, 31, 16
	addi	30, 30, -1
	cmpdi	30, 0
	bne	6b
7:	b	7b
	.balign 8
.Lmisload:
	.ascii	"\r\nmemboot: loaded at an address it is not linked at; stopped  \r\n"
	.balign 8

/*
 * int64_t ppc_ofw_call(void *args, uint64_t entry): one client interface
 * call (IEEE 1275 PowerPC binding: r3 the argument block, big-endian
 * 32-bit cells). The firmware runs 32-bit and big-endian, so the call is
 * made through rfid with MSR[SF] and MSR[LE] clear and comes back through
 * the trampoline; the firmware keeps only the low halves of the registers
 * it saves, so every register the ABI keeps is saved here whole.
 */
	.section .text, "ax"
	.globl ppc_ofw_call
ppc_ofw_call:
	FW_CALL_SAVE
	mtsrr0	4
	FW_CALL_ENTER MSR_LE
	rldicl	1, 1, 0, 32             /* the firmware may have set r1's high half */
	extsw	3, 3
	FW_CALL_RETURN

/*
 * void ppc_rtas_enter(block, entry, base): one call of RTAS as the firmware
 * instantiated it (PAPR 7.2.1, 7.3; what Linux's enter_rtas does): r3 the
 * argument block's real address, r4 RTAS's base, entered at @entry by
 * rfid in real mode (MSR[IR|DR] off), big-endian and 32-bit (MSR[LE|SF]
 * off), external interrupts and RI off; RTAS returns through LR,
 * big-endian, where the trampoline turns the CPU little-endian again and
 * the caller's MSR (translation included) is restored. RTAS keeps only
 * the low halves of the registers, so every register the ABI keeps is
 * saved here whole; r1 and the MSR are also kept in the kernel image
 * (ppc_rtas_saved: inside the real mode area, below 4 GiB), for the
 * caller's stack may lie where real mode does not reach. The boot CPU's
 * only, one call at a time (the kernel maps memory at its physical
 * address: the block's address is its real one).
 */
	.section .text, "ax"
	.globl ppc_rtas_enter
ppc_rtas_enter:
	FW_CALL_SAVE
	lis	12, ppc_rtas_saved@ha
	addi	12, 12, ppc_rtas_saved@l
	std	1, 0(12)
	std	11, 8(12)
	mtsrr0	4
	mr	4, 5
	FW_CALL_ENTER (MSR_EE|MSR_IR|MSR_DR|MSR_RI|MSR_LE)
	lis	12, ppc_rtas_saved@ha
	addi	12, 12, ppc_rtas_saved@l
	ld	1, 0(12)
	ld	0, 8(12)
	mtmsrd	0
	isync
	FW_CALL_RETURN

/*
 * Where RTAS start-cpu starts another CPU (arch/ppc64le/smp.c): big-endian,
 * 64-bit, in real mode, r3 its per-CPU area (the kernel maps memory at its
 * physical address, so the area's address is both). The boot CPU's
 * trampoline to little-endian; floating point on as on the boot CPU; the
 * TOC from where the code runs; PIDR 0 and MSR[IR|DR]: the partition's
 * radix process table, registered by the boot CPU, is this CPU's too (the
 * hypervisor gives a started CPU the boot CPU's LPCR, radix and
 * little-endian interrupts included); r13 the area, its stack (word 2),
 * then ppc_ap_main(), which never returns.
 */
	.balign 4
	.globl ppc_secondary_entry
ppc_secondary_entry:
	FIXUP_ENDIAN
	mr	31, 3
	bcl	20, 31, .Lap_here
.Lap_here:
	mflr	12
	addis	2, 12, (.TOC. - .Lap_here)@ha
	addi	2, 2, (.TOC. - .Lap_here)@l
.Lap_common:
	li	0, 0
	mtspr	48, 0                   /* PIDR */
	isync
	mfmsr	11
	li	12, 1
	rldicr	12, 12, MSR_SF_BIT, 0
	or	11, 11, 12
	ori	11, 11, MSR_FP | MSR_IR | MSR_DR | MSR_RI
	mtmsrd	11
	isync
	mr	13, 31
	ld	1, 16(13)
	li	0, 0
	stdu	0, -128(1)
	mr	3, 13
	bl	ppc_ap_main
	nop
.Lap_stop:
	b	.Lap_stop

/*
 * Where OPAL START_CPU starts another CPU on PowerNV (smp.c): big-endian,
 * in hypervisor real mode, r3 its PIR. Its per-CPU area is looked up by
 * PIR in the table smp.c publishes before the first start
 * (ppc_pnv_starts: PIR, area, state; ppc_pnv_nr_starts of them); a PIR not there
 * stops the CPU here. The boot CPU's partition table (PTCR) and LPCR
 * (host radix, process table in use), LPID 0, then the pseries path.
 */
	.balign 4
	.globl ppc_pnv_secondary_entry
ppc_pnv_secondary_entry:
	FIXUP_ENDIAN
	bcl	20, 31, .Lpnv_here
.Lpnv_here:
	mflr	12
	addis	2, 12, (.TOC. - .Lpnv_here)@ha
	addi	2, 2, (.TOC. - .Lpnv_here)@l
	addis	10, 2, ppc_pnv_starts@toc@ha
	ld	10, ppc_pnv_starts@toc@l(10)
	addis	11, 2, ppc_pnv_nr_starts@toc@ha
	lwz	11, ppc_pnv_nr_starts@toc@l(11)
	clrldi	3, 3, 32
20:	cmpwi	11, 0
	beq	.Lpnv_unknown
	ld	12, 0(10)
	cmpld	12, 3
	beq	21f
	addi	10, 10, 24
	addi	11, 11, -1
	b	20b
21:	ld	31, 8(10)
	addis	10, 2, ppc_pnv_ptcr@toc@ha
	ld	10, ppc_pnv_ptcr@toc@l(10)
	mtspr	464, 10                 /* PTCR */
	li	0, 0
	mtspr	319, 0                  /* LPIDR */
	isync
	addis	10, 2, ppc_pnv_lpcr@toc@ha
	ld	10, ppc_pnv_lpcr@toc@l(10)
	mtspr	318, 10                 /* LPCR */
	isync
	b	.Lap_common
.Lpnv_unknown:
	b	.Lpnv_unknown

/*
 * int64_t ppc_opal_call(uint64_t token, uint64_t a0, a1, a2, a3): one
 * OPAL call (skiboot's interface, as Linux's opal_call makes it): r0 the
 * token, r3 up the arguments, r2 OPAL's base, entered at OPAL's entry
 * by rfid in real mode, big-endian, with external interrupts off; OPAL
 * returns through LR big-endian, where the trampoline turns the CPU back
 * little-endian and the caller's MSR (translation included), r2 and r13
 * are restored. OPAL keeps r14-r31 (its ABI's non-volatile registers)
 * and switches to a stack of its own. Pointer arguments are physical
 * addresses (the kernel's map is the identity), data big-endian.
 */
	.section .text, "ax"
	.globl ppc_opal_call
ppc_opal_call:
	mflr	0
	std	0, 16(1)
	stdu	1, -128(1)
	std	2, 32(1)
	std	13, 40(1)
	mfcr	10
	std	10, 48(1)
	mfmsr	11
	std	11, 56(1)
	mr	0, 3
	mr	3, 4
	mr	4, 5
	mr	5, 6
	mr	6, 7
	addis	12, 2, ppc_opal_entry@toc@ha
	ld	12, ppc_opal_entry@toc@l(12)
	mtsrr0	12
	addis	12, 2, ppc_opal_base@toc@ha
	ld	12, ppc_opal_base@toc@l(12)
	li	10, MSR_IR | MSR_DR | MSR_LE
	ori	10, 10, MSR_EE
	andc	11, 11, 10
	mtsrr1	11
	bcl	20, 31, 22f
22:	mflr	10
	addi	10, 10, 23f - 22b
	mtlr	10
	mr	2, 12
	rfid
23:	FIXUP_ENDIAN
	ld	0, 56(1)
	mtmsrd	0
	isync
	ld	2, 32(1)
	ld	13, 40(1)
	ld	4, 48(1)
	mtcr	4
	addi	1, 1, 128
	ld	0, 16(1)
	mtlr	0
	blr

	.section .data
	.balign 8
.Lhere:
	.quad	1b
.Lkstart:
	.quad	__kernel_start
.Lbss:
	.quad	__bss_start
.Lbss_end:
	.quad	__bss_end
.Lstack_top:
	.quad	boot_stack_top
	.globl arch_counter_at_entry
arch_counter_at_entry:
	.quad	0
	/* The client interface's entry (r5 at entry), for boot/ofw. */
	.globl ppc_ofw_entry
ppc_ofw_entry:
	.quad	0
	/* ppc_rtas_enter(): the caller's r1 and MSR while RTAS runs. */
ppc_rtas_saved:
	.quad	0, 0
	/* OPAL's base and entry (r8 and r9 at a PowerNV entry), 0 else. */
	.globl ppc_opal_base, ppc_opal_entry
ppc_opal_base:
	.quad	0
ppc_opal_entry:
	.quad	0
	/* PowerNV: what a started CPU loads into PTCR and LPCR before it
	 * turns translation on (arch/ppc64le/paging.c); 0 on pseries. */
	.globl ppc_pnv_ptcr, ppc_pnv_lpcr
ppc_pnv_ptcr:
	.quad	0
ppc_pnv_lpcr:
	.quad	0

	.section .bss
	.balign 4096
	.globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
	.skip	64 << 10
boot_stack_top:

/*
 * a64/sysregs.h: the system register values arm64's entry code programs
 * (Arm ARM DDI 0487, chapter D19 "AArch64 System Register Descriptions"),
 * usable from assembly and C.
 */
#ifndef MEMBOOT_A64_SYSREGS_H
#define MEMBOOT_A64_SYSREGS_H

/* HCR_EL2.RW: EL1 is AArch64. */
#define HCR_EL2_RW (1 << 31)
/* SPSR: EL1h (EL1 on SP_EL1), D, A, I, F masked. */
#define SPSR_EL1H_MASKED 0x3c5
/* CPACR_EL1.FPEN = 0b11: FP/SIMD not trapped at EL0 or EL1. */
#define CPACR_EL1_FPEN (3 << 20)

/* SCTLR_EL1's RES1 bits in Armv8.0 (11, 20, 22, 23, 28, 29), MMU off. */
#define SCTLR_EL1_RES1 0x30d00800
#define SCTLR_EL1_M (1 << 0)      /* stage 1 translation */
#define SCTLR_EL1_C (1 << 2)      /* data caches */
#define SCTLR_EL1_SA (1 << 3)     /* SP alignment check */
#define SCTLR_EL1_I (1 << 12)     /* instruction cache */
#define SCTLR_EL1_MMU_ON (SCTLR_EL1_RES1 | SCTLR_EL1_M | SCTLR_EL1_C | SCTLR_EL1_SA | SCTLR_EL1_I)

/* MAIR_EL1: Attr0 Normal write-back read/write-allocate (0xff), Attr1
 * Device-nGnRE (0x04). asm/mmu.h's A64_ATTR_NORMAL is index 0. */
#define MAIR_EL1_VALUE 0x04ff
#define A64_ATTR_DEVICE 1

/* TCR_EL1: T0SZ = T1SZ = 16 (48-bit VAs), IRGN/ORGN write-back
 * write-allocate, inner shareable, TG0 4 KiB (0b00), TG1 4 KiB (0b10);
 * IPS (bits 34:32) is ORed in from ID_AA64MMFR0_EL1.PARange. */
#define TCR_EL1_VALUE ((16 << 0) | (1 << 8) | (1 << 10) | (3 << 12) | \
		       (16 << 16) | (1 << 24) | (1 << 26) | (3 << 28) | (2 << 30))

/* The boot map's 1 GiB blocks (asm/mmu.h's bits): valid block, AF, inner
 * shareable; devices never executable (PXN, UXN). */
#define BOOT_BLOCK_NORMAL ((0 << 2) | (3 << 8) | (1 << 10) | 1)
#define BOOT_BLOCK_DEVICE ((1 << 2) | (1 << 10) | (3 << 53) | 1)

/* ESR_EL1's exception classes memboot tells apart (Arm ARM D19, ESR_EL1.EC). */
#define ESR_EC_SHIFT 26
#define ESR_EC_UNKNOWN 0x00
#define ESR_EC_IABT_CUR 0x21
#define ESR_EC_PC_ALIGN 0x22
#define ESR_EC_DABT_CUR 0x25
#define ESR_EC_SP_ALIGN 0x26
#define ESR_EC_BRK 0x3c

#ifdef __ASSEMBLER__
/* x = the address of @sym, PC-relative (within 4 GiB). */
	.macro adr_l, reg, sym
	adrp	\reg, \sym
	add	\reg, \reg, :lo12:\sym
	.endm

/* At EL2 (a loader's entry, or a CPU started by firmware that enters the
 * highest non-secure level), continue at EL1 (Arm ARM D1, "Exception
 * return"): EL1 is AArch64 (HCR_EL2.RW, interrupts taken at EL1), reads the
 * physical counter and timer (CNTHCTL_EL2.EL1PCTEN/EL1PCEN), sees no
 * virtual offset, the real MIDR/MPIDR, FP/SIMD is not trapped (CPTR_EL2),
 * and where the GICv3 CPU interface's system registers exist
 * (ID_AA64PFR0_EL1.GIC), EL1 may use them (ICC_SRE_EL2.SRE and Enable,
 * no virtual interface: ICH_HCR_EL2 0). At EL1 nothing. Clobbers x9. */
	.macro drop_to_el1
	mrs	x9, CurrentEL
	cmp	x9, #(2 << 2)
	b.ne	9998f
	mov	x9, #HCR_EL2_RW
	msr	hcr_el2, x9
	mrs	x9, cnthctl_el2
	orr	x9, x9, #3
	msr	cnthctl_el2, x9
	msr	cntvoff_el2, xzr
	mrs	x9, midr_el1
	msr	vpidr_el2, x9
	mrs	x9, mpidr_el1
	msr	vmpidr_el2, x9
	mov	x9, #0x33ff
	msr	cptr_el2, x9
	msr	hstr_el2, xzr
	mrs	x9, id_aa64pfr0_el1
	ubfx	x9, x9, #24, #4
	cbz	x9, 9997f
	mrs	x9, S3_4_C12_C9_5       /* ICC_SRE_EL2 */
	orr	x9, x9, #0x1            /* SRE */
	orr	x9, x9, #0x8            /* Enable: EL1 may write ICC_SRE_EL1 */
	msr	S3_4_C12_C9_5, x9
	isb
	msr	S3_4_C12_C11_0, xzr     /* ICH_HCR_EL2 */
9997:
	ldr	x9, =SCTLR_EL1_RES1
	msr	sctlr_el1, x9
	mov	x9, #SPSR_EL1H_MASKED
	msr	spsr_el2, x9
	adr	x9, 9998f
	msr	elr_el2, x9
	eret
9998:
	.endm

/* The translation registers written: stale TLB entries gone, then SCTLR_EL1
 * from @reg (MMU and caches on), the instruction cache invalidated. */
	.macro mmu_enable, reg
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	msr	sctlr_el1, \reg
	isb
	ic	iallu
	dsb	nsh
	isb
	.endm

/* SP_EL1 (exceptions) from @exc, then SP_EL0 (the kernel, SPSel 0) from
 * @kern; no caller frame for the backtrace. */
	.macro set_stacks, exc, kern
	mov	sp, \exc
	msr	spsel, #0
	mov	sp, \kern
	mov	x29, xzr
	mov	x30, xzr
	isb
	.endm
#endif

#endif

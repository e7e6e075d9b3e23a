/*
 * entry.S (arm64): the Image header and the boot CPU's first steps, as
 * Linux's arm64 boot protocol enters a kernel (Documentation/arch/arm64/
 * booting.rst): at EL2 or EL1, MMU off, x0 the device tree's physical
 * address, x1-x3 zero.
 *
 *  1. the counter at entry (arch_counter_at_entry: boot time 0);
 *  2. at EL2, drop to EL1 with the timer's counter reachable from EL1 and
 *     FP/SIMD not trapped (Arm ARM D1, "Exception return");
 *  3. .bss cleared, FP/SIMD enabled at EL1 (CPACR_EL1.FPEN: newlib's
 *     printf uses the vector registers; kernel code itself never does);
 *  4. the boot map: RAM and MMIO identity mapped with 1 GiB blocks
 *     over the first 512 GiB, [0, 1 GiB) (QEMU virt's and most SoCs'
 *     devices) as Device-nGnRE, the rest Normal write-back; MMU and caches
 *     on. With the MMU off every data access is Device-nGnRnE, where an
 *     unaligned access faults: C code needs the map first;
 *  5. the exception vectors (VBAR_EL1), an exception stack on SP_EL1 and
 *     the boot stack on SP_EL0 (SPSel 0): a kernel stack overflow still
 *     has a stack to report on;
 *  6. kernel_main(x0, x1) (arch/entry.h).
 *
 * memboot's UEFI loader (boot/efi/, BOOTAA64.EFI) enters at _start the same
 * way, with x0 = HANDOFF_ENTRY_MAGIC and x1 = its hand-off block
 * (boot/handoff.h) in place of the device tree; it finds _start through the
 * ELF note below (name "memboot", type HANDOFF_NOTE_ENTRY64), as on x86_64.
 */
#include "a64/sysregs.h"

#define HANDOFF_NOTE_ENTRY64 0x6d620001 /* boot/handoff.h */
#define HANDOFF_VERSION 1

	.section .note.memboot, "a", %note
	.balign 4
	.long 8                         /* namesz: "memboot\0" */
	.long 16                        /* descsz: struct handoff_note_entry64 */
	.long HANDOFF_NOTE_ENTRY64
	.asciz "memboot"
	.balign 4
	.quad _start                    /* entry_lo, entry_hi */
	.long HANDOFF_VERSION
	.long 0

	.section .text.head, "ax"
	.globl _start
_start:
	b	entry                   /* code0 */
	.long	0                       /* code1 */
	.quad	0x200000                /* text_offset: 2 MiB above the RAM base */
	.quad	__kernel_end - _start   /* image_size, .bss included */
	.quad	0xa                     /* flags: little endian, 4 KiB pages, anywhere */
	.quad	0, 0, 0                 /* res2..res4 */
	.ascii	"ARM\x64"               /* magic */
	.long	0                       /* res5 */

	.section .text.boot, "ax"
entry:
	mrs	x9, cntvct_el0
	mov	x19, x0                 /* the device tree */
	mov	x20, x1
	/* Where the loader put us must be where we are linked (no
	 * relocation): else stop at once through semihosting. */
	adr	x10, _start
	ldr	x11, =_start
	cmp	x10, x11
	b.ne	wrong_place
	adr_l	x10, arch_counter_at_entry
	str	x9, [x10]

	mrs	x9, CurrentEL
	lsr	x9, x9, #2
	adr_l	x10, arm64_entry_el
	str	x9, [x10]
	drop_to_el1
	msr	daifset, #0xf
	ldr	x9, =SCTLR_EL1_RES1     /* MMU and caches off until the map is built */
	msr	sctlr_el1, x9
	isb
	mov	x9, #CPACR_EL1_FPEN
	msr	cpacr_el1, x9
	isb

	/* .bss */
	adr_l	x9, __bss_start
	adr_l	x10, __bss_end
1:	cmp	x9, x10
	b.hs	2f
	stp	xzr, xzr, [x9], #16
	b	1b
2:
	/* The boot map: L0[0] -> L1, L1[i] a 1 GiB block at i GiB. */
	adr_l	x9, arm64_boot_l0
	adr_l	x10, arm64_boot_l1
	orr	x11, x10, #3            /* table descriptor */
	str	x11, [x9]
	ldr	x12, =BOOT_BLOCK_DEVICE
	str	x12, [x10]              /* [0, 1 GiB): devices */
	ldr	x12, =BOOT_BLOCK_NORMAL
	mov	x13, #1
3:	orr	x11, x12, x13, lsl #30
	str	x11, [x10, x13, lsl #3]
	add	x13, x13, #1
	cmp	x13, #512
	b.lo	3b
	/* Written with the MMU off: clean them to the point of coherency
	 * for the table walker's cacheable reads. */
	mov	x11, x9
	add	x12, x9, #8192
4:	dc	civac, x11
	add	x11, x11, #64
	cmp	x11, x12
	b.lo	4b
	dsb	sy

	ldr	x11, =MAIR_EL1_VALUE
	msr	mair_el1, x11
	/* TCR_EL1: 48-bit VAs in both halves, 4 KiB granules, write-back
	 * inner shareable walks; IPS the CPU's own physical address size
	 * (ID_AA64MMFR0_EL1.PARange). */
	mrs	x11, id_aa64mmfr0_el1
	and	x11, x11, #7
	ldr	x12, =TCR_EL1_VALUE
	orr	x12, x12, x11, lsl #32
	msr	tcr_el1, x12
	/* One root for both halves: the identity map below, the descriptor
	 * windows above (asm/mmu.h's ARCH_MEMMAP_WINDOW_BASE), as x86's one
	 * PML4 holds both. */
	msr	ttbr0_el1, x9
	msr	ttbr1_el1, x9
	ldr	x11, =SCTLR_EL1_MMU_ON
	mmu_enable x11

	adr_l	x9, arm64_vectors
	msr	vbar_el1, x9
	adr_l	x9, arm64_exception_stack_top
	adr_l	x10, boot_stack_top
	set_stacks x9, x10
	mov	x0, x19
	mov	x1, x20
	bl	kernel_main
5:	wfi
	b	5b

/* Linked for another address than the one we run at: semihosting
 * SYS_EXIT (op 0x18) with ADP_Stopped_InternalError (0x20024). */
wrong_place:
	mov	x0, #0x18
	ldr	x1, =0x20024
	hlt	#0xf000
6:	wfi
	b	6b
	.ltorg

	.section .bss
	.balign 4096
	.globl arm64_boot_l0, arm64_boot_l1
arm64_boot_l0:
	.skip 4096
arm64_boot_l1:
	.skip 4096
	.balign 16
	.globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
	.skip 64 << 10
boot_stack_top:
	.globl arm64_exception_stack_bottom, arm64_exception_stack_top
arm64_exception_stack_bottom:
	.skip 16 << 10
arm64_exception_stack_top:

	.section .data
	.balign 8
	.globl arch_counter_at_entry
arch_counter_at_entry:
	.quad 0
	/* The exception level the loader entered the kernel at (1 or 2):
	 * arch_cpu_identify() reads it (arch/arm64/cpu.c). */
	.globl arm64_entry_el
arm64_entry_el:
	.quad 0

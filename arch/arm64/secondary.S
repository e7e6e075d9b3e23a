/*
 * secondary.S (arm64): where PSCI CPU_ON starts a CPU (arch/arm64/smp.c):
 * at EL1, or at EL2 where the firmware enters the highest non-secure level
 * (then it drops to EL1 as the boot CPU does, a64/sysregs.h), MMU and
 * caches off, x0 the context id, here the CPU's per-CPU area
 * (a64/percpu.h).
 *
 *  1. the boot CPU's MAIR, TCR, TTBR0/1 and SCTLR (arm64_smp_regs, cleaned
 *     to the point of coherency for this uncached read): the same map, MMU
 *     and caches on;
 *  2. FP/SIMD untrapped (CPACR_EL1), the vectors, TPIDR_EL1 the area;
 *  3. the area's exception stack on SP_EL1 and its kernel stack on SP_EL0
 *     (SPSel 0), as entry.S does for the boot CPU;
 *  4. arm64_ap_main(area), which never returns.
 */
#include "a64/percpu.h"
#include "a64/sysregs.h"

	.text
	.balign 8
	.globl arm64_secondary_entry
arm64_secondary_entry:
	mov	x19, x0
	drop_to_el1
	msr	daifset, #0xf
	ldr	x9, =SCTLR_EL1_RES1
	msr	sctlr_el1, x9
	isb
	mov	x9, #CPACR_EL1_FPEN
	msr	cpacr_el1, x9
	adr_l	x10, arm64_smp_regs
	ldp	x11, x12, [x10]
	msr	mair_el1, x11
	msr	tcr_el1, x12
	ldp	x11, x12, [x10, #16]
	msr	ttbr0_el1, x11
	msr	ttbr1_el1, x12
	ldr	x11, [x10, #32]
	mmu_enable x11

	adr_l	x9, arm64_vectors
	msr	vbar_el1, x9
	msr	tpidr_el1, x19
	ldr	x9, [x19, #A64_PERCPU_EXC_TOP]
	ldr	x10, [x19, #A64_PERCPU_STACK_TOP]
	set_stacks x9, x10
	mov	x0, x19
	bl	arm64_ap_main
1:	wfi
	b	1b
	.ltorg

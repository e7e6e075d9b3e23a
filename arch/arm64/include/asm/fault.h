/*
 * asm/fault.h (arm64): the faults memboot.fault= raises (arch/fault.h).
 * Not yet run: no arm64 port boots.
 */
#ifndef MEMBOOT_ASM_FAULT_H
#define MEMBOOT_ASM_FAULT_H

/* SDIV/UDIV by zero give 0 and do not trap (Arm ARM, SDIV): the nearest is
 * a software breakpoint, BRK (a synchronous exception, EC 0x3c). */
#define ARCH_FAULT_DIVIDE() __asm__ volatile("brk #1")

/* UDF: permanently undefined (EC 0x00, unknown reason). */
#define ARCH_FAULT_UNDEFINED() __asm__ volatile("udf #0")

/* Bits 55..48 neither all 0 nor all 1: outside both translation regimes'
 * ranges (TTBR0 and TTBR1 with 48-bit VAs), a translation fault whether or
 * not the top byte is ignored (TCR_EL1.TBI0/TBI1). */
#define ARCH_FAULT_BAD_ADDRESS 0x0080000000000000ULL

/* 16 TiB, beyond the identity map, as on x86_64. */
#define ARCH_FAULT_UNMAPPED_ADDRESS 0x100000000000ULL

/* SP on an unmapped page, then a store through it: the data abort is taken
 * with SP_EL1 still there. */
#define ARCH_FAULT_STACK_OVERFLOW()                                                   \
	__asm__ volatile("mov x9, #0x100000001000\n\tmov sp, x9\n\tstr xzr, [sp, #-16]!" \
			 : : : "x9", "memory")

/* RET (0xd65f03c0), little-endian. */
#define ARCH_FAULT_RETURN_INSN { 0xc0, 0x03, 0x5f, 0xd6 }

#define ARCH_FAULT_DIVIDE_WHAT "executing brk (division does not trap)"
#define ARCH_FAULT_UNDEFINED_WHAT "executing udf"
#define ARCH_FAULT_BAD_ADDRESS_WHAT "loading an address outside both translation ranges"

#endif

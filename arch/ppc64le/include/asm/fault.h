/*
 * asm/fault.h (ppc64le): the faults memboot.fault= raises (arch/fault.h).
 * Not yet run: no POWER port boots.
 */
#ifndef MEMBOOT_ASM_FAULT_H
#define MEMBOOT_ASM_FAULT_H

/* divd by zero leaves its result undefined and does not trap (Power ISA
 * Book I, divd): the nearest is an unconditional trap, tw 31,0,0 (a
 * program interrupt, trap type). */
#define ARCH_FAULT_DIVIDE() __asm__ volatile("trap")

/* Primary opcode 0 is reserved: an illegal instruction. */
#define ARCH_FAULT_UNDEFINED() __asm__ volatile(".long 0")

/* Quadrant 2 (EA bits 0:1 = 0b10) is no translation's: a storage
 * interrupt in radix mode. */
#define ARCH_FAULT_BAD_ADDRESS 0x8000000000000000ULL

/* 16 TiB, beyond the identity map, as on x86_64. */
#define ARCH_FAULT_UNMAPPED_ADDRESS 0x100000000000ULL

/* r1, the stack pointer by the ABI, on an unmapped page, then a store
 * through it. */
#define ARCH_FAULT_STACK_OVERFLOW()                                                   \
	__asm__ volatile("lis 1, 0x1000\n\tsldi 1, 1, 16\n\tstdu 0, -16(1)" : : : "memory")

/* blr (0x4e800020), little-endian. */
#define ARCH_FAULT_RETURN_INSN { 0x20, 0x00, 0x80, 0x4e }

#define ARCH_FAULT_DIVIDE_WHAT "executing trap (division does not trap)"
#define ARCH_FAULT_UNDEFINED_WHAT "executing an illegal instruction"
#define ARCH_FAULT_BAD_ADDRESS_WHAT "loading an address of quadrant 2"

#endif

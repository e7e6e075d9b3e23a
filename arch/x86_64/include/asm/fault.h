/*
 * asm/fault.h (x86_64): the faults memboot.fault= raises (arch/fault.h).
 */
#ifndef MEMBOOT_ASM_FAULT_H
#define MEMBOOT_ASM_FAULT_H

/* DIV by zero: #DE (SDM vol. 3A 6.15, interrupt 0). */
#define ARCH_FAULT_DIVIDE()                                                            \
	do {                                                                           \
		volatile unsigned zero_ = 0;                                           \
		__asm__ volatile("divl %0" : : "r"(zero_) : "eax", "edx");             \
	} while (0)

/* UD2: #UD (SDM vol. 2B, UD). */
#define ARCH_FAULT_UNDEFINED() __asm__ volatile("ud2")

/* Not canonical (bits 63..47 differ): #GP (SDM vol. 1, 3.3.7.1). */
#define ARCH_FAULT_BAD_ADDRESS 0x8000000000000000ULL

/* 16 TiB: beyond the boot identity map of 64 GiB and below the descriptor
 * windows. */
#define ARCH_FAULT_UNMAPPED_ADDRESS 0x100000000000ULL

/* A stack pointer on an unmapped page: the #PF cannot push its frame,
 * which makes a #DF, delivered on its own IST stack. */
#define ARCH_FAULT_STACK_OVERFLOW() \
	__asm__ volatile("movq $0x100000001000, %%rsp\n\tpushq $0" : : : "memory")

/* RET */
#define ARCH_FAULT_RETURN_INSN { 0xc3 }

#define ARCH_FAULT_DIVIDE_WHAT "dividing by zero"
#define ARCH_FAULT_UNDEFINED_WHAT "executing ud2"
#define ARCH_FAULT_BAD_ADDRESS_WHAT "loading a non-canonical address"

#endif

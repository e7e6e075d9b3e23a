/*
 * p64/regs.h (ppc64le): the machine state registers and the hypervisor
 * calls memboot uses, for C and assembly.
 *
 * MSR bits (Power ISA 3.0 Book III 4.2.1): SF 64-bit mode, HV, EE external
 * interrupts, PR problem state, FP floating point available, ME machine
 * check enable, IR/DR instruction/data relocation, RI recoverable, LE
 * little-endian.
 *
 * hcalls (PAPR, "Hypervisor Call Interface"): `sc 1` with r3 the number,
 * r4 up the arguments; r3 comes back the status (0 H_SUCCESS). QEMU's
 * own ones (KVMPPC_H_RTAS 0xf000) enter RTAS with r4 its argument block.
 */
#ifndef MEMBOOT_P64_REGS_H
#define MEMBOOT_P64_REGS_H

#define MSR_SF_BIT 63
#define MSR_EE 0x8000
#define MSR_FP 0x2000
#define MSR_ME 0x1000
#define MSR_IR 0x20
#define MSR_DR 0x10
#define MSR_RI 0x2
#define MSR_LE 0x1

#define SPR_PVR 287
#define SPR_PIR 1023

#define H_SUCCESS 0
#define H_BUSY 1
#define H_PUT_TERM_CHAR 0x58
#define H_SET_MODE 0x31e
#define H_REGISTER_PROC_TBL 0x37c
#define KVMPPC_H_RTAS 0xf000

#endif

/*
 * p64/hcall.h (ppc64le): a hypervisor call (PAPR: `sc 1`, r3 the number
 * and the status back, r4-r10 arguments). r0 and r4-r12, CTR, XER and
 * the volatile CR fields may be changed by the hypervisor.
 */
#ifndef MEMBOOT_P64_HCALL_H
#define MEMBOOT_P64_HCALL_H

#include <stdint.h>

static inline int64_t ppc_hcall(uint64_t op, uint64_t a1, uint64_t a2, uint64_t a3,
				uint64_t a4, uint64_t a5)
{
	register uint64_t r3 __asm__("r3") = op;
	register uint64_t r4 __asm__("r4") = a1;
	register uint64_t r5 __asm__("r5") = a2;
	register uint64_t r6 __asm__("r6") = a3;
	register uint64_t r7 __asm__("r7") = a4;
	register uint64_t r8 __asm__("r8") = a5;

	__asm__ volatile(".long 0x44000022"   /* sc 1 */
			 : "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), "+r"(r8)
			 :
			 : "r0", "r9", "r10", "r11", "r12", "ctr", "xer", "cr0", "cr1", "cr5",
			   "cr6", "cr7", "memory");
	return (int64_t)r3;
}

#endif

/*
 * a64/psci.h: PSCI calls (Arm DEN 0022, PSCI 1.1) through the conduit the
 * firmware names, HVC or SMC (SMCCC: function id in x0, arguments in
 * x1-x3, the result in x0; x4-x17 may be clobbered).
 */
#ifndef MEMBOOT_A64_PSCI_H
#define MEMBOOT_A64_PSCI_H

#include <stdbool.h>
#include <stdint.h>

#define PSCI_CPU_ON_64 0xc4000003u      /* 5.1.4 */
#define PSCI_SYSTEM_OFF 0x84000008u     /* 5.1.9 */
#define PSCI_SYSTEM_RESET 0x84000009u   /* 5.1.10 */

/* The conduit: true for SMC. Set by arch_smp_setup() from the firmware's
 * tables; HVC until then (QEMU virt's device tree names "hvc"). */
extern bool a64_psci_smc;

static inline int64_t a64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (a64_psci_smc)
		__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				 "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
				 "x14", "x15", "x16", "x17", "memory");
	else
		__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				 "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
				 "x14", "x15", "x16", "x17", "memory");
	return (int64_t)x0;
}

#endif

/*
 * asm/tlb.h (x86_64): how TLB invalidation reaches other CPUs (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* INVLPG and CR3 loads act on this CPU only (SDM vol. 3A 4.10.4): other
 * CPUs are reached by IPIs. */
#define ARCH_TLB_BROADCAST 0

#endif

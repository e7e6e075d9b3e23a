/*
 * asm/tlb.h (arm64): how TLB invalidation reaches other CPUs (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* TLBI ...IS operations reach every CPU of the inner shareable domain,
 * complete after DSB ISH (Arm ARM, "TLB maintenance instructions"). */
#define ARCH_TLB_BROADCAST 1

#endif

/*
 * asm/tlb.h (ppc64le): how TLB invalidation reaches other CPUs, and the
 * external-interrupt enable around code that must answer IPIs
 * (arch/tlb.h).
 */
#ifndef MEMBOOT_ASM_TLB_H
#define MEMBOOT_ASM_TLB_H

#include <stdint.h>

/* tlbie is broadcast to every processor; tlbsync and ptesync wait for all
 * of them (Power ISA 3.0 Book III 6.10, "translation lookaside buffer
 * management"). */
#define ARCH_TLB_BROADCAST 1


#endif

/*
 * arch/percpu.h: per-CPU data, reached through %gs.
 *
 * Each CPU's struct percpu holds its identity, its descriptor tables (GDT,
 * TSS with interrupt stacks) and the mailbox the job runner uses to hand it
 * work. The boot CPU's lives in .bss; every other CPU's is allocated from its
 * own node's memory, right above its kernel stack, which sits above an
 * unmapped guard page (a stack overflow faults instead of corrupting memory).
 *
 * Invariant: %gs base points at the CPU's own struct percpu, whose first
 * field points at itself, so this_cpu() is one load.
 */
#ifndef MEMBOOT_ARCH_PERCPU_H
#define MEMBOOT_ARCH_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/limits.h"

#define MAX_CPUS MEMBOOT_MAX_CPUS
#define CPU_STACK_BYTES (16 * 1024)
#define CPU_GUARD_BYTES 4096
#define CPU_IST_BYTES 4096
#define CPU_NO_NODE 0xffffffffu

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "64-bit TSS is 104 bytes (SDM vol. 3A 8.7)");

/*
 * Start-up handshake between the boot CPU and one AP: both try to move
 * boot_state away from WAITING with a compare-and-swap; the first wins.
 */
enum smp_ap_state {
	SMP_AP_WAITING = 0,     /* kicked, not heard from */
	SMP_AP_ONLINE = 1,      /* the AP won: it runs and takes work */
	SMP_AP_ABANDONED = 2,   /* the boot CPU won (timeout): the AP halts */
};

struct percpu {
	struct percpu *self;            /* must stay first: %gs:0 */
	uint32_t cpu;                   /* logical id; 0 is the boot CPU */
	uint32_t apic_id;
	uint32_t node;                  /* NUMA node of this CPU */
	uint32_t mem_node;              /* node it allocates from (nearest with memory) */
	volatile uint32_t online;       /* set once boot_state is SMP_AP_ONLINE */
	uint32_t boot_state;            /* enum smp_ap_state: one compare-and-swap
					   from WAITING decides, see kernel/smp.c */
	uint64_t stack_bottom;          /* [stack_bottom, stack_top) */
	uint64_t stack_top;

	/* Job runner mailbox: the boot CPU writes work_fn last; the CPU runs
	 * it and clears it. */
	void (*volatile work_fn)(void *arg);
	void *volatile work_arg;
	volatile uint64_t works_done;

	uint64_t gdt[5] __attribute__((aligned(16)));
	struct tss64 tss __attribute__((aligned(16)));
	uint8_t ist_stacks[3][CPU_IST_BYTES] __attribute__((aligned(16)));
};

extern struct percpu *percpu_of[MAX_CPUS];   /* by logical id */
extern uint32_t nr_cpus_online;              /* logical ids [0, nr_cpus_online) */

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

#endif

/*
 * percpu.h: the kernel's per-CPU state, beside arch's struct percpu.
 *
 * arch's struct percpu (arch/percpu.h) keeps what the hardware needs: the
 * %gs self-pointer, logical and APIC ids, stacks, GDT and TSS. Everything
 * else a CPU carries (its NUMA node, the node it allocates from, the start-up
 * handshake word and the job runner's mailbox) is generic and lives here, in
 * struct cpu_state, so a new per-CPU field never touches arch.
 *
 * Reaching it costs what it did when the fields sat in arch's struct: arch's
 * struct holds a pointer to this one at a fixed offset, and
 * this_cpu_state() is one %gs-relative load (arch_this_cpu_state()).
 *
 * The boot CPU's cpu_state is static; each AP's sits in the block smp_boot()
 * allocates on the CPU's own node (guard page, stack, struct percpu, this).
 */
#ifndef MEMBOOT_KERNEL_PERCPU_H
#define MEMBOOT_KERNEL_PERCPU_H

#include <stdint.h>

#include "arch/percpu.h"

/*
 * Start-up handshake between the boot CPU and one AP: both try to move
 * boot_state away from WAITING with a compare-and-swap; the first wins
 * (kernel/init/smp.c, smp_boot(), says why that is race-free).
 */
enum smp_ap_state {
	SMP_AP_WAITING = 0,     /* kicked, not heard from */
	SMP_AP_ONLINE = 1,      /* the AP won: it runs and takes work */
	SMP_AP_ABANDONED = 2,   /* the boot CPU won (timeout): the AP halts */
};

struct cpu_state {
	uint32_t node;                  /* NUMA node of this CPU */
	uint32_t mem_node;              /* node it allocates from (nearest with memory) */
	volatile uint32_t online;       /* set once boot_state is SMP_AP_ONLINE */
	uint32_t boot_state;            /* enum smp_ap_state */

	/* Job runner mailbox: the boot CPU writes work_fn last; the CPU runs
	 * it and clears it (kernel/job_cpu.c posts, percpu_ap_main() runs). */
	void (*volatile work_fn)(void *arg);
	void *volatile work_arg;
	volatile uint64_t works_done;
	/* TSC cycles spent running posted work: what a phase record's
	 * ap_busy_ns sums (kernel/init/phase.c). */
	volatile uint64_t busy_cycles;
};

/* The boot CPU's state, and every CPU's by logical id (NULL: not up). */
extern struct cpu_state boot_cpu_state;
extern struct cpu_state *cpu_states[MAX_CPUS];

static inline struct cpu_state *this_cpu_state(void)
{
	return arch_this_cpu_state();
}

/* @cpu's state, or NULL when @cpu is out of range or not brought up. */
static inline struct cpu_state *cpu_state_of(uint32_t cpu)
{
	return cpu < MAX_CPUS ? cpu_states[cpu] : 0;
}

/*
 * The AP's life once arch has set up its tables and local APIC (called from
 * arch's ap_main()): the AP side of the start-up handshake, then serving
 * the job runner's mailbox. Never returns.
 */
__attribute__((noreturn)) void percpu_ap_main(void);

#endif

/*
 * percpu.h: the kernel's per-CPU state, beside arch's per-CPU area.
 *
 * Everything generic a CPU carries (its logical id and hardware id, its
 * stack, its NUMA node, the node it allocates from, the start-up handshake
 * word and the job runner's mailbox) lives here, in struct cpu_state, and
 * generic code reaches its CPU only through it. Arch's area (arch/percpu.h:
 * descriptor tables, exception stacks) sits beside it and is arch's alone,
 * so a new per-CPU field never touches arch.
 *
 * Reaching it costs one load or two: the architecture's per-CPU register
 * points at its area, which points at this (arch_this_cpu_state()).
 *
 * The boot CPU's cpu_state is static; each AP's sits in the block smp_boot()
 * allocates on the CPU's own node (guard page, stack, arch area, this).
 */
#ifndef MEMBOOT_KERNEL_PERCPU_H
#define MEMBOOT_KERNEL_PERCPU_H

#include <stdint.h>
#include <stdbool.h>

#include "arch/percpu.h"
#include "kernel/services/clock/counter_sync.h"
#include "kernel/services/limits.h"

/* Each AP's kernel stack, above a guard page left unmapped (a stack
 * overflow faults instead of corrupting memory). */
#define CPU_STACK_BYTES (16 * 1024)
#define CPU_GUARD_BYTES PAGE_SIZE_BYTES

/*
 * Start-up handshake between the boot CPU and one AP: both try to move
 * boot_state away from WAITING with a compare-and-swap; the first wins
 * (kernel/init/smp.c, smp_boot(), says why that is race-free).
 */
enum smp_ap_state {
	SMP_AP_WAITING = 0,     /* kicked, not heard from */
	SMP_AP_ONLINE = 1,      /* the AP won: it runs and takes work */
	SMP_AP_ABANDONED = 2,   /* the boot CPU won (timeout): the AP halts */
	SMP_AP_REFUSED = 3,     /* the firmware refused to start it (arch_smp_start()) */
};

struct cpu_state {
	uint32_t cpu;                   /* logical id; 0 is the boot CPU */
	uint32_t hwid;                  /* hardware id (arch/cpu.h) */
	uint64_t stack_bottom;          /* its kernel stack: [stack_bottom, stack_top) */
	uint64_t stack_top;
	void *arch;                     /* its arch area (arch/percpu.h), arch's alone */
	uint32_t node;                  /* NUMA node of this CPU */
	uint32_t mem_node;              /* node it allocates from (nearest with memory) */
	volatile uint32_t online;       /* set once boot_state is SMP_AP_ONLINE */
	uint32_t boot_state;            /* enum smp_ap_state */
	uint64_t kick_counter;          /* the boot CPU's counter when it sent the wake-up */
	uint64_t online_counter;        /* the AP's counter as it came online */

	/* The counter check with the boot CPU (kernel/services/clock/cpu_sync.c;
	 * run where the architecture does not promise agreement). */
	volatile uint64_t sync_pub;     /* the AP's counter, republished as it checks */
	volatile uint32_t sync_done;    /* the AP's side has ended */
	uint32_t sync_n;                /* its readings of the boot CPU's counter */
	int64_t sync_lo, sync_hi;       /* bounds on its offset (boot's, AP's) */
	uint64_t sync_budget;           /* cycles the AP checks for at most */
	uint64_t sync_linger;           /* cycles it keeps publishing after its readings */
	uint32_t sync_n_lo;             /* the boot CPU's readings of sync_pub */
	volatile uint32_t sync_ack;     /* the boot CPU has what it needs: stop */
	uint32_t sync_checked;          /* the check reached this CPU */
	uint64_t counter_skew;          /* debug (memboot.tsc_skew): added to this CPU's
					   counter readings, as a skewed counter would be */
	int64_t counter_offset;         /* subtracted from this CPU's counter readings
					   (job timings) when the check corrected it */
	int64_t sync_offset;            /* the check's estimate and its uncertainty */
	uint64_t sync_offset_err;
	uint64_t sync_warp;
	uint32_t sync_verdict;          /* enum counter_sync_verdict */

	/* Job runner mailbox: the boot CPU writes work_fn last; the CPU runs
	 * it and clears it (kernel/services/jobs/platform.c posts, percpu_ap_main() runs). */
	void (*volatile work_fn)(void *arg);
	void *volatile work_arg;
	volatile uint64_t works_done;
	/* Counter cycles spent running posted work: what a phase record's
	 * ap_busy_ns sums (kernel/init/phase.c). */
	volatile uint64_t busy_cycles;
};

/* work_fn while a poster that claimed the mailbox writes the argument
 * (job_platform_try_post()): the CPU treats it as empty. */
#define CPU_MAILBOX_CLAIMED ((void (*)(void *))1)

/* The boot CPU's state, and every CPU's by logical id (NULL: not up):
 * nr_cpu_ids entries, allocated at bring-up for the CPUs there are (one,
 * the boot CPU's, until then). */
extern struct cpu_state boot_cpu_state;
extern struct cpu_state **cpu_states;
extern uint32_t nr_cpu_ids;                  /* entries of cpu_states[]: CPU ids */
extern uint32_t nr_cpus_online;              /* CPUs online (ids may have holes) */

static inline struct cpu_state *this_cpu_state(void)
{
	return arch_this_cpu_state();
}

/* The running CPU's logical id. */
static inline uint32_t this_cpu_id(void)
{
	return this_cpu_state()->cpu;
}

/* @cpu's state, or NULL when @cpu is out of range or not brought up. */
static inline struct cpu_state *cpu_state_of(uint32_t cpu)
{
	return cpu < nr_cpu_ids ? cpu_states[cpu] : 0;
}

/* Whether @cpu's counter disagrees with the boot CPU's beyond what the
 * counter check (phase tscsync) could correct: its own times are not
 * comparable. */
static inline bool cpu_counter_unreliable(uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	return cs && cs->online && cs->sync_checked && cs->sync_verdict == COUNTER_SYNC_UNRELIABLE;
}

/* percpu_ap_main(), an AP's life in the kernel once arch has set up its
 * tables (the start-up handshake, then serving the job runner's mailbox), is
 * declared with what arch calls (arch/smp.h). */

#endif

/*
 * cpu_sync.h: every AP's counter checked against the boot CPU's, where the
 * architecture does not promise they agree (ARCH_COUNTER_AGREES 0: phase
 * tscsync runs it); the arithmetic is counter_sync.h's. A known
 * offset is corrected from then on (cpu_state's counter_offset); one
 * beyond correction makes the CPU unreliable (cpu_counter_unreliable(),
 * kernel/services/percpu.h). memboot.tsc_skew makes such a CPU on purpose.
 * The record of each node is `tsc_sync` (its x86 name, docs/records.md).
 */
#ifndef MEMBOOT_KERNEL_CLOCK_CPU_SYNC_H
#define MEMBOOT_KERNEL_CLOCK_CPU_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/clock/counter_sync.h"

/* The words the boot CPU and the checking APs share (the jobs' argument;
 * in the boot state, as an AP given up on may still read them late). */
struct cpu_sync_words {
	volatile uint64_t boot_pub;   /* the boot CPU's counter, published */
	volatile uint32_t stop;       /* the budget has ended: every AP stops */
};

/* What the check found, for the smp report (kernel/init/smp.h). */
struct cpu_sync_report {
	bool checked;                        /* the check ran */
	enum counter_sync_verdict verdict;   /* the worst of every CPU's */
	uint64_t cycles;                     /* its time */
	uint64_t tol_cycles;                 /* the tolerance it used */
	uint32_t waves;                      /* the waves of APs it took */
};

/*
 * Every online AP's counter against the boot CPU's, through @w: each
 * CPU's verdict in its cpu_state, a known offset corrected (its
 * counter_offset, and its online_counter moved into the boot CPU's time);
 * @rep says what was found. 2 s at most, however many CPUs and however
 * busy the host.
 */
void cpu_sync_check(struct cpu_sync_words *w, struct cpu_sync_report *rep);

/* A `tsc_sync` record per node with online CPUs: its largest offset
 * (@tol_cycles: the tolerance the check used); the smp report makes them. */
void cpu_sync_records(uint64_t tol_cycles);

#endif

/*
 * smp.h: bringing up every CPU the firmware lists.
 *
 * Each application processor gets, from its own node's memory (or the
 * nearest node with memory), one block: an unmapped guard page, a 16 KiB
 * kernel stack, and its struct percpu. All APs are started at once with
 * INIT-SIPI-SIPI (or one after another, memboot.smp_bringup=serial); one
 * that has not checked in within memboot.smp_timeout_ms is reported by APIC
 * ID and left out, and the boot goes on.
 */
#ifndef MEMBOOT_KERNEL_SMP_H
#define MEMBOOT_KERNEL_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/percpu.h"

struct physmem;

struct smp_cpu_desc {
	uint32_t apic_id;
	uint32_t node;
	uint32_t mem_node;     /* where its memory comes from */
	uint32_t lint_nmi;     /* LINT pins wired to NMI (struct percpu) */
};

struct smp_result {
	uint32_t online;
	uint32_t failed;
	uint32_t skipped;      /* left down by maxcpus/nosmp */
	uint64_t ns;
	uint64_t cycles;       /* the same in TSC cycles */
};

/* The boot CPU's per-CPU data and its descriptor tables, first thing at boot. */
void smp_init_boot_cpu(void);

struct smp_boot_options {
	uint64_t timeout_ns;       /* per CPU: each AP's wait (serial), or all's */
	uint32_t skip_apic_id;     /* debug: never start this APIC ID */
	bool serial;               /* memboot.smp_bringup=serial */
};

/*
 * Bring up cpus[1..n) (cpus[0] is the running boot CPU, logical id 0): the
 * CPUs chosen (discover_smp()), @skipped more left down by maxcpus/nosmp.
 * Logical ids are array indices; the per-CPU tables are sized by @n.
 */
struct smp_result smp_boot(struct physmem *pm, const struct smp_cpu_desc *cpus,
			   uint32_t n, uint32_t skipped, const struct smp_boot_options *opt);

/*
 * Phase tscsync: every online AP's TSC against the boot CPU's
 * (memboot.tsc_sync; kernel/clock/tsc_sync.h), after memory is usable: nothing on
 * the way there needs it, since each CPU times its own work with its own
 * TSC, and the figures that compare CPUs are made after it (the node
 * records of meminit_report(), corrected by the offsets found here). An
 * AP off by a known offset has it subtracted from its readings from here on
 * (cs->tsc_offset); the tsc_sync records come with the smp report.
 */
void smp_tsc_check(void);

/*
 * Whether CPU @cpu's TSC was found off the boot CPU's by more than the check
 * could correct (verdict unreliable): a time it measured against the boot
 * CPU's (a start on one, an end on the other) is wrong by about its offset,
 * and is printed only marked as such, or not at all. A duration it measured
 * on its own counter is right. memboot.tsc_skew makes such a CPU on purpose.
 */
bool smp_tsc_unreliable(uint32_t cpu);

#endif

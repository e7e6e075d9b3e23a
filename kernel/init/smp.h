/*
 * smp.h: phase `smp` (kernel/init/phases.h): the CPUs the firmware lists,
 * reached the way the architecture decides (arch/smp.h), brought up.
 */
#ifndef MEMBOOT_KERNEL_INIT_SMP_H
#define MEMBOOT_KERNEL_INIT_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/clock/cpu_sync.h"
#include "kernel/services/smp_settings.h"
#include "kernel/init/acpi.h"
#include "kernel/services/report/record.h"
#include "mm/numa.h"

struct physmem;
struct dt_machine;

struct smp_cpu_desc {
	uint32_t hwid;         /* hardware id (arch/cpu.h) */
	uint32_t node;
	uint32_t mem_node;     /* where its memory comes from */
	uint32_t nmi_pins;     /* the firmware's NMI wiring (arch_percpu_init()) */
};

struct smp_result {
	uint32_t online;
	uint32_t failed;
	uint32_t skipped;      /* left down by maxcpus/nosmp */
	uint64_t ns;
	uint64_t cycles;       /* the same in counter cycles */
};

struct smp_boot_options {
	uint64_t timeout_ns;       /* per CPU: each AP's wait (serial), or all's */
	uint32_t skip_hwid;        /* debug: never start this hwid (memboot.smp_skip_apic) */
	bool serial;               /* memboot.smp_bringup=serial */
	bool nosmp;                /* named in the message of the CPUs left down */
	uint64_t maxcpus;
	uint64_t counter_skew;     /* memboot.tsc_skew: CPU 1's readings run ahead */
};

/*
 * What the bring-up reports (`cpu_up` records, the `smp` record; with phase
 * tscsync's verdicts and the `tsc_sync` records): taken when it ends, made
 * when the consoles drain. In the boot state (`bs.smp`): phase tscsync
 * completes it, and the report reads it then.
 */
struct smp_report {
	struct smp_result res;
	bool serial, init_delay;
	bool printed;          /* the report has run (a drain reached it) */
	struct cpu_sync_report sync;   /* phase tscsync's counter check */
	uint64_t kick_cycles, wait_cycles, slowest_cycles;
	uint32_t slowest, slowest_hwid;
	/* The online CPUs as ranges (512 ids one by one would not fit). */
	char online[RECORD_MAX_BYTES / 2];
};

/*
 * Start the topology's present CPUs the architecture can reach, at most
 * maxcpus= of them (nosmp: 1), chosen balanced over the nodes
 * (numa_select_balanced(): each node an equal share, the first of each in
 * MADT order), never simply the first ones: a node must not lose all its
 * CPUs, and with them the CPUs that initialise its memory. Logical ids are
 * dense over the chosen CPUs, in topology order (the boot CPU is 0). @set:
 * the SMP keys (kernel/services/smp_settings.h); @dt: the loader's device
 * tree (its /psci and GIC for arch_smp_setup()), NULL if none; @rep: the report, completed by phase
 * tscsync.
 */
void init_smp(const struct discovered_acpi *acpi, const struct dt_machine *dt,
	      const struct numa_topology *topo, struct physmem *pm,
	      const struct smp_settings *set, struct smp_report *rep);

#endif

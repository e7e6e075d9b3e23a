/*
 * discover.h: the machine as its firmware describes it: ACPI tables, then
 * the NUMA topology built from them and the memory map.
 *
 * The parsed tables and the topology live here (one instance each, in .bss);
 * the parsers themselves are pure (kernel/acpi/, mm/numa.c).
 */
#ifndef MEMBOOT_KERNEL_DISCOVER_H
#define MEMBOOT_KERNEL_DISCOVER_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "kernel/acpi/acpi.h"
#include "mm/numa.h"

struct discovered_acpi {
	struct acpi_tables dir;
	bool have_madt, have_srat, have_slit;
	struct acpi_madt_info madt;
	struct acpi_srat_info srat;
	struct acpi_slit_info slit;
	struct acpi_pm_timer pm_timer;   /* port 0: none */
};

extern struct discovered_acpi acpi;
extern struct numa_topology numa_topo;

struct physmem;

/* Walk and parse the ACPI tables (phase "acpi"); @dump prints them all. */
/* Add the serial port the ACPI SPCR table names as a console. */
void discover_spcr(const void *bytes, uint32_t len);
/* Choose the local APIC mode for SMP (an `apic` record); true: x2APIC. */
bool discover_apic_mode(void);
/* Find how to power off (ACPI S5) for memboot.exit=poweroff. */
void discover_s5(void);
void discover_acpi(const struct bootinfo *bi, bool dump);
/* Build the NUMA topology and give physmem its nodes and distances. */
void discover_numa(const struct bootinfo *bi, struct physmem *pm);
/* Bring up the CPUs of the topology (maxcpus=, nosmp honoured). */
void discover_smp(struct physmem *pm);

#endif

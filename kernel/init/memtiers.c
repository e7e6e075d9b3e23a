/*
 * memtiers.c: phase "tiers" (kernel/init/memtiers.h).
 */
#include "kernel/init/memtiers.h"

#include "kernel/console.h"

/* What the deferred report reads: the phase's inputs, unchanged after it. */
struct tiers_report {
	const struct discovered_acpi *acpi;
	const struct numa_topology *topo;
	struct mem_tiers *tiers;
	uint32_t hmat_warnings;
	bool built;              /* tiers_build() ran in the phase */
};
static struct tiers_report reported;

static void report_now(void *arg)
{
	const struct tiers_report *rep = arg;
	const struct discovered_acpi *acpi = rep->acpi;

	if (!rep->built)
		tiers_build(rep->tiers, rep->topo, NULL);
	tiers_report(rep->tiers, rep->topo, acpi->have_hmat ? &acpi->hmat : NULL,
		     rep->hmat_warnings, acpi->have_srat ? &acpi->srat : NULL);
}

void discover_tiers(const struct discovered_acpi *acpi, struct numa_topology *topo,
		    struct mem_tiers *tiers)
{
	uint32_t warnings = 0;
	bool cpuless = false;

	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		cpuless |= topo->nodes[n].mem_bytes && !topo->nodes[n].nr_present_cpus;
	/* Without an HMAT and with every memory node's own CPUs to initialise
	 * it, nothing before usable memory needs the tiers (every node is
	 * DRAM's, its own initialiser): they are built when the report is
	 * made, after memory is usable (under emulation, each piece of code
	 * run for the first time costs its translation). */
	reported = (struct tiers_report){ acpi, topo, tiers, 0, acpi->have_hmat || cpuless };
	if (reported.built) {
		if (acpi->have_hmat)
			warnings = acpi_hmat_check(&acpi->hmat, acpi->have_srat ? &acpi->srat : NULL);
		tiers_build(tiers, topo, acpi->have_hmat ? &acpi->hmat : NULL);
		for (uint32_t n = 0; n < topo->nr_nodes; n++)
			topo->nodes[n].init_node = tiers->init_node[n];
		reported.hmat_warnings = warnings;
	}
	console_defer(report_now, &reported,
		      2 * ((size_t)topo->nr_nodes + acpi->srat.nr_generic + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

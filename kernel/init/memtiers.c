/*
 * memtiers.c: phase "tiers" (kernel/init/memtiers.h).
 */
#include "kernel/init/memtiers.h"

#include "kernel/console.h"

/* What the deferred report reads: the phase's inputs, unchanged after it. */
struct tiers_report {
	const struct discovered_acpi *acpi;
	const struct numa_topology *topo;
	const struct mem_tiers *tiers;
	uint32_t hmat_warnings;
};
static struct tiers_report reported;

static void report_now(void *arg)
{
	const struct tiers_report *rep = arg;
	const struct discovered_acpi *acpi = rep->acpi;

	tiers_report(rep->tiers, rep->topo, acpi->have_hmat ? &acpi->hmat : NULL,
		     rep->hmat_warnings, acpi->have_srat ? &acpi->srat : NULL);
}

void discover_tiers(const struct discovered_acpi *acpi, struct numa_topology *topo,
		    struct mem_tiers *tiers)
{
	uint32_t warnings = 0;

	if (acpi->have_hmat)
		warnings = acpi_hmat_check(&acpi->hmat, acpi->have_srat ? &acpi->srat : NULL);
	tiers_build(tiers, topo, acpi->have_hmat ? &acpi->hmat : NULL);
	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		topo->nodes[n].init_node = tiers->init_node[n];
	reported = (struct tiers_report){ acpi, topo, tiers, warnings };
	console_defer(report_now, &reported,
		      2 * ((size_t)topo->nr_nodes + acpi->srat.nr_generic + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

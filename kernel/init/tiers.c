/*
 * tiers.c: phase `tiers`: takes `bs.acpi` (HMAT, SRAT) and `bs.topo`;
 * builds `bs.tiers` and a CPU-less node's `init_node` in `bs.topo`
 * (kernel/init/tiers.h says when).
 */
#include "kernel/init/tiers.h"

#include "kernel/services/console.h"

/* What the deferred report reads (console_defer_copy() keeps a copy): the
 * phase's inputs, unchanged after it, and whether the phase built the
 * tiers already. */
struct tiers_report {
	const struct discovered_acpi *acpi;
	struct numa_topology *topo;
	struct mem_tiers *tiers;
	uint32_t hmat_warnings;
	bool built;              /* the checks and tiers are made */
};

/* The HMAT's checks and the tiers; in the phase (@phase), the initialising
 * nodes into the topology for memory init. */
static void build(struct tiers_report *rep, bool phase)
{
	const struct discovered_acpi *acpi = rep->acpi;

	if (acpi->have_hmat)
		rep->hmat_warnings = acpi_hmat_check(&acpi->hmat, acpi->have_srat ? &acpi->srat : NULL);
	tiers_build(rep->tiers, rep->topo, acpi->have_hmat ? &acpi->hmat : NULL);
	for (uint32_t n = 0; phase && n < rep->topo->nr_nodes; n++)
		rep->topo->nodes[n].init_node = rep->tiers->init_node[n];
	rep->built = true;
}

static void report_now(void *arg)
{
	struct tiers_report *rep = arg;
	const struct discovered_acpi *acpi = rep->acpi;

	if (!rep->built)
		build(rep, false);
	tiers_report(rep->tiers, rep->topo, acpi->have_hmat ? &acpi->hmat : NULL,
		     rep->hmat_warnings, acpi->have_srat ? &acpi->srat : NULL);
}

void init_tiers(const struct discovered_acpi *acpi, struct numa_topology *topo,
		struct mem_tiers *tiers)
{
	bool cpuless = false;

	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		cpuless |= topo->nodes[n].mem_bytes && !topo->nodes[n].nr_present_cpus;
	struct tiers_report rep = { acpi, topo, tiers, 0, false };

	/* Memory init needs only a CPU-less node's initialiser: with none,
	 * the HMAT's checks and the tiers wait for the report, after memory
	 * is usable (under emulation, each piece of code run for the first
	 * time costs its translation). */
	if (cpuless)
		build(&rep, true);
	console_defer_copy(report_now, &rep, sizeof(rep),
			   2 * ((size_t)topo->nr_nodes + acpi->srat.nr_generic + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

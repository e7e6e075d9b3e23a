/*
 * numa.c: phase `numa`: takes `bs.bootinfo` and `bs.acpi`; builds
 * `bs.topo` (nodes, each CPU's node, each range's node, distances: the
 * builder is mm/numa.c) and teaches `bs.physmem` the nodes and distances,
 * so that everything allocated from here on lands on its node.
 */
#include "kernel/init/numa.h"

#include "arch/cpu.h"
#include "kernel/services/console.h"
#include "kernel/services/report/summary.h"
#include "mm/physmem.h"

/* console_defer()'s form of the topology report. */
static void print_numa(void *topo)
{
	numa_print(topo);
}

void init_numa(const struct bootinfo *bi, const struct discovered_acpi *acpi,
	       const struct dt_machine *dt, struct physmem *pm, struct numa_topology *topo)
{
	struct numa_input in = {
		.map = bi->ranges,
		.nr_map = bi->nr_ranges,
		.madt = acpi->have_madt ? &acpi->madt : NULL,
		.srat = acpi->have_srat ? &acpi->srat : NULL,
		.slit = acpi->have_slit ? &acpi->slit : NULL,
		.boot_hwid = arch_cpu_hwid(),
		.dt = dt,
	};

	numa_build(topo, &in);
	/* Output only: printed when the consoles drain, in this place (a CPU a
	 * line and a record, a node a record and a row of distances). */
	console_defer(print_numa, topo,
		      ((size_t)topo->nr_cpus * 2 + (size_t)topo->nr_nodes * 3 +
		       topo->nr_srat_ranges + 8) * CONSOLE_DEFER_ITEM_BYTES);
	for (uint32_t i = 0; i < topo->nr_nodes; i++)
		summary_node_topology(i, topo->nodes[i].nr_present_cpus, topo->nodes[i].mem_bytes);
	physmem_set_distance(pm, topo->nr_nodes, topo->distance);
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		physmem_set_node(pm, topo->ranges[i].start, topo->ranges[i].end,
				 topo->ranges[i].node);
}

/*
 * machine.h: phase "machine": which machine, firmware and memory devices
 * this is, from SMBIOS (kernel/acpi/smbios.h), each device placed on the
 * NUMA node its address ranges lie on.
 */
#ifndef MEMBOOT_KERNEL_INIT_MACHINE_H
#define MEMBOOT_KERNEL_INIT_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "kernel/acpi/smbios.h"
#include "mm/numa.h"

/* A device's node when its ranges do not say it. */
#define MACHINE_NODE_UNKNOWN -1   /* no type 19/20 range names its addresses */
#define MACHINE_NODE_SPANS -2     /* its ranges lie on more than one node */

struct machine_info {
	bool have_smbios;
	const char *smbios_source;                /* how boot/ found the entry point */
	struct smbios_info smbios;
	uint32_t nr_nodes;                         /* the topology's, for the per-node lines */
	int32_t device_node[SMBIOS_MAX_DEVICES];  /* node, or MACHINE_NODE_* */
};

/* Parse the SMBIOS table the entry point in @bi names into @m and report
 * the `machine`, `dimm` and `node_dimms` records (made when the consoles
 * drain). Without an entry point, one line says so and @m stays empty. */
void discover_machine(const struct bootinfo *bi, const struct numa_topology *topo,
		      struct machine_info *m);

#endif

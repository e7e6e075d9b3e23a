/*
 * machine.h: the machine SMBIOS describes, its memory devices placed on the
 * NUMA nodes their address ranges lie on, and its records (pure: the
 * kernel's phase "machine" and tools/memboot topo).
 *
 * A device's node: the nodes of the usable memory its type 20 ranges (or
 * its array's type 19 ranges, when it is the array's only populated
 * device) overlap, as the topology placed that memory from the SRAT. One
 * node: that node; several: MACHINE_NODE_SPANS (QEMU describes all of its
 * RAM as one device per 16 GiB, whatever the nodes); none:
 * MACHINE_NODE_UNKNOWN. With one node, every device is on it.
 */
#ifndef MEMBOOT_MM_MACHINE_H
#define MEMBOOT_MM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/firmware/smbios.h"
#include "mm/numa.h"

/* A device's node when its ranges do not say it. */
#define MACHINE_NODE_UNKNOWN -1   /* no type 19/20 range names its addresses */
#define MACHINE_NODE_SPANS -2     /* its ranges lie on more than one node */

struct machine_info {
	bool have_smbios;
	const char *smbios_source;                /* how the entry point was found */
	struct smbios_info smbios;
	uint32_t nr_nodes;                         /* the topology's, for the per-node lines */
	uint32_t nr_bad_sizes;                     /* device sizes not believed (machine_place) */
	int32_t device_node[SMBIOS_MAX_DEVICES];  /* node, or MACHINE_NODE_* */
};

/* Each device of @m->smbios on its node of @topo (@m->have_smbios set),
 * after a size no machine with @topo's memory could hold is warned and
 * taken as unknown. */
void machine_place(struct machine_info *m, const struct numa_topology *topo);

/* The `machine`, `dimm` and `node_dimms` records and their lines. */
void machine_report(const struct machine_info *m);

#endif

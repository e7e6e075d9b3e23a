/*
 * tiers.h: phase `tiers` (kernel/init/phases.h): the HMAT checked against the SRAT, each
 * node's best initiator's figures and its memory tier (mm/tiers.h), the
 * SRAT's generic initiators and ports reported, and each CPU-less node
 * given the node whose CPUs initialise its memory (topo->nodes[].init_node,
 * which phase meminit follows). Without CPU-less memory nodes nothing
 * before usable memory needs them: the checks and the tiers are then made
 * with their report, after memory is usable.
 */
#ifndef MEMBOOT_KERNEL_INIT_TIERS_H
#define MEMBOOT_KERNEL_INIT_TIERS_H

#include "kernel/init/acpi.h"
#include "mm/numa.h"
#include "mm/tiers.h"

void init_tiers(const struct discovered_acpi *acpi, struct numa_topology *topo,
		struct mem_tiers *tiers);

#endif

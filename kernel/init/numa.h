/*
 * numa.h: phase `numa` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_NUMA_H
#define MEMBOOT_KERNEL_INIT_NUMA_H

#include "boot/bootinfo.h"
#include "kernel/init/acpi.h"
#include "mm/numa.h"

struct physmem;
struct dt_machine;

/* @topo from @bi's memory map and @acpi's MADT, SRAT and SLIT, or where
 * there is no SRAT the device tree's node ids and distances (@dt, NULL
 * when there is none); one node of every CPU and all memory when they are
 * missing; @pm learns each
 * range's node and the distances. Reported when the consoles drain. */
void init_numa(const struct bootinfo *bi, const struct discovered_acpi *acpi,
	       const struct dt_machine *dt, struct physmem *pm, struct numa_topology *topo);

#endif

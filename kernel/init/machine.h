/*
 * machine.h: phase `machine` (kernel/init/phases.h): which machine, firmware and memory devices
 * this is, from SMBIOS (kernel/firmware/smbios.h), each device placed on its
 * NUMA node (mm/machine.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_MACHINE_H
#define MEMBOOT_KERNEL_INIT_MACHINE_H

#include "boot/bootinfo.h"
#include "mm/machine.h"
#include "mm/numa.h"

/* Parse the SMBIOS table the entry point in @bi names into @m and report
 * the `machine`, `dimm` and `node_dimms` records (made when the consoles
 * drain). Without an entry point, one line says so and @m stays empty. */
void init_machine(const struct bootinfo *bi, const struct numa_topology *topo,
		  struct machine_info *m);

#endif

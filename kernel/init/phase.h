/*
 * phase.h: timing of boot phases. Each phase prints a line and a `phase`
 * record (name, start_ns, ns) when it ends. Its name comes from the phase
 * table (kernel/init/phases.h): a phase that is not there does not compile.
 *
 *   PHASE(bootinfo, ok = boot_collect(magic, info, &bi));
 */
#ifndef MEMBOOT_KERNEL_PHASE_H
#define MEMBOOT_KERNEL_PHASE_H

#include <stdint.h>

#include "arch/cpu.h"
#include "kernel/init/phases.h"

void phase_end(enum boot_phase phase, uint64_t start_tsc);

struct numa_topology;
struct physmem;
/* The log ring sized for @topo's CPUs and nodes, from @pm (between the numa
 * and hugetlb1g phases: the first moment both are known). */
void phase_console_ring(const struct numa_topology *topo, struct physmem *pm);

#define PHASE(name, ...)                                   \
	do {                                               \
		uint64_t phase_start_tsc_ = rdtsc();       \
		__VA_ARGS__;                               \
		phase_end(BOOT_PHASE_##name, phase_start_tsc_); \
	} while (0)

#endif

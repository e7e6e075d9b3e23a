/*
 * summary.h: the closing table of a boot, on every console: per node, its
 * CPUs, memory and descriptor init; then every phase's time. Made for a
 * person looking at the screen of a real machine at the end of a boot; the
 * same figures are in the node_init and phase records for tools.
 *
 * Subsystems report as they go (fixed tables, no allocation), kernel_exit()
 * prints it.
 */
#ifndef MEMBOOT_KERNEL_SUMMARY_H
#define MEMBOOT_KERNEL_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/limits.h"

#define SUMMARY_MAX_NODES MEMBOOT_MAX_NODES
#define SUMMARY_MAX_PHASES 32

void summary_node_topology(uint32_t node, uint32_t cpus, uint64_t mem_bytes);
void summary_node_init(uint32_t node, const char *policy, uint32_t threads, uint64_t pages,
		       uint64_t ns);
/* Node @node's init time compares counters the check could not correct: its
 * row says "unreliable" instead of a time. */
void summary_node_unreliable(uint32_t node);
/* Counter cycles, converted when the summary is printed: the phase's (the
 * boot CPU's time in it), and the APs' busy and idle time during it. */
void summary_phase(const char *name, uint64_t cycles, uint64_t ap_busy_cycles,
		   uint64_t ap_idle_cycles);
/* Kernel entry to the moment every node's free memory was in the page
 * allocator (docs/measuring.md, "Time to usable memory"); 0 until then. */
/* @reliable: false when the figure compares a CPU's counter with the boot
 * CPU's that the counter check could not correct (cpu_counter_unreliable(),
 * kernel/services/percpu.h). */
void summary_usable(uint64_t usable_ns, bool reliable);
uint64_t summary_usable_ns(void);
bool summary_usable_reliable(void);
/*
 * Print the table (pr_info lines "summary: ..."): the nodes, then the phases
 * longest first with their share of @total_ns (the time since the first
 * instruction), like systemd-analyze blame; and the phases as a `summary`
 * record.
 */
void summary_print(uint64_t total_ns);

#endif

/*
 * numa_build.h: the state of one numa_build() call and the steps its files
 * share, private to the builder (mm/numa.c, mm/numa_srat.c,
 * mm/numa_srat_mem.c); everything else uses mm/numa.h.
 *
 *   mm/numa.c           numa_build(): the logical CPUs from the MADT, the
 *                       one-node topology, the per-node sums (finish)
 *   mm/numa_srat.c      with an SRAT: its proximity domains, each CPU's node,
 *                       the SLIT's distances, and the order of the steps
 *   mm/numa_srat_mem.c  with an SRAT: its memory affinity ranges against the
 *                       memory map, every usable byte on a node
 */
#ifndef MEMBOOT_MM_NUMA_BUILD_H
#define MEMBOOT_MM_NUMA_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/log.h"
#include "mm/numa.h"

/* Orphan ranges warned about one by one; the rest are summed up. Also the
 * number of empty domains warned about one by one (numa_srat_mem.c). */
#define ORPHAN_WARN_LINES 4

_Static_assert(NUMA_MAX_SRAT_RANGES <= 0xffff, "srat order indices are 16 bits");

#define NUMA_WARN(t, ...)                    \
	do {                                 \
		pr_warn(__VA_ARGS__);        \
		(t)->nr_warnings++;          \
	} while (0)

/* Usable memory no SRAT range covers, and where it went. */
struct orphan {
	uint64_t start, end;
	const struct numa_srat_range *near;  /* the range whose node it joined */
	bool below;                           /* near lies below it */
};

/* State of one numa_build() call: inputs and repairs still to report. */
struct build {
	struct numa_topology *t;
	const struct numa_input *in;
	uint32_t srat_nr_cpus;          /* in->srat counts, clamped to capacity */
	uint32_t srat_nr_mems;

	/* Bit i: srat->cpus[i] names a MADT processor (or the boot CPU). */
	uint64_t srat_cpu_known[ACPI_SRAT_MAX_CPUS / 64];
	/* SRAT CPU entries naming no MADT processor (ignored, no domain). */
	uint32_t nr_unknown, first_unknown;     /* first: index in srat->cpus */
	/* Topology CPUs without an SRAT CPU entry (put on node 0). */
	uint32_t nr_missing, first_missing;     /* first: logical cpu */

	/* Usable memory in no SRAT range: the first few, then a sum. */
	uint32_t nr_orphans;
	uint64_t orphan_bytes;                  /* beyond the first few */
	struct orphan orphans[ORPHAN_WARN_LINES];

	/* SRAT memory entries with a boundary inside a page (rounded down). */
	uint32_t nr_unaligned, first_unaligned; /* first: index in srat->mems */

	/* srat[] indices sorted by start address. */
	uint16_t order[NUMA_MAX_SRAT_RANGES];
};

/* ---- mm/numa.c ---------------------------------------------------------- */

/* Index in the MADT's processors of @hwid; false if it lists none. */
bool numa_madt_find(const struct acpi_madt_info *madt, uint32_t hwid, uint32_t *idx);

/*
 * Append [start, end) on @node to ranges[]; a piece touching the previous
 * one on the same node extends it (NUMA_NO_NODE pieces are never merged).
 * False if ranges[] is full.
 */
bool numa_append_range(struct numa_topology *t, uint64_t start, uint64_t end, uint32_t node);

/* NUMA_LOCAL_DISTANCE on the diagonal, NUMA_REMOTE_DISTANCE elsewhere. */
void numa_default_distances(struct numa_topology *t);

/* Node stats, CPU masks, mem_node; then the invariants are asserted. */
void numa_finish(struct build *b);

/* One node holding every CPU and all usable memory; finished. */
void numa_single_node(struct build *b, uint32_t source, const char *reason);

/* ---- mm/numa_dt.c ------------------------------------------------------- */

/* The topology from b->in->dt, finished (or fallen back to one node). */
void numa_build_from_dt(struct build *b);

/* ---- mm/numa_srat.c ----------------------------------------------------- */

/* The topology from b->in->srat, finished (or fallen back to one node). */
void numa_build_from_srat(struct build *b);

/* Node of proximity domain @pxm, or NUMA_NO_NODE (a device tree's node
 * id is kept as a node's pxm too: mm/numa_dt.c). */
uint32_t numa_node_of_pxm(const struct numa_topology *t, uint32_t pxm);

/* Give @pxm a node if it has none; false if all nodes are taken. */
bool numa_add_domain(struct numa_topology *t, uint32_t pxm);

/* Warn why the SRAT is not trusted (@fmt), then one node (@reason). */
__attribute__((format(printf, 3, 4)))
void numa_fall_back(struct build *b, const char *reason, const char *fmt, ...);

/* ---- mm/numa_srat_mem.c ------------------------------------------------- */

/*
 * Copy the SRAT's memory entries to topo->srat, sort them and reject
 * overlaps between domains, then put every usable byte of the map on a node.
 * False (after falling back) if the SRAT cannot be trusted with memory.
 */
bool numa_srat_place_memory(struct build *b);

/*
 * Once the SRAT is trusted: the warnings for what numa_srat_place_memory()
 * repaired (memory in no SRAT range, boundaries inside a page, ranges
 * beyond the map), then the domains left without CPU or memory dropped.
 */
void numa_srat_memory_repairs(struct build *b);

#endif

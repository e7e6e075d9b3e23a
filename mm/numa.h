/*
 * numa.h: the NUMA topology: nodes, their CPUs, their memory, distances.
 *
 * Overview
 *  numa_build() turns what firmware said (the normalized memory map, the
 *  parsed MADT, SRAT and SLIT) into one struct numa_topology that the rest of
 *  the kernel trusts without checking again:
 *   - logical CPU numbers: the boot CPU is cpu 0, the other MADT processors
 *     (enabled, or online-capable: listed but not present) follow in MADT
 *     order;
 *   - nodes: SRAT proximity domains renumbered densely in order of first
 *     appearance (PXM 7 and 200 become nodes 0 and 1): CPU affinity entries
 *     first, then memory affinity entries, each in table order (struct
 *     acpi_srat_info keeps the two kinds apart, so their interleaving in the
 *     table is not known; Linux reads them in this order too). An SRAT CPU
 *     entry whose APIC ID the MADT does not list makes no domain;
 *   - memory: each usable byte of the map, on exactly one node: SRAT ranges
 *     are intersected with usable memory; usable memory no SRAT range covers
 *     goes to the node of the nearest SRAT range below it (else above);
 *   - distances from the SLIT when it matches the domains, else 10 and 20;
 *   - mem_node: where a node's allocations come from (itself, or for a
 *     memoryless node the nearest node with memory).
 *  Firmware mistakes are expected. What can be repaired is repaired with a
 *  warning naming the table and field: a CPU the SRAT forgot (node 0), an
 *  SRAT CPU the MADT lacks (ignored), SRAT memory beyond the map (clipped),
 *  an SRAT boundary inside a page (rounded down: node ranges are whole
 *  pages), usable memory in no SRAT range (nearest node), a SLIT that does
 *  not fit (default distances). What makes the SRAT untrustworthy (memory ranges of
 *  different domains overlapping, no CPU placed, no memory entry or none
 *  covering usable memory, more than NUMA_MAX_NODES domains or
 *  NUMA_MAX_RANGES pieces) falls back to one node with one warning that says
 *  why, and no other SRAT warning. Without an SRAT there is one node and no
 *  warning. numa_build() always yields a usable topology and asserts
 *  numa_check() on it before returning.
 *
 * Use (kernel, phase "numa", after the ACPI tables are parsed):
 *   static struct numa_topology topo;
 *   struct numa_input in = { .map = bi->ranges, .nr_map = bi->nr_ranges,
 *           .madt = &madt or NULL,
 *           .srat = &srat or NULL, .slit = &slit or NULL,
 *           .boot_hwid = arch_cpu_hwid() };
 *   (a table that was found but failed to parse: pass NULL for the MADT and
 *   SRAT; the SLIT may be passed all the same, it is then ignored with a
 *   warning)
 *   numa_build(&topo, &in);
 *   numa_print(&topo);
 *   physmem_set_distance(pm, topo.nr_nodes, topo.distance);
 *   for each i < topo.nr_ranges:
 *           physmem_set_node(pm, topo.ranges[i].start, topo.ranges[i].end,
 *                            topo.ranges[i].node);
 *   SMP: start the CPUs with cpus[i].present, i >= 1; a started CPU finds
 *   its per-CPU area by its hardware id in the start-up table.
 *
 * Files (one header for all: the parts share struct numa_topology, and
 * their callers, kernel/init/numa.c first, use several of them):
 *   mm/numa.c           numa_build(), the CPUs from the MADT, the one-node
 *                       topology, the lookups (numa_node_of_addr/cpu)
 *   mm/numa_srat.c      nodes from the SRAT: domains, CPUs, SLIT distances
 *   mm/numa_srat_mem.c  the SRAT's memory ranges against the memory map
 *   mm/numa_build.h     the builder's own state, shared by the three above
 *   mm/numa_check.c     numa_check(), the invariants
 *   mm/numa_report.c    numa_print(), the lines and the records
 *   mm/numa_select.c    numa_balanced_quota(), numa_select_balanced()
 *
 * Nothing here allocates, keeps globals or touches hardware: the same files
 * build into the kernel and into the host tests. Log prefix "NUMA: ", plus
 * Linux's own "SRAT: " and "Initmem setup" lines in numa_print().
 */
#ifndef MEMBOOT_MM_NUMA_H
#define MEMBOOT_MM_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/limits.h"
#include "kernel/services/mem_range.h"

struct acpi_madt_info;
struct acpi_srat_info;
struct acpi_slit_info;
struct dt_machine;

#define NUMA_MAX_NODES MEMBOOT_MAX_NODES
#define NUMA_MAX_CPUS MEMBOOT_MAX_CPUS
/* Usable memory ranges, all nodes together: as many as the normalized map
 * may hold, so that one node can always take it all. */
#define NUMA_MAX_RANGES MEMBOOT_MAX_MAP_RANGES
#define NUMA_MAX_SRAT_RANGES 1024  /* SRAT memory affinity ranges kept for printing */

#define NUMA_NO_NODE 0xffffffffu
#define NUMA_NO_CPU 0xffffffffu
#define NUMA_NO_PXM 0xffffffffu    /* node not from the SRAT (no SRAT, fallback) */

#define NUMA_LOCAL_DISTANCE MEMBOOT_LOCAL_DISTANCE
#define NUMA_REMOTE_DISTANCE MEMBOOT_REMOTE_DISTANCE

/* Where the topology came from. */
enum numa_source {
	NUMA_SOURCE_NONE = 0,      /* no SRAT: one node */
	NUMA_SOURCE_SRAT,          /* nodes from the SRAT */
	NUMA_SOURCE_FALLBACK,      /* the SRAT (or the tree's ids) not trusted: one node */
	NUMA_SOURCE_DT,            /* nodes from a device tree's numa-node-id (mm/numa_dt.c) */
};

/* One logical CPU; cpus[0] is the boot CPU. */
struct numa_cpu {
	uint32_t hwid;             /* hardware id (arch/cpu.h) */
	uint32_t acpi_uid;         /* MADT processor UID; 0 if the MADT lacks it */
	uint32_t node;             /* < nr_nodes */
	bool present;              /* enabled now; false: online-capable only */
	bool from_srat;            /* node given by an SRAT CPU affinity entry */
	bool srat_gicc;            /* ... a GICC affinity (arm64): hwid is the MPIDR's */
};

/* Usable memory [start, end) on one node. */
struct numa_mem_range {
	uint64_t start;            /* bytes, page aligned (numa_check() checks) */
	uint64_t end;              /* exclusive */
	uint32_t node;
};

/* An SRAT memory affinity entry as firmware gave it, but for its ends
 * rounded down to pages (a warning says so when they were not). */
struct numa_srat_range {
	uint64_t start;            /* [start, end), bytes, page aligned; empty
				      if firmware's range lay within a page */
	uint64_t end;
	uint32_t pxm;
	uint32_t node;
	bool hotplug;
	bool nonvolatile;
};

struct numa_node {
	uint32_t pxm;              /* proximity domain, or NUMA_NO_PXM */
	uint32_t mem_node;         /* itself if it has memory, else the nearest
				      node with memory (distance, then lower
				      id), else 0 */
	/* Whose CPUs initialise its page descriptors: itself here;
	 * mm/tiers.c's choice for a CPU-less node, set by phase tiers. */
	uint32_t init_node;
	uint32_t nr_cpus;          /* CPUs on the node, present or not */
	uint32_t nr_present_cpus;
	uint32_t nr_ranges;        /* entries of ranges[] on this node */
	uint64_t mem_bytes;        /* usable bytes on this node */
	uint64_t span_start;       /* first usable byte; 0 if memoryless */
	uint64_t span_end;         /* last usable byte + 1; 0 if memoryless */
	uint64_t cpu_mask[NUMA_MAX_CPUS / 64];   /* bit i: logical cpu i */
};

/*
 * The topology. Invariants (numa_check() verifies them all):
 *  - 1 <= nr_nodes <= NUMA_MAX_NODES; 1 <= nr_cpus <= NUMA_MAX_CPUS;
 *    cpus[0] is the boot CPU and present;
 *  - ranges[0..nr_ranges) are sorted, disjoint, non-empty, each inside one
 *    usable range of the map, and together cover every usable byte of the
 *    map: every usable byte is on exactly one node; two touching ranges are
 *    on different nodes (same-node neighbours are merged);
 *  - every CPU is on exactly one node: cpus[i].node < nr_nodes and bit i is
 *    set in that node's cpu_mask and no other; hardware ids are distinct;
 *  - per-node counts, bytes and spans agree with cpus[] and ranges[];
 *  - distance is row-major with stride nr_nodes: distance[from * nr_nodes +
 *    to]; 10 on the diagonal, above 10 elsewhere;
 *  - mem_node < nr_nodes and has memory (unless no node has any: then 0).
 */
struct numa_topology {
	uint32_t source;           /* enum numa_source */
	const char *fallback_reason; /* short key when source is FALLBACK, e.g.
					"srat-overlap"; NULL otherwise */
	bool slit;                 /* distances came from the SLIT */
	bool dt_distances;         /* distances came from a device tree's /distance-map */
	uint32_t nr_warnings;      /* warning lines numa_build() printed */

	uint32_t nr_nodes;
	uint32_t nr_cpus;          /* logical CPUs, present or online-capable */
	uint32_t nr_present_cpus;
	uint32_t nr_unused_cpus;   /* MADT processors beyond NUMA_MAX_CPUS, not kept */
	uint32_t nr_ranges;
	uint32_t nr_srat_ranges;   /* 0 unless source is SRAT */
	uint64_t mem_bytes;        /* usable bytes, all nodes */

	struct numa_node nodes[NUMA_MAX_NODES];
	struct numa_cpu cpus[NUMA_MAX_CPUS];
	struct numa_mem_range ranges[NUMA_MAX_RANGES];
	struct numa_srat_range srat[NUMA_MAX_SRAT_RANGES]; /* table order */
	uint8_t distance[NUMA_MAX_NODES * NUMA_MAX_NODES];
};

/* What numa_build() reads; only the map is required. */
struct numa_input {
	/* The normalized memory map (page aligned, sorted, disjoint; boot/'s
	 * bootinfo_normalize() makes one), at most NUMA_MAX_RANGES long. */
	const struct mem_range *map;
	uint32_t nr_map;
	const struct acpi_madt_info *madt;      /* NULL: only the boot CPU */
	const struct acpi_srat_info *srat;      /* NULL: no SRAT, one node */
	const struct acpi_slit_info *slit;      /* NULL: default distances, no
						   warning; used only with an SRAT */
	uint32_t boot_hwid;                     /* the CPU running this */
	/* A device tree's machine (kernel/firmware/dt.h), read where there is
	 * no SRAT: its CPUs and memory with their numa-node-id, its
	 * /distance-map (mm/numa_dt.c). NULL: none. */
	const struct dt_machine *dt;
};

/*
 * Build @topo from @in (see the overview). Always produces a topology that
 * satisfies numa_check() (asserted). Prints warnings only; numa_print()
 * prints the result. Returns the number of warning lines printed (also in
 * topo->nr_warnings).
 */
int numa_build(struct numa_topology *topo, const struct numa_input *in);

/* The interface's hwid (arch/cpu.h) of a device tree CPU's reg: arm64's
 * MPIDR affinity fields packed into 32 bits; a POWER server number as it is. */
uint32_t numa_dt_hwid(uint64_t reg);

/*
 * Check every invariant of struct numa_topology against the normalized map
 * map[0, nr_map); logs the first violation with pr_err and returns false, or
 * returns true.
 */
bool numa_check(const struct numa_topology *topo, const struct mem_range *map, uint32_t nr_map);

/*
 * Balanced choice of CPUs, for a limit below the CPUs there are (more MADT
 * processors than NUMA_MAX_CPUS, or maxcpus=): @quota[g] becomes how many
 * of group g's @count[g] CPUs to keep, at most @limit in all (at least 1
 * when @limit is 0), spread as evenly as the counts allow: every group gets
 * the same share, a group with fewer CPUs than its share keeps them all and
 * the others share what it leaves; what does not divide evenly goes one CPU
 * each to the groups in order starting at @first (the boot CPU's, so it
 * always keeps a place). No group is left without CPUs while another keeps
 * more than one, unless @limit is below the number of groups. Returns the
 * sum of @quota. Pure: the host tests check it directly.
 */
uint32_t numa_balanced_quota(const uint32_t *count, uint32_t nr_groups, uint32_t limit,
			     uint32_t first, uint32_t *quota);

/*
 * Choose CPUs with numa_balanced_quota(): CPU i is in group @group_of[i] (<
 * @nr_groups <= NUMA_MAX_NODES); the first quota[g] CPUs of each group in
 * order are kept (@keep[i]); CPU 0, the boot CPU, always is. @quota (nr_groups
 * entries) receives the kept count per group. Returns the number kept.
 */
uint32_t numa_select_balanced(const uint32_t *group_of, uint32_t n, uint32_t nr_groups,
			      uint32_t limit, bool *keep, uint32_t *quota);

/* Node of the usable byte at @addr, or NUMA_NO_NODE if it is not usable RAM. */
uint32_t numa_node_of_addr(const struct numa_topology *topo, uint64_t addr);

/* Node of logical CPU @cpu, or NUMA_NO_NODE if there is no such CPU. */
uint32_t numa_node_of_cpu(const struct numa_topology *topo, uint32_t cpu);

/*
 * Print the topology the way Linux does, then the records (docs/records.md):
 *   NUMA: no SRAT: one node, 4 CPUs, 2047 MiB       without an SRAT, or
 *   NUMA: fallback (srat-overlap): one node, 4 CPUs, 2047 MiB, or
 *   SRAT: PXM 0 -> APIC 0x00 -> Node 0              per CPU the SRAT placed
 *   SRAT: Node 0 PXM 0 [mem 0x00000000-0x0009ffff]  per SRAT memory range
 *   NUMA: SRAT: 2 nodes, 4 CPUs, 2047 MiB
 *   NUMA: 2 more CPUs are online-capable, not present   (if any)
 *   Initmem setup node 0 [mem 0x0000000000000000-0x000000003fffffff]
 *   Initmem setup node 1: memoryless, allocations from node 0
 *   NUMA: node distances (SLIT):                    then the table:
 *   node   0   1
 *     0:  10  21
 *     1:  21  10
 * Records: one "cpu" per logical CPU {cpu, apic_id, node, present}; one
 * "node" per node {node, pxm (absent without SRAT), cpus (logical ids), mem
 * (list of [start, end) hex pairs), mem_bytes, mem_node, distance (the
 * node's row)}; one "numa" {nodes, cpus (present), possible_cpus, mem_bytes,
 * source ("srat", "none", "fallback"), reason (fallback only), slit,
 * warnings, unused_cpus (MADT processors beyond NUMA_MAX_CPUS; only when
 * some are)}.
 */
void numa_print(const struct numa_topology *topo);

#endif

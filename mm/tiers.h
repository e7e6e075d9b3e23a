/*
 * tiers.h: memory tiers and who initialises a CPU-less node, from the HMAT
 * and the topology (pure: host tests, and the kernel's phase "tiers").
 *
 *  - Each node with memory gets its best initiator's figures, two ways, as
 *    Linux's access classes do: access0 from any initiator HMAT names (CPUs
 *    and generic initiators), access1 from initiators that are nodes with
 *    CPUs. The best initiator is the one HMAT's memory proximity domain
 *    attributes attach to the memory, else the one with the lowest read
 *    latency (then the highest read bandwidth, then the lower domain).
 *    Access latency and bandwidth stand for both read and write where the
 *    table gives no separate figure. Latencies in ns (picoseconds rounded
 *    up, as Linux does), bandwidths in MB/s; only figures of the memory
 *    hierarchy (not of a memory-side cache level) count.
 *  - Tiers by Linux's abstract distance (mm/memory-tiers.c): nodes with
 *    CPUs and memory are DRAM, at TIERS_ADISTANCE_DRAM (4 x 128 + 64); the
 *    first of them with access1 figures is the reference (the others must
 *    be within 10 % of it in each figure, else no reference and every node
 *    is DRAM, with a warning); a CPU-less memory node with figures is at
 *    DRAM x (its read + write latency) / (the reference's) x (the
 *    reference's read + write bandwidth) / (its), in that order, in
 *    integers; one without figures, or with no reference, is DRAM. A tier
 *    is the abstract distance >> 7 (Linux's memory_tierN).
 *  - The node whose CPUs initialise a node's page descriptors: its own if
 *    it has CPUs; for a CPU-less one its access1 best initiator's node, else
 *    the node with CPUs nearest by distance (SLIT, or the default
 *    distances), the lower id on a tie.
 */
#ifndef MEMBOOT_MM_TIERS_H
#define MEMBOOT_MM_TIERS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "mm/numa.h"

#define TIERS_CHUNK_BITS 7
#define TIERS_ADISTANCE_DRAM ((4u << TIERS_CHUNK_BITS) + (1u << (TIERS_CHUNK_BITS - 1)))
#define TIERS_NO_TIER 0xffffffffu      /* a node without memory */

struct node_perf {
	bool have;                  /* some figure for this node */
	uint32_t initiator_pxm;
	uint32_t initiator_node;    /* NUMA_NO_NODE: a domain that is no node */
	bool attached;              /* the initiator came from memory proximity attributes */
	uint32_t read_latency_ns, write_latency_ns;     /* 0: not given */
	uint32_t read_bandwidth_mbs, write_bandwidth_mbs;
};

enum tiers_init_by {
	TIERS_INIT_OWN = 0,         /* the node's own CPUs */
	TIERS_INIT_HMAT,            /* its best CPU initiator's node */
	TIERS_INIT_DISTANCE,        /* the nearest node with CPUs */
	TIERS_INIT_NONE,            /* no memory, or no node has CPUs */
};

struct mem_tiers {
	bool have_hmat;
	int32_t dram_ref_node;      /* -1: none */
	const char *no_ref_reason;  /* why there is none ("no-hmat", "dram-mismatch", ...) */
	uint32_t nr_tiers;          /* distinct tiers of the nodes with memory */
	struct node_perf perf[NUMA_MAX_NODES];      /* access0 */
	struct node_perf cpu_perf[NUMA_MAX_NODES];  /* access1 */
	uint64_t cache_bytes[NUMA_MAX_NODES];       /* memory-side caches in front of it */
	uint32_t adistance[NUMA_MAX_NODES];         /* 0 for a node without memory */
	uint32_t tier[NUMA_MAX_NODES];              /* or TIERS_NO_TIER */
	uint32_t init_node[NUMA_MAX_NODES];
	uint8_t init_by[NUMA_MAX_NODES];            /* enum tiers_init_by */
};

/* Fill @t from @topo and @hmat (NULL: no HMAT): its per-node entries for
 * the topology's nodes (the others are left as they were). Warns only when
 * the DRAM nodes disagree. */
void tiers_build(struct mem_tiers *t, const struct numa_topology *topo,
		 const struct acpi_hmat_info *hmat);

/* The `srat_generic` (from @srat, NULL: none), `hmat` (NULL: none; with
 * @hmat_warnings, what acpi_hmat_check() gave) and `node_perf` records and
 * their lines. */
void tiers_report(const struct mem_tiers *t, const struct numa_topology *topo,
		  const struct acpi_hmat_info *hmat, uint32_t hmat_warnings,
		  const struct acpi_srat_info *srat);

/* "own", "hmat", "distance", "none". */
const char *tiers_init_by_name(uint8_t by);

#endif

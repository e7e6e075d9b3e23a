/*
 * numa_dt.c: the topology from a device tree (mm/numa_build.h): its
 * numa-node-id properties (Linux's Documentation/devicetree/bindings/numa.txt)
 * on /cpus and /memory nodes, and /distance-map, or POWER's
 * ibm,associativity domains (FORM1 or FORM2, with their distances) and
 * PowerNV's ibm,chip-id, as dt_machine_parse() (kernel/firmware/dt.h) read
 * them into node ids and distances. The rules are the SRAT's
 * (mm/numa_srat.c, mm/numa_srat_mem.c), in the tree's words:
 *  - a node id is a number, not an index: ids become nodes densely in order
 *    of first appearance, CPUs first (the boot CPU, then the tree's order),
 *    then memory in the tree's order;
 *  - a CPU without numa-node-id goes to node 0 (warned); a tree CPU that is
 *    not enabled is possible but not present;
 *  - each usable byte of the map is on the node of the /memory range that
 *    covers it; usable memory no range covers goes to the node of the
 *    nearest range below it (else above), warned;
 *  - the distance map is used when it gives every pair of different nodes
 *    a distance above 10 (one way is enough: the binding's pairs are
 *    symmetric), and a node to itself 10 or nothing; else 10 and 20, warned.
 * A tree that numbers no node, or whose numbering cannot be trusted (memory
 * ranges of different nodes overlapping, memory without a node id, more
 * than NUMA_MAX_NODES ids), gives one node with one warning that says why.
 * The map of memory is the normalized one of boot/ (usable RAM only).
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel/firmware/dt.h"
#include "kernel/services/log.h"
#include "mm/numa.h"
#include "mm/numa_build.h"

#define PREFIX "NUMA: "
#define PAGE_MASK (~(uint64_t)(PAGE_SIZE_BYTES - 1))

/* (mm/numa.h) Aff3 [39:32] moves to [31:24], Aff2..Aff0 [23:0] stay as
 * they are; a POWER server number (below 2^24) is unchanged. */
uint32_t numa_dt_hwid(uint64_t reg)
{
	return (uint32_t)(((reg >> 32) & 0xff) << 24 | (reg & 0xffffff));
}

__attribute__((format(printf, 3, 4)))
static void dt_fall_back(struct build *b, const char *reason, const char *fmt, ...)
{
	char why[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	NUMA_WARN(b->t, PREFIX "device tree: %s; its NUMA description not trusted, falling back to one node",
		  why);
	numa_single_node(b, NUMA_SOURCE_FALLBACK, reason);
}

/* Whether [s, e) meets usable memory of the map. */
static bool meets_usable(const struct numa_input *in, uint64_t s, uint64_t e)
{
	for (uint32_t i = 0; i < in->nr_map; i++)
		if (in->map[i].type == MEM_USABLE && in->map[i].start < e && s < in->map[i].end)
			return true;
	return false;
}

/* The tree's CPUs after the boot CPU, in tree order, up to NUMA_MAX_CPUS. */
static void add_cpus(struct build *b, const struct dt_machine *m)
{
	struct numa_topology *t = b->t;

	for (uint32_t i = 0; i < m->nr_cpus; i++) {
		const uint32_t hwid = numa_dt_hwid(m->cpus[i].hwid);
		if (hwid == t->cpus[0].hwid)
			continue;
		if (t->nr_cpus == NUMA_MAX_CPUS) {
			t->nr_unused_cpus++;
			continue;
		}
		t->cpus[t->nr_cpus++] = (struct numa_cpu){ .hwid = hwid,
							   .present = m->cpus[i].enabled };
	}
	if (t->nr_unused_cpus)
		NUMA_WARN(t, PREFIX "the device tree lists %u CPUs more than the %u memboot is built for: not used",
			  t->nr_unused_cpus, NUMA_MAX_CPUS);
}

/* The tree's node id of topology CPU @c, or DT_NO_NODE. */
static uint32_t cpu_id(const struct dt_machine *m, uint32_t hwid)
{
	for (uint32_t i = 0; i < m->nr_cpus; i++)
		if (numa_dt_hwid(m->cpus[i].hwid) == hwid)
			return m->cpus[i].node;
	return DT_NO_NODE;
}

/* Distances from /distance-map, when complete and sane (see the top). */
static void distances(struct build *b, const struct dt_machine *m)
{
	struct numa_topology *t = b->t;

	numa_default_distances(t);
	if (t->nr_nodes == 1 || m->nr_distances == 0)
		return;
	for (uint32_t i = 0; i < t->nr_nodes; i++)
		for (uint32_t j = 0; j < t->nr_nodes; j++) {
			uint32_t d = dt_machine_distance(m, t->nodes[i].pxm, t->nodes[j].pxm);
			if (i == j && d == 0)
				d = NUMA_LOCAL_DISTANCE;   /* a node's own distance may go unsaid */
			if (d == 0 || d > 255 || (i == j) != (d == NUMA_LOCAL_DISTANCE) ||
			    (i != j && d < NUMA_LOCAL_DISTANCE)) {
				NUMA_WARN(t, PREFIX "device tree: /distance-map gives %u from node id %u to %u; using %u/%u",
					  d, t->nodes[i].pxm, t->nodes[j].pxm, NUMA_LOCAL_DISTANCE,
					  NUMA_REMOTE_DISTANCE);
				numa_default_distances(t);
				return;
			}
			t->distance[i * t->nr_nodes + j] = (uint8_t)d;
		}
	t->dt_distances = true;
}

/*
 * Every usable byte of the map on a node: the /memory range covering it,
 * else the nearest one (the tree's ranges are few: a scan each time).
 */
static bool place_memory(struct build *b, const struct dt_machine *m)
{
	struct numa_topology *t = b->t;
	const struct numa_input *in = b->in;
	uint32_t orphans = 0;
	uint64_t orphan_bytes = 0;

	for (uint32_t i = 0; i < in->nr_map; i++) {
		const struct mem_range *r = &in->map[i];
		uint64_t at = r->start;

		if (r->type != MEM_USABLE)
			continue;
		while (at < r->end) {
			/* The range holding @at, the next one after it, the
			 * nearest below it (for memory none holds).
			 * Boundaries are rounded down to pages, as the SRAT's are. */
			const struct dt_mem *hold = NULL, *next = NULL, *below = NULL;
			uint64_t next_start = 0, below_end = 0, hold_end = 0;
			for (uint32_t k = 0; k < m->nr_mems; k++) {
				const struct dt_mem *d = &m->mems[k];
				const uint64_t s = d->start & PAGE_MASK, e = d->end & PAGE_MASK;
				if (s >= e)
					continue;
				if (s <= at && at < e) {
					hold = d;
					hold_end = e;
				} else if (s > at && (!next || s < next_start)) {
					next = d;
					next_start = s;
				} else if (e <= at && (!below || e > below_end)) {
					below = d;
					below_end = e;
				}
			}
			uint64_t end;
			const struct dt_mem *owner;
			if (hold) {
				end = hold_end < r->end ? hold_end : r->end;
				owner = hold;
			} else {
				end = next && next_start < r->end ? next_start : r->end;
				owner = below ? below : next;
				orphans++;
				orphan_bytes += end - at;
			}
			const uint32_t node = owner ? numa_node_of_pxm(t, owner->node) : 0;
			if (!numa_append_range(t, at, end, node == NUMA_NO_NODE ? 0 : node))
				return false;
			at = end;
		}
	}
	if (orphans)
		NUMA_WARN(t, PREFIX "device tree: %u pieces of usable memory (%llu KiB) in no /memory range: put on the nearest range's node",
			  orphans, (unsigned long long)(orphan_bytes >> 10));
	return true;
}

void numa_build_from_dt(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct dt_machine *m = b->in->dt;
	uint32_t missing = 0, first_missing = 0;

	add_cpus(b, m);
	/* Every form numbers nodes the same way once dt_machine_parse() has
	 * read it: numa-node-id, POWER's associativity domains (FORM1's first
	 * reference point, FORM2's lookup table) or PowerNV's chip ids. */
	if (m->numa_form == DT_NUMA_NONE) {
		numa_single_node(b, NUMA_SOURCE_NONE, NULL);
		return;
	}
	/* Node ids: CPUs first, then memory that meets usable RAM. */
	t->nr_nodes = 0;
	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		const uint32_t id = cpu_id(m, t->cpus[c].hwid);
		if (id != DT_NO_NODE && !numa_add_domain(t, id)) {
			dt_fall_back(b, "dt-nodes", "more than %u node ids", NUMA_MAX_NODES);
			return;
		}
	}
	for (uint32_t k = 0; k < m->nr_mems; k++) {
		const struct dt_mem *d = &m->mems[k];
		if (!meets_usable(b->in, d->start, d->end))
			continue;
		if (d->node == DT_NO_NODE) {
			dt_fall_back(b, "dt-memory-no-node",
				     "memory [0x%llx-0x%llx) has no numa-node-id",
				     (unsigned long long)d->start, (unsigned long long)d->end);
			return;
		}
		for (uint32_t j = 0; j < k; j++)
			if (m->mems[j].node != d->node && m->mems[j].start < d->end &&
			    d->start < m->mems[j].end) {
				dt_fall_back(b, "dt-overlap",
					     "memory of node ids %u and %u overlaps at 0x%llx",
					     m->mems[j].node, d->node,
					     (unsigned long long)(d->start > m->mems[j].start ?
								  d->start : m->mems[j].start));
				return;
			}
		if (!numa_add_domain(t, d->node)) {
			dt_fall_back(b, "dt-nodes", "more than %u node ids", NUMA_MAX_NODES);
			return;
		}
	}
	if (t->nr_nodes == 0) {
		numa_single_node(b, NUMA_SOURCE_NONE, NULL);
		return;
	}
	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		const uint32_t id = cpu_id(m, t->cpus[c].hwid);
		const uint32_t n = id == DT_NO_NODE ? NUMA_NO_NODE : numa_node_of_pxm(t, id);
		t->cpus[c].node = n == NUMA_NO_NODE ? 0 : n;
		t->cpus[c].from_srat = false;
		if (n == NUMA_NO_NODE && missing++ == 0)
			first_missing = c;
	}
	t->nr_ranges = 0;
	if (!place_memory(b, m)) {
		dt_fall_back(b, "dt-ranges", "more than %u pieces of memory", NUMA_MAX_RANGES);
		return;
	}
	if (missing)
		NUMA_WARN(t, PREFIX "device tree: %u CPUs (cpu %u first) have no numa-node-id: put on node 0",
			  missing, first_missing);
	t->source = NUMA_SOURCE_DT;
	distances(b, m);
	numa_finish(b);
}

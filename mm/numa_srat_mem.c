/*
 * numa_srat_mem.c: the SRAT's memory affinity ranges against the memory map
 * (mm/numa_build.h): every usable byte of the map on a node, and the
 * repairs that takes reported.
 *
 * Rules obeyed (those for domains, CPUs and the SLIT: mm/numa_srat.c):
 *  - memory affinity ranges of different domains must not overlap: if they
 *    do, nothing the SRAT says about memory can be believed;
 *  - the SRAT describes where memory would be, the memory map what is there:
 *    only usable memory of the map is placed on nodes; SRAT ranges reaching
 *    beyond the map are clipped (hot-pluggable ones silently: memory that may
 *    come later is their purpose);
 *  - usable memory the SRAT forgot goes to the node of the nearest SRAT range
 *    below it, else above it, so that every usable byte has a node;
 *  - a domain left with no usable memory after clipping and with no CPU gets
 *    no node, as Linux never brings one online (drop_empty_nodes()).
 */
#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/log.h"
#include "mm/numa.h"
#include "mm/numa_build.h"

#define PREFIX "NUMA: "
#define NO_INDEX 0xffffffffu
/* Below this, SRAT ranges may cover what the map leaves out (the legacy
 * display and ROM windows). */
#define LOW_MEMORY_BYTES 0x100000ULL

_Static_assert(NUMA_MAX_SRAT_RANGES >= ACPI_SRAT_MAX_MEMS,
	       "every SRAT memory affinity entry fits");

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t usable_bytes(const struct mem_range *map, uint32_t nr_map)
{
	return mem_ranges_bytes(map, nr_map, MEM_USABLE);
}

/* Copy the memory entries, sort them, reject overlaps between domains. */
static bool check_srat_ranges(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;
	uint32_t reach = NO_INDEX;  /* the range reaching highest so far */

	if (b->srat_nr_mems == 0) {
		numa_fall_back(b, "no-memory-affinity", "SRAT has no memory affinity entry");
		return false;
	}
	for (uint32_t i = 0; i < b->srat_nr_mems; i++) {
		const struct acpi_srat_mem *m = &srat->mems[i];
		uint32_t k = i;

		/* Node ranges must be whole pages (physmem and the page
		 * descriptors work in pages), but firmware may put an SRAT
		 * boundary inside one: both ends round down, so the page
		 * holding a boundary goes to the range starting in it, and
		 * ranges that did not overlap still do not. */
		if (((m->start | m->end) & (PAGE_SIZE_BYTES - 1)) && b->nr_unaligned++ == 0)
			b->first_unaligned = i;
		t->srat[i] = (struct numa_srat_range){
			.start = m->start & ~(PAGE_SIZE_BYTES - 1),
			.end = m->end & ~(PAGE_SIZE_BYTES - 1), .pxm = m->pxm,
			.node = numa_node_of_pxm(t, m->pxm),
			.hotplug = m->hotplug, .nonvolatile = m->nonvolatile };
		/* Insertion sort by start, then end: at most 256 entries. */
		while (k > 0) {
			const struct numa_srat_range *p = &t->srat[b->order[k - 1]];

			if (p->start < t->srat[i].start ||
			    (p->start == t->srat[i].start && p->end <= t->srat[i].end))
				break;
			b->order[k] = b->order[k - 1];
			k--;
		}
		b->order[k] = (uint16_t)i;
	}
	t->nr_srat_ranges = b->srat_nr_mems;

	for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
		const struct numa_srat_range *r = &t->srat[b->order[k]];

		if (r->start >= r->end)
			continue;
		if (reach != NO_INDEX && t->srat[reach].end > r->start &&
		    t->srat[reach].pxm != r->pxm) {
			const struct numa_srat_range *o = &t->srat[reach];

			numa_fall_back(b, "srat-overlap",
				       "SRAT: memory affinity ranges [mem 0x%08llx-0x%08llx] of PXM %u and [mem 0x%08llx-0x%08llx] of PXM %u overlap",
				       (unsigned long long)o->start, (unsigned long long)(o->end - 1), o->pxm,
				       (unsigned long long)r->start, (unsigned long long)(r->end - 1), r->pxm);
			return false;
		}
		if (reach == NO_INDEX || r->end > t->srat[reach].end)
			reach = b->order[k];
	}
	return true;
}

/*
 * The SRAT range nearest to usable memory [start, end) that no SRAT range
 * touches: the one ending highest below it, else the one starting lowest
 * above it (each lies wholly below or above). NULL if every range is empty.
 */
static const struct numa_srat_range *nearest_srat(const struct numa_topology *t,
						  uint64_t start, uint64_t end, bool *below)
{
	const struct numa_srat_range *best = NULL;

	*below = true;
	for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
		const struct numa_srat_range *r = &t->srat[k];

		if (r->start < r->end && r->end <= start && (!best || r->end > best->end))
			best = r;
	}
	if (best)
		return best;
	*below = false;
	for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
		const struct numa_srat_range *r = &t->srat[k];

		if (r->start < r->end && r->start >= end && (!best || r->start < best->start))
			best = r;
	}
	return best;
}

/* Append usable memory no SRAT range covers, on the nearest range's node. */
static bool append_orphan(struct build *b, uint64_t start, uint64_t end)
{
	bool below;
	const struct numa_srat_range *near = nearest_srat(b->t, start, end, &below);
	uint32_t i = b->nr_orphans++;

	if (i < ORPHAN_WARN_LINES) {
		b->orphans[i] = (struct orphan){ .start = start, .end = end,
			.near = near, .below = below };
	} else {
		b->orphan_bytes += end - start;
	}
	/* No non-empty SRAT range: intersect_map() falls back anyway. */
	return numa_append_range(b->t, start, end, near ? near->node : 0);
}

/*
 * Cut the usable ranges of the map at SRAT range boundaries and put each
 * piece on its node: its SRAT range's, or for pieces no range covers the
 * nearest range's (touching pieces of one node are merged as they come).
 * False (after falling back) if the pieces do not fit or the SRAT covers no
 * usable byte.
 */
static bool intersect_map(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct mem_range *map = b->in->map;
	uint32_t nr_map = b->in->nr_map;
	uint64_t covered = 0;
	bool fits = true;

	t->nr_ranges = 0;
	for (uint32_t i = 0; i < nr_map && fits; i++) {
		const struct mem_range *u = &map[i];
		uint64_t cur = u->start;

		if (u->type != MEM_USABLE)
			continue;
		for (uint32_t k = 0; k < t->nr_srat_ranges && cur < u->end && fits; k++) {
			const struct numa_srat_range *r = &t->srat[b->order[k]];
			uint64_t hi;

			if (r->start >= r->end || r->end <= cur)
				continue;
			if (r->start >= u->end)
				break;
			if (r->start > cur) {
				fits = append_orphan(b, cur, r->start);
				cur = r->start;
			}
			hi = min_u64(r->end, u->end);
			fits = fits && numa_append_range(t, cur, hi, r->node);
			covered += hi - cur;
			cur = hi;
		}
		if (fits && cur < u->end)
			fits = append_orphan(b, cur, u->end);
	}
	if (!fits) {
		numa_fall_back(b, "too-many-ranges",
			       "SRAT splits usable memory into more than %u ranges", NUMA_MAX_RANGES);
		return false;
	}
	if (covered == 0 && usable_bytes(map, nr_map) > 0) {
		numa_fall_back(b, "srat-no-usable-memory",
			       "SRAT memory affinity covers none of the %llu MiB of usable memory",
			       (unsigned long long)(usable_bytes(map, nr_map) >> 20));
		return false;
	}
	return true;
}

static void warn_orphans(struct build *b)
{
	struct numa_topology *t = b->t;

	for (uint32_t i = 0; i < b->nr_orphans && i < ORPHAN_WARN_LINES; i++) {
		const struct orphan *o = &b->orphans[i];

		NUMA_WARN(t, PREFIX "SRAT: usable [mem 0x%08llx-0x%08llx] is in no memory affinity range; given to node %u (PXM %u), the nearest %s",
			  (unsigned long long)o->start, (unsigned long long)(o->end - 1),
			  o->near->node, o->near->pxm, o->below ? "below" : "above");
	}
	if (b->nr_orphans > ORPHAN_WARN_LINES)
		NUMA_WARN(t, PREFIX "SRAT: %u more usable ranges (%llu KiB) in no memory affinity range, given to their nearest nodes",
			  b->nr_orphans - ORPHAN_WARN_LINES,
			  (unsigned long long)(b->orphan_bytes >> 10));
}

/*
 * Proximity domains left with no memory after clipping to the map and with
 * no CPU get no node. Linux does the same for the same SRAT: its
 * numa_register_meminfo() sets up node data only for nodes whose clipped
 * memory is not empty, and a memoryless node is brought online only for a
 * CPU on it (init_cpu_to_node()), so such a domain stays "possible" but is
 * never an online node, and numactl does not count it. The nodes after a
 * dropped one are renumbered (nodes are dense here). A domain whose every
 * range is hot-pluggable is expected to be empty at boot: an info line;
 * otherwise a warning, the SRAT promised memory that is not there.
 */
static void drop_empty_nodes(struct build *b)
{
	struct numa_topology *t = b->t;
	uint32_t renumber[NUMA_MAX_NODES], kept = 0, dropped = 0, warned = 0;
	bool used[NUMA_MAX_NODES] = { false };

	for (uint32_t i = 0; i < t->nr_ranges; i++)
		used[t->ranges[i].node] = true;
	for (uint32_t c = 0; c < t->nr_cpus; c++)
		used[t->cpus[c].node] = true;
	for (uint32_t n = 0; n < t->nr_nodes; n++) {
		if (used[n]) {
			renumber[n] = kept;
			t->nodes[kept++] = t->nodes[n];
			continue;
		}
		renumber[n] = NUMA_NO_NODE;
		dropped++;
		const struct numa_srat_range *first = NULL;
		bool all_hotplug = true;
		for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
			const struct numa_srat_range *r = &t->srat[b->order[k]];

			if (r->node != n || r->start >= r->end)
				continue;
			if (!first)
				first = r;
			all_hotplug &= r->hotplug;
		}
		if (first && all_hotplug) {
			pr_info(PREFIX "SRAT: PXM %u has no CPU and only hot-pluggable memory, none present ([mem 0x%08llx-0x%08llx] first); no node for it until memory comes",
				t->nodes[n].pxm, (unsigned long long)first->start,
				(unsigned long long)(first->end - 1));
		} else if (warned++ < ORPHAN_WARN_LINES) {
			if (first)
				NUMA_WARN(t, PREFIX "SRAT: PXM %u has no CPU and none of its memory ([mem 0x%08llx-0x%08llx] first) is usable memory of the map; no node for it (Linux brings no such node online)",
					  t->nodes[n].pxm, (unsigned long long)first->start,
					  (unsigned long long)(first->end - 1));
			else
				NUMA_WARN(t, PREFIX "SRAT: PXM %u has no CPU and no memory; no node for it (Linux brings no such node online)",
					  t->nodes[n].pxm);
		}
	}
	if (warned > ORPHAN_WARN_LINES)
		NUMA_WARN(t, PREFIX "SRAT: %u more proximity domains with no CPU and no usable memory; no nodes for them",
			  warned - ORPHAN_WARN_LINES);
	if (!dropped)
		return;
	memset(&t->nodes[kept], 0, (t->nr_nodes - kept) * sizeof(t->nodes[0]));
	t->nr_nodes = kept;
	for (uint32_t i = 0; i < t->nr_ranges; i++)
		t->ranges[i].node = renumber[t->ranges[i].node];
	for (uint32_t c = 0; c < t->nr_cpus; c++)
		t->cpus[c].node = renumber[t->cpus[c].node];
	for (uint32_t k = 0; k < t->nr_srat_ranges; k++)
		if (t->srat[k].node != NUMA_NO_NODE)
			t->srat[k].node = renumber[t->srat[k].node];
}

/*
 * Bytes of [start, end) that no range of the map describes, ignoring the
 * first MiB (firmware commonly leaves the legacy display and ROM window out of
 * the map while the SRAT covers it).
 */
static uint64_t bytes_beyond_map(const struct mem_range *map, uint32_t nr_map,
				 uint64_t start, uint64_t end)
{
	uint64_t missing;

	if (start < LOW_MEMORY_BYTES)
		start = LOW_MEMORY_BYTES;
	if (start >= end)
		return 0;
	missing = end - start;
	for (uint32_t i = 0; i < nr_map; i++) {
		const struct mem_range *m = &map[i];
		uint64_t lo = m->start > start ? m->start : start;
		uint64_t hi = min_u64(m->end, end);

		if (lo < hi)
			missing -= hi - lo;   /* map ranges are disjoint */
	}
	return missing;
}

/*
 * SRAT ranges claiming memory the map does not have. Only usable memory is
 * placed, so they are clipped anyway; say so once. Hot-pluggable ranges
 * describe memory that may come later: not worth a warning.
 */
static void warn_beyond_map(struct build *b)
{
	struct numa_topology *t = b->t;
	uint32_t count = 0, first = 0;
	uint64_t total = 0;

	for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
		const struct numa_srat_range *r = &t->srat[k];
		uint64_t missing;

		if (r->hotplug || r->start >= r->end)
			continue;
		missing = bytes_beyond_map(b->in->map, b->in->nr_map, r->start, r->end);
		if (missing && count++ == 0)
			first = k;
		total += missing;
	}
	if (count == 0)
		return;
	NUMA_WARN(t, PREFIX "SRAT: memory affinity [mem 0x%08llx-0x%08llx] of PXM %u%s reaches beyond the memory map (%llu KiB in no map range); clipped, only usable memory counts",
		  (unsigned long long)t->srat[first].start,
		  (unsigned long long)(t->srat[first].end - 1), t->srat[first].pxm,
		  count > 1 ? " and others" : "", (unsigned long long)(total >> 10));
}

/* SRAT boundaries inside a page, rounded down (check_srat_ranges()). */
static void warn_unaligned(struct build *b)
{
	const struct acpi_srat_mem *m;

	if (b->nr_unaligned == 0)
		return;
	m = &b->in->srat->mems[b->first_unaligned];
	NUMA_WARN(b->t, PREFIX "SRAT: memory affinity [mem 0x%08llx-0x%08llx] of PXM %u%s is not page aligned; boundaries rounded down to %llu KiB pages",
		  (unsigned long long)m->start, (unsigned long long)(m->end - 1), m->pxm,
		  b->nr_unaligned > 1 ? " and others" : "",
		  (unsigned long long)(PAGE_SIZE_BYTES >> 10));
}

/* ---- the two steps of mm/numa_srat.c ------------------------------------ */

bool numa_srat_place_memory(struct build *b)
{
	return check_srat_ranges(b) && intersect_map(b);
}

void numa_srat_memory_repairs(struct build *b)
{
	warn_orphans(b);
	warn_unaligned(b);
	warn_beyond_map(b);
	drop_empty_nodes(b);
}

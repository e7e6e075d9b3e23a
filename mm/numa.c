/*
 * numa.c: the NUMA topology builder (pure C, host-tested).
 *
 * Rules obeyed, from the ACPI specification (6.5, 5.2.16-17) and from what
 * Linux and FreeBSD do with real firmware:
 *  - a proximity domain is a number, not an index: domains are renumbered
 *    densely as they first appear (CPU affinity entries, then memory affinity
 *    entries, each in table order: the order the parser keeps them);
 *  - the SLIT is indexed by proximity domain; it is used only when it has
 *    exactly one locality per domain and a row for every domain;
 *  - memory affinity ranges of different domains must not overlap: if they
 *    do, nothing the SRAT says about memory can be believed;
 *  - the SRAT describes where memory would be, the memory map what is there:
 *    only usable memory of the map is placed on nodes; SRAT ranges reaching
 *    beyond the map are clipped (hot-pluggable ones silently: memory that may
 *    come later is their purpose);
 *  - usable memory the SRAT forgot goes to the node of the nearest SRAT range
 *    below it, else above it, so that every usable byte has a node;
 *  - a domain left with no usable memory after clipping and with no CPU gets
 *    no node, as Linux never brings one online (drop_empty_nodes());
 *  - a CPU the SRAT forgot goes to node 0 (as Linux does); an SRAT CPU the
 *    MADT does not list is ignored; if the SRAT places no CPU at all, it is
 *    not trusted.
 * Untrusted SRAT: one node, one warning saying why. Warnings that repair
 * something are printed only once the SRAT is known to be trusted, so a
 * fallback is never preceded by warnings about details it throws away.
 */
#include "mm/numa.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/acpi/acpi.h"
#include "kernel/log.h"
#include "kernel/panic.h"
#include "kernel/report/record.h"

#define PREFIX "NUMA: "
#define STR_(x) #x
#define STR(x) STR_(x)
/* "10/20": the defaults named in warnings, from the one definition. */
#define DEFAULT_DISTANCES_TEXT STR(NUMA_LOCAL_DISTANCE) "/" STR(NUMA_REMOTE_DISTANCE)
#define NO_INDEX 0xffffffffu
/* Orphan ranges warned about one by one; the rest are summed up. */
#define ORPHAN_WARN_LINES 4
/* Below this, SRAT ranges may cover what the map leaves out (VGA, ROMs). */
#define LOW_MEMORY_BYTES 0x100000ULL

_Static_assert(NUMA_MAX_SRAT_RANGES >= ACPI_SRAT_MAX_MEMS,
	       "every SRAT memory affinity entry fits");
/* Every range of a normalized map may be usable (holes separate them): the
 * whole map must fit on one node, whatever the SRAT says. numa_build()
 * asserts the map is no longer than that. */
_Static_assert(NUMA_MAX_RANGES >= MEMBOOT_MAX_MAP_RANGES, "the usable ranges of any map fit");
_Static_assert(NUMA_MAX_CPUS % 64 == 0, "cpu_mask is whole words");
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

/* ---- helpers ------------------------------------------------------------ */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static bool madt_find(const struct acpi_madt_info *madt, uint32_t apic_id,
		      uint32_t *idx)
{
	uint32_t n = madt->nr_cpus < ACPI_MADT_MAX_CPUS ? madt->nr_cpus : ACPI_MADT_MAX_CPUS;

	for (uint32_t i = 0; i < n; i++) {
		if (madt->cpus[i].apic_id == apic_id) {
			*idx = i;
			return true;
		}
	}
	return false;
}

static uint32_t node_of_pxm(const struct numa_topology *t, uint32_t pxm)
{
	for (uint32_t n = 0; n < t->nr_nodes; n++)
		if (t->nodes[n].pxm == pxm)
			return n;
	return NUMA_NO_NODE;
}

/* Give @pxm a node if it has none; false if all nodes are taken. */
static bool add_domain(struct numa_topology *t, uint32_t pxm)
{
	if (node_of_pxm(t, pxm) != NUMA_NO_NODE)
		return true;
	if (t->nr_nodes == NUMA_MAX_NODES)
		return false;
	t->nodes[t->nr_nodes++].pxm = pxm;
	return true;
}

static bool srat_cpu_is_known(const struct build *b, uint32_t i)
{
	return b->srat_cpu_known[i / 64] >> (i % 64) & 1;
}

/* Proximity domains the SRAT names (known CPUs and memory), counted in full. */
static uint32_t count_domains(const struct build *b)
{
	const struct acpi_srat_info *srat = b->in->srat;
	uint32_t count = 0;

	for (uint32_t i = 0; i < b->srat_nr_cpus; i++) {
		bool seen = false;

		if (!srat_cpu_is_known(b, i))
			continue;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = srat_cpu_is_known(b, j) && srat->cpus[j].pxm == srat->cpus[i].pxm;
		count += !seen;
	}
	for (uint32_t i = 0; i < b->srat_nr_mems; i++) {
		uint32_t pxm = srat->mems[i].pxm;
		bool seen = false;

		for (uint32_t j = 0; j < b->srat_nr_cpus && !seen; j++)
			seen = srat_cpu_is_known(b, j) && srat->cpus[j].pxm == pxm;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = srat->mems[j].pxm == pxm;
		count += !seen;
	}
	return count;
}

/*
 * Append [start, end) on @node to ranges[]; a piece touching the previous
 * one on the same node extends it (NUMA_NO_NODE pieces are never merged).
 * False if ranges[] is full.
 */
static bool append_range(struct numa_topology *t, uint64_t start, uint64_t end,
			 uint32_t node)
{
	if (t->nr_ranges > 0) {
		struct numa_mem_range *prev = &t->ranges[t->nr_ranges - 1];

		if (node != NUMA_NO_NODE && prev->node == node && prev->end == start) {
			prev->end = end;
			return true;
		}
	}
	if (t->nr_ranges == NUMA_MAX_RANGES)
		return false;
	t->ranges[t->nr_ranges++] = (struct numa_mem_range){
		.start = start, .end = end, .node = node };
	return true;
}

static uint64_t usable_bytes(const struct mem_range *map, uint32_t nr_map)
{
	return mem_ranges_bytes(map, nr_map, MEM_USABLE);
}

/* ---- CPUs --------------------------------------------------------------- */

uint32_t numa_balanced_quota(const uint32_t *count, uint32_t nr_groups, uint32_t limit,
			     uint32_t first, uint32_t *quota)
{
	uint32_t left = limit ? limit : 1, total = 0;

	for (uint32_t g = 0; g < nr_groups; g++)
		quota[g] = 0;
	if (first >= nr_groups)
		first = 0;
	/* Water-filling: each round gives every group still short of its
	 * CPUs an equal share; a round that saturates no group leaves less
	 * than one CPU per open group, handed out one by one from @first. */
	while (left) {
		uint32_t open = 0, share;

		for (uint32_t g = 0; g < nr_groups; g++)
			open += quota[g] < count[g];
		if (!open)
			break;
		share = left / open;
		if (!share) {
			for (uint32_t k = 0; k < nr_groups && left; k++) {
				uint32_t g = (first + k) % nr_groups;

				if (quota[g] < count[g]) {
					quota[g]++;
					left--;
				}
			}
			break;
		}
		for (uint32_t g = 0; g < nr_groups; g++) {
			uint32_t add = count[g] - quota[g] < share ? count[g] - quota[g] : share;

			quota[g] += add;
			left -= add;
		}
	}
	for (uint32_t g = 0; g < nr_groups; g++)
		total += quota[g];
	return total;
}

uint32_t numa_select_balanced(const uint32_t *group_of, uint32_t n, uint32_t nr_groups,
			      uint32_t limit, bool *keep, uint32_t *quota)
{
	uint32_t count[NUMA_MAX_NODES] = { 0 }, taken[NUMA_MAX_NODES] = { 0 }, kept = 0;

	ASSERT(nr_groups >= 1 && nr_groups <= NUMA_MAX_NODES, "%u groups", nr_groups);
	for (uint32_t i = 0; i < n; i++) {
		ASSERT(group_of[i] < nr_groups, "cpu %u in group %u of %u", i, group_of[i], nr_groups);
		count[group_of[i]]++;
	}
	if (n == 0)
		return 0;
	numa_balanced_quota(count, nr_groups, limit, group_of[0], quota);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = group_of[i];

		/* The boot CPU is first in its group: the quota's first place. */
		keep[i] = taken[g] < quota[g];
		taken[g] += keep[i];
		kept += keep[i];
	}
	return kept;
}

static bool madt_cpu_usable(const struct acpi_cpu *c, uint32_t boot)
{
	return c->apic_id != boot && (c->enabled || c->online_capable);
}

/*
 * The group of a MADT processor for the choice beyond NUMA_MAX_CPUS: its
 * SRAT proximity domain's index in @pxms (added when new), or the last
 * group for a CPU without an SRAT entry or past NUMA_MAX_NODES - 1 domains
 * (a table that large falls back to one node anyway).
 */
static uint32_t pxm_group(const struct build *b, uint32_t apic_id, uint32_t *pxms,
			  uint32_t *nr_pxms)
{
	const struct acpi_srat_info *srat = b->in->srat;
	uint32_t n = srat ? (srat->nr_cpus < ACPI_SRAT_MAX_CPUS ? srat->nr_cpus : ACPI_SRAT_MAX_CPUS) : 0;

	for (uint32_t i = 0; i < n; i++) {
		if (srat->cpus[i].apic_id != apic_id)
			continue;
		for (uint32_t g = 0; g < *nr_pxms; g++)
			if (pxms[g] == srat->cpus[i].pxm)
				return g;
		if (*nr_pxms < NUMA_MAX_NODES - 1) {
			pxms[*nr_pxms] = srat->cpus[i].pxm;
			return (*nr_pxms)++;
		}
		break;
	}
	return NUMA_MAX_NODES - 1;
}

/*
 * Logical CPUs: the boot CPU first, then the MADT's usable ones in order.
 * More than NUMA_MAX_CPUS of them: the ones kept are chosen balanced over
 * the SRAT's proximity domains (numa_balanced_quota()), the first of each
 * domain in MADT order, so that no node loses all its CPUs to the order in
 * which firmware happened to list them; a warning counts the rest.
 */
static void build_cpus(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_madt_info *madt = b->in->madt;
	uint32_t boot = b->in->boot_apic_id, idx, nr_madt, usable = 1;
	uint32_t pxms[NUMA_MAX_NODES], nr_pxms = 0;
	uint32_t count[NUMA_MAX_NODES] = { 0 }, quota[NUMA_MAX_NODES], taken[NUMA_MAX_NODES] = { 0 };
	bool choose;

	t->cpus[0] = (struct numa_cpu){ .apic_id = boot, .present = true };
	t->nr_cpus = 1;
	if (!madt)
		return;     /* the ACPI layer has said the MADT is missing */
	if (madt_find(madt, boot, &idx))
		t->cpus[0].acpi_uid = madt->cpus[idx].acpi_uid;
	else
		NUMA_WARN(t, PREFIX "MADT lists no processor with the boot CPU's APIC ID 0x%x; it is cpu 0 all the same",
			  boot);

	nr_madt = madt->nr_cpus < ACPI_MADT_MAX_CPUS ? madt->nr_cpus : ACPI_MADT_MAX_CPUS;
	for (uint32_t i = 0; i < nr_madt; i++)
		usable += madt_cpu_usable(&madt->cpus[i], boot);
	choose = usable > NUMA_MAX_CPUS;
	if (choose) {
		uint32_t boot_group = pxm_group(b, boot, pxms, &nr_pxms);

		count[boot_group]++;
		for (uint32_t i = 0; i < nr_madt; i++)
			if (madt_cpu_usable(&madt->cpus[i], boot))
				count[pxm_group(b, madt->cpus[i].apic_id, pxms, &nr_pxms)]++;
		numa_balanced_quota(count, NUMA_MAX_NODES, NUMA_MAX_CPUS, boot_group, quota);
		taken[boot_group] = 1;
	}
	for (uint32_t i = 0; i < nr_madt; i++) {
		const struct acpi_cpu *c = &madt->cpus[i];

		if (!madt_cpu_usable(c, boot))
			continue;
		if (choose) {
			uint32_t g = pxm_group(b, c->apic_id, pxms, &nr_pxms);

			if (taken[g] == quota[g])
				continue;
			taken[g]++;
		}
		t->cpus[t->nr_cpus++] = (struct numa_cpu){
			.apic_id = c->apic_id, .acpi_uid = c->acpi_uid,
			.present = c->enabled };
	}
	t->nr_unused_cpus = usable - t->nr_cpus;
	if (choose) {
		uint32_t domains = nr_pxms ? nr_pxms : 1;

		NUMA_WARN(t, PREFIX "MADT lists %u processors, more than the %u CPUs memboot is built for: %u kept, balanced over %u proximity domain%s, %u not used",
			  usable, NUMA_MAX_CPUS, t->nr_cpus, domains, domains == 1 ? "" : "s",
			  t->nr_unused_cpus);
	}
}

/* ---- the result: one node, or the per-node sums ------------------------ */

static void default_distances(struct numa_topology *t)
{
	for (uint32_t i = 0; i < t->nr_nodes; i++)
		for (uint32_t j = 0; j < t->nr_nodes; j++)
			t->distance[i * t->nr_nodes + j] =
				i == j ? NUMA_LOCAL_DISTANCE : NUMA_REMOTE_DISTANCE;
}

/* Node stats, CPU masks, mem_node; then the invariants are asserted. */
static void finish(struct build *b)
{
	struct numa_topology *t = b->t;
	bool any_mem = false;

	t->mem_bytes = 0;
	t->nr_present_cpus = 0;
	for (uint32_t i = 0; i < t->nr_ranges; i++) {
		const struct numa_mem_range *r = &t->ranges[i];
		struct numa_node *n = &t->nodes[r->node];

		if (n->nr_ranges++ == 0)
			n->span_start = r->start;
		n->span_end = r->end;
		n->mem_bytes += r->end - r->start;
		t->mem_bytes += r->end - r->start;
	}
	for (uint32_t i = 0; i < t->nr_cpus; i++) {
		const struct numa_cpu *c = &t->cpus[i];
		struct numa_node *n = &t->nodes[c->node];

		n->cpu_mask[i / 64] |= 1ULL << (i % 64);
		n->nr_cpus++;
		n->nr_present_cpus += c->present;
		t->nr_present_cpus += c->present;
	}
	for (uint32_t i = 0; i < t->nr_nodes; i++)
		any_mem |= t->nodes[i].mem_bytes > 0;
	for (uint32_t i = 0; i < t->nr_nodes; i++) {
		struct numa_node *n = &t->nodes[i];
		uint32_t best = 0;
		uint8_t best_d = 0xff;

		n->init_node = i;
		if (n->mem_bytes > 0 || !any_mem) {
			n->mem_node = n->mem_bytes > 0 ? i : 0;
			continue;
		}
		/* Nearest node with memory; ascending ids settle ties low. */
		for (uint32_t j = 0; j < t->nr_nodes; j++) {
			uint8_t d = t->distance[i * t->nr_nodes + j];

			if (t->nodes[j].mem_bytes > 0 && (best_d == 0xff || d < best_d)) {
				best = j;
				best_d = d;
			}
		}
		n->mem_node = best;
	}
	ASSERT(numa_check(t, b->in->map, b->in->nr_map), "topology from source %u breaks an invariant",
	       t->source);
}

/* One node holding every CPU and all usable memory. */
static void single_node(struct build *b, uint32_t source, const char *reason)
{
	struct numa_topology *t = b->t;
	const struct mem_range *map = b->in->map;

	t->source = source;
	t->fallback_reason = reason;
	t->slit = false;
	memset(t->nodes, 0, sizeof(t->nodes));
	t->nr_nodes = 1;
	t->nodes[0].pxm = NUMA_NO_PXM;
	for (uint32_t i = 0; i < t->nr_cpus; i++) {
		t->cpus[i].node = 0;
		t->cpus[i].from_srat = false;
	}
	t->nr_srat_ranges = 0;
	t->nr_ranges = 0;
	for (uint32_t i = 0; i < b->in->nr_map; i++) {
		const struct mem_range *r = &map[i];

		if (r->type == MEM_USABLE) {
			bool ok = append_range(t, r->start, r->end, 0);
			ASSERT(ok, "usable range %u of the map does not fit", i);
		}
	}
	default_distances(t);
	finish(b);
}

__attribute__((format(printf, 3, 4)))
static void fall_back(struct build *b, const char *reason, const char *fmt, ...)
{
	char why[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	NUMA_WARN(b->t, PREFIX "%s; SRAT not trusted, falling back to one node", why);
	single_node(b, NUMA_SOURCE_FALLBACK, reason);
}

/* ---- the SRAT ----------------------------------------------------------- */

/* Nodes for every domain; false (after falling back) if that fails. */
static bool build_domains(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;
	const struct acpi_madt_info *madt = b->in->madt;
	bool overflow = false;

	for (uint32_t i = 0; i < b->srat_nr_cpus; i++) {
		uint32_t apic = srat->cpus[i].apic_id, idx;

		if (apic == b->in->boot_apic_id || (madt && madt_find(madt, apic, &idx))) {
			b->srat_cpu_known[i / 64] |= 1ULL << (i % 64);
			overflow |= !add_domain(t, srat->cpus[i].pxm);
		} else if (b->nr_unknown++ == 0) {
			b->first_unknown = i;
		}
	}
	for (uint32_t i = 0; i < b->srat_nr_mems; i++)
		overflow |= !add_domain(t, srat->mems[i].pxm);

	if (overflow) {
		fall_back(b, "too-many-domains",
			  "SRAT names %u proximity domains, more than %u nodes",
			  count_domains(b), NUMA_MAX_NODES);
		return false;
	}
	if (t->nr_nodes == 0) {
		fall_back(b, "srat-empty", "SRAT has no enabled CPU or memory affinity entry");
		return false;
	}
	return true;
}

/* Each CPU's node from its SRAT entry; false (after falling back) if none has one. */
static bool place_cpus(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;

	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		struct numa_cpu *cpu = &t->cpus[c];
		uint32_t i;

		for (i = 0; i < b->srat_nr_cpus; i++)
			if (srat->cpus[i].apic_id == cpu->apic_id)
				break;
		if (i < b->srat_nr_cpus) {
			cpu->node = node_of_pxm(t, srat->cpus[i].pxm);
			cpu->from_srat = true;
		} else {
			cpu->node = 0;
			if (b->nr_missing++ == 0)
				b->first_missing = c;
		}
	}
	if (b->nr_missing == t->nr_cpus) {
		fall_back(b, "no-cpu-affinity",
			  "SRAT has no CPU affinity entry for any of the %u CPUs of the MADT",
			  t->nr_cpus);
		return false;
	}
	return true;
}

/* Copy the memory entries, sort them, reject overlaps between domains. */
static bool check_srat_ranges(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;
	uint32_t reach = NO_INDEX;  /* the range reaching highest so far */

	if (b->srat_nr_mems == 0) {
		fall_back(b, "no-memory-affinity", "SRAT has no memory affinity entry");
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
			.node = node_of_pxm(t, m->pxm),
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

			fall_back(b, "srat-overlap",
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
	return append_range(b->t, start, end, near ? near->node : 0);
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
			fits = fits && append_range(t, cur, hi, r->node);
			covered += hi - cur;
			cur = hi;
		}
		if (fits && cur < u->end)
			fits = append_orphan(b, cur, u->end);
	}
	if (!fits) {
		fall_back(b, "too-many-ranges",
			  "SRAT splits usable memory into more than %u ranges", NUMA_MAX_RANGES);
		return false;
	}
	if (covered == 0 && usable_bytes(map, nr_map) > 0) {
		fall_back(b, "srat-no-usable-memory",
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
 * first MiB (firmware commonly leaves the legacy VGA and ROM window out of
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

/* Repairs decided while the SRAT was still on trial. */
static void warn_cpu_repairs(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;

	uint32_t disabled = b->in->madt ? b->in->madt->nr_disabled : 0;

	/*
	 * The MADT parser keeps no disabled processors, but counts them: SRAT
	 * entries for hot-pluggable CPUs of an older MADT (QEMU's maxcpus=)
	 * are expected, not a firmware error.
	 */
	if (b->nr_unknown > 0 && b->nr_unknown <= disabled)
		pr_info(PREFIX "SRAT: %u CPU affinity entries (first APIC ID 0x%x) are for no usable MADT processor; the MADT has %u disabled ones; ignored",
			b->nr_unknown, srat->cpus[b->first_unknown].apic_id, disabled);
	else if (b->nr_unknown == 1)
		NUMA_WARN(t, PREFIX "SRAT: CPU affinity for APIC ID 0x%x (PXM %u) names no MADT processor; ignored",
			  srat->cpus[b->first_unknown].apic_id, srat->cpus[b->first_unknown].pxm);
	else if (b->nr_unknown > 1)
		NUMA_WARN(t, PREFIX "SRAT: %u CPU affinity entries name no MADT processor (first APIC ID 0x%x, PXM %u); ignored",
			  b->nr_unknown, srat->cpus[b->first_unknown].apic_id,
			  srat->cpus[b->first_unknown].pxm);
	if (b->nr_missing == 1)
		NUMA_WARN(t, PREFIX "SRAT: no CPU affinity for APIC ID 0x%x (cpu %u); put on node 0",
			  t->cpus[b->first_missing].apic_id, b->first_missing);
	else if (b->nr_missing > 1)
		NUMA_WARN(t, PREFIX "SRAT: no CPU affinity for %u CPUs (first APIC ID 0x%x, cpu %u); put on node 0",
			  b->nr_missing, t->cpus[b->first_missing].apic_id, b->first_missing);
}

/*
 * Distances from the SLIT if it covers the domains, else the defaults.
 * The SLIT is indexed by proximity domain, not by node (ACPI 6.5, 5.2.17:
 * entry [i][j] is the distance from locality i to locality j, and locality
 * numbers are the SRAT's proximity domains). Real machines list more
 * localities than they use, e.g. a PXM whose SRAT entries are all
 * disabled: each node is looked up through its PXM and the localities with
 * no node are skipped, as Linux and FreeBSD do. What is refused: a SLIT
 * that breaks the diagonal/off-diagonal rule anywhere (acpi_slit_parse),
 * or that has no locality for a PXM in use.
 */
static void set_distances(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_slit_info *slit = b->in->slit;
	uint32_t n = t->nr_nodes;

	default_distances(t);
	if (!slit)
		return;
	if (!slit->matrix || slit->nr_localities == 0 || !slit->valid) {
		NUMA_WARN(t, PREFIX "SLIT is invalid (see the ACPI warning above); default distances " DEFAULT_DISTANCES_TEXT);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (t->nodes[i].pxm >= slit->nr_localities) {
			NUMA_WARN(t, PREFIX "SLIT has no locality for PXM %u (localities 0..%u); SLIT ignored, default distances " DEFAULT_DISTANCES_TEXT,
				  t->nodes[i].pxm, slit->nr_localities - 1);
			return;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < n; j++) {
			uint8_t d = acpi_slit_distance(slit, t->nodes[i].pxm, t->nodes[j].pxm);
			bool ok = i == j ? d == NUMA_LOCAL_DISTANCE : d > NUMA_LOCAL_DISTANCE;

			if (!ok) {
				NUMA_WARN(t, PREFIX "SLIT distance from PXM %u to PXM %u is %u; SLIT ignored, default distances " DEFAULT_DISTANCES_TEXT,
					  t->nodes[i].pxm, t->nodes[j].pxm, d);
				default_distances(t);
				return;
			}
			t->distance[i * n + j] = d;
		}
	}
	if (slit->nr_localities > n)
		pr_info(PREFIX "SLIT has %u localities for %u proximity domains in use; the %u without a node are skipped",
			slit->nr_localities, n, slit->nr_localities - n);
	t->slit = true;
}

static void build_from_srat(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;

	b->srat_nr_cpus = srat->nr_cpus < ACPI_SRAT_MAX_CPUS ? srat->nr_cpus : ACPI_SRAT_MAX_CPUS;
	b->srat_nr_mems = srat->nr_mems < ACPI_SRAT_MAX_MEMS ? srat->nr_mems : ACPI_SRAT_MAX_MEMS;
	t->source = NUMA_SOURCE_SRAT;

	/* Everything that can make the SRAT untrusted comes first... */
	if (!build_domains(b) || !place_cpus(b) || !check_srat_ranges(b) ||
	    !intersect_map(b))
		return;
	/* ...then the repairs, each reported once. */
	warn_cpu_repairs(b);
	warn_orphans(b);
	warn_unaligned(b);
	warn_beyond_map(b);
	drop_empty_nodes(b);
	set_distances(b);
	finish(b);
}

/* ---- public ------------------------------------------------------------- */

int numa_build(struct numa_topology *topo, const struct numa_input *in)
{
	struct build b;

	ASSERT(topo && in && (in->map || in->nr_map == 0), "topo %p, in %p", (void *)topo,
	       (const void *)in);
	/* A normalized map is at most MEMBOOT_MAX_MAP_RANGES long, so all its
	 * usable ranges fit in ranges[] even on one node. */
	ASSERT(in->nr_map <= NUMA_MAX_RANGES, "map of %u ranges, more than %u", in->nr_map,
	       NUMA_MAX_RANGES);
	memset(topo, 0, sizeof(*topo));
	memset(&b, 0, sizeof(b));
	b.t = topo;
	b.in = in;

	build_cpus(&b);
	if (!in->srat)
		single_node(&b, NUMA_SOURCE_NONE, NULL);
	else
		build_from_srat(&b);
	return (int)topo->nr_warnings;
}

#define CHECK(cond, ...)                                       \
	do {                                                   \
		if (!(cond)) {                                 \
			pr_err(PREFIX "check: " __VA_ARGS__);  \
			return false;                          \
		}                                              \
	} while (0)

bool numa_check(const struct numa_topology *t, const struct mem_range *map, uint32_t nr_map)
{
	uint64_t sum = 0;
	uint32_t m = 0;

	CHECK(t->nr_nodes >= 1 && t->nr_nodes <= NUMA_MAX_NODES, "%u nodes", t->nr_nodes);
	CHECK(t->nr_cpus >= 1 && t->nr_cpus <= NUMA_MAX_CPUS, "%u CPUs", t->nr_cpus);
	CHECK(t->cpus[0].present, "cpu 0 (the boot CPU) is not present");
	CHECK(t->nr_ranges <= NUMA_MAX_RANGES, "%u ranges", t->nr_ranges);
	CHECK(t->nr_srat_ranges <= NUMA_MAX_SRAT_RANGES, "%u SRAT ranges", t->nr_srat_ranges);

	/* Memory: sorted, disjoint, merged, inside usable ranges, all of them. */
	for (uint32_t i = 0; i < t->nr_ranges; i++) {
		const struct numa_mem_range *r = &t->ranges[i];

		CHECK(r->start < r->end, "range %u [0x%llx, 0x%llx) is empty", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		CHECK(((r->start | r->end) & (PAGE_SIZE_BYTES - 1)) == 0,
		      "range %u [0x%llx, 0x%llx) is not page aligned", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		CHECK(r->node < t->nr_nodes, "range %u is on node %u of %u", i, r->node,
		      t->nr_nodes);
		if (i > 0) {
			const struct numa_mem_range *p = &t->ranges[i - 1];

			CHECK(p->end <= r->start, "ranges %u and %u overlap or are unsorted", i - 1, i);
			CHECK(p->end < r->start || p->node != r->node,
			      "ranges %u and %u touch on node %u: not merged", i - 1, i, r->node);
		}
		while (m < nr_map && map[m].end <= r->start)
			m++;
		CHECK(m < nr_map && map[m].type == MEM_USABLE &&
		      map[m].start <= r->start && r->end <= map[m].end,
		      "range %u [0x%llx, 0x%llx) is not inside one usable range of the map", i,
		      (unsigned long long)r->start, (unsigned long long)r->end);
		sum += r->end - r->start;
	}
	CHECK(sum == usable_bytes(map, nr_map), "nodes hold 0x%llx bytes, the map 0x%llx usable",
	      (unsigned long long)sum, (unsigned long long)usable_bytes(map, nr_map));
	CHECK(sum == t->mem_bytes, "mem_bytes 0x%llx, ranges sum to 0x%llx",
	      (unsigned long long)t->mem_bytes, (unsigned long long)sum);

	/* CPUs: distinct APIC IDs, each in exactly its node's mask. The masks
	 * hold nr_cpus bits in all and each CPU's own bit is set: then no CPU is
	 * in two masks and no bit lies beyond nr_cpus (linear, not CPUs times
	 * nodes: the check runs at every boot, with thousands of CPUs). */
	{
		uint64_t bits = 0;

		for (uint32_t n = 0; n < t->nr_nodes; n++)
			for (uint32_t w = 0; w < NUMA_MAX_CPUS / 64; w++)
				bits += (uint64_t)__builtin_popcountll(t->nodes[n].cpu_mask[w]);
		CHECK(bits == t->nr_cpus, "node masks hold %llu CPUs, the topology %u",
		      (unsigned long long)bits, t->nr_cpus);
	}
	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		CHECK(t->cpus[c].node < t->nr_nodes, "cpu %u is on node %u of %u", c,
		      t->cpus[c].node, t->nr_nodes);
		CHECK(t->nodes[t->cpus[c].node].cpu_mask[c / 64] >> (c % 64) & 1,
		      "cpu %u (node %u) is not in its node's mask", c, t->cpus[c].node);
		for (uint32_t d = 0; d < c; d++)
			CHECK(t->cpus[d].apic_id != t->cpus[c].apic_id,
			      "cpus %u and %u share APIC ID 0x%x", d, c, t->cpus[c].apic_id);
	}

	/* Per node: sums agree, mem_node has memory, distances are sane. */
	{
		bool any_mem = t->mem_bytes > 0;
		uint32_t present = 0;

		for (uint32_t n = 0; n < t->nr_nodes; n++) {
			const struct numa_node *node = &t->nodes[n];
			uint64_t bytes = 0, lo = 0, hi = 0;
			uint32_t nr = 0, cpus = 0, pres = 0;

			for (uint32_t i = 0; i < t->nr_ranges; i++) {
				if (t->ranges[i].node != n)
					continue;
				if (nr++ == 0)
					lo = t->ranges[i].start;
				hi = t->ranges[i].end;
				bytes += t->ranges[i].end - t->ranges[i].start;
			}
			for (uint32_t c = 0; c < t->nr_cpus; c++) {
				if (t->cpus[c].node == n) {
					cpus++;
					pres += t->cpus[c].present;
				}
			}
			present += pres;
			CHECK(node->mem_bytes == bytes && node->nr_ranges == nr &&
			      node->span_start == lo && node->span_end == hi,
			      "node %u: memory sums disagree with ranges", n);
			CHECK(node->nr_cpus == cpus && node->nr_present_cpus == pres,
			      "node %u: %u CPUs (%u present) counted, %u (%u) found", n,
			      node->nr_cpus, node->nr_present_cpus, cpus, pres);
			CHECK(node->mem_node < t->nr_nodes, "node %u: mem_node %u", n, node->mem_node);
			if (any_mem)
				CHECK(t->nodes[node->mem_node].mem_bytes > 0 &&
				      (bytes == 0 || node->mem_node == n),
				      "node %u: mem_node %u is wrong", n, node->mem_node);
			for (uint32_t j = 0; j < t->nr_nodes; j++) {
				uint8_t d = t->distance[n * t->nr_nodes + j];

				CHECK(n == j ? d == NUMA_LOCAL_DISTANCE : d > NUMA_LOCAL_DISTANCE,
				      "distance from node %u to %u is %u", n, j, d);
			}
		}
		CHECK(present == t->nr_present_cpus, "%u present CPUs counted, %u found",
		      t->nr_present_cpus, present);
	}
	return true;
}

#undef CHECK

uint32_t numa_node_of_addr(const struct numa_topology *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nr_ranges;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (addr < t->ranges[mid].start)
			hi = mid;
		else if (addr >= t->ranges[mid].end)
			lo = mid + 1;
		else
			return t->ranges[mid].node;
	}
	return NUMA_NO_NODE;
}

uint32_t numa_node_of_cpu(const struct numa_topology *t, uint32_t cpu)
{
	return cpu < t->nr_cpus ? t->cpus[cpu].node : NUMA_NO_NODE;
}

/* "srat", "none", "fallback". */
static const char *numa_source_name(uint32_t source)
{
	switch (source) {
	case NUMA_SOURCE_NONE:
		return "none";
	case NUMA_SOURCE_SRAT:
		return "srat";
	case NUMA_SOURCE_FALLBACK:
		return "fallback";
	default:
		return "unknown";
	}
}

/* ---- printing ----------------------------------------------------------- */

/* Matrices up to this size are printed whole (Linux prints them whole, but
 * 256 rows of 1 KiB would cost seconds on a serial line); larger ones are
 * summed up, and every `node` record still carries its row. */
#define DISTANCE_MATRIX_PRINT_LIMIT 16

static void print_distances(const struct numa_topology *t)
{
	/* "node" or "%3u:", then "%4u" per node. */
	char line[8 + 4 * DISTANCE_MATRIX_PRINT_LIMIT + 1];
	size_t len;

	if (t->nr_nodes > DISTANCE_MATRIX_PRINT_LIMIT) {
		uint8_t lo = 255, hi = 0;
		for (uint32_t i = 0; i < t->nr_nodes; i++)
			for (uint32_t j = 0; j < t->nr_nodes; j++) {
				uint8_t d = t->distance[i * t->nr_nodes + j];
				if (i != j && d < lo)
					lo = d;
				if (d > hi)
					hi = d;
			}
		pr_info(PREFIX "node distances (%s): %u nodes, 10 local, %u to %u remote (each node record has its row)",
			t->slit ? "SLIT" : "default", t->nr_nodes, lo, hi);
		return;
	}
	pr_info(PREFIX "node distances (%s):", t->slit ? "SLIT" : "default");
	len = (size_t)snprintf(line, sizeof(line), "node");
	for (uint32_t j = 0; j < t->nr_nodes; j++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%4u", j);
	pr_info("%s", line);
	for (uint32_t i = 0; i < t->nr_nodes; i++) {
		len = (size_t)snprintf(line, sizeof(line), "%3u:", i);
		for (uint32_t j = 0; j < t->nr_nodes; j++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%4u",
						t->distance[i * t->nr_nodes + j]);
		pr_info("%s", line);
	}
}

static void print_records(const struct numa_topology *t)
{
	struct record r;

	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		rec_begin(&r, "cpu");
		rec_u64(&r, "cpu", c);
		rec_u64(&r, "apic_id", t->cpus[c].apic_id);
		rec_u64(&r, "node", t->cpus[c].node);
		rec_bool(&r, "present", t->cpus[c].present);
		record_emit(&r);
	}
	for (uint32_t n = 0; n < t->nr_nodes; n++) {
		const struct numa_node *node = &t->nodes[n];

		rec_begin(&r, "node");
		rec_u64(&r, "node", n);
		if (node->pxm != NUMA_NO_PXM)
			rec_u64(&r, "pxm", node->pxm);
		rec_key(&r, "cpus");
		rec_open(&r, '[');
		for (uint32_t c = 0; c < t->nr_cpus; c++)
			if (t->cpus[c].node == n)
				rec_v_u64(&r, c);
		rec_close(&r);
		rec_key(&r, "mem");
		rec_open(&r, '[');
		for (uint32_t i = 0; i < t->nr_ranges; i++) {
			if (t->ranges[i].node != n)
				continue;
			rec_open(&r, '[');
			rec_v_hex(&r, t->ranges[i].start);
			rec_v_hex(&r, t->ranges[i].end);
			rec_close(&r);
		}
		rec_close(&r);
		rec_u64(&r, "mem_bytes", node->mem_bytes);
		rec_u64(&r, "mem_node", node->mem_node);
		rec_key(&r, "distance");
		rec_open(&r, '[');
		for (uint32_t j = 0; j < t->nr_nodes; j++)
			rec_v_u64(&r, t->distance[n * t->nr_nodes + j]);
		rec_close(&r);
		record_emit(&r);
	}
	rec_begin(&r, "numa");
	rec_u64(&r, "nodes", t->nr_nodes);
	rec_u64(&r, "cpus", t->nr_present_cpus);
	rec_u64(&r, "possible_cpus", t->nr_cpus);
	if (t->nr_unused_cpus)
		rec_u64(&r, "unused_cpus", t->nr_unused_cpus);
	rec_u64(&r, "mem_bytes", t->mem_bytes);
	rec_str(&r, "source", numa_source_name(t->source));
	if (t->fallback_reason)
		rec_str(&r, "reason", t->fallback_reason);
	rec_bool(&r, "slit", t->slit);
	rec_u64(&r, "warnings", t->nr_warnings);
	/* The summary closes the topology report, after the details. */
	record_report(&r, LOG_INFO,
		      t->source == NUMA_SOURCE_NONE ?
			      PREFIX "no SRAT: one node, {cpus} CPUs, {mem_bytes:MiB} MiB" :
		      t->source == NUMA_SOURCE_FALLBACK ?
			      PREFIX "fallback ({reason}): one node, {cpus} CPUs, {mem_bytes:MiB} MiB" :
			      PREFIX "SRAT: {nodes} nodes, {cpus} CPUs, {mem_bytes:MiB} MiB");
}

void numa_print(const struct numa_topology *t)
{
	ASSERT(t->nr_nodes >= 1 && t->nr_nodes <= NUMA_MAX_NODES, "%u nodes", t->nr_nodes);
	switch (t->source) {
	case NUMA_SOURCE_NONE:
	case NUMA_SOURCE_FALLBACK:
		break;   /* one node: the summary line says it all */
	default:
		for (uint32_t c = 0; c < t->nr_cpus; c++) {
			const struct numa_cpu *cpu = &t->cpus[c];

			if (cpu->from_srat)
				pr_info("SRAT: PXM %u -> APIC 0x%02x -> Node %u",
					t->nodes[cpu->node].pxm, cpu->apic_id, cpu->node);
		}
		for (uint32_t k = 0; k < t->nr_srat_ranges; k++) {
			const struct numa_srat_range *s = &t->srat[k];

			if (s->start >= s->end)
				continue;   /* less than a page, rounded away (warned) */
			if (s->node == NUMA_NO_NODE) {
				pr_info("SRAT: PXM %u [mem 0x%08llx-0x%08llx]%s%s: no node (nothing of it is usable memory, no CPU)",
					s->pxm, (unsigned long long)s->start,
					(unsigned long long)(s->end - 1), s->hotplug ? " hotplug" : "",
					s->nonvolatile ? " non-volatile" : "");
				continue;
			}
			pr_info("SRAT: Node %u PXM %u [mem 0x%08llx-0x%08llx]%s%s", s->node, s->pxm,
				(unsigned long long)s->start, (unsigned long long)(s->end - 1),
				s->hotplug ? " hotplug" : "", s->nonvolatile ? " non-volatile" : "");
		}
		break;
	}
	if (t->nr_cpus > t->nr_present_cpus)
		pr_info(PREFIX "%u more CPUs are online-capable, not present",
			t->nr_cpus - t->nr_present_cpus);
	for (uint32_t n = 0; n < t->nr_nodes; n++) {
		const struct numa_node *node = &t->nodes[n];

		if (node->mem_bytes)
			pr_info("Initmem setup node %u [mem 0x%016llx-0x%016llx]", n,
				(unsigned long long)node->span_start,
				(unsigned long long)(node->span_end - 1));
		else
			pr_info("Initmem setup node %u: memoryless, allocations from node %u", n,
				node->mem_node);
	}
	print_distances(t);
	print_records(t);
}

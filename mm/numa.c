/*
 * numa.c: the NUMA topology builder (pure C, host-tested): numa_build(),
 * the logical CPUs from the MADT, the one-node topology (no SRAT, or one not
 * trusted), the per-node sums every topology ends with, and the lookups on a
 * built topology.
 *
 * With an SRAT the nodes come from mm/numa_srat.c (domains, CPUs, SLIT) and
 * mm/numa_srat_mem.c (memory against the map); mm/numa_build.h is the state
 * they share. Elsewhere: numa_check() in mm/numa_check.c, numa_print() in
 * mm/numa_report.c, the balanced choice of CPUs in mm/numa_select.c.
 */
#include "mm/numa.h"

#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "mm/numa_build.h"

#define PREFIX "NUMA: "

/* Every range of a normalized map may be usable (holes separate them): the
 * whole map must fit on one node, whatever the SRAT says. numa_build()
 * asserts the map is no longer than that. */
_Static_assert(NUMA_MAX_RANGES >= MEMBOOT_MAX_MAP_RANGES, "the usable ranges of any map fit");
_Static_assert(NUMA_MAX_CPUS % 64 == 0, "cpu_mask is whole words");

/* ---- helpers ------------------------------------------------------------ */

bool numa_madt_find(const struct acpi_madt_info *madt, uint32_t hwid, uint32_t *idx)
{
	uint32_t n = madt->nr_cpus < ACPI_MADT_MAX_CPUS ? madt->nr_cpus : ACPI_MADT_MAX_CPUS;

	for (uint32_t i = 0; i < n; i++) {
		if (madt->cpus[i].hwid == hwid) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/* Pieces touching on one node are merged (mm/numa_build.h). */
bool numa_append_range(struct numa_topology *t, uint64_t start, uint64_t end, uint32_t node)
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

/* ---- CPUs --------------------------------------------------------------- */

static bool madt_cpu_usable(const struct acpi_cpu *c, uint32_t boot)
{
	return c->hwid != boot && (c->enabled || c->online_capable);
}

/*
 * The group of a MADT processor for the choice beyond NUMA_MAX_CPUS: its
 * SRAT proximity domain's index in @pxms (added when new), or the last
 * group for a CPU without an SRAT entry or past NUMA_MAX_NODES - 1 domains
 * (a table that large falls back to one node anyway).
 */
static uint32_t pxm_group(const struct build *b, uint32_t hwid, uint32_t *pxms,
			  uint32_t *nr_pxms)
{
	const struct acpi_srat_info *srat = b->in->srat;
	uint32_t n = srat ? (srat->nr_cpus < ACPI_SRAT_MAX_CPUS ? srat->nr_cpus : ACPI_SRAT_MAX_CPUS) : 0;

	for (uint32_t i = 0; i < n; i++) {
		if (srat->cpus[i].hwid != hwid)
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
	uint32_t boot = b->in->boot_hwid, idx, nr_madt, usable = 1;
	uint32_t pxms[NUMA_MAX_NODES], nr_pxms = 0;
	uint32_t count[NUMA_MAX_NODES] = { 0 }, quota[NUMA_MAX_NODES], taken[NUMA_MAX_NODES] = { 0 };
	bool choose;

	t->cpus[0] = (struct numa_cpu){ .hwid = boot, .present = true };
	t->nr_cpus = 1;
	if (!madt)
		return;     /* the ACPI layer has said the MADT is missing */
	if (numa_madt_find(madt, boot, &idx))
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
				count[pxm_group(b, madt->cpus[i].hwid, pxms, &nr_pxms)]++;
		numa_balanced_quota(count, NUMA_MAX_NODES, NUMA_MAX_CPUS, boot_group, quota);
		taken[boot_group] = 1;
	}
	for (uint32_t i = 0; i < nr_madt; i++) {
		const struct acpi_cpu *c = &madt->cpus[i];

		if (!madt_cpu_usable(c, boot))
			continue;
		if (choose) {
			uint32_t g = pxm_group(b, c->hwid, pxms, &nr_pxms);

			if (taken[g] == quota[g])
				continue;
			taken[g]++;
		}
		t->cpus[t->nr_cpus++] = (struct numa_cpu){
			.hwid = c->hwid, .acpi_uid = c->acpi_uid,
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

void numa_default_distances(struct numa_topology *t)
{
	for (uint32_t i = 0; i < t->nr_nodes; i++)
		for (uint32_t j = 0; j < t->nr_nodes; j++)
			t->distance[i * t->nr_nodes + j] =
				i == j ? NUMA_LOCAL_DISTANCE : NUMA_REMOTE_DISTANCE;
}

/* Node stats, CPU masks, mem_node; then the invariants are asserted. */
void numa_finish(struct build *b)
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
void numa_single_node(struct build *b, uint32_t source, const char *reason)
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
			bool ok = numa_append_range(t, r->start, r->end, 0);
			ASSERT(ok, "usable range %u of the map does not fit", i);
		}
	}
	numa_default_distances(t);
	numa_finish(b);
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
	if (!in->srat && in->dt)
		numa_build_from_dt(&b);
	else if (!in->srat)
		numa_single_node(&b, NUMA_SOURCE_NONE, NULL);
	else
		numa_build_from_srat(&b);
	return (int)topo->nr_warnings;
}

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

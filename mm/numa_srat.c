/*
 * numa_srat.c: the topology from the SRAT (mm/numa_build.h): its proximity
 * domains as nodes, each CPU's node, the SLIT's distances, and the order of
 * the steps; the memory affinity ranges are mm/numa_srat_mem.c's.
 *
 * Rules obeyed, from the ACPI specification (6.5, 5.2.16-17) and from what
 * Linux and FreeBSD do with real firmware (the rules for memory:
 * mm/numa_srat_mem.c):
 *  - a proximity domain is a number, not an index: domains are renumbered
 *    densely as they first appear (CPU affinity entries, then memory affinity
 *    entries, each in table order: the order the parser keeps them);
 *  - the SLIT is indexed by proximity domain; it is used only when it has
 *    exactly one locality per domain and a row for every domain;
 *  - a CPU the SRAT forgot goes to node 0 (as Linux does); an SRAT CPU the
 *    MADT does not list is ignored; if the SRAT places no CPU at all, it is
 *    not trusted.
 * Untrusted SRAT: one node, one warning saying why. Warnings that repair
 * something are printed only once the SRAT is known to be trusted, so a
 * fallback is never preceded by warnings about details it throws away.
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/log.h"
#include "mm/numa.h"
#include "mm/numa_build.h"

#define PREFIX "NUMA: "
#define STR_(x) #x
#define STR(x) STR_(x)
/* "10/20": the defaults named in warnings, from the one definition. */
#define DEFAULT_DISTANCES_TEXT STR(NUMA_LOCAL_DISTANCE) "/" STR(NUMA_REMOTE_DISTANCE)

/* ---- domains ------------------------------------------------------------ */

uint32_t numa_node_of_pxm(const struct numa_topology *t, uint32_t pxm)
{
	for (uint32_t n = 0; n < t->nr_nodes; n++)
		if (t->nodes[n].pxm == pxm)
			return n;
	return NUMA_NO_NODE;
}

/* Give @pxm a node if it has none; false if all nodes are taken. */
bool numa_add_domain(struct numa_topology *t, uint32_t pxm)
{
	if (numa_node_of_pxm(t, pxm) != NUMA_NO_NODE)
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

/* The SRAT is not trusted: one warning saying why, then one node. */
void numa_fall_back(struct build *b, const char *reason, const char *fmt, ...)
{
	char why[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	NUMA_WARN(b->t, PREFIX "%s; SRAT not trusted, falling back to one node", why);
	numa_single_node(b, NUMA_SOURCE_FALLBACK, reason);
}

/* Nodes for every domain; false (after falling back) if that fails. */
static bool build_domains(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;
	const struct acpi_madt_info *madt = b->in->madt;
	bool overflow = false;

	for (uint32_t i = 0; i < b->srat_nr_cpus; i++) {
		uint32_t hwid = srat->cpus[i].hwid, idx;

		if (hwid == b->in->boot_hwid || (madt && numa_madt_find(madt, hwid, &idx))) {
			b->srat_cpu_known[i / 64] |= 1ULL << (i % 64);
			overflow |= !numa_add_domain(t, srat->cpus[i].pxm);
		} else if (b->nr_unknown++ == 0) {
			b->first_unknown = i;
		}
	}
	for (uint32_t i = 0; i < b->srat_nr_mems; i++)
		overflow |= !numa_add_domain(t, srat->mems[i].pxm);

	if (overflow) {
		numa_fall_back(b, "too-many-domains",
			       "SRAT names %u proximity domains, more than %u nodes",
			       count_domains(b), NUMA_MAX_NODES);
		return false;
	}
	if (t->nr_nodes == 0) {
		numa_fall_back(b, "srat-empty", "SRAT has no enabled CPU or memory affinity entry");
		return false;
	}
	return true;
}

/* ---- CPUs --------------------------------------------------------------- */

/* Each CPU's node from its SRAT entry; false (after falling back) if none has one. */
static bool place_cpus(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;

	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		struct numa_cpu *cpu = &t->cpus[c];
		uint32_t i;

		for (i = 0; i < b->srat_nr_cpus; i++)
			if (srat->cpus[i].hwid == cpu->hwid)
				break;
		if (i < b->srat_nr_cpus) {
			cpu->node = numa_node_of_pxm(t, srat->cpus[i].pxm);
			cpu->from_srat = true;
			cpu->srat_gicc = srat->cpus[i].gicc;
		} else {
			cpu->node = 0;
			if (b->nr_missing++ == 0)
				b->first_missing = c;
		}
	}
	if (b->nr_missing == t->nr_cpus) {
		numa_fall_back(b, "no-cpu-affinity",
			       "SRAT has no CPU affinity entry for any of the %u CPUs of the MADT",
			       t->nr_cpus);
		return false;
	}
	return true;
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
			b->nr_unknown, srat->cpus[b->first_unknown].hwid, disabled);
	else if (b->nr_unknown == 1)
		NUMA_WARN(t, PREFIX "SRAT: CPU affinity for APIC ID 0x%x (PXM %u) names no MADT processor; ignored",
			  srat->cpus[b->first_unknown].hwid, srat->cpus[b->first_unknown].pxm);
	else if (b->nr_unknown > 1)
		NUMA_WARN(t, PREFIX "SRAT: %u CPU affinity entries name no MADT processor (first APIC ID 0x%x, PXM %u); ignored",
			  b->nr_unknown, srat->cpus[b->first_unknown].hwid,
			  srat->cpus[b->first_unknown].pxm);
	if (b->nr_missing == 1)
		NUMA_WARN(t, PREFIX "SRAT: no CPU affinity for APIC ID 0x%x (cpu %u); put on node 0",
			  t->cpus[b->first_missing].hwid, b->first_missing);
	else if (b->nr_missing > 1)
		NUMA_WARN(t, PREFIX "SRAT: no CPU affinity for %u CPUs (first APIC ID 0x%x, cpu %u); put on node 0",
			  b->nr_missing, t->cpus[b->first_missing].hwid, b->first_missing);
}

/* ---- the SLIT ----------------------------------------------------------- */

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

	numa_default_distances(t);
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
				numa_default_distances(t);
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

/* ---- the order ---------------------------------------------------------- */

void numa_build_from_srat(struct build *b)
{
	struct numa_topology *t = b->t;
	const struct acpi_srat_info *srat = b->in->srat;

	b->srat_nr_cpus = srat->nr_cpus < ACPI_SRAT_MAX_CPUS ? srat->nr_cpus : ACPI_SRAT_MAX_CPUS;
	b->srat_nr_mems = srat->nr_mems < ACPI_SRAT_MAX_MEMS ? srat->nr_mems : ACPI_SRAT_MAX_MEMS;
	t->source = NUMA_SOURCE_SRAT;

	/* Everything that can make the SRAT untrusted comes first... */
	if (!build_domains(b) || !place_cpus(b) || !numa_srat_place_memory(b))
		return;
	/* ...then the repairs, each reported once. */
	warn_cpu_repairs(b);
	numa_srat_memory_repairs(b);
	set_distances(b);
	numa_finish(b);
}

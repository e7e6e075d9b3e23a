/*
 * tiers.c: memory tiers and CPU-less nodes' initialisers (mm/tiers.h).
 */
#include "mm/tiers.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

#define PREFIX "tiers: "
#define MAX_INITIATORS 256

static uint32_t node_of_pxm(const struct numa_topology *topo, uint32_t pxm)
{
	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		if (topo->nodes[n].pxm == pxm)
			return n;
	return NUMA_NO_NODE;
}

static bool has_cpus(const struct numa_topology *topo, uint32_t node)
{
	return node < topo->nr_nodes && topo->nodes[node].nr_present_cpus > 0;
}

/* One initiator's figures toward one target, in the units of the table. */
struct figures {
	uint32_t pxm;
	uint64_t v[ACPI_HMAT_NR_DATA_TYPES];
	bool set[ACPI_HMAT_NR_DATA_TYPES];
};

static uint64_t pick(const struct figures *f, uint8_t specific, uint8_t access)
{
	return f->set[specific] ? f->v[specific] : f->set[access] ? f->v[access] : 0;
}

static uint32_t ns_of_ps(uint64_t ps)
{
	uint64_t ns = ps / 1000 + (ps % 1000 != 0);
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static uint32_t clip32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Is @a a better initiator than @b: lower read latency (a figure beats
 * none), then higher read bandwidth, then the lower domain. */
static bool better(const struct figures *a, const struct figures *b)
{
	uint64_t la = pick(a, ACPI_HMAT_READ_LATENCY, ACPI_HMAT_ACCESS_LATENCY);
	uint64_t lb = pick(b, ACPI_HMAT_READ_LATENCY, ACPI_HMAT_ACCESS_LATENCY);
	uint64_t ba = pick(a, ACPI_HMAT_READ_BANDWIDTH, ACPI_HMAT_ACCESS_BANDWIDTH);
	uint64_t bb = pick(b, ACPI_HMAT_READ_BANDWIDTH, ACPI_HMAT_ACCESS_BANDWIDTH);

	if ((la != 0) != (lb != 0))
		return la != 0;
	if (la != lb)
		return la < lb;
	if (ba != bb)
		return ba > bb;
	return a->pxm < b->pxm;
}

static void best_initiator(const struct numa_topology *topo, const struct acpi_hmat_info *hmat,
			   uint32_t target_pxm, bool cpu_only, struct node_perf *out)
{
	static struct figures f[MAX_INITIATORS];
	uint32_t nr = 0, attached = NUMA_NO_PXM;
	int best = -1;

	memset(out, 0, sizeof(*out));
	out->initiator_node = NUMA_NO_NODE;
	for (uint32_t i = 0; i < hmat->nr_domains; i++)
		if (hmat->domains[i].memory_pxm == target_pxm && hmat->domains[i].initiator_valid)
			attached = hmat->domains[i].initiator_pxm;
	for (uint32_t i = 0; i < hmat->nr_values; i++) {
		const struct acpi_hmat_value *v = &hmat->values[i];
		uint32_t k;

		if (v->target_pxm != target_pxm || v->hierarchy != ACPI_HMAT_HIERARCHY_MEMORY ||
		    v->data_type >= ACPI_HMAT_NR_DATA_TYPES)
			continue;
		if (cpu_only && !has_cpus(topo, node_of_pxm(topo, v->initiator_pxm)))
			continue;
		for (k = 0; k < nr && f[k].pxm != v->initiator_pxm; k++)
			;
		if (k == nr) {
			if (nr == MAX_INITIATORS)
				continue;
			memset(&f[nr], 0, sizeof(f[nr]));
			f[nr++].pxm = v->initiator_pxm;
		}
		if (!f[k].set[v->data_type]) {   /* the first structure's figure wins */
			f[k].set[v->data_type] = true;
			f[k].v[v->data_type] = v->value;
		}
	}
	for (uint32_t k = 0; k < nr; k++) {
		if (f[k].pxm == attached) {
			best = (int)k;
			out->attached = true;
			break;
		}
		if (best < 0 || better(&f[k], &f[best]))
			best = (int)k;
	}
	if (best < 0)
		return;
	out->have = true;
	out->initiator_pxm = f[best].pxm;
	out->initiator_node = node_of_pxm(topo, f[best].pxm);
	out->read_latency_ns = ns_of_ps(pick(&f[best], ACPI_HMAT_READ_LATENCY, ACPI_HMAT_ACCESS_LATENCY));
	out->write_latency_ns = ns_of_ps(pick(&f[best], ACPI_HMAT_WRITE_LATENCY, ACPI_HMAT_ACCESS_LATENCY));
	out->read_bandwidth_mbs = clip32(pick(&f[best], ACPI_HMAT_READ_BANDWIDTH,
					      ACPI_HMAT_ACCESS_BANDWIDTH));
	out->write_bandwidth_mbs = clip32(pick(&f[best], ACPI_HMAT_WRITE_BANDWIDTH,
					       ACPI_HMAT_ACCESS_BANDWIDTH));
}

static bool complete(const struct node_perf *p)
{
	return p->have && (uint64_t)p->read_latency_ns + p->write_latency_ns != 0 &&
	       (uint64_t)p->read_bandwidth_mbs + p->write_bandwidth_mbs != 0;
}

/* Linux's check that DRAM nodes agree: each figure within 10 % of the
 * reference's. */
static bool within_tenth(uint32_t v, uint32_t ref)
{
	uint64_t d = v > ref ? (uint64_t)v - ref : (uint64_t)ref - v;
	return d * 10 <= ref;
}

static bool same_dram(const struct node_perf *a, const struct node_perf *ref)
{
	return within_tenth(a->read_latency_ns, ref->read_latency_ns) &&
	       within_tenth(a->write_latency_ns, ref->write_latency_ns) &&
	       within_tenth(a->read_bandwidth_mbs, ref->read_bandwidth_mbs) &&
	       within_tenth(a->write_bandwidth_mbs, ref->write_bandwidth_mbs);
}

static void choose_reference(struct mem_tiers *t, const struct numa_topology *topo)
{
	t->dram_ref_node = -1;
	t->no_ref_reason = t->have_hmat ? "no-dram-figures" : "no-hmat";
	if (!t->have_hmat)
		return;
	for (uint32_t n = 0; n < topo->nr_nodes; n++) {
		if (!has_cpus(topo, n) || !topo->nodes[n].mem_bytes || !complete(&t->cpu_perf[n]))
			continue;
		if (t->dram_ref_node < 0) {
			t->dram_ref_node = (int32_t)n;
			t->no_ref_reason = NULL;
			continue;
		}
		if (!same_dram(&t->cpu_perf[n], &t->cpu_perf[t->dram_ref_node])) {
			pr_warn(PREFIX "node %u's DRAM figures (%u/%u ns, %u/%u MB/s) differ by more than 10%% from node %d's: every node is DRAM's tier, as Linux makes it",
				n, t->cpu_perf[n].read_latency_ns, t->cpu_perf[n].write_latency_ns,
				t->cpu_perf[n].read_bandwidth_mbs, t->cpu_perf[n].write_bandwidth_mbs,
				t->dram_ref_node);
			t->dram_ref_node = -1;
			t->no_ref_reason = "dram-mismatch";
			return;
		}
	}
}

static uint32_t adistance_of(const struct mem_tiers *t, const struct numa_topology *topo,
			     uint32_t n)
{
	const struct node_perf *p = &t->cpu_perf[n], *ref;
	uint64_t a;

	if (has_cpus(topo, n) || t->dram_ref_node < 0 || !complete(p))
		return TIERS_ADISTANCE_DRAM;
	ref = &t->cpu_perf[t->dram_ref_node];
	/* Linux's order of operations, in 64 bits. */
	a = (uint64_t)TIERS_ADISTANCE_DRAM * ((uint64_t)p->read_latency_ns + p->write_latency_ns) /
	    ((uint64_t)ref->read_latency_ns + ref->write_latency_ns) *
	    ((uint64_t)ref->read_bandwidth_mbs + ref->write_bandwidth_mbs) /
	    ((uint64_t)p->read_bandwidth_mbs + p->write_bandwidth_mbs);
	return a > INT32_MAX ? INT32_MAX : (uint32_t)a;
}

static void choose_init_node(struct mem_tiers *t, const struct numa_topology *topo, uint32_t n)
{
	uint32_t best = NUMA_NO_NODE;

	t->init_node[n] = n;
	t->init_by[n] = TIERS_INIT_OWN;
	if (has_cpus(topo, n))
		return;
	if (!topo->nodes[n].mem_bytes) {
		t->init_by[n] = TIERS_INIT_NONE;
		return;
	}
	if (t->cpu_perf[n].have && has_cpus(topo, t->cpu_perf[n].initiator_node)) {
		t->init_node[n] = t->cpu_perf[n].initiator_node;
		t->init_by[n] = TIERS_INIT_HMAT;
		return;
	}
	for (uint32_t m = 0; m < topo->nr_nodes; m++) {
		if (!has_cpus(topo, m))
			continue;
		if (best == NUMA_NO_NODE ||
		    topo->distance[n * topo->nr_nodes + m] < topo->distance[n * topo->nr_nodes + best])
			best = m;
	}
	if (best == NUMA_NO_NODE) {
		t->init_by[n] = TIERS_INIT_NONE;   /* the boot CPU does it */
		return;
	}
	t->init_node[n] = best;
	t->init_by[n] = TIERS_INIT_DISTANCE;
}

void tiers_build(struct mem_tiers *t, const struct numa_topology *topo,
		 const struct acpi_hmat_info *hmat)
{
	uint32_t seen[NUMA_MAX_NODES], nr_seen = 0;

	/* The nodes there are, not NUMA_MAX_NODES of them: this runs before
	 * memory is usable. */
	t->have_hmat = hmat != NULL;
	t->nr_tiers = 0;
	for (uint32_t n = 0; n < topo->nr_nodes; n++) {
		const uint32_t pxm = topo->nodes[n].pxm;

		memset(&t->perf[n], 0, sizeof(t->perf[n]));
		memset(&t->cpu_perf[n], 0, sizeof(t->cpu_perf[n]));
		t->perf[n].initiator_node = t->cpu_perf[n].initiator_node = NUMA_NO_NODE;
		t->cache_bytes[n] = 0;
		t->adistance[n] = 0;

		if (!hmat || pxm == NUMA_NO_PXM || !topo->nodes[n].mem_bytes)
			continue;
		best_initiator(topo, hmat, pxm, false, &t->perf[n]);
		best_initiator(topo, hmat, pxm, true, &t->cpu_perf[n]);
		for (uint32_t i = 0; i < hmat->nr_caches; i++)
			if (hmat->caches[i].memory_pxm == pxm)
				t->cache_bytes[n] += hmat->caches[i].size_bytes;
	}
	choose_reference(t, topo);
	for (uint32_t n = 0; n < topo->nr_nodes; n++) {
		uint32_t k;

		choose_init_node(t, topo, n);
		if (!topo->nodes[n].mem_bytes) {
			t->tier[n] = TIERS_NO_TIER;
			continue;
		}
		t->adistance[n] = adistance_of(t, topo, n);
		t->tier[n] = t->adistance[n] >> TIERS_CHUNK_BITS;
		for (k = 0; k < nr_seen && seen[k] != t->tier[n]; k++)
			;
		if (k == nr_seen)
			seen[nr_seen++] = t->tier[n];
	}
	t->nr_tiers = nr_seen;
}

const char *tiers_init_by_name(uint8_t by)
{
	switch (by) {
	case TIERS_INIT_OWN: return "own";
	case TIERS_INIT_HMAT: return "hmat";
	case TIERS_INIT_DISTANCE: return "distance";
	default: return "none";
	}
}

static void report_generic(const struct acpi_srat_generic *g)
{
	char handle[40];
	struct record r;

	if (g->handle_type == 0)
		snprintf(handle, sizeof(handle), "ACPI %s:%u", g->acpi_hid, g->acpi_uid);
	else
		snprintf(handle, sizeof(handle), "PCI %04x:%02x:%02x.%u", g->pci_segment,
			 g->pci_bdf >> 8, (g->pci_bdf >> 3) & 0x1f, g->pci_bdf & 7);
	rec_begin(&r, "srat_generic");
	rec_str(&r, "kind", g->type == 5 ? "initiator" : "port");
	rec_u64(&r, "pxm", g->pxm);
	rec_str(&r, "device", handle);
	rec_bool(&r, "architectural", g->architectural);
	record_report(&r, LOG_INFO, "SRAT: generic {kind} PXM {pxm}: {device}");
}

static void report_node(const struct numa_topology *topo, const struct mem_tiers *t, uint32_t n)
{
	const struct node_perf *p = &t->perf[n];
	struct record r;

	rec_begin(&r, "node_perf");
	rec_u64(&r, "node", n);
	rec_i64(&r, "pxm", topo->nodes[n].pxm == NUMA_NO_PXM ? -1 : (int64_t)topo->nodes[n].pxm);
	rec_u64(&r, "cpus", topo->nodes[n].nr_present_cpus);
	rec_u64(&r, "tier", t->tier[n]);
	rec_u64(&r, "adistance", t->adistance[n]);
	rec_bool(&r, "hmat", p->have);
	rec_i64(&r, "initiator_node", p->have && p->initiator_node != NUMA_NO_NODE ?
		(int64_t)p->initiator_node : -1);
	rec_i64(&r, "initiator_pxm", p->have ? (int64_t)p->initiator_pxm : -1);
	rec_u64(&r, "read_latency_ns", p->read_latency_ns);
	rec_u64(&r, "write_latency_ns", p->write_latency_ns);
	rec_u64(&r, "read_bandwidth_mbs", p->read_bandwidth_mbs);
	rec_u64(&r, "write_bandwidth_mbs", p->write_bandwidth_mbs);
	rec_u64(&r, "cache_bytes", t->cache_bytes[n]);
	rec_u64(&r, "init_node", t->init_node[n]);
	rec_str(&r, "init_by", tiers_init_by_name(t->init_by[n]));
	if (p->have)
		record_report(&r, LOG_INFO, "tiers: node {node} ({cpus} CPU{cpus:s}): memory_tier{tier} "
			      "(adistance {adistance}); from PXM {initiator_pxm}: read latency "
			      "{read_latency_ns:given ns}, write latency {write_latency_ns:given ns}, "
			      "read bandwidth {read_bandwidth_mbs:given MB/s}, write bandwidth "
			      "{write_bandwidth_mbs:given MB/s}; memory-side cache {cache_bytes:MiB} MiB; "
			      "initialised by node {init_node}'s CPUs ({init_by})");
	else
		record_report(&r, LOG_INFO, "tiers: node {node} ({cpus} CPU{cpus:s}): memory_tier{tier} "
			      "(adistance {adistance}, no HMAT figures); initialised by node "
			      "{init_node}'s CPUs ({init_by})");
}

void tiers_report(const struct mem_tiers *t, const struct numa_topology *topo,
		  const struct acpi_hmat_info *hmat, uint32_t hmat_warnings,
		  const struct acpi_srat_info *srat)
{
	struct record r;

	for (uint32_t i = 0; srat && i < srat->nr_generic; i++)
		report_generic(&srat->generic[i]);
	if (hmat) {
		rec_begin(&r, "hmat");
		rec_u64(&r, "revision", hmat->revision);
		rec_u64(&r, "domains", hmat->nr_domains);
		rec_u64(&r, "lb_structures", hmat->nr_lb);
		rec_u64(&r, "figures", hmat->nr_values);
		rec_u64(&r, "caches", hmat->nr_caches);
		rec_u64(&r, "warnings", hmat_warnings);
		rec_bool(&r, "truncated", hmat->truncated);
		rec_i64(&r, "dram_ref_node", t->dram_ref_node);
		rec_str(&r, "no_ref_reason", t->no_ref_reason ? t->no_ref_reason : "");
		rec_u64(&r, "tiers", t->nr_tiers);
		record_report(&r, LOG_INFO, t->dram_ref_node >= 0 ?
			      "HMAT: revision {revision}: {domains} memory domain attributes, "
			      "{lb_structures} latency/bandwidth structures ({figures} figures), "
			      "{caches} memory-side caches; {tiers} tier{tiers:s}, DRAM reference node {dram_ref_node}" :
			      "HMAT: revision {revision}: {domains} memory domain attributes, "
			      "{lb_structures} latency/bandwidth structures ({figures} figures), "
			      "{caches} memory-side caches; {tiers} tier{tiers:s}, no DRAM reference node "
			      "({no_ref_reason})");
	}
	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		if (topo->nodes[n].mem_bytes)
			report_node(topo, t, n);
}

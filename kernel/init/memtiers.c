/*
 * memtiers.c: phase "tiers" (kernel/init/memtiers.h).
 */
#include "kernel/init/memtiers.h"

#include <stdio.h>
#include <string.h>

#include "kernel/console.h"
#include "kernel/log.h"
#include "kernel/record.h"

/* What the deferred report reads: the phase's inputs, unchanged after it. */
struct tiers_report {
	const struct discovered_acpi *acpi;
	const struct numa_topology *topo;
	const struct mem_tiers *tiers;
	uint32_t hmat_warnings;
};
static struct tiers_report reported;

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
			      "(adistance {adistance}); from PXM {initiator_pxm}: read {read_latency_ns} ns, "
			      "write {write_latency_ns} ns, read {read_bandwidth_mbs} MB/s, write "
			      "{write_bandwidth_mbs} MB/s; memory-side cache {cache_bytes:MiB} MiB; "
			      "initialised by node {init_node}'s CPUs ({init_by})");
	else
		record_report(&r, LOG_INFO, "tiers: node {node} ({cpus} CPU{cpus:s}): memory_tier{tier} "
			      "(adistance {adistance}, no HMAT figures); initialised by node "
			      "{init_node}'s CPUs ({init_by})");
}

static void report_now(void *arg)
{
	const struct tiers_report *rep = arg;
	const struct discovered_acpi *acpi = rep->acpi;
	const struct mem_tiers *t = rep->tiers;
	struct record r;

	for (uint32_t i = 0; acpi->have_srat && i < acpi->srat.nr_generic; i++)
		report_generic(&acpi->srat.generic[i]);
	if (acpi->have_hmat) {
		rec_begin(&r, "hmat");
		rec_u64(&r, "revision", acpi->hmat.revision);
		rec_u64(&r, "domains", acpi->hmat.nr_domains);
		rec_u64(&r, "lb_structures", acpi->hmat.nr_lb);
		rec_u64(&r, "figures", acpi->hmat.nr_values);
		rec_u64(&r, "caches", acpi->hmat.nr_caches);
		rec_u64(&r, "warnings", rep->hmat_warnings);
		rec_bool(&r, "truncated", acpi->hmat.truncated);
		rec_i64(&r, "dram_ref_node", t->dram_ref_node);
		rec_str(&r, "no_ref_reason", t->no_ref_reason ? t->no_ref_reason : "");
		rec_u64(&r, "tiers", t->nr_tiers);
		record_report(&r, LOG_INFO, "HMAT: revision {revision}: {domains} memory domain attributes, "
			      "{lb_structures} latency/bandwidth structures ({figures} figures), "
			      "{caches} memory-side caches; {tiers} tier{tiers:s}, DRAM reference node {dram_ref_node}");
	}
	for (uint32_t n = 0; n < rep->topo->nr_nodes; n++)
		if (rep->topo->nodes[n].mem_bytes)
			report_node(rep->topo, t, n);
}

void discover_tiers(const struct discovered_acpi *acpi, struct numa_topology *topo,
		    struct mem_tiers *tiers)
{
	uint32_t warnings = 0;

	if (acpi->have_hmat)
		warnings = acpi_hmat_check(&acpi->hmat, acpi->have_srat ? &acpi->srat : NULL);
	tiers_build(tiers, topo, acpi->have_hmat ? &acpi->hmat : NULL);
	for (uint32_t n = 0; n < topo->nr_nodes; n++)
		topo->nodes[n].init_node = tiers->init_node[n];
	reported = (struct tiers_report){ acpi, topo, tiers, warnings };
	console_defer(report_now, &reported,
		      2 * ((size_t)topo->nr_nodes + acpi->srat.nr_generic + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

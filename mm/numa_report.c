/*
 * numa_report.c: numa_print(), the topology numa_build() made as Linux
 * prints it (the "SRAT: " and "Initmem setup" lines, the distance matrix),
 * then its records: "cpu", "node" and "numa" (docs/records.md).
 */
#include "mm/numa.h"

#include <stdio.h>

#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"

#define PREFIX "NUMA: "

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
	case NUMA_SOURCE_DT:
		return "dt";
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
			t->slit ? "SLIT" : t->dt_distances ? "device tree" : "default", t->nr_nodes, lo, hi);
		return;
	}
	pr_info(PREFIX "node distances (%s):",
		t->slit ? "SLIT" : t->dt_distances ? "device tree" : "default");
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
		rec_u64(&r, "apic_id", t->cpus[c].hwid);
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
		      t->source == NUMA_SOURCE_DT ?
			      PREFIX "device tree: {nodes} nodes, {cpus} CPUs, {mem_bytes:MiB} MiB" :
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

			/* Linux's lines, each CPU by the id its SRAT entry
			 * names: a GICC affinity's (arm64) is an MPIDR. */
			if (cpu->from_srat && cpu->srat_gicc)
				pr_info("SRAT: PXM %u -> MPIDR 0x%x -> Node %u",
					t->nodes[cpu->node].pxm, cpu->hwid, cpu->node);
			else if (cpu->from_srat)
				pr_info("SRAT: PXM %u -> APIC 0x%02x -> Node %u",
					t->nodes[cpu->node].pxm, cpu->hwid, cpu->node);
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

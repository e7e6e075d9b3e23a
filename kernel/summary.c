/*
 * summary.c: the closing table (summary.h).
 */
#include "kernel/summary.h"

#include <stdbool.h>
#include <stdio.h>

#include "kernel/log.h"

struct node_row {
	bool known, inited;
	uint32_t cpus, threads;
	uint64_t mem_bytes, pages, ns;
	const char *policy;
};

static struct node_row nodes[SUMMARY_MAX_NODES];
static struct {
	const char *name;
	uint64_t ns;
} phases[SUMMARY_MAX_PHASES];
static unsigned nr_phases;

void summary_node_topology(uint32_t node, uint32_t cpus, uint64_t mem_bytes)
{
	if (node >= SUMMARY_MAX_NODES)
		return;
	nodes[node].known = true;
	nodes[node].cpus = cpus;
	nodes[node].mem_bytes = mem_bytes;
}

void summary_node_init(uint32_t node, const char *policy, uint32_t threads, uint64_t pages,
		       uint64_t ns)
{
	if (node >= SUMMARY_MAX_NODES)
		return;
	nodes[node].known = true;
	nodes[node].inited = true;
	nodes[node].policy = policy;
	nodes[node].threads = threads;
	nodes[node].pages = pages;
	nodes[node].ns = ns;
}

void summary_phase(const char *name, uint64_t ns)
{
	if (nr_phases < SUMMARY_MAX_PHASES)
		phases[nr_phases++] = (typeof(phases[0])){ name, ns };
}

void summary_print(void)
{
	char line[160];
	uint64_t total_ns = 0;
	size_t n = 0;

	pr_info("summary: node cpus     MiB init     thr     pages    init ms");
	for (uint32_t i = 0; i < SUMMARY_MAX_NODES; i++) {
		const struct node_row *r = &nodes[i];
		if (!r->known)
			continue;
		if (r->inited)
			pr_info("summary: %4u %4u %7llu %-8s %3u %9llu %6llu.%03llu", i, r->cpus,
				(unsigned long long)(r->mem_bytes >> 20), r->policy, r->threads,
				(unsigned long long)r->pages, (unsigned long long)(r->ns / 1000000),
				(unsigned long long)(r->ns / 1000 % 1000));
		else
			pr_info("summary: %4u %4u %7llu (no init)", i, r->cpus,
				(unsigned long long)(r->mem_bytes >> 20));
	}
	/* Phases two to a line, so a line fits the 80 columns of VGA text. */
	for (unsigned i = 0; i < nr_phases; i++) {
		total_ns += phases[i].ns;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%-10s %6llu.%03llu ms",
				      n ? "  " : "", phases[i].name,
				      (unsigned long long)(phases[i].ns / 1000000),
				      (unsigned long long)(phases[i].ns / 1000 % 1000));
		if (i % 2 == 1 || i + 1 == nr_phases || n >= sizeof(line)) {
			pr_info("summary: %s", line);
			n = 0;
		}
	}
	pr_info("summary: phases total %llu.%03llu ms", (unsigned long long)(total_ns / 1000000),
		(unsigned long long)(total_ns / 1000 % 1000));
}

/*
 * summary.c: the closing table (summary.h).
 */
#include "kernel/services/report/summary.h"

#include <stdbool.h>
#include <stdio.h>

#include "arch/counter.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/clock/time.h"

struct node_row {
	bool known, inited, unreliable;
	uint32_t cpus, threads;
	uint64_t mem_bytes, pages, ns;
	const char *policy;
};

static struct node_row nodes[SUMMARY_MAX_NODES];
static struct {
	const char *name;
	uint64_t ns;
	uint64_t ap_busy_ns, ap_idle_ns;
} phases[SUMMARY_MAX_PHASES];
static unsigned nr_phases;
static uint64_t usable_ns;
static bool usable_reliable = true;
static bool phases_in_ns;

void summary_usable(uint64_t ns, bool reliable)
{
	usable_ns = ns;
	usable_reliable = reliable;
}

uint64_t summary_usable_ns(void)
{
	return usable_ns;
}

bool summary_usable_reliable(void)
{
	return usable_reliable;
}

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

void summary_node_unreliable(uint32_t node)
{
	if (node < SUMMARY_MAX_NODES)
		nodes[node].unreliable = true;
}

void summary_phase(const char *name, uint64_t cycles, uint64_t ap_busy_cycles,
		   uint64_t ap_idle_cycles)
{
	if (nr_phases < SUMMARY_MAX_PHASES)
		phases[nr_phases++] = (typeof(phases[0])){ name, cycles, ap_busy_cycles,
							   ap_idle_cycles };
}

void summary_print(uint64_t total_ns)
{
	char line[160];
	uint64_t in_phases_ns = 0, outside_ns;
	unsigned order[SUMMARY_MAX_PHASES], listed;
	struct record rec;
	size_t n = 0;

	pr_info("summary: node cpus     MiB init     thr     pages    init ms");
	for (uint32_t i = 0; i < SUMMARY_MAX_NODES; i++) {
		const struct node_row *r = &nodes[i];
		if (!r->known)
			continue;
		if (r->inited && r->unreliable)
			pr_info("summary: %4u %4u %7llu %-8s %3u %9llu unreliable", i, r->cpus,
				(unsigned long long)(r->mem_bytes >> 20), r->policy, r->threads,
				(unsigned long long)r->pages);
		else if (r->inited)
			pr_info("summary: %4u %4u %7llu %-8s %3u %9llu %6llu.%03llu", i, r->cpus,
				(unsigned long long)(r->mem_bytes >> 20), r->policy, r->threads,
				(unsigned long long)r->pages, (unsigned long long)(r->ns / 1000000),
				(unsigned long long)(r->ns / 1000 % 1000));
		else
			pr_info("summary: %4u %4u %7llu (no init)", i, r->cpus,
				(unsigned long long)(r->mem_bytes >> 20));
	}
	/* Kept as counter cycles (a phase may end before the clock's precise
	 * figure is known): nanoseconds now, with the figure in force. */
	if (!phases_in_ns) {
		for (unsigned i = 0; i < nr_phases; i++) {
			phases[i].ns = cycles_to_ns(phases[i].ns);
			phases[i].ap_busy_ns = cycles_to_ns(phases[i].ap_busy_ns);
			phases[i].ap_idle_ns = cycles_to_ns(phases[i].ap_idle_ns);
		}
		phases_in_ns = true;
	}
	/* Longest first (insertion sort; ties keep boot order). */
	for (unsigned i = 0; i < nr_phases; i++) {
		unsigned j = i;
		in_phases_ns += phases[i].ns;
		while (j > 0 && phases[order[j - 1]].ns < phases[i].ns) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	/* Phases two to a line, so a line fits an 80-column text screen. */
	for (unsigned k = 0; k < nr_phases; k++) {
		uint64_t ns = phases[order[k]].ns;
		uint64_t permille = total_ns ? ns * 1000 / total_ns : 0;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%-10s %4llu.%03llu ms %2llu%%",
				      n ? "  " : "", phases[order[k]].name,
				      (unsigned long long)(ns / 1000000),
				      (unsigned long long)(ns / 1000 % 1000),
				      (unsigned long long)((permille + 5) / 10));
		if (k % 2 == 1 || k + 1 == nr_phases || n >= sizeof(line)) {
			pr_info("summary: %s", line);
			n = 0;
		}
	}
	outside_ns = total_ns > in_phases_ns ? total_ns - in_phases_ns : 0;
	rec_begin(&rec, "summary");
	rec_u64(&rec, "total_ns", total_ns);
	rec_u64(&rec, "outside_ns", outside_ns);
	rec_u64(&rec, "phases_ns", in_phases_ns);
	rec_u64(&rec, "usable_ns", usable_ns);
	if (!usable_reliable)
		rec_bool(&rec, "usable_reliable", false);
	rec_key(&rec, "phases");
	rec_open(&rec, '[');
	for (listed = 0; listed < nr_phases; listed++) {
		const unsigned i = order[listed];
		const unsigned long long permille = total_ns ? phases[i].ns * 1000 / total_ns : 0;
		/* Its exact bytes (its comma counted), and room for
		 * `phases_omitted` unless it is the last: the record has a
		 * fixed size (RECORD_MAX_BYTES) and the table as many phases as
		 * kernel/init/phases.h lists, so those that do not fit (the
		 * shortest) are counted, not cut mid-way (their figures are in
		 * their `phase` records). */
		size_t bytes = (size_t)snprintf(NULL, 0, "{\"name\":\"%s\",\"ns\":%llu,\"permille\":%llu,"
						"\"ap_busy_ns\":%llu,\"ap_idle_ns\":%llu},",
						phases[i].name, (unsigned long long)phases[i].ns,
						permille, (unsigned long long)phases[i].ap_busy_ns,
						(unsigned long long)phases[i].ap_idle_ns);

		/* The array's "]" after it; before another, the count's room. */
		bytes += listed + 1 < nr_phases ? sizeof("],\"phases_omitted\":4294967295") : 1;
		if (rec_room_bytes(&rec) < bytes)
			break;
		rec_open(&rec, '{');
		rec_str(&rec, "name", phases[i].name);
		rec_u64(&rec, "ns", phases[i].ns);
		rec_u64(&rec, "permille", permille);
		rec_u64(&rec, "ap_busy_ns", phases[i].ap_busy_ns);
		rec_u64(&rec, "ap_idle_ns", phases[i].ap_idle_ns);
		rec_close(&rec);
	}
	rec_close(&rec);
	if (listed < nr_phases)
		rec_u64(&rec, "phases_omitted", nr_phases - listed);
	if (usable_reliable)
		record_report(&rec, LOG_INFO, "summary: phases total {phases_ns:ms} ms, boot "
			      "{total_ns:ms} ms, memory usable at {usable_ns:ms} ms");
	else
		record_report(&rec, LOG_WARN, "summary: phases total {phases_ns:ms} ms, boot "
			      "{total_ns:ms} ms, memory usable at {usable_ns:ms} ms UNRELIABLE (a "
			      "CPU's " ARCH_COUNTER_NAME " is off the boot CPU's beyond correction: see "
			      "tsc_sync)");
}

/*
 * pcp_setup.c: per-CPU page lists at boot (the churn self-test that runs
 * through them is kernel/selftest/churn.c).
 */
#include "kernel/init/pcp_setup.h"

#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "kernel/log.h"
#include "mm/alloc/pcp.h"
#include "kernel/percpu.h"
#include "kernel/record.h"
#include "kernel/time.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/page.h"

static uint32_t cpu_id(void)
{
	return this_cpu()->cpu;
}

/* Each CPU's lists live in one block of its node's memory, reserved from
 * physmem before memory init hands the rest to the allocator (as the
 * allocator's own structures are): counted by the census as reserved, and
 * the boot census still counts exactly what memory init left free. */
static uint64_t list_base[MAX_CPUS], list_used[MAX_CPUS], list_bytes_per_cpu;
static uint32_t cpu_node[MAX_CPUS];

static void *list_mem(void *ctx, size_t bytes, uint32_t cpu, uint32_t node)
{
	void *p;

	bytes = (bytes + 63) & ~(size_t)63;
	if (cpu >= MAX_CPUS || !list_base[cpu] || list_used[cpu] + bytes > list_bytes_per_cpu)
		return NULL;
	p = (void *)(uintptr_t)(list_base[cpu] + list_used[cpu]);
	list_used[cpu] += bytes;
	return p;
}

static struct alloc_pcp_setup setup_of_params(void)
{
	struct alloc_pcp_setup s = {
		.nr_cpus = nr_cpus_online, .cpu_node = cpu_node, .this_cpu = cpu_id,
		.now_ns = ktime_ns, .mem = list_mem,
		.cfg = { .policy = (enum pcp_policy)pcp_settings.policy, .steps = pcp_settings.steps,
			 .high_fraction = (uint32_t)pcp_settings.high_fraction,
			 /* The per-CPU data cache slice Linux's patch 2 of
			  * the series computes (arch/cpu_caches.h); 0 keeps
			  * nothing in step 3. */
			 .cache_bytes = cpu_caches.slice_bytes },
	};

	for (uint32_t c = 0; c < nr_cpus_online; c++)
		cpu_node[c] = cpu_states[c] ? cpu_states[c]->mem_node : 0;
	return s;
}

void pcp_setup_reserve(uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx)
{
	struct alloc_pcp_setup s = setup_of_params();
	/* Every list rounded to 64 bytes, as list_mem() carves them. */
	uint64_t bytes = alloc_pcp_bytes_per_cpu(&s) + 64 * ALLOC_MAX_NODES;

	list_bytes_per_cpu = (bytes + 4095) & ~4095ULL;
	for (uint32_t c = 0; c < nr_cpus_online; c++) {
		list_used[c] = 0;
		list_base[c] = reserve(ctx, list_bytes_per_cpu, cpu_node[c]);
		if (!list_base[c])
			pr_warn("pcp: no %llu bytes on node %u for cpu %u's lists",
				(unsigned long long)list_bytes_per_cpu, cpu_node[c], c);
	}
}

void pcp_setup_init(void)
{
	struct alloc_pcp_setup s = setup_of_params();
	struct record r;
	char steps[48];

	pcp_format_steps(s.cfg.steps, steps, sizeof(steps));
	if (!alloc_pcp_init(&s)) {
		pr_warn("pcp: per-CPU lists not set up; every allocation goes to the allocator");
		return;
	}
	for (uint32_t n = 0; n < alloc_nr_nodes(); n++) {
		const struct pcp_zone *pz = alloc_pcp_zone(n);
		if (!pz)
			continue;
		rec_begin(&r, "pcp");
		rec_u64(&r, "node", n);
		rec_str(&r, "policy", pcp_policy_name(pz->cfg.policy));
		rec_str(&r, "steps", steps);
		rec_u64(&r, "high_fraction", pz->cfg.high_fraction);
		rec_u64(&r, "batch", (uint64_t)pz->batch);
		rec_u64(&r, "high_min", (uint64_t)pz->high_min);
		rec_u64(&r, "high_max", (uint64_t)pz->high_max);
		rec_u64(&r, "cpus", pz->nr_cpus);
		rec_u64(&r, "cache_bytes", pz->cfg.cache_bytes);
		rec_u64(&r, "list_bytes", pcp_list_bytes(pz));
		rec_u64(&r, "wmark_min", pz->wmark_min);
		rec_u64(&r, "wmark_low", pz->wmark_low);
		rec_u64(&r, "wmark_high", pz->wmark_high);
		record_report(&r, LOG_INFO, "pcp: node {node}: {policy}, steps {steps}, batch {batch}, "
			      "high {high_min}..{high_max} for {cpus} CPUs, watermarks "
			      "{wmark_min}/{wmark_low}/{wmark_high}, {list_bytes} bytes a list");
	}
}

/*
 * pcp.c: phase `pcp`: takes the allocator, the online CPUs (and `bs.pcp`,
 * the lists' memory phase memprep reserved, init_pcp_reserve()); builds
 * per-CPU page lists in front of the allocator. The churn self-test that
 * runs through them is kernel/selftest/churn.c.
 */
#include "kernel/init/pcp.h"

#include <stdio.h>
#include <string.h>

#include "x86/cpu.h"
#include "kernel/services/log.h"
#include "mm/alloc/pcp.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/services/clock/time.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/page.h"

static uint32_t cpu_id(void)
{
	return this_cpu_id();
}

/* A CPU's block (struct pcp_state says where they come from). */
struct pcp_cpu_block {
	uint64_t base, used;      /* the CPU's block, bytes carved from it */
};

static void *list_mem(void *ctx, size_t bytes, uint32_t cpu, uint32_t node)
{
	struct pcp_state *ps = ctx;
	struct pcp_cpu_block *cl;
	void *p;

	bytes = (bytes + 63) & ~(size_t)63;
	if (cpu >= ps->nr_list_cpus)
		return NULL;
	cl = &ps->cpu_blocks[cpu];
	if (!cl->base || cl->used + bytes > ps->list_bytes_per_cpu)
		return NULL;
	p = (void *)(uintptr_t)(cl->base + cl->used);
	cl->used += bytes;
	return p;
}

static struct alloc_pcp_setup setup_of_params(struct pcp_state *ps, const struct pcp_settings *set)
{
	struct alloc_pcp_setup s = {
		.nr_cpus = ps->nr_list_cpus, .cpu_node = ps->cpu_node, .this_cpu = cpu_id,
		.now_ns = ktime_ns, .mem = list_mem, .mem_ctx = ps, .rows = ps->list_rows,
		.cfg = { .policy = (enum pcp_policy)set->policy, .steps = set->steps,
			 .high_fraction = (uint32_t)set->high_fraction,
			 /* The per-CPU data cache slice Linux's patch 2 of
			  * the series computes (arch/cpu_caches.h); 0 keeps
			  * nothing in step 3. */
			 .cache_bytes = cpu_caches.slice_bytes },
	};

	return s;
}

void init_pcp_reserve(struct pcp_state *ps, const struct pcp_settings *set,
		      uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx)
{
	/* CPU ids run up to the highest one online; a CPU that did not
	 * answer leaves a hole, given lists on node 0 all the same (alloc_pcp
	 * wants every id below nr_cpus; they are never used). */
	uint32_t n = 0;
	for (uint32_t c = 0; c < nr_cpu_ids; c++)
		if (cpu_state_of(c) && cpu_state_of(c)->online)
			n = c + 1;
	uint64_t table = (uint64_t)n * (sizeof(*ps->cpu_blocks) + sizeof(*ps->list_rows) +
					sizeof(*ps->cpu_node));
	uint64_t base = reserve(ctx, (table + 4095) & ~4095ULL, boot_cpu_state.mem_node);

	ps->nr_list_cpus = 0;
	if (!base) {
		pr_warn("pcp: no %llu bytes for the per-CPU list table of %u CPUs",
			(unsigned long long)table, n);
		return;
	}
	ps->cpu_blocks = (struct pcp_cpu_block *)(uintptr_t)base;
	ps->list_rows = (struct pcp_list ***)(ps->cpu_blocks + n);
	ps->cpu_node = (uint32_t *)(ps->list_rows + n);
	memset(ps->cpu_blocks, 0, table);
	for (uint32_t c = 0; c < n; c++) {
		const struct cpu_state *cs = cpu_state_of(c);
		ps->cpu_node[c] = cs && cs->online ? cs->mem_node : 0;
	}
	ps->nr_list_cpus = n;

	struct alloc_pcp_setup s = setup_of_params(ps, set);
	/* Every list rounded to 64 bytes, as list_mem() carves them. */
	uint64_t bytes = alloc_pcp_bytes_per_cpu(&s) + 64 * ALLOC_MAX_NODES;

	ps->list_bytes_per_cpu = (bytes + 4095) & ~4095ULL;
	for (uint32_t c = 0; c < n; c++) {
		ps->cpu_blocks[c].base = reserve(ctx, ps->list_bytes_per_cpu, ps->cpu_node[c]);
		if (!ps->cpu_blocks[c].base)
			pr_warn("pcp: no %llu bytes on node %u for cpu %u's lists",
				(unsigned long long)ps->list_bytes_per_cpu, ps->cpu_node[c], c);
	}
}

void init_pcp(struct pcp_state *ps, const struct pcp_settings *set)
{
	struct alloc_pcp_setup s = setup_of_params(ps, set);
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
		/* policy auto with a fraction fixes high, as in Linux: say so. */
		rec_bool(&r, "tuned", pz->auto_tune);
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

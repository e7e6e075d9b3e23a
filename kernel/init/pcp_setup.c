/*
 * pcp_setup.c: per-CPU page lists at boot and the churn self-test.
 */
#include "kernel/init/pcp_setup.h"

#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "kernel/job.h"
#include "kernel/log.h"
#include "mm/alloc/pcp.h"
#include "kernel/percpu.h"
#include "kernel/record.h"
#include "kernel/time.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/churn.h"
#include "mm/page.h"

static uint32_t cpu_id(void)
{
	return this_cpu()->cpu;
}

/* Each CPU's lists live in one block of its node's memory, reserved from
 * physmem before memory init hands the rest to the allocator (as the
 * allocator's own structures are): counted by the census as reserved, and
 * the boot census still counts exactly what memory init left free. */
/* The per-CPU bookkeeping, one entry per CPU id, in one block reserved the
 * same way on the boot CPU's node: sized by the CPUs there are. */
struct cpu_lists {
	uint64_t base, used;      /* the CPU's block, bytes carved from it */
};
static struct cpu_lists *cpu_lists;
static struct pcp_list ***list_rows;
static uint32_t nr_list_cpus;
static uint32_t *cpu_node;
static uint64_t list_bytes_per_cpu;

static void *list_mem(void *ctx, size_t bytes, uint32_t cpu, uint32_t node)
{
	struct cpu_lists *cl;
	void *p;

	bytes = (bytes + 63) & ~(size_t)63;
	if (cpu >= nr_list_cpus)
		return NULL;
	cl = &cpu_lists[cpu];
	if (!cl->base || cl->used + bytes > list_bytes_per_cpu)
		return NULL;
	p = (void *)(uintptr_t)(cl->base + cl->used);
	cl->used += bytes;
	return p;
}

/* The per-CPU data cache slice Linux's patch 2 of the series computes
 * (cacheinfo's size_data): each data or unified cache level from CPUID
 * leaf 4 (Intel SDM vol. 2A, CPUID, "Deterministic Cache Parameters"),
 * divided by the logical CPUs sharing it, summed. 0 when the leaf is
 * missing (step 3 then keeps nothing). */
static uint64_t cache_slice_bytes(void)
{
	uint32_t r[4];
	uint64_t total = 0;

	cpuid(0, 0, r);
	if (r[0] < 4)
		return 0;
	for (uint32_t i = 0; i < 16; i++) {
		cpuid(4, i, r);
		uint32_t type = r[0] & 0x1f;
		if (type == 0)
			break;
		if (type != 1 && type != 3)
			continue;   /* instruction caches */
		uint64_t ways = ((r[1] >> 22) & 0x3ff) + 1, parts = ((r[1] >> 12) & 0x3ff) + 1;
		uint64_t line = (r[1] & 0xfff) + 1, sets = (uint64_t)r[2] + 1;
		uint64_t sharing = ((r[0] >> 14) & 0xfff) + 1;
		total += ways * parts * line * sets / sharing;
	}
	return total;
}

static struct alloc_pcp_setup setup_of_params(void)
{
	struct alloc_pcp_setup s = {
		.nr_cpus = nr_list_cpus, .cpu_node = cpu_node, .this_cpu = cpu_id,
		.now_ns = ktime_ns, .mem = list_mem, .rows = list_rows,
		.cfg = { .policy = (enum pcp_policy)pcp_settings.policy, .steps = pcp_settings.steps,
			 .high_fraction = (uint32_t)pcp_settings.high_fraction,
			 .cache_bytes = cache_slice_bytes() },
	};

	return s;
}

void pcp_setup_reserve(uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx)
{
	/* CPU ids run up to the highest one online; a CPU that did not
	 * answer leaves a hole, given lists on node 0 all the same (alloc_pcp
	 * wants every id below nr_cpus; they are never used). */
	uint32_t n = 0;
	for (uint32_t c = 0; c < nr_cpu_ids; c++)
		if (cpu_state_of(c) && cpu_state_of(c)->online)
			n = c + 1;
	uint64_t table = (uint64_t)n * (sizeof(*cpu_lists) + sizeof(*list_rows) + sizeof(*cpu_node));
	uint64_t base = reserve(ctx, (table + 4095) & ~4095ULL, boot_cpu_state.mem_node);

	nr_list_cpus = 0;
	if (!base) {
		pr_warn("pcp: no %llu bytes for the per-CPU list table of %u CPUs",
			(unsigned long long)table, n);
		return;
	}
	cpu_lists = (struct cpu_lists *)(uintptr_t)base;
	list_rows = (struct pcp_list ***)(cpu_lists + n);
	cpu_node = (uint32_t *)(list_rows + n);
	memset(cpu_lists, 0, table);
	for (uint32_t c = 0; c < n; c++) {
		const struct cpu_state *cs = cpu_state_of(c);
		cpu_node[c] = cs && cs->online ? cs->mem_node : 0;
	}
	nr_list_cpus = n;

	struct alloc_pcp_setup s = setup_of_params();
	/* Every list rounded to 64 bytes, as list_mem() carves them. */
	uint64_t bytes = alloc_pcp_bytes_per_cpu(&s) + 64 * ALLOC_MAX_NODES;

	list_bytes_per_cpu = (bytes + 4095) & ~4095ULL;
	for (uint32_t c = 0; c < n; c++) {
		cpu_lists[c].base = reserve(ctx, list_bytes_per_cpu, cpu_node[c]);
		if (!cpu_lists[c].base)
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

/* --- memboot.selftest=churn --------------------------------------------- */

static struct churn churn;
static void *churn_mem[CHURN_MAX_WORKERS];

static uint64_t churn_alloc(void *ctx, unsigned order)
{
	return alloc_pages(this_cpu_state()->mem_node, order, 0);
}

static void churn_free(void *ctx, uint64_t pfn, unsigned order)
{
	alloc_free(pfn, order);
}

static void churn_tick(void *ctx)
{
	alloc_pcp_tick();
}

static const struct churn_ops churn_ops = { churn_alloc, churn_free, churn_tick };

static void churn_run_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t i = s; i < e; i++)
		churn_worker_run(&churn, (uint32_t)i, NULL);
}

static void churn_finish_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t i = s; i < e; i++)
		churn_worker_finish(&churn, (uint32_t)i, NULL);
}

static void emit_stats(struct record *r, const struct pcp_stats *st)
{
	rec_u64(r, "lock_acquired", st->lock_acquired);
	rec_u64(r, "lock_contended", st->lock_contended);
	rec_u64(r, "spin_ns", st->spin_ns);
	rec_u64(r, "alloc_zone_pages", st->alloc_zone_pages);
	rec_u64(r, "alloc_pcp", st->alloc_pcp);
	rec_u64(r, "free_high", st->free_high);
	rec_u64(r, "drained_pages", st->drained_pages);
	rec_u64(r, "high_min", (uint64_t)(st->high_min_seen > 0 ? st->high_min_seen : 0));
	rec_u64(r, "high_max", (uint64_t)(st->high_max_seen > 0 ? st->high_max_seen : 0));
}

bool pcp_setup_churn_selftest(void)
{
	const struct churn_mix *mix = churn_find_mix(pcp_settings.churn_mix);
	uint32_t workers = nr_cpus_online;
	struct churn_params p;
	struct record r;
	struct job_state st;
	uint64_t mem_pfn[CHURN_MAX_WORKERS], free_before, t0, ns, sink = 0;
	unsigned mem_order[CHURN_MAX_WORKERS];
	struct churn_result sum = { 0 };
	bool ok = true;

	if (!mix) {
		pr_err("churn: unknown mix '%s' (%s)", pcp_settings.churn_mix, churn_mix_names());
		return false;
	}
	if (workers > CHURN_MAX_WORKERS)
		workers = CHURN_MAX_WORKERS;
	alloc_drain();
	free_before = alloc_free_count();
	/* Half of the free memory, shared by the workers (sized to the
	 * memory present, as on the host). */
	p = (struct churn_params){ .seed = pcp_settings.churn_seed, .nr_workers = workers,
				   .pages_per_worker = free_before / 2 / workers,
				   .allocs_per_worker = pcp_settings.churn_allocs, .mix = mix };
	for (uint32_t i = 0; i < workers; i++) {
		size_t bytes = churn_worker_bytes(&p);
		unsigned order = 0;

		while ((4096ULL << order) < bytes && order < ALLOC_MAX_ORDER)
			order++;
		mem_order[i] = order;
		mem_pfn[i] = (4096ULL << order) >= bytes ? alloc_pages(0, order, 0) : ALLOC_NO_PFN;
		if (mem_pfn[i] == ALLOC_NO_PFN) {
			pr_warn("churn: skipped: no %zu bytes for worker %u's state", bytes, i);
			for (uint32_t k = 0; k < i; k++)
				alloc_free(mem_pfn[k], mem_order[k]);
			return true;
		}
		churn_mem[i] = (void *)(uintptr_t)(mem_pfn[i] << PAGE_SHIFT);
	}
	if (!churn_init(&churn, &p, &churn_ops, churn_mem))
		return false;
	alloc_pcp_stats_reset();
	pr_info("churn: mix %s, %u workers, %llu pages each, %llu allocations each, seed %llu",
		mix->name, workers, (unsigned long long)p.pages_per_worker,
		(unsigned long long)p.allocs_per_worker, (unsigned long long)p.seed);

	struct job run = { .name = "churn", .start = 0, .size = workers, .align = 1,
			   .min_chunk = 1, .node = JOB_ALL_NODES, .fn = churn_run_chunk };
	struct job fin = { .name = "churn_finish", .start = 0, .size = workers, .align = 1,
			   .min_chunk = 1, .node = JOB_ALL_NODES, .fn = churn_finish_chunk };
	t0 = ktime_ns();
	uint32_t threads = job_run(&run, &st);
	ns = ktime_ns() - t0;
	job_run(&fin, &st);

	/* One record per node and CPU: the counters behind the totals, as
	 * the run left them (before the drain below). */
	for (uint32_t c = 0; c < alloc_pcp_nr_cpus(); c++) {
		for (uint32_t n = 0; n < alloc_nr_nodes(); n++) {
			const struct pcp_list *l = alloc_pcp_list(c, n);
			if (!l || !(l->st.lock_acquired | l->st.alloc_pcp))
				continue;
			rec_begin(&r, "pcp_cpu");
			rec_u64(&r, "cpu", c);
			rec_u64(&r, "node", n);
			emit_stats(&r, &l->st);
			rec_u64(&r, "high_final", (uint64_t)l->high);
			record_emit(&r);
		}
	}

	struct pcp_stats total;
	alloc_pcp_stats(ALLOC_PCP_ALL_NODES, &total);
	uint64_t on_lists = alloc_pcp_pages();
	uint64_t drained = alloc_pcp_drain_all();
	uint64_t left = alloc_pcp_pages();
	for (uint32_t i = 0; i < workers; i++) {
		const struct churn_result *w = churn_worker_result(&churn, i);
		sum.allocs += w->allocs;
		sum.alloc_pages += w->alloc_pages;
		sum.failed += w->failed;
		sum.frees += w->frees;
		sum.remote_frees += w->remote_frees;
		sum.processes += w->processes;
		sum.ticks += w->ticks;
		sink += w->sink;
		alloc_free(mem_pfn[i], mem_order[i]);
	}
	alloc_drain();
	uint64_t lost = free_before > alloc_free_count() ? free_before - alloc_free_count()
							   : alloc_free_count() - free_before;
	ok = lost == 0 && left == 0 && sum.frees == sum.allocs;
	/* lock contention: share of the workers' time spent waiting for a
	 * node's list lock (Linux's zone lock) */
	uint64_t lock_pct_x100 = ns && threads ? total.spin_ns * 10000 / (ns * threads) : 0;
	rec_begin(&r, "churn");
	rec_str(&r, "mix", mix->name);
	rec_str(&r, "policy", pcp_policy_name((enum pcp_policy)pcp_settings.policy));
	{
		char steps[48];
		pcp_format_steps(pcp_settings.steps, steps, sizeof(steps));
		rec_str(&r, "steps", steps);
	}
	rec_u64(&r, "workers", workers);
	rec_u64(&r, "threads", threads);
	rec_u64(&r, "ns", ns);
	rec_u64(&r, "allocs", sum.allocs);
	rec_u64(&r, "alloc_pages", sum.alloc_pages);
	rec_u64(&r, "failed", sum.failed);
	rec_u64(&r, "remote_frees", sum.remote_frees);
	rec_u64(&r, "processes", sum.processes);
	rec_u64(&r, "ticks", sum.ticks);
	emit_stats(&r, &total);
	rec_u64(&r, "pcp_pages_end", on_lists);
	rec_u64(&r, "drained", drained);
	rec_u64(&r, "left_on_lists", left);
	rec_u64(&r, "lost", lost);
	rec_u64(&r, "sink", sink & 0xffff);
	rec_u64(&r, "spin_permyriad", lock_pct_x100);
	record_report(&r, LOG_INFO, "churn: {allocs} allocations ({alloc_pages} pages) by {threads} CPUs "
		      "in {ns:ms} ms, {processes} processes, {remote_frees} remote frees, {failed} failed; "
		      "zone lock {lock_acquired} acquired, {lock_contended} contended, "
		      "{spin_permyriad:.2}% of time spinning; alloc_zone {alloc_zone_pages} pages, "
		      "free_high {free_high}, high {high_min}..{high_max}; {pcp_pages_end} pages on lists "
		      "at the end, {drained} drained, {left_on_lists} left, {lost} lost");
	return ok;
}

/*
 * churn.c: memboot.selftest=churn, the churn workload (mm/alloc/churn.h) on
 * every online CPU through the per-CPU lists, then every list drained; a
 * "churn" record with the counters. Passes when no page was lost and every
 * list ended empty.
 */
#include <stdint.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/tests.h"
#include "kernel/services/clock/time.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/churn.h"
#include "mm/alloc/pcp.h"
#include "mm/page.h"

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

bool selftest_churn(const struct selftest_ctx *ctx, const char **skipped)
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
	/* The workload needs 256 pages a worker (churn_init()): with less
	 * free memory it cannot run here, which is not a failure. */
	if (p.pages_per_worker < 256) {
		pr_info("churn: %llu free pages, half of them for %u workers is under 256 pages each",
			(unsigned long long)free_before, workers);
		*skipped = "not enough memory";
		return true;
	}
	for (uint32_t i = 0; i < workers; i++) {
		size_t bytes = churn_worker_bytes(&p);
		unsigned order = 0;

		while ((4096ULL << order) < bytes && order < ALLOC_MAX_ORDER)
			order++;
		mem_order[i] = order;
		mem_pfn[i] = (4096ULL << order) >= bytes ? alloc_pages(0, order, 0) : ALLOC_NO_PFN;
		if (mem_pfn[i] == ALLOC_NO_PFN) {
			pr_info("churn: no %zu bytes for worker %u's state", bytes, i);
			for (uint32_t k = 0; k < i; k++)
				alloc_free(mem_pfn[k], mem_order[k]);
			*skipped = "not enough memory";
			return true;
		}
		churn_mem[i] = (void *)(uintptr_t)(mem_pfn[i] << PAGE_SHIFT);
	}
	if (!churn_init(&churn, &p, &churn_ops, churn_mem)) {
		for (uint32_t k = 0; k < workers; k++)
			alloc_free(mem_pfn[k], mem_order[k]);
		return false;
	}
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

/*
 * meminit.c: phase `meminit`: takes `bs.memmap` (and `bs.meminit`, which
 * phase memprep set up); builds every free page initialised by its own
 * node's CPUs and handed to the allocator (1 GiB pool pages get a head
 * descriptor only), in 4 MiB steps that a node's other CPUs finish if one
 * is lost mid-chunk; with `memtest=N` each piece is tested first, its bad
 * pages kept out (mm/memtest_run.c); the nodes' jobs are posted as the
 * phase starts, and the phase ends when memory is usable. Its report,
 * init_meminit_report(), is made in phase tscsync, after the counter check.
 */
#include "kernel/init/meminit.h"

#include <string.h>

#include "arch/counter.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/services/report/summary.h"
#include "mm/alloc/alloc.h"
#include "mm/numa.h"
#include "mm/physmem.h"

static const char *const policy_names[] = { "serial", "deferred", "lazy" };

static bool has_memory(const struct numa_topology *topo, uint32_t nid)
{
	return topo->nodes[nid].mem_bytes != 0;
}

/* --- memboot.early_alloc_pages: early boot outgrowing its section ---------- */

/* What the early allocations are asked to do, and where they count. */
struct early_allocs {
	struct meminit_state *st;
	uint64_t asked;
};

/* Allocate that many pages one at a time before the parallel part, as early
 * boot code would (a hash table, say), forcing on-demand growth, then give
 * them back. The pages are chained through their first word. */
static void early_allocations(void *ctx)
{
	struct early_allocs *ea = ctx;
	struct mminit *mi = &ea->st->mi;
	uint32_t node = mi->cfg.boot_node;
	uint64_t head = ALLOC_NO_PFN, n = 0, asked = ea->asked;

	for (; n < asked; n++) {
		uint64_t pfn = alloc_pages(node, 0, 0);
		if (pfn == ALLOC_NO_PFN)
			break;
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = head;
		head = pfn;
	}
	ea->st->early_alloc_made = n;
	if (n < asked)
		/* The allocator grows into every node's deferred memory before it
		 * fails: a failure means no page was left anywhere. */
		pr_warn("meminit: memboot.early_alloc_pages=%llu: only %llu early allocations made; "
			"the allocator had no free page left on any node; the boot CPU has initialised %llu pages",
			(unsigned long long)asked, (unsigned long long)n,
			(unsigned long long)mi->nodes[node].early_pages);
	else
		pr_info("meminit: %llu early allocations; the boot CPU has initialised %llu pages",
			(unsigned long long)n, (unsigned long long)mi->nodes[node].early_pages);
	while (head != ALLOC_NO_PFN) {
		uint64_t next = *(uint64_t *)(uintptr_t)(head << PAGE_SHIFT);
		alloc_free(head, 0);
		head = next;
	}
}

/* --- phase "meminit" ------------------------------------------------------- */

static void lazy_measure(uint64_t init_end_counter, struct lazy_stats *ls)
{
	enum { N = 64 };
	uint64_t pfns[N];
	uint32_t node = this_cpu_state()->mem_node;

	memset(ls, 0, sizeof(*ls));
	for (int i = 0; i < N; i++) {
		unsigned order = i % 4 == 3 ? 9 : 0;
		/* Only this CPU allocates now: the counter's change is ours. */
		uint64_t before = alloc_counters.lazy_filled_pages, t0 = arch_counter();
		pfns[i] = alloc_pages(node, order, 0);
		uint64_t t1 = arch_counter(), c = t1 - t0;
		uint64_t filled = alloc_counters.lazy_filled_pages - before;
		if (i == 0)
			ls->first_alloc_cycles = t1 - init_end_counter;
		ls->allocs++;
		if (filled) {
			ls->fill_allocs++;
			ls->fill_cycles += c;
			ls->filled_pages += filled;
			ls->fill_max_cycles = c > ls->fill_max_cycles ? c : ls->fill_max_cycles;
		} else {
			ls->plain_cycles += c;
		}
	}
	for (int i = 0; i < N; i++)
		if (pfns[i] != ALLOC_NO_PFN)
			alloc_free(pfns[i], i % 4 == 3 ? 9 : 0);
}

void init_meminit(const struct meminit_settings *set, const struct memmap *mm,
		  struct meminit_state *st)
{
	enum mminit_policy policy = (enum mminit_policy)set->policy;
	struct early_allocs ea = { st, set->early_alloc_pages };

	ASSERT(st->ops && st->mi.mm == mm, "init_meminit() without init_memprep() of the same memmap");
	/* The node's CPUs are given their jobs right away: what the boot CPU
	 * had to do first is phase memprep's. */
	st->phase_start_counter = arch_counter();
	mminit_run(&st->mi, set->early_alloc_pages ? early_allocations : NULL, &ea);
	if (policy == MMINIT_LAZY)
		lazy_measure(arch_counter(), &st->lazy);
	st->ran = true;
}

/* --- the report, after the counter check ----------------------------------- */

static void trace_chunks(const struct mminit *mi, uint32_t nid)
{
	const struct mminit_node *w = &mi->nodes[nid];

	for (uint32_t i = 0; i < w->nr_chunks && i < MMINIT_TRACE_CHUNKS; i++) {
		const struct job_chunk_time *t = &w->chunks[i];
		struct record r;
		rec_begin(&r, "chunk");
		rec_str(&r, "job", "meminit");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "cpu", t->cpu);
		rec_u64(&r, "start_pfn", t->start);
		rec_u64(&r, "end_pfn", t->end);
		/* A start on a counter the counter check could not correct is not
		 * a boot time; its duration (one CPU's counter) is. */
		if (!cpu_counter_unreliable(t->cpu))
			rec_u64(&r, "start_ns", counter_to_boot_ns(t->start_ticks));
		rec_u64(&r, "ns", t->ns);
		record_emit(&r);
	}
}

/* Was CPU @cpu offered node @nid's job? */
static bool cpu_offered(const struct mminit *mi, uint32_t nid, uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	if (!cs || !cs->online)
		return false;
	if (mi->cfg.all_cpus)
		return true;
	if (cs == this_cpu_state())
		return mi->nodes[nid].caller_offered;
	return cs->node == (mi->cfg.cpu_node ? mi->cfg.cpu_node[nid] : nid);
}

/*
 * One node_cpu record per CPU offered the node's job: how long it worked on
 * the node's chunks (busy) and how much of the node's interval it spent on
 * anything else (wait: waking up, queueing behind other work, idle once the
 * chunks ran out). The first MEMINIT_BUSY_LIST busy times, in CPU order, go
 * into @busy_list for the node_init record (its line's "busy 3.1+3.0 ms").
 */
#define MEMINIT_BUSY_LIST 32
static uint32_t report_cpus(const struct mminit *mi, uint32_t nid, uint64_t span_ns,
			    uint64_t *busy_list)
{
	const struct mminit_node *w = &mi->nodes[nid];
	uint32_t nr = w->nr_chunks < MMINIT_TRACE_CHUNKS ? w->nr_chunks : MMINIT_TRACE_CHUNKS;
	uint32_t listed = 0;

	for (uint32_t c = 0; c < nr_cpu_ids; c++) {
		uint64_t busy_ns = 0;
		uint32_t chunks = 0;
		struct record r;

		if (!cpu_offered(mi, nid, c))
			continue;
		for (uint32_t i = 0; i < nr; i++) {
			if (w->chunks[i].cpu != c)
				continue;
			busy_ns += w->chunks[i].ns;
			chunks++;
		}
		rec_begin(&r, "node_cpu");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "cpu", c);
		rec_u64(&r, "chunks", chunks);
		rec_u64(&r, "busy_ns", busy_ns);
		rec_u64(&r, "wait_ns", span_ns > busy_ns ? span_ns - busy_ns : 0);
		record_emit(&r);
		if (listed < MEMINIT_BUSY_LIST)
			busy_list[listed++] = busy_ns;
	}
	return listed;
}

/*
 * The first CPU whose counter the check could not correct that ran a chunk of
 * node @nid, or -1: the node's start, end and usable times compare its
 * readings with the boot CPU's. Beyond the chunks kept, any such CPU may
 * have run one.
 */
static int64_t unreliable_cpu(const struct mminit_node *w)
{
	uint32_t kept = w->nr_chunks < MMINIT_TRACE_CHUNKS ? w->nr_chunks : MMINIT_TRACE_CHUNKS;

	for (uint32_t i = 0; i < kept; i++)
		if (cpu_counter_unreliable(w->chunks[i].cpu))
			return w->chunks[i].cpu;
	for (uint32_t cpu = 1; kept < w->nr_chunks && cpu < nr_cpu_ids; cpu++)
		if (cpu_counter_unreliable(cpu))
			return cpu;
	return -1;
}

static void report(const struct meminit_state *st, const struct memmap_sparse_stats *desc,
		   const struct meminit_settings *set, uint32_t nid, enum mminit_policy policy)
{
	const struct mminit *mi = &st->mi;
	const struct mminit_node *w = &mi->nodes[nid];
	struct mminit_usable u;
	struct record r;
	uint64_t pages = w->parallel_pages + w->early_pages;
	uint64_t start_ns = w->start_ticks ? counter_to_boot_ns(w->start_ticks) : 0;
	uint64_t end_ns = w->end_ticks ? counter_to_boot_ns(w->end_ticks) : start_ns;
	uint64_t busy[MEMINIT_BUSY_LIST];
	uint32_t nr_busy = 0;

	if (policy != MMINIT_SERIAL)
		nr_busy = report_cpus(mi, nid, end_ns - start_ns, busy);
	mminit_node_usable(w, st->phase_start_counter, &u);
	/* usable first, then wait: work is their difference, so the three
	 * add up exactly however the conversion rounds. */
	uint64_t usable_ns = cycles_to_ns(u.usable_ticks);
	uint64_t wait_ns = cycles_to_ns(u.wait_ticks);
	rec_begin(&r, "node_init");
	rec_u64(&r, "node", nid);
	/* A CPU-less node's CPUs are another node's (phase tiers chose it). */
	rec_u64(&r, "cpu_node", mi->cfg.cpu_node ? mi->cfg.cpu_node[nid] : nid);
	rec_str(&r, "policy", policy_names[policy]);
	rec_u64(&r, "threads", w->threads);
	rec_u64(&r, "cpus", w->cpus);
	rec_u64(&r, "pages", policy == MMINIT_SERIAL ? pages : w->parallel_pages);
	rec_u64(&r, "early_pages", policy == MMINIT_SERIAL ? 0 : w->early_pages);
	rec_u64(&r, "early_ns", w->early_ns);
	if (set->early_alloc_pages && nid == mi->cfg.boot_node && policy != MMINIT_SERIAL) {
		rec_u64(&r, "early_alloc_asked", set->early_alloc_pages);
		rec_u64(&r, "early_alloc_made", st->early_alloc_made);
	}
	rec_u64(&r, "free_pages", w->free_pages);
	rec_u64(&r, "desc_bytes", desc[nid].backed_bytes);
	rec_u64(&r, "start_ns", start_ns);
	rec_u64(&r, "end_ns", end_ns);
	rec_u64(&r, "ns", w->ns);
	rec_u64(&r, "usable_ns", usable_ns);
	rec_u64(&r, "wait_ns", wait_ns);
	rec_u64(&r, "work_ns", usable_ns - wait_ns);
	int64_t bad_cpu = unreliable_cpu(w);
	rec_bool(&r, "times_reliable", bad_cpu < 0);
	if (bad_cpu >= 0)
		rec_u64(&r, "unreliable_cpu", (uint64_t)bad_cpu);
	if (policy == MMINIT_SERIAL) {
		record_report(&r, LOG_INFO, "node {node} serial pages initialised in {ns:ms}ms "
			      "({pages} pages, 1 CPU; usable {usable_ns:ms} ms into meminit: "
			      "waited {wait_ns:ms}, worked {work_ns:ms})");
	} else {
		/* Last: a long list can only cut itself short, never a key. */
		rec_key(&r, "busy_ns");
		rec_open(&r, '[');
		for (uint32_t i = 0; i < nr_busy; i++)
			rec_v_u64(&r, busy[i]);
		rec_close(&r);
		if (bad_cpu < 0)
			record_report(&r, LOG_INFO, "node {node} {policy} pages initialised in "
				      "{ns:ms}ms ({pages} pages, {threads} of {cpus} CPU{cpus:s}, busy "
				      "{busy_ns:ms1[+]} ms; usable {usable_ns:ms} ms into meminit: "
				      "waited {wait_ns:ms}, worked {work_ns:ms})");
		else
			/* Only the busy times (each CPU's own counter) are right. */
			record_report(&r, LOG_WARN, "node {node} {policy} pages initialised "
				      "({pages} pages, {threads} of {cpus} CPU{cpus:s}, busy "
				      "{busy_ns:ms1[+]} ms); its times UNRELIABLE: CPU "
				      "{unreliable_cpu} ran its chunks with a " ARCH_COUNTER_NAME " off the boot CPU's "
				      "beyond correction (tsc_sync): its start, end, {ns:ms} ms and "
				      "usable {usable_ns:ms} ms compare counters that disagree");
	}
	summary_node_init(nid, policy_names[policy], w->threads,
			  policy == MMINIT_SERIAL ? pages : w->parallel_pages, w->ns);
	if (bad_cpu >= 0)
		summary_node_unreliable(nid);
}

static void lazy_report(const struct lazy_stats *ls)
{
	uint32_t plains = ls->allocs - ls->fill_allocs;
	uint64_t fill_avg = ls->fill_allocs ? ls->fill_cycles / ls->fill_allocs : 0;
	uint64_t plain_avg = plains ? ls->plain_cycles / plains : 0;
	struct record r;

	rec_begin(&r, "lazy");
	rec_cycles_ns(&r, "first_alloc_ns", ls->first_alloc_cycles);
	rec_u64(&r, "allocs", ls->allocs);
	rec_u64(&r, "fill_allocs", ls->fill_allocs);
	rec_u64(&r, "filled_pages", ls->filled_pages);
	rec_cycles_ns(&r, "fill_alloc_avg_ns", fill_avg);
	rec_cycles_ns(&r, "fill_alloc_max_ns", ls->fill_max_cycles);
	rec_cycles_ns(&r, "plain_alloc_avg_ns", plain_avg);
	record_report(&r, LOG_INFO, "meminit: lazy: first page {first_alloc_ns} ns after init; "
		      "{fill_allocs} of {allocs} allocations wrote tail descriptors "
		      "(avg {fill_alloc_avg_ns} ns, max {fill_alloc_max_ns} ns), "
		      "the others avg {plain_alloc_avg_ns} ns");
}

/* Printed once the nodes' CPUs are done: a console line costs hundreds of
 * microseconds of the boot CPU's time (a port write a character under
 * TCG), which would otherwise come before the jobs are posted. */
static void alloc_report(const struct alloc_ops *ops)
{
	struct record r;

	rec_begin(&r, "alloc");
	rec_str(&r, "name", ops->name);
	rec_str(&r, "summary", ops->summary);
	record_report(&r, LOG_INFO, "alloc: {name} ({summary})");
}

/* memtest=N's findings, against the store probe's rate (none: 0). */
static void memtest_report_now(const struct numa_topology *topo, const struct meminit_state *st,
			       const struct memmap_probe_result *p)
{
	uint64_t bad_pages[MEMMAP_MAX_NODES];
	uint64_t ticks = memmap_store_probe_ticks(&p->res, p->res.choice);

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		bad_pages[nid] = st->mi.nodes[nid].bad_pages;
	memtest_run_report(&st->memtest, topo, bad_pages, p->ran ? p->res.bytes : 0,
			   p->ran && ticks ? cycles_to_ns(ticks) : 0, p->ran ? p->nid : 0);
}

/* The report's view of the counter check: what each CPU's readings were ahead. */
static int64_t cpu_counter_offset(uint32_t cpu, void *ctx)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	(void)ctx;
	return cs ? cs->counter_offset : 0;
}

void init_meminit_report(const struct numa_topology *topo, const struct meminit_settings *set,
			 const struct physmem *pm, const struct memmap_probe_result *probe,
			 const struct memmap_sparse_stats *desc, struct meminit_state *st)
{
	enum mminit_policy policy = (enum mminit_policy)set->policy;
	bool lazy = policy == MMINIT_LAZY;

	ASSERT(st->ran, "init_meminit_report() before init_meminit()");
	/* The APs timed their chunks before the counter check (phase tscsync),
	 * all of it ran on the quick clock estimate (the precise figure comes
	 * in phase clockcheck, after it): in the boot CPU's time now, at the
	 * rate in force, before anything compares or prints them. */
	uint32_t inexact = mminit_retime(&st->mi, cpu_counter_offset, NULL);
	if (inexact)
		pr_warn("meminit: %u node%s ran more than %u chunks, some on CPUs whose " ARCH_COUNTER_NAME
			" offset was "
			"corrected after: their start, end and usable times are as measured, off by at most "
			"the largest offset of the tsc_sync records", inexact, inexact == 1 ? "" : "s",
			(unsigned)MMINIT_TRACE_CHUNKS);
	alloc_report(st->ops);
	physmem_report_retired(pm);
	if (set->trace)
		for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
			trace_chunks(&st->mi, nid);
	/* Every node's free memory is in the allocator at the end of the
	 * last node's last piece of work: the boot's usable_ns. */
	uint64_t usable_end = 0;
	bool reliable = true;
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		struct mminit_usable u;
		mminit_node_usable(&st->mi.nodes[nid], st->phase_start_counter, &u);
		usable_end = u.end_ticks > usable_end ? u.end_ticks : usable_end;
		reliable &= unreliable_cpu(&st->mi.nodes[nid]) < 0;
	}
	summary_usable(counter_to_boot_ns(usable_end ? usable_end : st->phase_start_counter), reliable);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			report(st, desc, set, nid, policy);
	if (lazy)
		lazy_report(&st->lazy);
	memtest_report_now(topo, st, probe);
	alloc_enable_poison();
}

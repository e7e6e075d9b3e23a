/*
 * hugetlb.c: the huge page pools.
 */
#include "kernel/hugetlb.h"

#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "kernel/discover.h"
#include "kernel/exit.h"
#include "kernel/job.h"
#include "kernel/log.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/record.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/meminit.h"
#include "mm/alloc.h"
#include "mm/physmem.h"

#define GIGANTIC_ORDER 18          /* 1 GiB in 4 KiB pages */
#define HUGE_ORDER 9               /* 2 MiB */
#define MAX_GIGANTIC_PER_NODE 256

static const unsigned size_order[HUGETLB_NR_SIZES] = { HUGE_ORDER, GIGANTIC_ORDER };

struct pool {
	struct spinlock lock;
	uint64_t *pfns;            /* free pages: a stack */
	uint64_t cap;
	uint64_t total, nr_free;
	uint64_t requested;
	uint64_t ns;               /* reserving (1 GiB) plus this pool's own job */
	uint64_t job_ns;           /* the job alone (zeroing 1 GiB pages, allocating 2 MiB) */
	uint64_t start_ns, end_ns; /* the job: first chunk's start, last chunk's end */
	uint32_t threads, cpus;    /* CPUs that ran its chunks, CPUs offered */
	bool zeroed;
};

static struct pool pools[HUGETLB_MAX_NODES][HUGETLB_NR_SIZES];
static uint64_t gigantic[HUGETLB_MAX_NODES][MAX_GIGANTIC_PER_NODE];
static uint64_t nr_gigantic_pages;

static void plan_size(enum hugetlb_size size, uint64_t want[HUGETLB_MAX_NODES])
{
	bool has_mem[HUGETLB_MAX_NODES] = { false };
	int bad_node;

	for (uint32_t n = 0; n < numa_topo.nr_nodes && n < HUGETLB_MAX_NODES; n++)
		has_mem[n] = numa_topo.nodes[n].mem_bytes != 0;
	hugetlb_plan(&kparams.huge.req[size], numa_topo.nr_nodes, has_mem, want, &bad_node);
	if (bad_node >= 0)
		pr_err("HugeTLB: hugepages= names node %d, but there %s %u node%s; that part is ignored",
		       bad_node, numa_topo.nr_nodes == 1 ? "is" : "are", numa_topo.nr_nodes,
		       numa_topo.nr_nodes == 1 ? "" : "s");
}

static void failed_line(uint32_t node, const struct pool *p, enum hugetlb_size size)
{
	/* Linux's wording, so logs compare. */
	pr_warn("HugeTLB: allocating %llu of page size %s failed node%u.  Only allocated %llu hugepages.",
		(unsigned long long)p->requested, hugetlb_size_name(size), node,
		(unsigned long long)p->total);
}

void hugetlb_reserve_gigantic(struct physmem *pm)
{
	uint64_t want[HUGETLB_MAX_NODES];

	if (!kparams.huge.req[HUGETLB_1G].set)
		return;
	if (!cpu_features.pdpe1gb) {
		pr_err("HugeTLB: unsupported hugepagesz=1G: this CPU has no 1 GiB pages (CPUID pdpe1gb); that pool stays empty");
		return;
	}
	plan_size(HUGETLB_1G, want);
	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++) {
		struct pool *p = &pools[n][HUGETLB_1G];
		uint64_t t0 = rdtsc();

		p->requested = want[n];
		if (p->requested > MAX_GIGANTIC_PER_NODE) {
			pr_err("HugeTLB: at most %d pages of 1 GiB per node; node %u asked %llu",
			       MAX_GIGANTIC_PER_NODE, n, (unsigned long long)p->requested);
		}
		for (uint64_t i = 0; i < p->requested && i < MAX_GIGANTIC_PER_NODE; i++) {
			/* Exact node, naturally aligned: never another node's page. */
			uint64_t at = physmem_alloc(pm, 1ULL << 30, 1ULL << 30, n, true, "hugetlb");
			if (!at)
				break;
			gigantic[n][p->total++] = at >> PAGE_SHIFT;
		}
		nr_gigantic_pages += p->total << GIGANTIC_ORDER;
		p->ns = tsc_cycles_to_ns(rdtsc() - t0);
		if (p->total < p->requested)
			failed_line(n, p, HUGETLB_1G);
	}
}

uint64_t hugetlb_gigantic_pages(void)
{
	return nr_gigantic_pages;
}

void hugetlb_mark_gigantic(uint32_t nid)
{
	const struct memmap_node *map = &memmap.nodes[nid];

	for (uint64_t i = 0; i < pools[nid][HUGETLB_1G].total; i++) {
		uint64_t pfn = gigantic[nid][i];
		memmap_write_head(memmap_page(map, pfn), PAGE_HUGE, GIGANTIC_ORDER,
				  page_zone_of_pfn(pfn), 0, 0);
	}
}

/* --- building the pools (phase "hugetlb") ------------------------------- */

static bool pool_alloc_array(struct pool *p, uint64_t entries)
{
	unsigned order = 0;

	while ((4096ULL << order) < entries * sizeof(uint64_t) && order < ALLOC_MAX_ORDER)
		order++;
	if ((4096ULL << order) < entries * sizeof(uint64_t))
		return false;
	uint64_t pfn = alloc_pages(0, order, 0);
	if (pfn == ALLOC_NO_PFN)
		return false;
	p->pfns = (uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT);
	p->cap = (4096ULL << order) / sizeof(uint64_t);
	return true;
}

static void pool_push(struct pool *p, uint64_t pfn)
{
	spin_lock(&p->lock);
	DEBUG_ASSERT(p->nr_free < p->cap, "pool overflow");
	p->pfns[p->nr_free++] = pfn;
	spin_unlock(&p->lock);
}

static uint64_t pool_pop(struct pool *p)
{
	uint64_t pfn = ALLOC_NO_PFN;

	spin_lock(&p->lock);
	if (p->nr_free)
		pfn = p->pfns[--p->nr_free];
	spin_unlock(&p->lock);
	return pfn;
}

/* A chunk of a node's 2 MiB job: [s, e) are page numbers of the request. */
static void alloc_huge_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t nid = (uint32_t)(uintptr_t)arg;
	struct pool *p = &pools[nid][HUGETLB_2M];

	for (uint64_t i = s; i < e; i++) {
		/* This node only: a pool page on another node is a wrong answer.
		 * Nobody reads a pool page's tails: the head alone is written. */
		uint64_t pfn = alloc_pages(nid, HUGE_ORDER, ALLOC_THISNODE | ALLOC_NO_TAILS);
		if (pfn == ALLOC_NO_PFN)
			return;   /* the node is full: the count tells */
		memmap_page(&memmap.nodes[nid], pfn)->type = PAGE_HUGE;
		if (kparams.hugetlb_zero)
			memset((void *)(uintptr_t)(pfn << PAGE_SHIFT), 0, 2u << 20);
		pool_push(p, pfn);
	}
}

/* A chunk of zeroing 1 GiB pages: [s, e) in 2 MiB units of the node's pages. */
static void zero_gigantic_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t nid = (uint32_t)(uintptr_t)arg;

	for (uint64_t u = s; u < e; u++) {
		uint64_t pfn = gigantic[nid][u >> 9] + ((u & 511) << HUGE_ORDER);
		memset((void *)(uintptr_t)(pfn << PAGE_SHIFT), 0, 2u << 20);
	}
}

#define POOL_CHUNK_TIMES 64
static struct job_chunk_time pool_times[HUGETLB_MAX_NODES][HUGETLB_NR_SIZES][POOL_CHUNK_TIMES];
static uint32_t nr_pool_times[HUGETLB_MAX_NODES][HUGETLB_NR_SIZES];

/* A pool job done: its own time (first chunk to last, not the time it
 * queued behind the node's other work) and who ran it. */
static void pool_job_done(struct pool *p, uint32_t n, enum hugetlb_size size,
			  const struct job_state *st)
{
	p->ns += st->ns;
	p->job_ns = st->ns;
	p->start_ns = st->first_tsc ? tsc_to_boot_ns(st->first_tsc) : 0;
	p->end_ns = st->end_tsc ? tsc_to_boot_ns(st->end_tsc) : p->start_ns;
	p->threads = st->threads;
	p->cpus = st->cpus;
	nr_pool_times[n][size] = st->plan.nr_chunks < POOL_CHUNK_TIMES ? st->plan.nr_chunks
									 : POOL_CHUNK_TIMES;
}

static void trace_pool_chunks(uint32_t n, enum hugetlb_size size)
{
	for (uint32_t i = 0; i < nr_pool_times[n][size]; i++) {
		const struct job_chunk_time *t = &pool_times[n][size][i];
		struct record r;
		rec_begin(&r, "chunk");
		rec_str(&r, "job", size == HUGETLB_1G ? "hugetlb-zero" : "hugetlb");
		rec_u64(&r, "node", n);
		rec_u64(&r, "cpu", t->cpu);
		rec_u64(&r, "start", t->start);
		rec_u64(&r, "end", t->end);
		rec_u64(&r, "start_ns", tsc_to_boot_ns(t->start_ticks));
		rec_u64(&r, "ns", t->ns);
		record_emit(&r);
	}
}

static void report(uint32_t n)
{
	struct record r;
	char line[160] = "";
	uint64_t ns = 0, first_ns = UINT64_MAX, last_ns = 0;
	size_t used = 0;

	for (int s = HUGETLB_NR_SIZES - 1; s >= 0; s--) {
		const struct pool *p = &pools[n][s];
		if (!p->requested && !p->total)
			continue;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%llu of %llu %s pages",
					 used ? ", " : "", (unsigned long long)p->total,
					 (unsigned long long)p->requested,
					 hugetlb_size_name((enum hugetlb_size)s));
		ns += p->ns;
		if (nr_pool_times[n][s]) {
			first_ns = p->start_ns < first_ns ? p->start_ns : first_ns;
			last_ns = p->end_ns > last_ns ? p->end_ns : last_ns;
		}
		rec_begin(&r, "hugetlb");
		rec_u64(&r, "node", n);
		rec_u64(&r, "size_bytes", hugetlb_size_bytes((enum hugetlb_size)s));
		rec_u64(&r, "requested", p->requested);
		rec_u64(&r, "allocated", p->total);
		rec_u64(&r, "ns", p->ns);
		rec_bool(&r, "zeroed", p->zeroed);
		if (nr_pool_times[n][s]) {
			rec_u64(&r, "job_ns", p->job_ns);
			rec_u64(&r, "start_ns", p->start_ns);
			rec_u64(&r, "end_ns", p->end_ns);
			rec_u64(&r, "threads", p->threads);
			rec_u64(&r, "cpus", p->cpus);
		}
		record_emit(&r);
		if (kparams.trace)
			trace_pool_chunks(n, (enum hugetlb_size)s);
		if (kparams.trace) {
			for (uint64_t i = 0; i < p->total; i++) {
				rec_begin(&r, "huge_page");
				rec_u64(&r, "node", n);
				rec_u64(&r, "size_bytes", hugetlb_size_bytes((enum hugetlb_size)s));
				rec_hex(&r, "start", p->pfns[i] << PAGE_SHIFT);
				record_emit(&r);
			}
		}
	}
	/* The node's jobs run one after the other on its CPUs, or overlap when
	 * one CPU starts the next job while another finishes the last chunk of
	 * the first: their span, not their sum, is the node's time. */
	if (last_ns)
		ns = last_ns - first_ns;
	if (used)
		pr_info("HugeTLB: node %u: %s in %llu.%03llums", n, line,
			(unsigned long long)(ns / 1000000), (unsigned long long)(ns / 1000 % 1000));
}

void hugetlb_init_pools(void)
{
	static struct job jobs[HUGETLB_MAX_NODES], zero_jobs[HUGETLB_MAX_NODES];
	static struct job_state st[HUGETLB_MAX_NODES], zst[HUGETLB_MAX_NODES];
	uint64_t want[HUGETLB_MAX_NODES] = { 0 };
	bool any = false;

	if (kparams.huge.req[HUGETLB_2M].set)
		plan_size(HUGETLB_2M, want);
	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++) {
		struct pool *g = &pools[n][HUGETLB_1G], *h = &pools[n][HUGETLB_2M];

		if (g->total) {
			if (!pool_alloc_array(g, g->total))
				kernel_exit(EXIT_PANIC, "no memory for the 1 GiB pool lists");
			for (uint64_t i = 0; i < g->total; i++)
				g->pfns[g->nr_free++] = gigantic[n][i];
			if (kparams.hugetlb_zero) {
				zero_jobs[n] = (struct job){ .name = "hugetlb-zero", .start = 0,
					.size = g->total << 9, .min_chunk = 64, .node = n,
					.fn = zero_gigantic_chunk, .arg = (void *)(uintptr_t)n,
					.times = pool_times[n][HUGETLB_1G],
					.times_cap = POOL_CHUNK_TIMES };
				job_start(&zero_jobs[n], &zst[n]);
				g->zeroed = true;
			}
		}
		h->requested = want[n];
		if (!want[n])
			continue;
		any = true;
		if (!pool_alloc_array(h, want[n])) {
			pr_err("HugeTLB: no memory for node %u's 2 MiB pool list", n);
			continue;
		}
		h->zeroed = kparams.hugetlb_zero;
		jobs[n] = (struct job){ .name = "hugetlb", .start = 0, .size = want[n],
			.min_chunk = 16, .node = n, .fn = alloc_huge_chunk,
			.arg = (void *)(uintptr_t)n, .times = pool_times[n][HUGETLB_2M],
			.times_cap = POOL_CHUNK_TIMES };
		job_start(&jobs[n], &st[n]);
	}
	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++) {
		struct pool *g = &pools[n][HUGETLB_1G], *h = &pools[n][HUGETLB_2M];
		if (zero_jobs[n].fn) {
			job_wait(&zst[n]);
			pool_job_done(g, n, HUGETLB_1G, &zst[n]);
		}
		if (jobs[n].fn) {
			job_wait(&st[n]);
			pool_job_done(h, n, HUGETLB_2M, &st[n]);
			h->total = h->nr_free;
			if (h->total < h->requested)
				failed_line(n, h, HUGETLB_2M);
		}
	}
	(void)any;
	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++)
		report(n);
}

/* --- memboot.selftest=hugetlb --------------------------------------------- */

struct taken {
	uint64_t pfn;
	uint32_t node, size;
};
static struct taken *taken;
static volatile uint64_t nr_taken, selftest_errors;

/* Take pages from any pool, round-robin, one per unit; check the head. */
static void take_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t u = s; u < e; u++) {
		for (uint32_t k = 0; k < numa_topo.nr_nodes * HUGETLB_NR_SIZES; k++) {
			uint32_t slot = (uint32_t)((u + k) % (numa_topo.nr_nodes * HUGETLB_NR_SIZES));
			uint32_t n = slot / HUGETLB_NR_SIZES, sz = slot % HUGETLB_NR_SIZES;
			uint64_t pfn = pool_pop(&pools[n][sz]);
			if (pfn == ALLOC_NO_PFN)
				continue;
			const struct page *pg = memmap_pfn_to_page(&memmap, pfn);
			if (!pg || pg->type != PAGE_HUGE || pg->order != size_order[sz] ||
			    memmap_nid_of_pfn(&memmap, pfn) != n ||
			    (pfn & ((1ULL << size_order[sz]) - 1)))
				__atomic_fetch_add(&selftest_errors, 1, __ATOMIC_RELAXED);
			*(volatile uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = u;
			uint64_t i = __atomic_fetch_add(&nr_taken, 1, __ATOMIC_RELAXED);
			taken[i] = (struct taken){ .pfn = pfn, .node = n, .size = sz };
			break;
		}
	}
}

static void give_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t i = s; i < e; i++)
		pool_push(&pools[taken[i].node][taken[i].size], taken[i].pfn);
}

bool hugetlb_selftest(void)
{
	uint64_t total = 0, free_after = 0;
	struct record r;

	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++)
		for (int s = 0; s < HUGETLB_NR_SIZES; s++)
			total += pools[n][s].total;
	unsigned order = 0;
	while ((4096ULL << order) < (total + 1) * sizeof(struct taken) && order < ALLOC_MAX_ORDER)
		order++;
	uint64_t pfn = alloc_pages(0, order, 0);
	if (pfn == ALLOC_NO_PFN)
		return false;
	taken = (struct taken *)(uintptr_t)(pfn << PAGE_SHIFT);
	nr_taken = selftest_errors = 0;

	struct job take = { .name = "hugetlb-take", .start = 0, .size = total ? total : 1,
			    .min_chunk = 1, .node = JOB_ALL_NODES, .fn = take_chunk };
	struct job_state st;
	job_run(&take, &st);
	uint64_t got = nr_taken;
	struct job give = { .name = "hugetlb-give", .start = 0, .size = got ? got : 1,
			    .min_chunk = 1, .node = JOB_ALL_NODES, .fn = give_chunk };
	if (got)
		job_run(&give, &st);
	for (uint32_t n = 0; n < numa_topo.nr_nodes; n++)
		for (int s = 0; s < HUGETLB_NR_SIZES; s++)
			free_after += pools[n][s].nr_free;
	alloc_free(pfn, order);
	rec_begin(&r, "hugetlb_test");
	rec_u64(&r, "pages", total);
	rec_u64(&r, "taken", got);
	rec_u64(&r, "errors", selftest_errors);
	rec_u64(&r, "free_after", free_after);
	record_emit(&r);
	return got == total && selftest_errors == 0 && free_after == total;
}

/* --- pool pages for page faults (kernel/vm.c) ------------------------------ */

uint64_t hugetlb_pool_take(uint32_t node, enum hugetlb_size size)
{
	uint32_t nr = numa_topo.nr_nodes;

	for (uint32_t d = 0; d < nr; d++) {
		/* node, node + 1, node - 1, node + 2 ... */
		uint32_t n = (d & 1) ? (node + (d + 1) / 2) % nr : (node + nr - d / 2) % nr;
		uint64_t pfn = pool_pop(&pools[n][size]);
		if (pfn != ALLOC_NO_PFN)
			return pfn;
	}
	return ALLOC_NO_PFN;
}

void hugetlb_pool_give(uint64_t pfn, enum hugetlb_size size)
{
	uint32_t n = memmap_nid_of_pfn(&memmap, pfn);

	ASSERT(n < numa_topo.nr_nodes, "pool page 0x%llx on no node", (unsigned long long)pfn);
	pool_push(&pools[n][size], pfn);
}

uint64_t hugetlb_pool_free(enum hugetlb_size size)
{
	uint64_t n = 0;

	for (uint32_t node = 0; node < numa_topo.nr_nodes; node++)
		n += __atomic_load_n(&pools[node][size].nr_free, __ATOMIC_RELAXED);
	return n;
}

/*
 * pool.c: the huge page pools (see hugetlb.h): 1 GiB pages reserved
 * from physmem, 2 MiB pages from the allocator on each node's own CPUs, the
 * take/give paths, the reports and the self-test.
 */
#include "mm/hugetlb/hugetlb.h"

#include <string.h>

#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"
#include "mm/alloc/alloc.h"
#include "mm/memmap.h"
#include "mm/physmem.h"

static const unsigned size_order[HUGETLB_NR_SIZES] = {
	HUGETLB_HUGE_ORDER, HUGETLB_GIGANTIC_ORDER,
};

static void *page_addr(const struct hugetlb_pools *hp, uint64_t pfn)
{
	return (void *)(hp->map_offset + (uintptr_t)(pfn << PAGE_SHIFT));
}

static uint64_t boot_ns(const struct hugetlb_pools *hp, uint64_t ticks)
{
	return ticks > hp->epoch_ticks ? job_platform_ticks_to_ns(ticks - hp->epoch_ticks) : 0;
}

void hugetlb_pools_init(struct hugetlb_pools *hp, uint32_t nr_nodes, uintptr_t map_offset,
			uint64_t epoch_ticks)
{
	*hp = (struct hugetlb_pools){ .nr_nodes = nr_nodes, .map_offset = map_offset,
				      .epoch_ticks = epoch_ticks };
}

static bool any_request(const struct hugetlb_config *cfg)
{
	for (int s = 0; s < HUGETLB_NR_SIZES; s++)
		if (cfg->req[s].set)
			return true;
	return false;
}

/* The per-node table, once, for the nodes that exist, with @extra_bytes
 * after it for the caller (cleared: the node part only). */
static bool take_tables(struct hugetlb_pools *hp, size_t extra_bytes, hugetlb_table_fn table,
			void *ctx)
{
	size_t bytes = sizeof(struct hugetlb_node) * hp->nr_nodes;

	if (hp->nodes || !hp->nr_nodes)
		return true;
	hp->nodes = table(ctx, bytes + extra_bytes, 0);
	if (!hp->nodes) {
		pr_err("HugeTLB: no memory for the pool tables (%llu bytes); every pool stays empty",
		       (unsigned long long)(bytes + extra_bytes));
		return false;
	}
	memset(hp->nodes, 0, bytes);
	return true;
}

/* A pool's free-page stack of @entries. */
static bool take_list(struct hugetlb_pool *p, uint64_t entries, uint32_t node,
		      hugetlb_table_fn table, void *ctx)
{
	p->pfns = table(ctx, entries * sizeof(uint64_t), node);
	p->cap = p->pfns ? entries : 0;
	return p->pfns != NULL;
}

/* Pages wanted per node for @size; a request naming a node that does not
 * exist is reported and that part dropped. */
static void plan_size(const struct hugetlb_pools *hp, const struct hugetlb_config *cfg,
		      enum hugetlb_size size, const bool *has_mem, uint64_t want[HUGETLB_MAX_NODES])
{
	int bad_node;
	uint32_t nr = hp->nr_nodes;

	hugetlb_plan(&cfg->req[size], nr, has_mem, want, &bad_node);
	if (bad_node >= 0)
		pr_err("HugeTLB: hugepages= names node %d, but there %s %u node%s; that part is ignored",
		       bad_node, nr == 1 ? "is" : "are", nr, nr == 1 ? "" : "s");
}

static void failed_line(uint32_t node, const struct hugetlb_pool *p, enum hugetlb_size size)
{
	/* Linux's wording, so logs compare. */
	pr_warn("HugeTLB: allocating %llu of page size %s failed node%u.  Only allocated %llu hugepages.",
		(unsigned long long)p->requested, hugetlb_size_name(size), node,
		(unsigned long long)p->total);
}

/* --- 1 GiB pages (phase "hugetlb1g") --------------------------------------- */

static uint64_t gigantic_cap(uint64_t requested)
{
	return requested < HUGETLB_MAX_GIGANTIC_PER_NODE ? requested
							 : HUGETLB_MAX_GIGANTIC_PER_NODE;
}

bool hugetlb_reserve_gigantic(struct hugetlb_pools *hp, const struct hugetlb_config *cfg,
			      const bool *node_has_memory, bool cpu_has_1g, struct physmem *pm,
			      hugetlb_table_fn table, void *ctx)
{
	uint64_t want[HUGETLB_MAX_NODES] = { 0 };
	uint64_t list_entries = 0;
	bool gigantic = cfg->req[HUGETLB_1G].set;

	if (!any_request(cfg))
		return true;
	if (gigantic && !cpu_has_1g) {
		pr_err("HugeTLB: unsupported hugepagesz=1G: this CPU has no 1 GiB pages; that pool stays empty");
		gigantic = false;
	}
	if (gigantic) {
		plan_size(hp, cfg, HUGETLB_1G, node_has_memory, want);
		for (uint32_t n = 0; n < hp->nr_nodes; n++)
			list_entries += gigantic_cap(want[n]);
	}
	/* One table, taken before the 1 GiB pages (its memory never competes
	 * with them): the nodes' pools, then each 1 GiB pool's list. */
	if (!take_tables(hp, list_entries * sizeof(uint64_t), table, ctx))
		return false;
	uint64_t *list = (uint64_t *)(hp->nodes + hp->nr_nodes);
	for (uint32_t n = 0; gigantic && n < hp->nr_nodes; n++) {
		struct hugetlb_pool *p = &hp->nodes[n].pool[HUGETLB_1G];
		uint64_t t0 = job_platform_ticks();

		p->requested = want[n];
		if (!p->requested)
			continue;
		if (p->requested > HUGETLB_MAX_GIGANTIC_PER_NODE)
			pr_err("HugeTLB: at most %d pages of 1 GiB per node; node %u asked %llu",
			       HUGETLB_MAX_GIGANTIC_PER_NODE, n, (unsigned long long)p->requested);
		p->pfns = list;
		p->cap = gigantic_cap(p->requested);
		list += p->cap;
		while (p->total < p->cap) {
			/* Exact node, naturally aligned: never another node's page. */
			uint64_t at = physmem_alloc(pm, 1ULL << 30, 1ULL << 30, n, true,
						    PHYSMEM_RESV_HUGETLB_1G);
			if (!at)
				break;
			p->pfns[p->total++] = at >> PAGE_SHIFT;
		}
		p->nr_free = p->total;
		hp->gigantic_pages += p->total << HUGETLB_GIGANTIC_ORDER;
		p->ns = job_platform_ticks_to_ns(job_platform_ticks() - t0);
		if (p->total < p->requested)
			failed_line(n, p, HUGETLB_1G);
	}
	return true;
}

void hugetlb_mark_gigantic(const struct hugetlb_pools *hp, const struct memmap_node *map,
			   uint32_t nid)
{
	if (!hp->nodes || nid >= hp->nr_nodes)
		return;
	const struct hugetlb_pool *p = &hp->nodes[nid].pool[HUGETLB_1G];
	for (uint64_t i = 0; i < p->total; i++) {
		uint64_t pfn = p->pfns[i];
		memmap_write_head(memmap_page(map, pfn), PAGE_HUGE, HUGETLB_GIGANTIC_ORDER,
				  page_zone_of_pfn(pfn), 0, 0);
	}
}

/* --- 2 MiB pages and zeroing (phase "hugetlb") ----------------------------- */

static void pool_push(struct hugetlb_pool *p, uint64_t pfn)
{
	spin_lock(&p->lock);
	ASSERT(p->nr_free < p->cap, "hugetlb: pool overflow");
	p->pfns[p->nr_free++] = pfn;
	spin_unlock(&p->lock);
}

static uint64_t pool_pop(struct hugetlb_pool *p)
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
	struct hugetlb_node *a = arg;
	struct hugetlb_pool *p = &a->pool[HUGETLB_2M];
	const struct memmap_node *map = &a->pools->mm->nodes[a->nid];

	for (uint64_t i = s; i < e; i++) {
		/* This node only: a pool page on another node is a wrong answer.
		 * Nobody reads a pool page's tails: the head alone is written. */
		uint64_t pfn = alloc_pages(a->nid, HUGETLB_HUGE_ORDER, ALLOC_THISNODE | ALLOC_NO_TAILS);
		if (pfn == ALLOC_NO_PFN)
			return;   /* the node is full: the count tells */
		memmap_page(map, pfn)->type = PAGE_HUGE;
		if (a->zero)
			memset(page_addr(a->pools, pfn), 0, 2u << 20);
		pool_push(p, pfn);
	}
}

/* A chunk of zeroing 1 GiB pages: [s, e) in 2 MiB units of the node's pages. */
static void zero_gigantic_chunk(void *arg, uint64_t s, uint64_t e)
{
	const struct hugetlb_node *a = arg;
	const struct hugetlb_pool *p = &a->pool[HUGETLB_1G];

	for (uint64_t u = s; u < e; u++) {
		uint64_t pfn = p->pfns[u >> 9] + ((u & 511) << HUGETLB_HUGE_ORDER);
		memset(page_addr(a->pools, pfn), 0, 2u << 20);
	}
}

/* A pool job done: its own time (first chunk to last, not the time it
 * queued behind the node's other work) and who ran it. */
static void pool_job_done(struct hugetlb_pool *p)
{
	const struct job_state *st = &p->st;

	p->ns += st->ns;
	p->job_ns = st->ns;
	p->start_ticks = st->first_counter;
	p->end_ticks = st->end_counter ? st->end_counter : st->first_counter;
	p->threads = st->threads;
	p->cpus = st->cpus;
	p->nr_times = st->plan.nr_chunks < HUGETLB_CHUNK_TIMES ? st->plan.nr_chunks
							       : HUGETLB_CHUNK_TIMES;
}

void hugetlb_build_pools(struct hugetlb_pools *hp, const struct hugetlb_config *cfg,
			 bool zero, const bool *node_has_memory, const struct memmap *mm,
			 hugetlb_table_fn table, void *ctx)
{
	uint64_t want[HUGETLB_MAX_NODES] = { 0 };

	hp->mm = mm;
	if (!hp->nodes)
		return;   /* nothing asked, or no tables: reported already */
	if (cfg->req[HUGETLB_2M].set)
		plan_size(hp, cfg, HUGETLB_2M, node_has_memory, want);
	for (uint32_t n = 0; n < hp->nr_nodes; n++) {
		struct hugetlb_node *node = &hp->nodes[n];
		struct hugetlb_pool *g = &node->pool[HUGETLB_1G];
		struct hugetlb_pool *h = &node->pool[HUGETLB_2M];

		node->pools = hp;
		node->nid = n;
		node->zero = zero;
		if (g->total && zero) {
			g->job = (struct job){ .name = "hugetlb-zero", .start = 0,
				.size = g->total << 9, .min_chunk = 64,
				.node = hp->cpu_node ? hp->cpu_node[n] : n,
				.fn = zero_gigantic_chunk, .arg = node, .times = g->times,
				.times_cap = HUGETLB_CHUNK_TIMES };
			g->zeroed = true;
			g->has_job = true;
		}
		h->requested = want[n];
		if (want[n]) {
			if (!take_list(h, want[n], n, table, ctx)) {
				pr_err("HugeTLB: no memory for node %u's 2 MiB pool list", n);
			} else {
				h->zeroed = zero;
				h->job = (struct job){ .name = "hugetlb", .start = 0, .size = want[n],
					.min_chunk = 16,
					.node = hp->cpu_node ? hp->cpu_node[n] : n,
					.fn = alloc_huge_chunk,
					.arg = node, .times = h->times,
					.times_cap = HUGETLB_CHUNK_TIMES };
				h->has_job = true;
			}
		}
	}
	/* Every node's jobs are started before any is waited for. */
	for (uint32_t n = 0; n < hp->nr_nodes; n++) {
		for (int s = HUGETLB_NR_SIZES - 1; s >= 0; s--) {
			struct hugetlb_pool *p = &hp->nodes[n].pool[s];
			if (!p->has_job)
				continue;
			job_start(&p->job, &p->st);
		}
	}
	for (uint32_t n = 0; n < hp->nr_nodes; n++) {
		for (int s = HUGETLB_NR_SIZES - 1; s >= 0; s--) {
			struct hugetlb_pool *p = &hp->nodes[n].pool[s];
			if (!p->has_job)
				continue;
			job_wait(&p->st);
			pool_job_done(p);
			if (s == HUGETLB_2M) {
				p->total = p->nr_free;
				if (p->total < p->requested)
					failed_line(n, p, HUGETLB_2M);
			}
		}
	}
}

/* --- reports ---------------------------------------------------------------- */

static void trace_pool(const struct hugetlb_pools *hp, uint32_t n, enum hugetlb_size size)
{
	const struct hugetlb_pool *p = &hp->nodes[n].pool[size];
	struct record r;

	for (uint32_t i = 0; i < p->nr_times; i++) {
		const struct job_chunk_time *t = &p->times[i];
		rec_begin(&r, "chunk");
		rec_str(&r, "job", size == HUGETLB_1G ? "hugetlb-zero" : "hugetlb");
		rec_u64(&r, "node", n);
		rec_u64(&r, "cpu", t->cpu);
		rec_u64(&r, "start", t->start);
		rec_u64(&r, "end", t->end);
		rec_u64(&r, "start_ns", boot_ns(hp, t->start_ticks));
		rec_u64(&r, "ns", t->ns);
		record_emit(&r);
	}
	for (uint64_t i = 0; i < p->total; i++) {
		rec_begin(&r, "huge_page");
		rec_u64(&r, "node", n);
		rec_u64(&r, "size_bytes", hugetlb_size_bytes(size));
		rec_hex(&r, "start", p->pfns[i] << PAGE_SHIFT);
		record_emit(&r);
	}
}

void hugetlb_report(const struct hugetlb_pools *hp, bool trace)
{
	struct record r;

	if (!hp->nodes)
		return;
	for (uint32_t n = 0; n < hp->nr_nodes; n++) {
		for (int s = HUGETLB_NR_SIZES - 1; s >= 0; s--) {
			const struct hugetlb_pool *p = &hp->nodes[n].pool[s];
			if (!p->requested && !p->total)
				continue;
			rec_begin(&r, "hugetlb");
			rec_u64(&r, "node", n);
			rec_u64(&r, "size_bytes", hugetlb_size_bytes((enum hugetlb_size)s));
			rec_u64(&r, "requested", p->requested);
			rec_u64(&r, "allocated", p->total);
			rec_u64(&r, "ns", p->ns);
			rec_bool(&r, "zeroed", p->zeroed);
			if (p->nr_times) {
				rec_u64(&r, "job_ns", p->job_ns);
				rec_u64(&r, "start_ns", boot_ns(hp, p->start_ticks));
				rec_u64(&r, "end_ns", boot_ns(hp, p->end_ticks));
				rec_u64(&r, "threads", p->threads);
				rec_u64(&r, "cpus", p->cpus);
			}
			rec_u64(&r, "cpu_node", hp->cpu_node ? hp->cpu_node[n] : n);
			record_report(&r, LOG_INFO, s == HUGETLB_1G
				? "HugeTLB: node {node}: {allocated} of {requested} 1.00 GiB pages in {ns:ms}ms"
				: "HugeTLB: node {node}: {allocated} of {requested} 2.00 MiB pages in {ns:ms}ms");
			if (trace)
				trace_pool(hp, n, (enum hugetlb_size)s);
		}
	}
}

/* --- pool pages for their users -------------------------------------------- */

uint64_t hugetlb_pool_take(struct hugetlb_pools *hp, uint32_t node, enum hugetlb_size size)
{
	uint32_t nr = hp->nr_nodes;

	if (!hp->nodes || node >= nr)
		return ALLOC_NO_PFN;
	for (uint32_t d = 0; d < nr; d++) {
		/* node, node + 1, node - 1, node + 2 ... */
		uint32_t n = (d & 1) ? (node + (d + 1) / 2) % nr : (node + nr - d / 2) % nr;
		uint64_t pfn = pool_pop(&hp->nodes[n].pool[size]);
		if (pfn != ALLOC_NO_PFN)
			return pfn;
	}
	return ALLOC_NO_PFN;
}

void hugetlb_pool_give(struct hugetlb_pools *hp, uint64_t pfn, enum hugetlb_size size)
{
	uint32_t n = memmap_nid_of_pfn(hp->mm, pfn);

	ASSERT(hp->nodes && n < hp->nr_nodes, "pool page 0x%llx on no node",
	       (unsigned long long)pfn);
	pool_push(&hp->nodes[n].pool[size], pfn);
}

uint64_t hugetlb_pool_free(const struct hugetlb_pools *hp, enum hugetlb_size size)
{
	uint64_t n = 0;

	for (uint32_t node = 0; hp->nodes && node < hp->nr_nodes; node++)
		n += __atomic_load_n(&hp->nodes[node].pool[size].nr_free, __ATOMIC_RELAXED);
	return n;
}

uint64_t hugetlb_pool_total(const struct hugetlb_pools *hp)
{
	uint64_t n = 0;

	for (uint32_t node = 0; hp->nodes && node < hp->nr_nodes; node++)
		for (int s = 0; s < HUGETLB_NR_SIZES; s++)
			n += hp->nodes[node].pool[s].total;
	return n;
}

/* --- memboot.selftest=hugetlb --------------------------------------------- */

struct selftest_run {
	struct hugetlb_pools *hp;
	struct hugetlb_taken *taken;
	uint64_t nr_taken, errors;
};

/* Take pages from any pool, round-robin, one per unit; check the head. */
static void take_chunk(void *arg, uint64_t s, uint64_t e)
{
	struct selftest_run *t = arg;
	struct hugetlb_pools *hp = t->hp;
	uint32_t slots = hp->nr_nodes * HUGETLB_NR_SIZES;

	for (uint64_t u = s; u < e; u++) {
		for (uint32_t k = 0; k < slots; k++) {
			uint32_t slot = (uint32_t)((u + k) % slots);
			uint32_t n = slot / HUGETLB_NR_SIZES, sz = slot % HUGETLB_NR_SIZES;
			uint64_t pfn = pool_pop(&hp->nodes[n].pool[sz]);
			if (pfn == ALLOC_NO_PFN)
				continue;
			const struct page *pg = memmap_pfn_to_page(hp->mm, pfn);
			if (!pg || pg->type != PAGE_HUGE || pg->order != size_order[sz] ||
			    memmap_nid_of_pfn(hp->mm, pfn) != n ||
			    (pfn & ((1ULL << size_order[sz]) - 1)))
				__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
			*(volatile uint64_t *)page_addr(hp, pfn) = u;
			uint64_t i = __atomic_fetch_add(&t->nr_taken, 1, __ATOMIC_RELAXED);
			t->taken[i] = (struct hugetlb_taken){ .pfn = pfn, .node = n, .size = sz };
			break;
		}
	}
}

static void give_chunk(void *arg, uint64_t s, uint64_t e)
{
	struct selftest_run *t = arg;

	for (uint64_t i = s; i < e; i++)
		pool_push(&t->hp->nodes[t->taken[i].node].pool[t->taken[i].size], t->taken[i].pfn);
}

size_t hugetlb_selftest_bytes(const struct hugetlb_pools *hp)
{
	return (size_t)(hugetlb_pool_total(hp) + 1) * sizeof(struct hugetlb_taken);
}

bool hugetlb_selftest(struct hugetlb_pools *hp, struct hugetlb_taken *scratch)
{
	uint64_t total = hugetlb_pool_total(hp), free_after = 0;
	struct selftest_run t = { .hp = hp, .taken = scratch };
	struct job_state st;
	struct record r;

	if (total) {
		struct job take = { .name = "hugetlb-take", .start = 0, .size = total,
				    .min_chunk = 1, .node = JOB_ALL_NODES, .fn = take_chunk,
				    .arg = &t };
		job_run(&take, &st);
	}
	uint64_t got = t.nr_taken;
	if (got) {
		struct job give = { .name = "hugetlb-give", .start = 0, .size = got,
				    .min_chunk = 1, .node = JOB_ALL_NODES, .fn = give_chunk,
				    .arg = &t };
		job_run(&give, &st);
	}
	for (int s = 0; s < HUGETLB_NR_SIZES; s++)
		free_after += hugetlb_pool_free(hp, (enum hugetlb_size)s);
	rec_begin(&r, "hugetlb_test");
	rec_u64(&r, "pages", total);
	rec_u64(&r, "taken", got);
	rec_u64(&r, "errors", t.errors);
	rec_u64(&r, "free_after", free_after);
	record_emit(&r);
	return got == total && t.errors == 0 && free_after == total;
}

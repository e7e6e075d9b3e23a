/*
 * meminit.c: per-node descriptor arrays, parallel initialisation, census.
 */
#include "kernel/meminit.h"

#include <string.h>

#include "arch/cpu.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "kernel/discover.h"
#include "kernel/exit.h"
#include "kernel/hugetlb.h"
#include "kernel/job.h"
#include "kernel/log.h"
#include "kernel/memory.h"
#include "kernel/vm.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/record.h"
#include "kernel/summary.h"
#include "kernel/time.h"
#include "mm/alloc.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)
#define MAX_FREE_RANGES 256
#define GROW_PAGES (32768ULL)          /* one 128 MiB section, as Linux grows */
#define MIN_CHUNK_PAGES (32768ULL)     /* a chunk worth a thread: 128 MiB */

static const char *const policy_names[] = { "serial", "deferred", "lazy" };

/* Free memory of a node still to be initialised, as pfn ranges. */
struct node_work {
	struct memmap_range todo[MAX_FREE_RANGES];
	uint32_t nr_todo;
	uint64_t free_pages;          /* all free pages of the node */
	uint64_t early_pages;         /* filled by the boot CPU before the parallel part */
	uint64_t parallel_pages;
	uint64_t desc_bytes;
	uint32_t threads;
	uint64_t ns;
};

struct memmap memmap;
static struct node_work work[MEMMAP_MAX_NODES];
static void early_allocations(uint32_t node);
static struct spinlock grow_lock;
static bool lazy;

static struct memmap_node *node_map(uint32_t nid)
{
	return &memmap.nodes[nid];
}

static bool has_memory(uint32_t nid)
{
	return numa_topo.nodes[nid].mem_bytes != 0;
}

/* --- phase "memmap" ---------------------------------------------------- */

/* Sparse descriptor arrays: memory from physmem on the node (elsewhere
 * only if it must, with a warning), mapped into the node's window. */
static uint64_t sparse_alloc(void *ctx, uint64_t bytes, uint64_t align, uint32_t nid)
{
	/* The exact attempt has a fallback: its failure is not a warning of
	 * its own; the fallback's placement is reported below. */
	uint64_t at = physmem_try_alloc(&physmem, bytes, align, nid, true, "memmap");

	(void)ctx;
	if (!at) {
		at = physmem_alloc(&physmem, bytes, align, nid, false, "memmap");
		if (at)
			pr_warn("memmap: node %u's descriptors do not fit in its own memory; placed on node %u (%llu bytes)",
				nid, physmem_node_of(&physmem, at), (unsigned long long)bytes);
	}
	return at;
}

static bool sparse_map(void *ctx, uint64_t virt, uint64_t phys, uint64_t bytes)
{
	struct record r;

	rec_begin(&r, "memmap_piece");
	rec_u64(&r, "node", *(const uint32_t *)ctx);
	rec_hex(&r, "start", phys);
	rec_hex(&r, "end", phys + bytes);
	rec_hex(&r, "virt", virt);
	record_emit(&r);
	return arch_map_range(virt, phys, bytes, memory_alloc_pagetable, NULL);
}

static uint32_t sparse_nid;   /* the node being set up, for the records */
static const struct memmap_sparse_ops sparse_ops = { sparse_alloc, sparse_map, &sparse_nid };
static struct memmap_range sparse_present[NUMA_MAX_RANGES], sparse_runs[NUMA_MAX_RANGES];

void meminit_arrays(void)
{
	uint64_t max_pfn = 0;

	for (uint32_t i = 0; i < numa_topo.nr_ranges; i++)
		if (PFN(numa_topo.ranges[i].end) > max_pfn)
			max_pfn = PFN(numa_topo.ranges[i].end);
	uint64_t table = physmem_alloc(&physmem, memmap_nid_table_bytes(max_pfn), 4096,
				       numa_topo.nodes[0].mem_node, false, "memmap");
	if (!table)
		kernel_exit(EXIT_PANIC, "no memory for the pfn-to-node table");
	memmap_init(&memmap, (uint8_t *)(uintptr_t)table, max_pfn);

	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++) {
		const struct numa_node *nn = &numa_topo.nodes[nid];
		struct memmap_node n;
		struct record r;

		if (!has_memory(nid))
			continue;
		uint64_t base = PFN(nn->span_start), pages = PFN(nn->span_end) - base;
		struct memmap_sparse_stats st;
		uint32_t nr_present = 0;
		void *window = (void *)(uintptr_t)(ARCH_MEMMAP_WINDOW_BASE +
						   (uint64_t)nid * ARCH_MEMMAP_WINDOW_BYTES);

		for (uint32_t i = 0; i < numa_topo.nr_ranges; i++)
			if (numa_topo.ranges[i].node == nid)
				sparse_present[nr_present++] = (struct memmap_range){
					PFN(numa_topo.ranges[i].start), PFN(numa_topo.ranges[i].end) };
		/* Descriptors only for present memory: the node's window is
		 * backed where its ranges are (mm/memmap.h, sparse storage). */
		sparse_nid = nid;
		if (!memmap_node_init_sparse(&n, nid, base, pages, window, sparse_present, nr_present,
					     ALLOC_MAX_ORDER, &sparse_ops, sparse_runs,
					     NUMA_MAX_RANGES, &st))
			kernel_exit(EXIT_PANIC, "no memory for a node's page descriptors");
		memmap_add_node(&memmap, &n);
		work[nid].desc_bytes = st.backed_bytes;
		/* The store memmap_init_range() will use for this array (it
		 * weighs the span's descriptors against the LLC). */
		const struct memmap_cpu_caches *cc = memmap_cpu_caches();
		const char *store = memmap_store_choose(memmap_desc_bytes(pages), cc) ==
				    MEMMAP_STORE_NT ? "nt" : "plain";
		pr_info("memmap: node %u: %llu pages present in [mem 0x%016llx-0x%016llx], %llu bytes of descriptors (%u bytes each) in %u runs, %s stores (LLC %llu KiB, CPUID %s)",
			nid, (unsigned long long)st.present_pages, (unsigned long long)nn->span_start,
			(unsigned long long)(nn->span_end - 1), (unsigned long long)st.backed_bytes,
			MEMMAP_DESC_BYTES, st.runs, store, (unsigned long long)(cc->llc_bytes >> 10),
			cc->llc_source);
		rec_begin(&r, "memmap");
		rec_u64(&r, "node", nid);
		rec_hex(&r, "window", (uint64_t)(uintptr_t)window);
		rec_u64(&r, "desc_bytes", MEMMAP_DESC_BYTES);
		rec_u64(&r, "span_pages", pages);
		rec_u64(&r, "present_pages", st.present_pages);
		rec_u64(&r, "bytes", st.backed_bytes);
		rec_u64(&r, "runs", st.runs);
		rec_str(&r, "store", store);
		rec_u64(&r, "llc_bytes", cc->llc_bytes);
		record_emit(&r);
	}
	for (uint32_t i = 0; i < numa_topo.nr_ranges; i++)
		memmap_set_nid(&memmap, PFN(numa_topo.ranges[i].start), PFN(numa_topo.ranges[i].end),
			       numa_topo.ranges[i].node);
}

/* --- the boot CPU's part --------------------------------------------------- */

static enum page_type resv_type(const char *name)
{
	if (strcmp(name, "memmap") == 0)
		return PAGE_MEMMAP;
	if (strcmp(name, "pagetable") == 0)
		return PAGE_PAGETABLE;
	return PAGE_RESERVED;
}

/* Fill and free [s, e) of one zone of node @ctx: the unit of all policies. */
static void fill_and_free(void *ctx, enum page_zone z, uint64_t s, uint64_t e)
{
	uint32_t nid = (uint32_t)(uintptr_t)ctx;

	if (lazy)
		memmap_init_heads(node_map(nid), s, e, PAGE_RESERVED, z, ALLOC_MAX_ORDER);
	else
		memmap_init_range(node_map(nid), s, e, PAGE_RESERVED, z);
	alloc_current()->free_range(nid, z, s, e);
}

/* Fill and free [s, e) of node @nid, on both sides of the 4 GiB line. */
static void fill_and_free_range(uint32_t nid, uint64_t s, uint64_t e)
{
	page_zone_split(s, e, fill_and_free, (void *)(uintptr_t)nid);
}

static bool collect_free(void *ctx, uint64_t start, uint64_t end, uint32_t node)
{
	struct node_work *w = &work[node];

	if (w->nr_todo == MAX_FREE_RANGES) {
		pr_err("meminit: node %u has more than %d free ranges; the rest stays reserved",
		       node, MAX_FREE_RANGES);
		return true;
	}
	w->todo[w->nr_todo++] = (struct memmap_range){ PFN(start), PFN(end) };
	w->free_pages += PFN(end) - PFN(start);
	return true;
}

struct fixed_ctx {
	const struct memmap_node *map;
	enum page_type type;
};

static void init_reserved(void *ctx, enum page_zone z, uint64_t s, uint64_t e)
{
	const struct fixed_ctx *c = ctx;

	memmap_init_range(c->map, s, e, c->type, z);
}

/* Everything a buddy merge could read must be written before any chunk
 * frees: reserved ranges in full, and the markers of the holes. */
static void init_fixed(uint32_t nid)
{
	const struct numa_node *nn = &numa_topo.nodes[nid];
	uint64_t prev_end = PFN(nn->span_start);

	for (uint32_t i = 0; i < physmem.nr_resv; i++) {
		const struct physmem_resv *r = &physmem.resv[i];
		/* 1 GiB pool pages: a head each, never their tails. */
		if (r->node != nid || strcmp(r->name, "hugetlb") == 0)
			continue;
		struct fixed_ctx c = { node_map(nid), resv_type(r->name) };
		page_zone_split(PFN(r->start), PFN(r->end), init_reserved, &c);
	}
	hugetlb_mark_gigantic(nid);
	for (uint32_t i = 0; i < numa_topo.nr_ranges; i++) {
		const struct numa_mem_range *m = &numa_topo.ranges[i];
		if (m->node != nid)
			continue;
		if (PFN(m->start) > prev_end)
			memmap_mark_hole(node_map(nid), prev_end, PFN(m->start), ALLOC_MAX_ORDER);
		prev_end = PFN(m->end);
	}
}

/* Take up to @want pages (whole max-order blocks at the end) from the front
 * of @nid's work list, fill and free them on this CPU. Returns pages done. */
static uint64_t take_front(uint32_t nid, uint64_t want)
{
	struct node_work *w = &work[nid];
	uint64_t done = 0;

	while (done < want && w->nr_todo) {
		struct memmap_range *r = &w->todo[0];
		uint64_t end = r->end_pfn;
		if (want - done < r->end_pfn - r->start_pfn) {
			/* Stop on a max-order boundary so that later chunks, cut
			 * at such boundaries, never share a block with this part. */
			end = r->start_pfn + (want - done);
			end = (end + ALLOC_MAX_ORDER_PAGES - 1) & ~(ALLOC_MAX_ORDER_PAGES - 1);
			if (end > r->end_pfn)
				end = r->end_pfn;
		}
		fill_and_free_range(nid, r->start_pfn, end);
		done += end - r->start_pfn;
		r->start_pfn = end;
		if (r->start_pfn == r->end_pfn) {
			memmove(&w->todo[0], &w->todo[1], (w->nr_todo - 1) * sizeof(w->todo[0]));
			w->nr_todo--;
		}
	}
	w->early_pages += done;
	return done;
}

/* deferred_grow_zone's counterpart: an allocation found nothing free while
 * deferred memory remains; give it one more section. */
static bool grow(void *ctx, uint32_t node)
{
	bool grew = false;

	spin_lock(&grow_lock);
	for (uint32_t k = 0; k < numa_topo.nr_nodes && !grew; k++) {
		uint32_t nid = (node + k) % numa_topo.nr_nodes;
		grew = work[nid].nr_todo && take_front(nid, GROW_PAGES);
	}
	spin_unlock(&grow_lock);
	return grew;
}

/* --- the parallel part ----------------------------------------------------- */

/* A chunk of a node job: fill and free the parts of [s, e) still to do. */
static void node_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t nid = (uint32_t)(uintptr_t)arg;
	const struct node_work *w = &work[nid];

	for (uint32_t i = 0; i < w->nr_todo; i++) {
		uint64_t a = w->todo[i].start_pfn > s ? w->todo[i].start_pfn : s;
		uint64_t b = w->todo[i].end_pfn < e ? w->todo[i].end_pfn : e;
		if (a < b)
			fill_and_free_range(nid, a, b);
	}
}

static struct job_chunk_time chunk_times[MEMMAP_MAX_NODES][256];

static void trace_chunks(uint32_t nid, const struct job_state *st)
{
	for (uint32_t i = 0; i < st->plan.nr_chunks && i < 256; i++) {
		const struct job_chunk_time *t = &chunk_times[nid][i];
		struct record r;
		rec_begin(&r, "chunk");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "cpu", t->cpu);
		rec_u64(&r, "start_pfn", t->start);
		rec_u64(&r, "end_pfn", t->end);
		rec_u64(&r, "ns", t->ns);
		record_emit(&r);
	}
}

static void parallel_init(void)
{
	static struct job jobs[MEMMAP_MAX_NODES];
	static struct job_state states[MEMMAP_MAX_NODES];
	uint64_t max_threads = 0;
	bool all = false;

	switch (kparams.init_threads_mode) {
	case INIT_THREADS_ONE:  max_threads = 1; break;
	case INIT_THREADS_NODE: max_threads = 0; break;
	case INIT_THREADS_ALL:  all = true; break;
	default:                max_threads = kparams.init_threads; break;
	}
	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++) {
		struct node_work *w = &work[nid];
		if (!w->nr_todo)
			continue;
		uint64_t s = w->todo[0].start_pfn, e = w->todo[w->nr_todo - 1].end_pfn;
		for (uint32_t i = 0; i < w->nr_todo; i++)
			w->parallel_pages += w->todo[i].end_pfn - w->todo[i].start_pfn;
		jobs[nid] = (struct job){
			.name = "meminit", .start = s, .size = e - s,
			.align = ALLOC_MAX_ORDER_PAGES, .min_chunk = MIN_CHUNK_PAGES,
			.max_threads = (uint32_t)max_threads,
			.node = all ? JOB_ALL_NODES : nid,
			.fn = node_chunk, .arg = (void *)(uintptr_t)nid,
			.times = kparams.trace ? chunk_times[nid] : NULL,
			.times_cap = kparams.trace ? 256 : 0,
		};
		/* With "all", every CPU works on one node after the other. */
		job_start(&jobs[nid], &states[nid]);
		if (all)
			job_wait(&states[nid]);
	}
	/* Wait for the boot CPU's own node first: it helps there. */
	uint32_t own = this_cpu()->node;
	for (uint32_t k = 0; k < numa_topo.nr_nodes; k++) {
		uint32_t nid = (own + k) % numa_topo.nr_nodes;
		struct node_work *w = &work[nid];
		if (!jobs[nid].fn)
			continue;
		if (!all)
			job_wait(&states[nid]);
		w->threads = states[nid].threads;
		w->ns = states[nid].ns;
		w->nr_todo = 0;
		if (kparams.trace)
			trace_chunks(nid, &states[nid]);
	}
}

/* --- phase "meminit" ------------------------------------------------------- */

static void report(uint32_t nid, enum meminit_policy policy)
{
	const struct node_work *w = &work[nid];
	struct record r;
	uint64_t pages = w->parallel_pages + w->early_pages;

	pr_info("node %u %s pages initialised in %llu.%03llums (%llu pages, %u thread%s)", nid,
		policy == MEMINIT_SERIAL ? "serial" : policy_names[policy],
		(unsigned long long)(w->ns / 1000000), (unsigned long long)(w->ns / 1000 % 1000),
		(unsigned long long)(policy == MEMINIT_SERIAL ? pages : w->parallel_pages),
		w->threads, w->threads == 1 ? "" : "s");
	rec_begin(&r, "node_init");
	rec_u64(&r, "node", nid);
	rec_str(&r, "policy", policy_names[policy]);
	rec_u64(&r, "threads", w->threads);
	rec_u64(&r, "pages", policy == MEMINIT_SERIAL ? pages : w->parallel_pages);
	rec_u64(&r, "early_pages", policy == MEMINIT_SERIAL ? 0 : w->early_pages);
	rec_u64(&r, "free_pages", w->free_pages);
	rec_u64(&r, "desc_bytes", w->desc_bytes);
	rec_u64(&r, "ns", w->ns);
	record_emit(&r);
	summary_node_init(nid, policy_names[policy], w->threads,
			  policy == MEMINIT_SERIAL ? pages : w->parallel_pages, w->ns);
}

/*
 * Lazy: what the first allocations pay for descriptors not yet written.
 * Measured right after the init, before anything is printed: a mix of
 * order-0 allocations (which split lazy blocks, writing a few heads) and
 * 2 MiB ones (which also write their 511 tails).
 */
struct lazy_stats {
	uint64_t first_alloc_ns;      /* end of init to the first page in hand */
	uint32_t allocs, fill_allocs;
	uint64_t fill_ns, fill_max_ns, plain_ns, filled_pages;
};

static void lazy_measure(uint64_t init_end_tsc, struct lazy_stats *ls)
{
	enum { N = 64 };
	static uint64_t pfns[N];
	uint32_t node = this_cpu()->mem_node;

	memset(ls, 0, sizeof(*ls));
	for (int i = 0; i < N; i++) {
		unsigned order = i % 4 == 3 ? 9 : 0;
		/* Only this CPU allocates now: the counter's change is ours. */
		uint64_t before = alloc_counters.lazy_filled_pages, t0 = rdtsc();
		pfns[i] = alloc_pages(node, order, 0);
		uint64_t t1 = rdtsc(), ns = tsc_cycles_to_ns(t1 - t0);
		uint64_t filled = alloc_counters.lazy_filled_pages - before;
		if (i == 0)
			ls->first_alloc_ns = tsc_cycles_to_ns(t1 - init_end_tsc);
		ls->allocs++;
		if (filled) {
			ls->fill_allocs++;
			ls->fill_ns += ns;
			ls->filled_pages += filled;
			ls->fill_max_ns = ns > ls->fill_max_ns ? ns : ls->fill_max_ns;
		} else {
			ls->plain_ns += ns;
		}
	}
	for (int i = 0; i < N; i++)
		if (pfns[i] != ALLOC_NO_PFN)
			alloc_free(pfns[i], i % 4 == 3 ? 9 : 0);
}

static void lazy_report(const struct lazy_stats *ls)
{
	uint32_t plains = ls->allocs - ls->fill_allocs;
	uint64_t fill_avg = ls->fill_allocs ? ls->fill_ns / ls->fill_allocs : 0;
	uint64_t plain_avg = plains ? ls->plain_ns / plains : 0;
	struct record r;

	pr_info("meminit: lazy: first page %llu ns after init; %u of %u allocations wrote tail descriptors (avg %llu ns, max %llu ns), the others avg %llu ns",
		(unsigned long long)ls->first_alloc_ns, ls->fill_allocs, ls->allocs,
		(unsigned long long)fill_avg, (unsigned long long)ls->fill_max_ns,
		(unsigned long long)plain_avg);
	rec_begin(&r, "lazy");
	rec_u64(&r, "first_alloc_ns", ls->first_alloc_ns);
	rec_u64(&r, "allocs", ls->allocs);
	rec_u64(&r, "fill_allocs", ls->fill_allocs);
	rec_u64(&r, "filled_pages", ls->filled_pages);
	rec_u64(&r, "fill_alloc_avg_ns", fill_avg);
	rec_u64(&r, "fill_alloc_max_ns", ls->fill_max_ns);
	rec_u64(&r, "plain_alloc_avg_ns", plain_avg);
	record_emit(&r);
}

/* The allocator's own structures come from physmem while it still owns
 * free memory: reserved for good, counted by the census as reserved. */
static uint64_t reserve_for_alloc(void *ctx, uint64_t bytes, uint32_t node)
{
	return physmem_alloc(&physmem, bytes, 4096, node, false, "alloc");
}

/* memboot.alloc= chooses the allocator behind the seam; an unknown name is
 * reported and the default used. */
static void alloc_start(void)
{
	const struct alloc_ops *ops = alloc_find(kparams.alloc);
	struct alloc_setup setup = {
		.mm = &memmap, .nr_nodes = numa_topo.nr_nodes,
		.reserve = reserve_for_alloc,
	};
	struct record r;

	if (!ops) {
		ops = alloc_table[0];
		pr_warn("alloc: memboot.alloc=%s is not an allocator; using %s", kparams.alloc,
			ops->name);
	}
	if (!alloc_init(ops, &setup, numa_topo.distance))
		kernel_exit(EXIT_PANIC, "the page allocator could not start");
	pr_info("alloc: %s (%s)", ops->name, ops->summary);
	rec_begin(&r, "alloc");
	rec_str(&r, "name", ops->name);
	record_emit(&r);
}

void meminit_run(void)
{
	enum meminit_policy policy = (enum meminit_policy)kparams.init_policy;
	uint32_t boot_node = this_cpu()->mem_node;
	uint64_t t0;

	lazy = policy == MEMINIT_LAZY;
	alloc_start();
	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++)
		if (has_memory(nid))
			physmem_for_each_free(&physmem, nid, collect_free, NULL);
	/* From here on physmem's free memory belongs to the allocator. */
	memory_retire_physmem();

	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++)
		if (has_memory(nid))
			init_fixed(nid);

	if (policy == MEMINIT_SERIAL) {
		for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++) {
			t0 = rdtsc();
			take_front(nid, UINT64_MAX);
			work[nid].ns = tsc_cycles_to_ns(rdtsc() - t0);
			work[nid].threads = 1;
		}
	} else {
		take_front(boot_node, kparams.early_pages);
		alloc_set_grow(grow, NULL);
		if (kparams.early_alloc_pages)
			early_allocations(boot_node);
		parallel_init();
		alloc_set_grow(NULL, NULL);
	}
	struct lazy_stats ls;
	if (lazy)
		lazy_measure(rdtsc(), &ls);
	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++)
		if (has_memory(nid))
			report(nid, policy);
	if (lazy)
		lazy_report(&ls);
	alloc_enable_poison();
}

/* --- memboot.early_alloc_pages: early boot outgrowing its section ---------- */

/* Allocate that many pages one at a time before the parallel part, as early
 * boot code would (a hash table, say), forcing on-demand growth, then give
 * them back. The pages are chained through their first word. */
static void early_allocations(uint32_t node)
{
	uint64_t head = ALLOC_NO_PFN, n = 0;

	for (; n < kparams.early_alloc_pages; n++) {
		uint64_t pfn = alloc_pages(node, 0, 0);
		if (pfn == ALLOC_NO_PFN)
			break;
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = head;
		head = pfn;
	}
	pr_info("meminit: %llu early allocations; the boot CPU has initialised %llu pages",
		(unsigned long long)n, (unsigned long long)work[node].early_pages);
	while (head != ALLOC_NO_PFN) {
		uint64_t next = *(uint64_t *)(uintptr_t)(head << PAGE_SHIFT);
		alloc_free(head, 0);
		head = next;
	}
}

/* --- census ---------------------------------------------------------------- */

/* Print the pfn ranges of @nid inside [s, e) whose head is not a valid
 * accounted type. Returns how many ranges were printed. */
static uint32_t print_lost(uint32_t nid, uint64_t s, uint64_t e, uint32_t budget)
{
	const struct memmap_node *n = node_map(nid);
	uint64_t bad_start = 0;
	bool in_bad = false;
	uint32_t printed = 0;

	for (uint64_t pfn = s; pfn <= e && printed < budget;) {
		const struct page *p = pfn < e ? memmap_page(n, pfn) : NULL;
		bool bad = p && (p->type == PAGE_UNINIT || p->type == PAGE_TAIL ||
				 p->type == PAGE_HOLE || p->type >= PAGE_NR_TYPES);
		if (bad && !in_bad) {
			bad_start = pfn;
			in_bad = true;
		} else if (!bad && in_bad) {
			pr_err("census: node %u: pfns [0x%llx-0x%llx) not accounted for", nid,
			       (unsigned long long)bad_start, (unsigned long long)pfn);
			in_bad = false;
			printed++;
		}
		if (!p)
			break;
		pfn += bad || p->order > ALLOC_MAX_ORDER ? 1 : 1ULL << p->order;
	}
	return printed;
}

bool census_run(const char *when)
{
	uint64_t counts[PAGE_NR_TYPES] = { 0 };
	uint64_t top_pfn = 0, usable = 0, bad = 0, lost, free_by_zones;
	struct record r;

	for (uint32_t nid = 0; nid < numa_topo.nr_nodes; nid++) {
		struct memmap_range ranges[NUMA_MAX_RANGES];
		uint32_t nr = 0;

		for (uint32_t i = 0; i < numa_topo.nr_ranges; i++) {
			const struct numa_mem_range *m = &numa_topo.ranges[i];
			if (m->node != nid)
				continue;
			ranges[nr++] = (struct memmap_range){ PFN(m->start), PFN(m->end) };
			usable += PFN(m->end) - PFN(m->start);
			if (PFN(m->end) > top_pfn)
				top_pfn = PFN(m->end);
		}
		if (nr)
			bad += memmap_count_types(node_map(nid), ranges, nr, counts);
	}
	alloc_drain();
	free_by_zones = alloc_free_count();
	lost = counts[PAGE_UNINIT] + counts[PAGE_TAIL] + counts[PAGE_HOLE];
	if (counts[PAGE_FREE] != free_by_zones) {
		pr_err("census: %llu pages are free by their descriptors, %llu by the free lists",
		       (unsigned long long)counts[PAGE_FREE], (unsigned long long)free_by_zones);
		lost += counts[PAGE_FREE] > free_by_zones ? counts[PAGE_FREE] - free_by_zones
							  : free_by_zones - counts[PAGE_FREE];
	}
	/* Tables of live address spaces came from the allocator after boot:
	 * they are PAGE_PAGETABLE, but not among the early reservations. */
	uint64_t fixed = counts[PAGE_RESERVED] + counts[PAGE_MEMMAP] + counts[PAGE_PAGETABLE] -
			 vm_table_pages() + hugetlb_gigantic_pages();
	if (fixed != memory_retired_reserved_pages()) {
		pr_err("census: %llu pages reserved by their descriptors, %llu by the early allocator",
		       (unsigned long long)fixed, (unsigned long long)memory_retired_reserved_pages());
		lost += fixed > memory_retired_reserved_pages()
			? fixed - memory_retired_reserved_pages()
			: memory_retired_reserved_pages() - fixed;
	}

	pr_info("census (%s): %llu pages: %llu free, %llu reserved, %llu memmap, %llu pagetable, %llu huge, %llu allocated, %llu hole, %llu lost",
		when, (unsigned long long)top_pfn, (unsigned long long)counts[PAGE_FREE],
		(unsigned long long)counts[PAGE_RESERVED], (unsigned long long)counts[PAGE_MEMMAP],
		(unsigned long long)counts[PAGE_PAGETABLE], (unsigned long long)counts[PAGE_HUGE],
		(unsigned long long)counts[PAGE_ALLOCATED], (unsigned long long)(top_pfn - usable),
		(unsigned long long)lost);
	rec_begin(&r, "census");
	rec_str(&r, "when", when);
	rec_u64(&r, "pages", top_pfn);
	rec_u64(&r, "free", counts[PAGE_FREE]);
	rec_u64(&r, "reserved", counts[PAGE_RESERVED]);
	rec_u64(&r, "memmap", counts[PAGE_MEMMAP]);
	rec_u64(&r, "pagetable", counts[PAGE_PAGETABLE]);
	rec_u64(&r, "huge", counts[PAGE_HUGE]);
	rec_u64(&r, "allocated", counts[PAGE_ALLOCATED]);
	rec_u64(&r, "hole", top_pfn - usable);
	rec_u64(&r, "lost", lost);
	record_emit(&r);
	if (lost || bad) {
		uint32_t budget = 16;
		for (uint32_t i = 0; i < numa_topo.nr_ranges && budget; i++) {
			const struct numa_mem_range *m = &numa_topo.ranges[i];
			budget -= print_lost(m->node, PFN(m->start), PFN(m->end), budget);
		}
	}
	return lost == 0 && bad == 0;
}

/* --- memboot.selftest=alloc -------------------------------------------------- */

#define ALLOC_SLOTS 4096

struct alloc_slot {
	uint64_t pfn;
	uint32_t order;
	uint32_t cpu;          /* allocated by */
	uint32_t freed_by;
};
static struct alloc_slot slots[ALLOC_SLOTS];
static volatile uint64_t alloc_failures;

/* Allocate mixed orders into slots [s, e), filling each block with a
 * pattern the freeing CPU checks. */
static void alloc_chunk(void *arg, uint64_t s, uint64_t e)
{
	const struct percpu *pc = this_cpu();
	uint64_t seed = s * 2654435761u + pc->cpu;

	for (uint64_t i = s; i < e; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned order = (unsigned)(seed >> 60) % 4;     /* 0..3 */
		uint64_t pfn = alloc_pages(pc->mem_node, order, 0);
		slots[i] = (struct alloc_slot){ .pfn = pfn, .order = order, .cpu = pc->cpu };
		if (pfn == ALLOC_NO_PFN) {
			__atomic_fetch_add(&alloc_failures, 1, __ATOMIC_RELAXED);
			continue;
		}
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = i;
	}
}

/* Free slots [s, e) in reverse, most of them on another CPU than the one
 * that allocated them (the job hands chunks out in a different order). */
static void free_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t i = e; i-- > s;) {
		uint64_t j = ALLOC_SLOTS - 1 - i;
		if (slots[j].pfn == ALLOC_NO_PFN)
			continue;
		if (*(uint64_t *)(uintptr_t)(slots[j].pfn << PAGE_SHIFT) != j)
			__atomic_fetch_add(&alloc_failures, 1, __ATOMIC_RELAXED);
		slots[j].freed_by = this_cpu()->cpu;
		alloc_free(slots[j].pfn, slots[j].order);
	}
}

bool meminit_alloc_selftest(void)
{
	struct job a = { .name = "alloc", .start = 0, .size = ALLOC_SLOTS, .min_chunk = 64,
			 .node = JOB_ALL_NODES, .fn = alloc_chunk };
	struct job f = { .name = "free", .start = 0, .size = ALLOC_SLOTS, .min_chunk = 64,
			 .node = JOB_ALL_NODES, .fn = free_chunk };
	struct job_state st;
	uint64_t free_before = alloc_free_count(), cross = 0;
	struct record r;

	alloc_failures = 0;
	job_run(&a, &st);
	uint32_t threads = st.threads;
	uint64_t allocated = free_before - alloc_free_count();
	job_run(&f, &st);
	for (uint32_t i = 0; i < ALLOC_SLOTS; i++)
		cross += slots[i].pfn != ALLOC_NO_PFN && slots[i].cpu != slots[i].freed_by;
	bool ok = alloc_failures == 0 && alloc_free_count() == free_before;
	rec_begin(&r, "alloc_test");
	rec_u64(&r, "blocks", ALLOC_SLOTS);
	rec_u64(&r, "pages", allocated);
	rec_u64(&r, "threads", threads);
	rec_u64(&r, "failures", alloc_failures);
	rec_u64(&r, "cross_cpu_frees", cross);
	rec_u64(&r, "free_before", free_before);
	rec_u64(&r, "free_after", alloc_free_count());
	record_emit(&r);
	return ok;
}

/*
 * alloc_pcp.c: per-CPU lists in front of the allocator seam
 * (mm/alloc/alloc_pcp.h has the overview).
 */
#include "mm/alloc/alloc_pcp.h"

#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "mm/alloc/alloc.h"
#include "mm/memmap.h"

struct node_lists {
	struct pcp_zone pz;
	struct spinlock lock;              /* Linux's zone->lock for this node */
	uint32_t node;
};

static struct node_lists nodes[ALLOC_MAX_NODES];
/* Each CPU's row of list pointers, one per node, in that CPU's own list
 * memory: sized by the CPUs and nodes there are, not by a limit. */
static struct pcp_list ***lists;
static struct pcp_list **rows_boot[1];   /* lists before init: none */
static uint32_t nr_cpus, nr_nodes;
static uint32_t (*this_cpu_fn)(void);
static bool active;

/* ---- the backend: the allocator behind the seam, one node at a time ---- */

/* A list block's head changes type only from the type it must have: a
 * head found otherwise was written behind the lists' back (or never by the
 * allocator) and is not silently made right. */
static void retype(uint64_t pfn, unsigned order, enum page_type from, enum page_type to)
{
	struct page *p = memmap_pfn_to_page(alloc_memmap(), pfn);

	/* The lists only pass blocks on: a head of the wrong type here is the
	 * allocator's (a block it handed out twice), so the message names it. */
	ASSERT(p->type == from && p->order == order,
	       "pcp: block pfn %#llx order %u: head expected type %s, found type %s order %u "
	       "(allocator %s behind the lists: a block handed out twice, or one it did not "
	       "mark as its own?)", (unsigned long long)pfn, order, page_type_name(from),
	       page_type_name(p->type), p->order,
	       alloc_current() ? alloc_current()->name : "?");
	p->type = (uint8_t)to;
}

static unsigned be_take(void *zone, unsigned order, unsigned n, uint64_t *out)
{
	const struct node_lists *nl = zone;
	uint32_t got = alloc_raw_bulk(nl->node, order, n, out);

	for (uint32_t i = 0; i < got; i++)
		retype(out[i], order, PAGE_ALLOCATED, PAGE_PCP);
	return got;
}

static void be_give(void *zone, unsigned order, const uint64_t *pfns, unsigned n)
{
	/* Allocators take back what they handed out: an allocated head. */
	for (unsigned i = 0; i < n; i++)
		retype(pfns[i], order, PAGE_PCP, PAGE_ALLOCATED);
	alloc_raw_free_bulk(pfns, n, order);
}

static uint64_t be_free_pages(void *zone)
{
	const struct node_lists *nl = zone;

	return alloc_raw_free_pages(nl->node);
}

static const struct pcp_backend backend = { be_take, be_give, be_free_pages };

/* ---- set-up ---- */

static const struct alloc_cache pcp_cache = {
	.max_order = PCP_MAX_ORDER,
	.alloc = alloc_pcp_alloc,
	.free = alloc_pcp_free,
	.drain_this_cpu = alloc_pcp_drain_this_cpu,
	.drain_all = alloc_pcp_drain_all,
	.pages = alloc_pcp_pages,
};

void alloc_pcp_reset(void)
{
	__atomic_store_n(&active, false, __ATOMIC_RELEASE);
	alloc_set_cache(NULL);
	lists = rows_boot;
	rows_boot[0] = NULL;
	memset(nodes, 0, sizeof(nodes));
	nr_cpus = nr_nodes = 0;
}

bool alloc_pcp_active(void)
{
	return __atomic_load_n(&active, __ATOMIC_ACQUIRE);
}

/* Each node's sizing, from its span and the CPUs on it. */
static void size_nodes(const struct alloc_pcp_setup *s, const struct memmap *mm,
		       uint32_t nnodes, struct node_lists *out)
{
	uint64_t total = 0;

	for (uint32_t n = 0; n < nnodes; n++)
		total += mm->nodes[n].nr_pages;
	for (uint32_t n = 0; n < nnodes; n++) {
		uint32_t cpus_here = 0;

		if (!mm->nodes[n].nr_pages)
			continue;
		for (uint32_t c = 0; c < s->nr_cpus; c++)
			cpus_here += s->cpu_node[c] == n;
		out[n].node = n;
		/* Linux splits a zone's high over the CPUs of its node; a
		 * CPU-less node's memory is shared by every CPU. */
		pcp_zone_init(&out[n].pz, &backend, &out[n], &out[n].lock, &s->cfg,
			      mm->nodes[n].nr_pages, total, cpus_here ? cpus_here : s->nr_cpus);
		out[n].pz.now_ns = s->now_ns;
	}
}

size_t alloc_pcp_bytes_per_cpu(const struct alloc_pcp_setup *s)
{
	static struct node_lists tmp[ALLOC_MAX_NODES];
	const struct memmap *mm = alloc_memmap();
	uint32_t nnodes = alloc_nr_nodes();
	size_t bytes = 0;

	if (!mm || !s->nr_cpus)
		return 0;
	memset(tmp, 0, sizeof(tmp));
	size_nodes(s, mm, nnodes, tmp);
	for (uint32_t n = 0; n < nnodes; n++)
		if (mm->nodes[n].nr_pages)
			bytes += pcp_list_bytes(&tmp[n].pz);
	/* The CPU's row of pointers, and its rounding to a cache line. */
	return bytes + nnodes * sizeof(struct pcp_list *) + 64;
}

bool alloc_pcp_init(const struct alloc_pcp_setup *s)
{
	const struct memmap *mm = alloc_memmap();

	alloc_pcp_reset();
	if (!mm || !s->nr_cpus || !s->this_cpu || !s->mem || !s->rows) {
		pr_err("pcp: cannot set up lists for %u CPUs", s->nr_cpus);
		return false;
	}
	nr_nodes = alloc_nr_nodes();
	size_nodes(s, mm, nr_nodes, nodes);
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		s->rows[c] = s->mem(s->mem_ctx, nr_nodes * sizeof(struct pcp_list *), c,
				    s->cpu_node[c]);
		if (!s->rows[c]) {
			pr_err("pcp: no memory on node %u for cpu %u's list pointers: no per-CPU lists",
			       s->cpu_node[c], c);
			alloc_pcp_reset();
			return false;
		}
		memset(s->rows[c], 0, nr_nodes * sizeof(struct pcp_list *));
	}
	lists = s->rows;
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		for (uint32_t n = 0; n < nr_nodes; n++) {
			void *mem;

			if (!mm->nodes[n].nr_pages)
				continue;
			mem = s->mem(s->mem_ctx, pcp_list_bytes(&nodes[n].pz), c, n);
			if (!mem) {
				pr_err("pcp: no memory on node %u for cpu %u's list of node %u (%zu bytes): no per-CPU lists",
				       s->cpu_node[c], c, n, pcp_list_bytes(&nodes[n].pz));
				alloc_pcp_reset();
				return false;
			}
			lists[c][n] = pcp_list_init(&nodes[n].pz, mem, c);
		}
	}
	nr_cpus = s->nr_cpus;
	this_cpu_fn = s->this_cpu;
	__atomic_store_n(&active, true, __ATOMIC_RELEASE);
	alloc_set_cache(&pcp_cache);
	return true;
}

/* ---- the hot paths ---- */

static struct pcp_list *my_list(uint32_t node)
{
	uint32_t c = this_cpu_fn();

	if (c >= nr_cpus || node >= nr_nodes)
		return NULL;
	return lists[c][node];
}

uint64_t alloc_pcp_alloc(uint32_t node, unsigned order)
{
	struct pcp_list *l;
	uint64_t pfn;

	if (order > PCP_MAX_ORDER || !alloc_pcp_active() || !(l = my_list(node)))
		return ALLOC_NO_PFN;
	pfn = pcp_alloc(l, order);
	if (pfn != ALLOC_NO_PFN)
		retype(pfn, order, PAGE_PCP, PAGE_ALLOCATED);
	return pfn;
}

bool alloc_pcp_free(uint64_t pfn, unsigned order)
{
	struct pcp_list *l;

	if (order > PCP_MAX_ORDER || !alloc_pcp_active() ||
	    !(l = my_list(memmap_nid_of_pfn(alloc_memmap(), pfn))))
		return false;
	retype(pfn, order, PAGE_ALLOCATED, PAGE_PCP);
	pcp_free(l, pfn, order);
	return true;
}

/* ---- periodic work, drains, reports ---- */

void alloc_pcp_tick(void)
{
	for (uint32_t n = 0; alloc_pcp_active() && n < nr_nodes; n++) {
		struct pcp_list *l = my_list(n);
		if (l)
			pcp_tick(l);
	}
}

uint64_t alloc_pcp_drain_this_cpu(void)
{
	uint64_t done = 0;

	for (uint32_t n = 0; alloc_pcp_active() && n < nr_nodes; n++) {
		struct pcp_list *l = my_list(n);
		if (l)
			done += pcp_drain(l);
	}
	return done;
}

uint64_t alloc_pcp_drain_all(void)
{
	uint64_t done = 0;

	for (uint32_t c = 0; alloc_pcp_active() && c < nr_cpus; c++)
		for (uint32_t n = 0; n < nr_nodes; n++)
			if (lists[c][n])
				done += pcp_drain(lists[c][n]);
	return done;
}

uint64_t alloc_pcp_pages(void)
{
	uint64_t pages = 0;

	for (uint32_t c = 0; alloc_pcp_active() && c < nr_cpus; c++)
		for (uint32_t n = 0; n < nr_nodes; n++)
			if (lists[c][n])
				pages += (uint64_t)__atomic_load_n(&lists[c][n]->count, __ATOMIC_RELAXED);
	return pages;
}

const struct pcp_list *alloc_pcp_list(uint32_t cpu, uint32_t node)
{
	return cpu < nr_cpus && node < nr_nodes ? lists[cpu][node] : NULL;
}

const struct pcp_zone *alloc_pcp_zone(uint32_t node)
{
	return node < nr_nodes && nodes[node].pz.be ? &nodes[node].pz : NULL;
}

uint32_t alloc_pcp_nr_cpus(void)
{
	return nr_cpus;
}

void alloc_pcp_stats(uint32_t node, struct pcp_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t c = 0; c < nr_cpus; c++)
		for (uint32_t n = 0; n < nr_nodes; n++)
			if (lists[c][n] && (node == ALLOC_PCP_ALL_NODES || node == n))
				pcp_stats_add(out, &lists[c][n]->st);
}

void alloc_pcp_stats_reset(void)
{
	for (uint32_t c = 0; c < nr_cpus; c++)
		for (uint32_t n = 0; n < nr_nodes; n++)
			if (lists[c][n]) {
				memset(&lists[c][n]->st, 0, sizeof(lists[c][n]->st));
				lists[c][n]->st.high_min_seen = lists[c][n]->high;
				lists[c][n]->st.high_max_seen = lists[c][n]->high;
			}
}

/*
 * alloc.c: the front of the allocator seam: the table of allocators, node
 * order by distance, growth on demand, counters and debug poisoning.
 */
#include "mm/alloc/alloc.h"

#include <string.h>

#include "kernel/services/cmdline.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "mm/alloc/table.h"

/* The table memboot.alloc= chooses from, from ALLOC_TABLE; [0] is the
 * default. Each allocator's file defines its ops. */
#define ALLOC_DECLARE(name) extern const struct alloc_ops name##_alloc_ops;
ALLOC_TABLE(ALLOC_DECLARE)
#undef ALLOC_DECLARE
#define ALLOC_ENTRY(name) &name##_alloc_ops,
const struct alloc_ops *const alloc_table[] = {
	ALLOC_TABLE(ALLOC_ENTRY)
	NULL,
};
#undef ALLOC_ENTRY

struct alloc_counters alloc_counters;

static const struct alloc_ops *ops;
static void *self;                    /* ops' state */
static const struct alloc_cache *cache;
static const struct memmap *the_mm;
static uint32_t nr_nodes;
static uint32_t order_of[ALLOC_MAX_NODES][ALLOC_MAX_NODES];   /* fallback node order */
static uint32_t nr_order[ALLOC_MAX_NODES];
static bool (*grow_fn)(void *ctx, uint32_t node);
static void *grow_ctx;
static bool poison;

#define COUNT(field, n) __atomic_fetch_add(&alloc_counters.field, (n), __ATOMIC_RELAXED)

const struct alloc_ops *alloc_find(const char *name)
{
	for (unsigned i = 0; name && alloc_table[i]; i++)
		if (strcmp(alloc_table[i]->name, name) == 0)
			return alloc_table[i];
	return NULL;
}

/* memboot.alloc=: the name asked for, looked up when memory init starts the
 * allocator (an unknown name is reported there, and the default used). */
static char alloc_name[16] = "buddy";

static const struct param alloc_params[] = {
	{ .key = "memboot.alloc", .type = PARAM_STR, .ptr = alloc_name,
	  .max = sizeof(alloc_name), .help = "the page allocator behind the seam (docs/allocators.md)" },
};
PARAM_TABLE(alloc_param_table, "alloc", alloc_params);

const char *alloc_requested(void)
{
	return alloc_name;
}

void alloc_count_lazy(uint64_t pages)
{
	if (!pages)
		return;
	COUNT(lazy_fill_allocs, 1);
	COUNT(lazy_filled_pages, pages);
}

/* SLIT-style distance; the ACPI default when the firmware gave none. */
static unsigned dist(const uint8_t *distance, uint32_t from, uint32_t to)
{
	if (distance)
		return distance[from * nr_nodes + to];
	return from == to ? MEMBOOT_LOCAL_DISTANCE : MEMBOOT_REMOTE_DISTANCE;
}

bool alloc_init(const struct alloc_ops *new_ops, const struct alloc_setup *setup,
		const uint8_t *distance)
{
	const struct memmap *mm = setup->mm;

	ASSERT(new_ops && setup->nr_nodes >= 1 && setup->nr_nodes <= ALLOC_MAX_NODES,
	       "%u nodes", setup->nr_nodes);
	ops = NULL;
	self = NULL;
	__atomic_store_n(&cache, NULL, __ATOMIC_RELEASE);
	the_mm = setup->mm;
	grow_fn = NULL;
	poison = false;
	memset(&alloc_counters, 0, sizeof(alloc_counters));
	nr_nodes = setup->nr_nodes;
	/* Each node's order: by distance, ties to the lower id (a stable
	 * insertion sort), the node itself first; nodes without memory never
	 * serve anything and are left out. */
	for (uint32_t n = 0; n < nr_nodes; n++) {
		uint32_t k = 0;
		for (uint32_t m = 0; m < nr_nodes; m++) {
			if (!mm->nodes[m].nr_pages)
				continue;
			unsigned d = m == n ? 0 : dist(distance, n, m);
			uint32_t j = k++;
			while (j > 0) {
				uint32_t prev = order_of[n][j - 1];
				unsigned pd = prev == n ? 0 : dist(distance, n, prev);
				if (pd <= d)
					break;
				order_of[n][j] = prev;
				j--;
			}
			order_of[n][j] = m;
		}
		nr_order[n] = k;
	}
	self = new_ops->create(setup);
	if (!self)
		return false;
	ops = new_ops;
	return true;
}

void *alloc_current_self(void)
{
	return self;
}

void alloc_set_cache(const struct alloc_cache *c)
{
	__atomic_store_n(&cache, c, __ATOMIC_RELEASE);
}

static const struct alloc_cache *the_cache(void)
{
	return __atomic_load_n(&cache, __ATOMIC_ACQUIRE);
}

uint64_t alloc_cached_pages(void)
{
	const struct alloc_cache *c = the_cache();

	return c ? c->pages() : 0;
}

bool alloc_verify_block(const struct alloc_ops *o, const struct memmap *mm, uint64_t pfn,
			unsigned order, unsigned flags)
{
	const char *who = o ? o->name : "?";
	uint32_t nid = pfn == ALLOC_NO_PFN ? MEMMAP_NO_NODE : memmap_nid_of_pfn(mm, pfn);
	const struct memmap_node *n = nid == MEMMAP_NO_NODE ? NULL : &mm->nodes[nid];
	const struct page *p;

	if (pfn & ((1ULL << order) - 1)) {
		pr_err("alloc: %s: block pfn %#llx order %u is not aligned to %llu pages", who,
		       (unsigned long long)pfn, order, 1ULL << order);
		return false;
	}
	if (!n || !memmap_in_span(n, pfn + (1ULL << order) - 1)) {
		pr_err("alloc: %s: block pfn %#llx order %u is not inside one node", who,
		       (unsigned long long)pfn, order);
		return false;
	}
	p = memmap_page(n, pfn);
	if (p->type != PAGE_ALLOCATED || p->order != order || p->zone != page_zone_of_pfn(pfn) ||
	    p->word != 1) {
		pr_err("alloc: %s: block pfn %#llx order %u: head expected type %s order %u "
		       "zone %u refcount 1, found type %s order %u zone %u word %#x", who,
		       (unsigned long long)pfn, order, page_type_name(PAGE_ALLOCATED), order,
		       page_zone_of_pfn(pfn), page_type_name(p->type), p->order, p->zone, p->word);
		return false;
	}
	if (!(flags & ALLOC_NO_TAILS) && (p->flags & PAGE_F_LAZY_UNINIT)) {
		pr_err("alloc: %s: block pfn %#llx order %u still says its tails are unwritten",
		       who, (unsigned long long)pfn, order);
		return false;
	}
	if ((flags & ALLOC_DMA32) && page_zone_of_pfn(pfn) != PAGE_ZONE_DMA32) {
		pr_err("alloc: %s: block pfn %#llx asked below 4 GiB", who,
		       (unsigned long long)pfn);
		return false;
	}
	return true;
}

/* Every block from the allocator is checked before anyone uses it: a
 * head the allocator forgot to write must not pass (docs/allocators.md). */
static void verify(uint64_t pfn, unsigned order, unsigned flags)
{
	ASSERT(alloc_verify_block(ops, the_mm, pfn, order, flags),
	       "alloc: %s handed out a bad block at pfn %#llx order %u", ops->name,
	       (unsigned long long)pfn, order);
}

const struct alloc_ops *alloc_current(void)
{
	return ops;
}

uint32_t alloc_fallback_order(uint32_t node, uint32_t *nodes)
{
	ASSERT(node < nr_nodes, "node %u", node);
	memcpy(nodes, order_of[node], nr_order[node] * sizeof(nodes[0]));
	return nr_order[node];
}

static void free_range_zone(void *ctx, enum page_zone zone, uint64_t s, uint64_t e)
{
	ops->free_range(self, (uint32_t)(uintptr_t)ctx, zone, s, e);
}

void alloc_free_range(uint32_t node, uint64_t start_pfn, uint64_t end_pfn)
{
	page_zone_split(start_pfn, end_pfn, free_range_zone, (void *)(uintptr_t)node);
}

void alloc_set_grow(bool (*grow)(void *ctx, uint32_t node), void *ctx)
{
	grow_ctx = ctx;
	__atomic_store_n(&grow_fn, grow, __ATOMIC_RELEASE);
}

static bool try_grow(uint32_t node)
{
	bool (*g)(void *, uint32_t) = __atomic_load_n(&grow_fn, __ATOMIC_ACQUIRE);

	if (!g || !g(grow_ctx, node))
		return false;
	COUNT(grows, 1);
	return true;
}

/* --- poisoning (debug builds) -------------------------------------------
 * Boot-time freeing of all memory is the measured hot path and writes no
 * page contents. After it, every freed page is filled with a pattern; an
 * allocation that finds the pattern's first word on a page checks the whole
 * page, so a write to a free page is caught at its next allocation. */

#ifdef MEMBOOT_DEBUG
#define POISON_WORD 0x6b6b6b6b6b6b6b6bULL

static void poison_on_free(uint64_t pfn, unsigned order)
{
	memset((void *)(uintptr_t)(pfn << PAGE_SHIFT), 0x6b, (size_t)4096 << order);
}

static void poison_on_alloc(uint64_t pfn, unsigned order)
{
	for (uint64_t p = pfn; p < pfn + (1ULL << order); p++) {
		const uint64_t *w = (const uint64_t *)(uintptr_t)(p << PAGE_SHIFT);
		if (w[0] != POISON_WORD)
			continue;   /* never poisoned: freed at boot */
		for (unsigned i = 1; i < 512; i++)
			ASSERT(w[i] == POISON_WORD,
			       "free page 0x%llx was written at offset %u while free (0x%llx)",
			       (unsigned long long)(p << PAGE_SHIFT), i * 8,
			       (unsigned long long)w[i]);
	}
}
#else
static void poison_on_free(uint64_t pfn, unsigned order) { (void)pfn; (void)order; }
static void poison_on_alloc(uint64_t pfn, unsigned order) { (void)pfn; (void)order; }
#endif

void alloc_enable_poison(void)
{
#ifdef MEMBOOT_DEBUG
	poison = true;
	pr_info("alloc: debug build: free pages are poisoned and checked on allocation");
#endif
}

/* --- allocation ----------------------------------------------------------- */

uint64_t alloc_pages(uint32_t node, unsigned order, unsigned flags)
{
	uint64_t pfn = ALLOC_NO_PFN;

	ASSERT(ops && node < nr_nodes && order <= ALLOC_MAX_ORDER, "node %u order %u", node,
	       order);
	/* Per-CPU lists serve small blocks without placement flags. */
	const struct alloc_cache *c = the_cache();
	bool lists = c && order <= c->max_order && !(flags & ~ALLOC_THISNODE);
	bool drained = false;

	for (;;) {
		uint32_t tries = flags & ALLOC_THISNODE ? 1 : nr_order[node];
		for (uint32_t i = 0; i < tries && pfn == ALLOC_NO_PFN; i++) {
			uint32_t n = flags & ALLOC_THISNODE ? node : order_of[node][i];
			if (lists) {
				pfn = c->alloc(n, order);
			} else {
				pfn = ops->alloc(self, n, order, flags);
				if (pfn != ALLOC_NO_PFN)
					verify(pfn, order, flags);
			}
			if (pfn != ALLOC_NO_PFN && n != node)
				COUNT(remote_allocs, 1);
		}
		if (pfn != ALLOC_NO_PFN)
			break;
		/* Blocks of other orders on this CPU's lists may be what is
		 * missing: give them back once before growing or failing (Linux
		 * drains the lists before it declares a zone out of memory). */
		if (lists && !drained && c->drain_this_cpu()) {
			drained = true;
			continue;
		}
		if (!try_grow(node))
			break;
	}
	if (pfn == ALLOC_NO_PFN) {
		COUNT(failures, 1);
		return pfn;
	}
	COUNT(allocs, 1);
	if (poison && !(flags & ALLOC_NO_TAILS))
		poison_on_alloc(pfn, order);
	return pfn;
}

void alloc_free(uint64_t pfn, unsigned order)
{
	ASSERT(ops && order <= ALLOC_MAX_ORDER, "order %u", order);
	if (poison)
		poison_on_free(pfn, order);
	COUNT(frees, 1);
	const struct alloc_cache *c = the_cache();
	if (c && c->free(pfn, order))
		return;
	ops->free(self, pfn, order);
}

uint32_t alloc_pages_bulk(uint32_t node, unsigned order, unsigned flags, uint32_t count,
			  uint64_t *pfns)
{
	uint32_t got = 0;

	ASSERT(ops && node < nr_nodes && order <= ALLOC_MAX_ORDER, "node %u order %u", node,
	       order);
	for (;;) {
		uint32_t tries = flags & ALLOC_THISNODE ? 1 : nr_order[node];
		for (uint32_t i = 0; i < tries && got < count; i++) {
			uint32_t n = flags & ALLOC_THISNODE ? node : order_of[node][i], g = 0;
			if (ops->alloc_bulk) {
				g = ops->alloc_bulk(self, n, order, flags, count - got, pfns + got);
			} else {
				while (got + g < count) {
					uint64_t pfn = ops->alloc(self, n, order, flags);
					if (pfn == ALLOC_NO_PFN)
						break;
					pfns[got + g++] = pfn;
				}
			}
			if (n != node)
				COUNT(remote_allocs, g);
			got += g;
		}
		if (got == count || !try_grow(node))
			break;
	}
	for (uint32_t i = 0; i < got; i++)
		verify(pfns[i], order, flags);
	COUNT(allocs, got);
	if (got < count)
		COUNT(failures, 1);
	for (uint32_t i = 0; poison && !(flags & ALLOC_NO_TAILS) && i < got; i++)
		poison_on_alloc(pfns[i], order);
	return got;
}

void alloc_free_bulk(const uint64_t *pfns, uint32_t count, unsigned order)
{
	ASSERT(ops && order <= ALLOC_MAX_ORDER, "order %u", order);
	for (uint32_t i = 0; poison && i < count; i++)
		poison_on_free(pfns[i], order);
	COUNT(frees, count);
	if (ops->free_bulk) {
		ops->free_bulk(self, pfns, count, order);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		ops->free(self, pfns[i], order);
}

void alloc_drain(void)
{
	const struct alloc_cache *c = the_cache();

	if (c)
		c->drain_all();
	if (ops && ops->drain)
		ops->drain(self);
}

uint64_t alloc_free_count(void)
{
	uint64_t total = 0;

	for (uint32_t n = 0; ops && n < nr_nodes; n++)
		total += ops->free_pages(self, n);
	return total;
}

uint64_t alloc_count_free(void)
{
	uint64_t total = 0;

	for (uint32_t n = 0; ops && n < nr_nodes; n++)
		total += ops->count_free(self, n);
	return total;
}

bool alloc_check(void)
{
	return ops && ops->check(self);
}

void alloc_free_blocks(uint64_t blocks[ALLOC_NR_ORDERS])
{
	memset(blocks, 0, sizeof(uint64_t) * ALLOC_NR_ORDERS);
	for (uint32_t n = 0; ops && n < nr_nodes; n++)
		ops->free_blocks(self, n, blocks);
}

/* --- for a cache in front (mm/alloc/alloc_pcp.c) ----------------------------- */

uint32_t alloc_raw_bulk(uint32_t node, unsigned order, uint32_t count, uint64_t *pfns)
{
	uint32_t got = 0;

	if (ops->alloc_bulk) {
		got = ops->alloc_bulk(self, node, order, 0, count, pfns);
	} else {
		while (got < count) {
			uint64_t pfn = ops->alloc(self, node, order, 0);
			if (pfn == ALLOC_NO_PFN)
				break;
			pfns[got++] = pfn;
		}
	}
	for (uint32_t i = 0; i < got; i++)
		verify(pfns[i], order, 0);
	return got;
}

void alloc_raw_free_bulk(const uint64_t *pfns, uint32_t count, unsigned order)
{
	if (ops->free_bulk) {
		ops->free_bulk(self, pfns, count, order);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		ops->free(self, pfns[i], order);
}

uint64_t alloc_raw_free_pages(uint32_t node)
{
	return ops->free_pages(self, node);
}

const struct memmap *alloc_memmap(void)
{
	return the_mm;
}

uint32_t alloc_nr_nodes(void)
{
	return nr_nodes;
}

/*
 * alloc.c: the front of the allocator seam: the table of allocators, node
 * order by distance, growth on demand, counters and debug poisoning.
 */
#include "mm/alloc/alloc.h"

#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/log.h"
#include "kernel/panic.h"
#include "mm/alloc/alloc_pcp.h"

/* The table memboot.alloc= chooses from; [0] is the default. Each
 * allocator's file defines its ops. */
extern const struct alloc_ops buddy_alloc_ops, bitmap_alloc_ops;
const struct alloc_ops *const alloc_table[] = {
	&buddy_alloc_ops,
	&bitmap_alloc_ops,
	NULL,
};

struct alloc_counters alloc_counters;

static const struct alloc_ops *ops;
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
	alloc_pcp_reset();
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
	if (!new_ops->init(setup))
		return false;
	ops = new_ops;
	return true;
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
	ops->free_range((uint32_t)(uintptr_t)ctx, zone, s, e);
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
	bool lists = order <= PCP_MAX_ORDER && !(flags & ~ALLOC_THISNODE) && alloc_pcp_active();
	bool drained = false;

	for (;;) {
		uint32_t tries = flags & ALLOC_THISNODE ? 1 : nr_order[node];
		for (uint32_t i = 0; i < tries && pfn == ALLOC_NO_PFN; i++) {
			uint32_t n = flags & ALLOC_THISNODE ? node : order_of[node][i];
			pfn = lists ? alloc_pcp_alloc(n, order) : ops->alloc(n, order, flags);
			if (pfn != ALLOC_NO_PFN && n != node)
				COUNT(remote_allocs, 1);
		}
		if (pfn != ALLOC_NO_PFN)
			break;
		/* Blocks of other orders on this CPU's lists may be what is
		 * missing: give them back once before growing or failing (Linux
		 * drains the lists before it declares a zone out of memory). */
		if (lists && !drained && alloc_pcp_drain_this_cpu()) {
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
	if (alloc_pcp_free(pfn, order))
		return;
	ops->free(pfn, order);
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
				g = ops->alloc_bulk(n, order, flags, count - got, pfns + got);
			} else {
				while (got + g < count) {
					uint64_t pfn = ops->alloc(n, order, flags);
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
		ops->free_bulk(pfns, count, order);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		ops->free(pfns[i], order);
}

void alloc_drain(void)
{
	alloc_pcp_drain_all();
	if (ops && ops->drain)
		ops->drain();
}

uint64_t alloc_free_count(void)
{
	uint64_t total = 0;

	for (uint32_t n = 0; ops && n < nr_nodes; n++)
		total += ops->free_pages(n);
	return total;
}

uint64_t alloc_count_free(void)
{
	uint64_t total = 0;

	for (uint32_t n = 0; ops && n < nr_nodes; n++)
		total += ops->count_free(n);
	return total;
}

bool alloc_check(void)
{
	return ops && ops->check();
}

/* --- for the per-CPU lists (mm/alloc/alloc_pcp.c) -------------------------------- */

uint32_t alloc_raw_bulk(uint32_t node, unsigned order, uint32_t count, uint64_t *pfns)
{
	uint32_t got = 0;

	if (ops->alloc_bulk)
		return ops->alloc_bulk(node, order, 0, count, pfns);
	while (got < count) {
		uint64_t pfn = ops->alloc(node, order, 0);
		if (pfn == ALLOC_NO_PFN)
			break;
		pfns[got++] = pfn;
	}
	return got;
}

void alloc_raw_free_bulk(const uint64_t *pfns, uint32_t count, unsigned order)
{
	if (ops->free_bulk) {
		ops->free_bulk(pfns, count, order);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		ops->free(pfns[i], order);
}

uint64_t alloc_raw_free_pages(uint32_t node)
{
	return ops->free_pages(node);
}

const struct memmap *alloc_memmap(void)
{
	return the_mm;
}

uint32_t alloc_nr_nodes(void)
{
	return nr_nodes;
}

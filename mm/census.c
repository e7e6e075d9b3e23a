/*
 * census.c: the census of every page (see census.h).
 */
#include "mm/census.h"

#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/alloc/alloc.h"

typedef unsigned long long ull;   /* for printf */

/* Print the pfn ranges of @n inside [s, e) whose head is not a valid
 * accounted type. Returns how many ranges were printed. */
static uint32_t print_lost(const struct memmap_node *n, uint64_t s, uint64_t e, uint32_t budget)
{
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
			pr_err("census: node %u: pfns [0x%llx-0x%llx) not accounted for", n->nid,
			       (ull)bad_start, (ull)pfn);
			in_bad = false;
			printed++;
		}
		if (!p)
			break;
		pfn += bad || p->order > PAGE_ORDER_LIMIT ? 1 : 1ULL << p->order;
	}
	return printed;
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

bool census_take(const struct census_input *in, const char *when, struct census *c)
{
	uint64_t usable = 0, free_by_alloc, pcp_pages;
	struct record r;

	memset(c, 0, sizeof(*c));
	/* The other CPUs are idle at every census: their per-CPU lists go
	 * back first (Linux drains every CPU's lists before it declares memory
	 * gone). A block that left a list any other way still shows: heads
	 * typed PAGE_PCP must match the lists' counters, 0 after the drain. */
	alloc_drain();
	for (uint32_t nid = 0; nid < MEMMAP_MAX_NODES; nid++) {
		struct memmap_range ranges[64];
		uint32_t nr = 0;

		for (uint32_t i = 0; i < in->nr_ranges; i++) {
			const struct mm_node_range *m = &in->ranges[i];
			if (m->node != nid)
				continue;
			if (nr == 64) {
				c->bad += memmap_count_types(&in->mm->nodes[nid], ranges, nr, c->counts);
				nr = 0;
			}
			ranges[nr++] = (struct memmap_range){ m->start_pfn, m->end_pfn };
			usable += m->end_pfn - m->start_pfn;
			if (m->end_pfn > c->pages)
				c->pages = m->end_pfn;
		}
		if (nr)
			c->bad += memmap_count_types(&in->mm->nodes[nid], ranges, nr, c->counts);
	}
	c->hole = c->pages - usable;
	free_by_alloc = alloc_free_count();
	pcp_pages = alloc_cached_pages();
	/* The allocator's own invariants, and its free blocks by order (the
	 * buddyinfo of this census): totals alone pass a broken allocator. */
	c->check_ok = alloc_check();
	alloc_free_blocks(c->free_blocks);
	uint64_t by_blocks = 0;
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		by_blocks += c->free_blocks[k] << k;
	if (!c->check_ok)
		pr_err("census: the allocator's check() failed (its messages above)");
	if (by_blocks != free_by_alloc) {
		pr_err("census: %llu pages free by the allocator's blocks by order, %llu by its counters",
		       (ull)by_blocks, (ull)free_by_alloc);
		c->lost += diff(by_blocks, free_by_alloc);
	}
	c->lost = c->counts[PAGE_UNINIT] + c->counts[PAGE_TAIL] + c->counts[PAGE_HOLE];
	if (c->counts[PAGE_PCP] != pcp_pages) {
		pr_err("census: %llu pages are on per-CPU lists by their descriptors, %llu by the lists",
		       (ull)c->counts[PAGE_PCP], (ull)pcp_pages);
		c->lost += diff(c->counts[PAGE_PCP], pcp_pages);
	}
	if (c->counts[PAGE_FREE] != free_by_alloc) {
		pr_err("census: %llu pages are free by their descriptors, %llu by the allocator",
		       (ull)c->counts[PAGE_FREE], (ull)free_by_alloc);
		c->lost += diff(c->counts[PAGE_FREE], free_by_alloc);
	}
	uint64_t fixed = c->counts[PAGE_RESERVED] + c->counts[PAGE_MEMMAP] +
			 c->counts[PAGE_PAGETABLE];
	if (fixed != in->fixed_pages) {
		pr_err("census: %llu pages reserved by their descriptors, %llu by the early allocator",
		       (ull)fixed, (ull)in->fixed_pages);
		c->lost += diff(fixed, in->fixed_pages);
	}
	if (c->counts[PAGE_BAD] != in->bad_pages) {
		pr_err("census: %llu pages are bad memory by their descriptors, %llu by memtest and the bad-memory keys",
		       (ull)c->counts[PAGE_BAD], (ull)in->bad_pages);
		c->lost += diff(c->counts[PAGE_BAD], in->bad_pages);
	}

	rec_begin(&r, "census");
	rec_str(&r, "when", when);
	rec_u64(&r, "pages", c->pages);
	rec_u64(&r, "free", c->counts[PAGE_FREE]);
	rec_u64(&r, "pcp", c->counts[PAGE_PCP]);
	rec_u64(&r, "reserved", c->counts[PAGE_RESERVED]);
	rec_u64(&r, "memmap", c->counts[PAGE_MEMMAP]);
	rec_u64(&r, "pagetable", c->counts[PAGE_PAGETABLE]);
	rec_u64(&r, "huge", c->counts[PAGE_HUGE]);
	rec_u64(&r, "allocated", c->counts[PAGE_ALLOCATED]);
	rec_u64(&r, "bad_mem", c->counts[PAGE_BAD]);
	rec_u64(&r, "hole", c->hole);
	rec_u64(&r, "lost", c->lost);
	rec_bool(&r, "check", c->check_ok);
	rec_u64(&r, "bad", c->bad);
	rec_key(&r, "free_blocks");
	rec_open(&r, '[');
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		rec_v_u64(&r, c->free_blocks[k]);
	rec_close(&r);
	record_report(&r, LOG_INFO, "census ({when}): {pages} pages: {free} free, {pcp} pcp, "
		      "{reserved} reserved, {memmap} memmap, {pagetable} pagetable, {huge} huge, "
		      "{allocated} allocated, {bad_mem} bad, {hole} hole, {lost} lost");
	if (c->lost || c->bad) {
		uint32_t budget = 16;
		for (uint32_t i = 0; i < in->nr_ranges && budget; i++) {
			const struct mm_node_range *m = &in->ranges[i];
			budget -= print_lost(&in->mm->nodes[m->node], m->start_pfn, m->end_pfn,
					     budget);
		}
	}
	return c->lost == 0 && c->bad == 0 && c->check_ok;
}

_Static_assert(sizeof(((struct census *)0)->free_blocks) == ALLOC_NR_ORDERS * sizeof(uint64_t),
	       "census free_blocks: one per order of the seam");

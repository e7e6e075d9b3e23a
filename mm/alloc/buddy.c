/*
 * buddy.c: the buddy allocator (see buddy.h).
 *
 * Pure C: builds for the kernel and for the host tests and benchmark.
 *
 * The buddy of the block of order k at pfn p is p ^ 2^k. Merging reads the
 * buddy's head only when that whole buddy block lies inside the zone, so a
 * zone never reads descriptors outside its span; mm/memmap.h says why the
 * descriptors it does read are always initialised.
 */
#include "mm/alloc/buddy.h"

#include "kernel/services/log.h"
#include "kernel/services/panic.h"

#include <string.h>

typedef unsigned long long ull;   /* for printf */

#ifndef NDEBUG
#define BUDDY_CHECKS 1
#else
#define BUDDY_CHECKS 0
#endif

static buddy_page_hook hook_on_free, hook_on_alloc;

void buddy_set_page_hooks(buddy_page_hook on_free, buddy_page_hook on_alloc)
{
	__atomic_store_n(&hook_on_free, on_free, __ATOMIC_RELEASE);
	__atomic_store_n(&hook_on_alloc, on_alloc, __ATOMIC_RELEASE);
}

static inline buddy_page_hook get_hook(buddy_page_hook *h)
{
	return __atomic_load_n(h, __ATOMIC_ACQUIRE);
}

void buddy_zone_init(struct buddy_zone *z, const struct memmap_node *map, enum page_zone zone,
		     uint64_t start_pfn, uint64_t end_pfn)
{
	ASSERT((unsigned)zone < PAGE_NR_ZONES, "zone %u", (unsigned)zone);
	ASSERT(start_pfn < end_pfn && memmap_in_span(map, start_pfn) &&
	       memmap_in_span(map, end_pfn - 1),
	       "node %u zone %u: [%#llx, %#llx) not inside the span", map->nid, (unsigned)zone,
	       (ull)start_pfn, (ull)end_pfn);
	ASSERT(page_zone_of_pfn(start_pfn) == zone && page_zone_of_pfn(end_pfn - 1) == zone,
	       "node %u zone %u: [%#llx, %#llx) crosses the zone's bounds", map->nid,
	       (unsigned)zone, (ull)start_pfn, (ull)end_pfn);
	*z = (struct buddy_zone){
		.zone = (uint8_t)zone, .nid = map->nid, .map = map,
		.start_pfn = start_pfn, .end_pfn = end_pfn,
	};
	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++)
		z->head[k] = MEMMAP_NONE;
}

/* ---- lists (lock held) ---- */

static inline struct page *idx_page(const struct buddy_zone *z, uint32_t idx)
{
	return &z->map->pages[idx];
}

static inline void list_push(struct buddy_zone *z, struct page *p, uint32_t idx, unsigned order)
{
	uint32_t first = z->head[order];

	p->next = first;
	p->prev = MEMMAP_NONE;
	if (first != MEMMAP_NONE)
		idx_page(z, first)->prev = idx;
	z->head[order] = idx;
	z->nr_free[order]++;
	z->free_pages += 1ULL << order;
}

static inline void list_unlink(struct buddy_zone *z, struct page *p, unsigned order)
{
	if (p->prev == MEMMAP_NONE)
		z->head[order] = p->next;
	else
		idx_page(z, p->prev)->next = p->next;
	if (p->next != MEMMAP_NONE)
		idx_page(z, p->next)->prev = p->prev;
	z->nr_free[order]--;
	z->free_pages -= 1ULL << order;
}

/* A descriptor that stopped being a head. */
static inline void write_tail(struct page *p, unsigned zone)
{
	memmap_write_head(p, PAGE_TAIL, 0, zone, 0, PAGE_POISON_TAIL);
}

/* Whether a block head may be given to the free lists: not free already,
 * not a tail, a hole or never written. */
static inline bool freeable_type(unsigned type)
{
	return type != PAGE_FREE && type != PAGE_TAIL && type != PAGE_HOLE &&
	       type != PAGE_UNINIT && type < PAGE_NR_TYPES;
}

/* Put the block (pfn, order) on the lists, merging with free buddies.
 * @flags: PAGE_F_LAZY_UNINIT if its tails are not written. */
static void free_one_locked(struct buddy_zone *z, uint64_t pfn, unsigned order, unsigned flags)
{
	const struct memmap_node *map = z->map;

	while (order < BUDDY_MAX_ORDER) {
		uint64_t size = 1ULL << order;
		uint64_t b = pfn ^ size;
		struct page *bp;

		if (b < z->start_pfn || b + size > z->end_pfn)
			break;                  /* buddy block not (wholly) in the zone */
		bp = memmap_page(map, b);
		if (bp->type != PAGE_FREE || bp->order != order || bp->zone != z->zone)
			break;
		list_unlink(z, bp, order);
		flags |= bp->flags & PAGE_F_LAZY_UNINIT;
		/* The higher of the two heads becomes a tail of the merged block. */
		write_tail(memmap_page(map, b > pfn ? b : pfn), z->zone);
		if (b < pfn)
			pfn = b;
		order++;
	}
	struct page *p = memmap_page(map, pfn);
	memmap_write_head(p, PAGE_FREE, order, z->zone, flags, PAGE_POISON_FREE);
	list_push(z, p, memmap_index(map, pfn), order);
}

static void check_block(const struct buddy_zone *z, uint64_t pfn, unsigned order, const char *who)
{
	ASSERT(order <= BUDDY_MAX_ORDER && (pfn & ((1ULL << order) - 1)) == 0 &&
	       pfn >= z->start_pfn && pfn + (1ULL << order) <= z->end_pfn,
	       "%s: block %#llx order %u not in node %u zone %u [%#llx, %#llx)", who, (ull)pfn,
	       order, z->nid, z->zone, (ull)z->start_pfn, (ull)z->end_pfn);
}

/* What every free of one block checks and announces before it links it. */
static void free_prologue(struct buddy_zone *z, uint64_t pfn, unsigned order, const char *who)
{
	const struct page *p;
	buddy_page_hook h = get_hook(&hook_on_free);

	check_block(z, pfn, order, who);
	p = memmap_page(z->map, pfn);
	DEBUG_ASSERT(freeable_type(p->type) && (p->type != PAGE_ALLOCATED || p->order == order),
		     "node %u pfn %#llx: freeing a %s head of order %u as order %u (double free?)",
		     z->nid, (ull)pfn, page_type_name(p->type), p->order, order);
	if (h)
		h(z, pfn, order);
}

/* A block taken with its head only (ALLOC_NO_TAILS) may still have
 * unwritten tails: its head's PAGE_F_LAZY_UNINIT goes back with it, or a
 * later allocation would hand out tails nobody wrote. */
static unsigned freed_flags(const struct buddy_zone *z, uint64_t pfn)
{
	return memmap_page(z->map, pfn)->flags & PAGE_F_LAZY_UNINIT;
}

void buddy_free_locked(struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	free_prologue(z, pfn, order, __func__);
	free_one_locked(z, pfn, order, freed_flags(z, pfn));
}

void buddy_free(struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	unsigned flags;

	free_prologue(z, pfn, order, __func__);
	flags = freed_flags(z, pfn);
	alloc_spin_lock(&z->lock, &z->lock_st);
	free_one_locked(z, pfn, order, flags);
	spin_unlock(&z->lock);
}

void buddy_free_range(struct buddy_zone *z, uint64_t start_pfn, uint64_t end_pfn)
{
	const struct memmap_node *map = z->map;
	buddy_page_hook h = get_hook(&hook_on_free);
	uint32_t chain_first = MEMMAP_NONE, chain_last = MEMMAP_NONE;
	uint64_t chain_len = 0;

	ASSERT(start_pfn <= end_pfn && (start_pfn == end_pfn ||
	       (start_pfn >= z->start_pfn && end_pfn <= z->end_pfn)),
	       "[%#llx, %#llx) not in node %u zone %u [%#llx, %#llx)", (ull)start_pfn,
	       (ull)end_pfn, z->nid, z->zone, (ull)z->start_pfn, (ull)z->end_pfn);

	for (uint64_t pfn = start_pfn; pfn < end_pfn;) {
		unsigned order = memmap_block_order(pfn, end_pfn, BUDDY_MAX_ORDER);
		struct page *p = memmap_page(map, pfn);
		unsigned flags = p->flags & PAGE_F_LAZY_UNINIT;

		DEBUG_ASSERT(freeable_type(p->type) && (!flags || p->order == order),
			     "node %u pfn %#llx: freeing a %s head of order %u as order %u",
			     z->nid, (ull)pfn, page_type_name(p->type), p->order, order);
		if (h)
			h(z, pfn, order);
		if (order == BUDDY_MAX_ORDER) {
			/* Cannot merge: link it into a private chain, in
			 * address order; nobody else can see it yet. */
			uint32_t idx = memmap_index(map, pfn);
			memmap_write_head(p, PAGE_FREE, order, z->zone, flags, PAGE_POISON_FREE);
			p->prev = chain_last;
			if (chain_last != MEMMAP_NONE)
				idx_page(z, chain_last)->next = idx;
			else
				chain_first = idx;
			chain_last = idx;
			chain_len++;
		} else {
			alloc_spin_lock(&z->lock, &z->lock_st);
			free_one_locked(z, pfn, order, flags);
			spin_unlock(&z->lock);
		}
		pfn += 1ULL << order;
	}
	if (!chain_len)
		return;
	alloc_spin_lock(&z->lock, &z->lock_st);
	{
		uint32_t first = z->head[BUDDY_MAX_ORDER];
		idx_page(z, chain_last)->next = first;
		if (first != MEMMAP_NONE)
			idx_page(z, first)->prev = chain_last;
		z->head[BUDDY_MAX_ORDER] = chain_first;
		z->nr_free[BUDDY_MAX_ORDER] += chain_len;
		z->free_pages += chain_len << BUDDY_MAX_ORDER;
	}
	spin_unlock(&z->lock);
}

/* Take a block of 2^order pages off the lists, splitting a larger one. Its
 * head is written PAGE_ALLOCATED; *lazy says whether its tails still need
 * writing. Lock held. */
static uint64_t take_locked(struct buddy_zone *z, unsigned order, bool *lazy)
{
	const struct memmap_node *map = z->map;
	unsigned k = order;
	uint64_t pfn;
	struct page *p;
	unsigned flags;

	while (k <= BUDDY_MAX_ORDER && z->head[k] == MEMMAP_NONE)
		k++;
	if (k > BUDDY_MAX_ORDER)
		return BUDDY_NO_PFN;
	pfn = memmap_index_pfn(map, z->head[k]);
	if (BUDDY_CHECKS)
		ASSERT(buddy_check_free_head(z, pfn, k),
		       "node %u zone %u: corrupt free head %#llx on list %u", z->nid, z->zone,
		       (ull)pfn, k);
	p = memmap_page(map, pfn);
	flags = p->flags & PAGE_F_LAZY_UNINIT;
	list_unlink(z, p, k);
	/* Keep the lower half, give back the upper halves. */
	while (k > order) {
		uint64_t b;
		struct page *bp;

		k--;
		b = pfn + (1ULL << k);
		bp = memmap_page(map, b);
		memmap_write_head(bp, PAGE_FREE, k, z->zone, flags, PAGE_POISON_FREE);
		list_push(z, bp, memmap_index(map, b), k);
	}
	memmap_write_head(p, PAGE_ALLOCATED, order, z->zone, 0, 1);
	*lazy = flags && order > 0;
	if (*lazy) {
		z->lazy_fill_allocs++;
		z->lazy_filled_pages += (1ULL << order) - 1;
	}
	return pfn;
}

static void finish_alloc(struct buddy_zone *z, uint64_t pfn, unsigned order, bool lazy,
			 uint64_t *lazy_filled_pages)
{
	uint64_t filled = 0;

	if (lazy)
		filled = memmap_lazy_fill(z->map, pfn, order);
	if (lazy_filled_pages)
		*lazy_filled_pages = filled;
}

uint64_t buddy_alloc_locked(struct buddy_zone *z, unsigned order, uint64_t *lazy_filled_pages)
{
	bool lazy;
	uint64_t pfn;
	buddy_page_hook h;

	ASSERT(order <= BUDDY_MAX_ORDER, "order %u", order);
	pfn = take_locked(z, order, &lazy);
	if (pfn == BUDDY_NO_PFN) {
		if (lazy_filled_pages)
			*lazy_filled_pages = 0;
		return pfn;
	}
	finish_alloc(z, pfn, order, lazy, lazy_filled_pages);
	h = get_hook(&hook_on_alloc);
	if (h)
		h(z, pfn, order);
	return pfn;
}

uint64_t buddy_alloc_ex(struct buddy_zone *z, unsigned order, uint64_t *lazy_filled_pages)
{
	bool lazy;
	uint64_t pfn;
	buddy_page_hook h;

	ASSERT(order <= BUDDY_MAX_ORDER, "order %u", order);
	alloc_spin_lock(&z->lock, &z->lock_st);
	pfn = take_locked(z, order, &lazy);
	spin_unlock(&z->lock);
	if (pfn == BUDDY_NO_PFN) {
		if (lazy_filled_pages)
			*lazy_filled_pages = 0;
		return pfn;
	}
	/* The block is ours now: write its tails outside the lock. */
	finish_alloc(z, pfn, order, lazy, lazy_filled_pages);
	h = get_hook(&hook_on_alloc);
	if (h)
		h(z, pfn, order);
	return pfn;
}

uint64_t buddy_alloc(struct buddy_zone *z, unsigned order)
{
	return buddy_alloc_ex(z, order, 0);
}

/* Like buddy_alloc(), for blocks whose tail descriptors nobody reads (a
 * huge pool page): writes only the head, as @type, keeping a lazy block's
 * PAGE_F_LAZY_UNINIT. Never calls the allocation hook. */
static uint64_t buddy_alloc_head_only(struct buddy_zone *z, unsigned order, enum page_type type)
{
	bool lazy;
	uint64_t pfn;
	struct page *p;

	ASSERT(order <= BUDDY_MAX_ORDER, "order %u", order);
	alloc_spin_lock(&z->lock, &z->lock_st);
	pfn = take_locked(z, order, &lazy);
	if (pfn != BUDDY_NO_PFN && lazy) {
		/* Not paying for the tails after all. */
		z->lazy_fill_allocs--;
		z->lazy_filled_pages -= (1ULL << order) - 1;
	}
	spin_unlock(&z->lock);
	if (pfn == BUDDY_NO_PFN)
		return pfn;
	p = memmap_page(z->map, pfn);
	memmap_write_head(p, type, order, z->zone, lazy ? PAGE_F_LAZY_UNINIT : 0, 1);
	return pfn;
}

/* ---- checks ---- */

bool buddy_check_free_head(const struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	const struct memmap_node *map = z->map;
	const struct page *p;
	uint32_t idx;

#define FAIL(fmt, ...)                                                              \
	do {                                                                        \
		pr_err("buddy: node %u zone %u: free head %#llx order %u: " fmt,    \
		       z->nid, z->zone, (ull)pfn, order, ##__VA_ARGS__);            \
		return false;                                                       \
	} while (0)

	if (order > BUDDY_MAX_ORDER)
		FAIL("order above %u", BUDDY_MAX_ORDER);
	if (pfn < z->start_pfn || pfn + (1ULL << order) > z->end_pfn)
		FAIL("outside the zone [%#llx, %#llx)", (ull)z->start_pfn, (ull)z->end_pfn);
	if (pfn & ((1ULL << order) - 1))
		FAIL("not aligned");
	p = memmap_page(map, pfn);
	idx = memmap_index(map, pfn);
	if (p->type != PAGE_FREE)
		FAIL("type %s", page_type_name(p->type));
	if (p->order != order)
		FAIL("descriptor says order %u", p->order);
	if (p->zone != z->zone)
		FAIL("descriptor says zone %u", p->zone);
	if (p->flags & ~PAGE_F_ALL)
		FAIL("unknown flags %#x", p->flags);
	if (p->word != PAGE_POISON_FREE)
		FAIL("word %#x, not the free poison %#x (descriptor written while free?)",
		     p->word, PAGE_POISON_FREE);
	if (p->prev == MEMMAP_NONE) {
		if (z->head[order] != idx)
			FAIL("no prev but not first on the list (first %#x)", z->head[order]);
	} else {
		uint64_t q = memmap_index_pfn(map, p->prev);
		if (p->prev >= map->nr_pages || q < z->start_pfn || q >= z->end_pfn)
			FAIL("prev %#x outside the zone", p->prev);
		if (idx_page(z, p->prev)->type != PAGE_FREE || idx_page(z, p->prev)->next != idx)
			FAIL("prev %#llx does not link back", (ull)q);
	}
	if (p->next != MEMMAP_NONE) {
		uint64_t q = memmap_index_pfn(map, p->next);
		if (p->next >= map->nr_pages || q < z->start_pfn || q >= z->end_pfn)
			FAIL("next %#x outside the zone", p->next);
		if (idx_page(z, p->next)->type != PAGE_FREE || idx_page(z, p->next)->prev != idx)
			FAIL("next %#llx does not link back", (ull)q);
	}
	return true;
#undef FAIL
}

uint64_t buddy_count_free(struct buddy_zone *z)
{
	uint64_t pages = 0;

	alloc_spin_lock(&z->lock, &z->lock_st);
	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++) {
		uint64_t n = 0;
		for (uint32_t i = z->head[k]; i != MEMMAP_NONE && n <= z->nr_free[k];
		     i = idx_page(z, i)->next)
			n++;
		pages += n << k;
	}
	spin_unlock(&z->lock);
	return pages;
}

bool buddy_check_zone(struct buddy_zone *z)
{
	const struct memmap_node *map = z->map;
	bool ok = true;
	uint64_t pages = 0;

	alloc_spin_lock(&z->lock, &z->lock_st);
	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++) {
		uint64_t n = 0;
		for (uint32_t i = z->head[k]; i != MEMMAP_NONE; i = idx_page(z, i)->next) {
			uint64_t pfn = memmap_index_pfn(map, i);
			if (i >= map->nr_pages || n >= z->nr_free[k]) {
				pr_err("buddy: node %u zone %u: list %u runs past its %llu blocks "
				       "or leaves the span", z->nid, z->zone, k, (ull)z->nr_free[k]);
				ok = false;
				break;
			}
			n++;
			if (!buddy_check_free_head(z, pfn, k)) {
				ok = false;
				break;
			}
			if (k < BUDDY_MAX_ORDER) {
				uint64_t b = pfn ^ (1ULL << k);
				if (b >= z->start_pfn && b + (1ULL << k) <= z->end_pfn) {
					const struct page *bp = memmap_page(map, b);
					if (bp->type == PAGE_FREE && bp->order == k &&
					    bp->zone == z->zone) {
						pr_err("buddy: node %u zone %u: free buddies %#llx and "
						       "%#llx of order %u not merged", z->nid, z->zone,
						       (ull)pfn, (ull)b, k);
						ok = false;
					}
				}
			}
		}
		if (n != z->nr_free[k]) {
			pr_err("buddy: node %u zone %u: list %u has %llu blocks, counter says %llu",
			       z->nid, z->zone, k, (ull)n, (ull)z->nr_free[k]);
			ok = false;
		}
		pages += n << k;
	}
	if (pages != z->free_pages) {
		pr_err("buddy: node %u zone %u: lists hold %llu pages, counter says %llu",
		       z->nid, z->zone, (ull)pages, (ull)z->free_pages);
		ok = false;
	}
	spin_unlock(&z->lock);
	return ok;
}

/* ---- behind the allocator seam (mm/alloc/alloc.h) ----
 * One zone per node and address class, over the node's whole span; the
 * front chooses the node, this picks the zone: the node's highest first,
 * only DMA32 when asked. */

_Static_assert(BUDDY_MAX_ORDER == ALLOC_MAX_ORDER, "the seam's largest block is buddy's");

/* The seam's state: one pair of zones per node, in memory the seam's
 * setup reserved (nothing file-scope: several instances coexist). */
struct buddy_seam {
	const struct memmap *mm;
	uint32_t nr_nodes;
	struct buddy_seam_node {
		bool used[PAGE_NR_ZONES];
		struct buddy_zone zones[PAGE_NR_ZONES];
	} nodes[];
};

struct zone_init_ctx {
	struct buddy_seam *b;
	const struct memmap_node *map;
};

static void init_zone_part(void *ctx, enum page_zone zone, uint64_t s, uint64_t e)
{
	struct zone_init_ctx *c = ctx;

	buddy_zone_init(&c->b->nodes[c->map->nid].zones[zone], c->map, zone, s, e);
	c->b->nodes[c->map->nid].used[zone] = true;
}

static void *ops_create(const struct alloc_setup *setup)
{
	uint64_t bytes = sizeof(struct buddy_seam) +
			 setup->nr_nodes * sizeof(struct buddy_seam_node);
	uint64_t at = setup->reserve ? setup->reserve(setup->reserve_ctx, bytes, 0) : 0;
	struct buddy_seam *b = (struct buddy_seam *)(uintptr_t)at;

	if (!b) {
		pr_err("buddy: no memory for its zones (%llu bytes)", (ull)bytes);
		return NULL;
	}
	memset(b, 0, bytes);
	b->mm = setup->mm;
	b->nr_nodes = setup->nr_nodes;
	for (uint32_t n = 0; n < b->nr_nodes; n++) {
		struct zone_init_ctx c = { b, &b->mm->nodes[n] };
		if (c.map->nr_pages)
			page_zone_split(c.map->base_pfn, c.map->base_pfn + c.map->nr_pages,
					init_zone_part, &c);
	}
	return b;
}

static struct buddy_zone *zone_of(struct buddy_seam *b, uint32_t node, enum page_zone zone)
{
	return node < b->nr_nodes && b->nodes[node].used[zone] ? &b->nodes[node].zones[zone] : 0;
}

static void ops_free_range(void *self, uint32_t node, enum page_zone zone, uint64_t s, uint64_t e)
{
	struct buddy_zone *z = zone_of(self, node, zone);

	ASSERT(z, "node %u has no zone %u", node, zone);
	buddy_free_range(z, s, e);
}

static uint64_t ops_alloc(void *self, uint32_t node, unsigned order, unsigned flags)
{
	int top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;

	for (int zone = top; zone >= 0; zone--) {
		struct buddy_zone *z = zone_of(self, node, (enum page_zone)zone);
		uint64_t pfn, filled = 0;
		if (!z)
			continue;
		if (flags & ALLOC_NO_TAILS) {
			pfn = buddy_alloc_head_only(z, order, PAGE_ALLOCATED);
		} else {
			pfn = buddy_alloc_ex(z, order, &filled);
			alloc_count_lazy(filled);
		}
		if (pfn != BUDDY_NO_PFN)
			return pfn;
	}
	return ALLOC_NO_PFN;
}

static struct buddy_zone *zone_of_pfn(struct buddy_seam *b, uint64_t pfn)
{
	uint32_t nid = memmap_nid_of_pfn(b->mm, pfn);
	struct buddy_zone *z;

	if (nid == MEMMAP_NO_NODE)
		return 0;
	z = zone_of(b, nid, page_zone_of_pfn(pfn));
	return z && pfn >= z->start_pfn && pfn < z->end_pfn ? z : 0;
}

static void ops_free(void *self, uint64_t pfn, unsigned order)
{
	struct buddy_zone *z = zone_of_pfn(self, pfn);

	ASSERT(z, "pfn %#llx belongs to no zone", (ull)pfn);
	buddy_free(z, pfn, order);
}

/* Many blocks of one zone under one lock hold: what a per-CPU list refill
 * costs one lock round trip for. */
static uint32_t ops_alloc_bulk(void *self, uint32_t node, unsigned order, unsigned flags,
			       uint32_t count, uint64_t *pfns)
{
	int top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;
	uint32_t got = 0;

	if (flags & ALLOC_NO_TAILS) {
		while (got < count) {
			uint64_t pfn = ops_alloc(self, node, order, flags);
			if (pfn == ALLOC_NO_PFN)
				break;
			pfns[got++] = pfn;
		}
		return got;
	}
	for (int zone = top; zone >= 0 && got < count; zone--) {
		struct buddy_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (!z)
			continue;
		alloc_spin_lock(&z->lock, &z->lock_st);
		while (got < count) {
			uint64_t filled = 0, pfn = buddy_alloc_locked(z, order, &filled);
			if (pfn == BUDDY_NO_PFN)
				break;
			alloc_count_lazy(filled);
			pfns[got++] = pfn;
		}
		spin_unlock(&z->lock);
	}
	return got;
}

static uint64_t ops_free_pages(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		struct buddy_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (z)
			total += buddy_free_pages(z);
	}
	return total;
}

static uint64_t ops_count_free(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		struct buddy_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (z)
			total += buddy_count_free(z);
	}
	return total;
}

static bool ops_check(void *self)
{
	struct buddy_seam *b = self;
	bool ok = true;

	for (uint32_t n = 0; n < b->nr_nodes; n++)
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
			struct buddy_zone *z = zone_of(b, n, (enum page_zone)zone);
			if (z)
				ok &= buddy_check_zone(z);
		}
	return ok;
}

static void ops_free_blocks(void *self, uint32_t node, uint64_t blocks[ALLOC_NR_ORDERS])
{
	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		struct buddy_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (!z)
			continue;
		alloc_spin_lock(&z->lock, &z->lock_st);
		for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++)
			blocks[k] += z->nr_free[k];
		spin_unlock(&z->lock);
	}
}

static void ops_lock_stats(void *self, struct alloc_lock_stats *out)
{
	struct buddy_seam *b = self;

	for (uint32_t n = 0; n < b->nr_nodes; n++)
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
			struct buddy_zone *z = zone_of(b, n, (enum page_zone)zone);
			if (z)
				alloc_lock_stats_add(out, &z->lock_st);
		}
}

const struct alloc_ops buddy_alloc_ops = {
	.name = "buddy",
	.summary = "binary buddy: per-order free lists per node and zone, merging on free",
	.create = ops_create,
	.free_range = ops_free_range,
	.alloc = ops_alloc,
	.free = ops_free,
	.free_pages = ops_free_pages,
	.count_free = ops_count_free,
	.check = ops_check,
	.alloc_bulk = ops_alloc_bulk,
	.free_blocks = ops_free_blocks,
	.lock_stats = ops_lock_stats,
};

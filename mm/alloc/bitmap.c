/*
 * bitmap.c: a deliberately simple page allocator behind the seam
 * (memboot.alloc=bitmap), the teaching contrast to the buddy allocator.
 *
 * One bit per page of each node's span, 1 = free, and a next-fit search:
 * each zone (the node's pages below and above 4 GiB) remembers where its
 * last allocation ended and the next search starts there, wrapping once.
 * A block of 2^order pages is the first naturally aligned run of free bits
 * found. Nothing merges and nothing splits: a free is setting bits.
 *
 * What it costs, compared with buddy (docs/allocators.md):
 *  - every free page's descriptor is its own order-0 PAGE_FREE head, so
 *    free_range writes every descriptor again, lazy init buys nothing, and
 *    a free rewrites all 2^order descriptors;
 *  - a large block is a linear search that gets longer as memory
 *    fragments, where buddy pops a list head;
 *  - its own memory: nr_pages / 8 bytes per node (128 KiB per 4 GiB).
 * What it buys: about 300 lines anyone can check by eye, and a free count
 * that is a popcount.
 */
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/spinlock.h"
#include "mm/alloc/alloc.h"

typedef unsigned long long ull;   /* for printf */

struct bm_zone {
	struct spinlock lock;
	bool used;
	enum page_zone zone;
	const struct memmap_node *map;
	uint64_t *bits;                /* the node's bitmap, shared by its zones */
	uint64_t lo, hi;               /* [lo, hi): this zone's bit indices */
	uint64_t cursor;               /* next-fit: where the next search starts */
	uint64_t free_pages;
	struct alloc_lock_stats lock_st;
};

/* The allocator's state (nothing file-scope: instances coexist). */
struct bm {
	const struct memmap *mm;
	uint32_t nr_nodes;
	struct bm_zone zones[][PAGE_NR_ZONES];
};

static void zlock(struct bm_zone *z)
{
	alloc_spin_lock(&z->lock, &z->lock_st);
}

/* ---- bits ---- */

/* First index in [i, hi) whose bit is @want, or hi. */
static uint64_t find_bit(const uint64_t *bits, uint64_t i, uint64_t hi, bool want)
{
	while (i < hi) {
		uint64_t w = bits[i >> 6];
		if (!want)
			w = ~w;
		w &= ~0ULL << (i & 63);
		if (w) {
			i = (i & ~63ULL) + (uint64_t)__builtin_ctzll(w);
			return i < hi ? i : hi;
		}
		i = (i | 63) + 1;
	}
	return hi;
}

/* Set (free) or clear (allocate) bits [i, i + n). Atomic: two CPUs may
 * free neighbouring ranges that share a word. */
static void set_bits(uint64_t *bits, uint64_t i, uint64_t n, bool free)
{
	while (n) {
		unsigned off = (unsigned)(i & 63);
		uint64_t take = 64 - off < n ? 64 - off : n;
		uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << off;
		if (free)
			__atomic_fetch_or(&bits[i >> 6], mask, __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&bits[i >> 6], ~mask, __ATOMIC_RELAXED);
		i += take;
		n -= take;
	}
}

/* ---- set-up ---- */

static void *bm_create(const struct alloc_setup *setup)
{
	uint64_t bytes = sizeof(struct bm) + setup->nr_nodes * sizeof(struct bm_zone[PAGE_NR_ZONES]);
	struct bm *b = (struct bm *)(uintptr_t)setup->reserve(setup->reserve_ctx, bytes, 0);

	if (!b) {
		pr_err("bitmap: no memory for its zones (%llu bytes)", (ull)bytes);
		return NULL;
	}
	memset(b, 0, bytes);
	b->mm = setup->mm;
	b->nr_nodes = setup->nr_nodes;
	for (uint32_t n = 0; n < b->nr_nodes; n++) {
		const struct memmap_node *map = &b->mm->nodes[n];
		if (!map->nr_pages)
			continue;
		uint64_t words = (map->nr_pages + 63) / 64;
		uint64_t at = setup->reserve(setup->reserve_ctx, words * 8, n);
		if (!at) {
			pr_err("bitmap: no memory for node %u's bitmap (%llu bytes)", n,
			       (ull)(words * 8));
			return NULL;
		}
		uint64_t *bits = (uint64_t *)(uintptr_t)at;
		memset(bits, 0, words * 8);   /* nothing is free until free_range */
		for (int z = 0; z < PAGE_NR_ZONES; z++) {
			/* The zone's part of the span, as bit indices. */
			uint64_t s, e;
			if (!page_zone_span(map->base_pfn, map->base_pfn + map->nr_pages,
					    (enum page_zone)z, &s, &e))
				continue;
			b->zones[n][z] = (struct bm_zone){
				.used = true, .zone = (enum page_zone)z, .map = map, .bits = bits,
				.lo = s - map->base_pfn, .hi = e - map->base_pfn,
				.cursor = s - map->base_pfn,
			};
		}
	}
	return b;
}

static struct bm_zone *zone_of(struct bm *b, uint32_t node, enum page_zone zone)
{
	return node < b->nr_nodes && b->zones[node][zone].used ? &b->zones[node][zone] : 0;
}

/* Every descriptor of a free page is its own order-0 head. */
static void write_free(const struct bm_zone *z, uint64_t pfn, uint64_t n)
{
	for (uint64_t p = pfn; p < pfn + n; p++)
		memmap_write_head(memmap_page(z->map, p), PAGE_FREE, 0, z->zone, 0,
				  PAGE_POISON_FREE);
}

static void bm_free_range(void *self, uint32_t node, enum page_zone zone, uint64_t s, uint64_t e)
{
	struct bm_zone *z = zone_of(self, node, zone);

	ASSERT(z && s < e && s - z->map->base_pfn >= z->lo && e - z->map->base_pfn <= z->hi,
	       "node %u zone %u: [%#llx, %#llx) is not in the zone", node, zone, (ull)s, (ull)e);
	/* Lazy init wrote only block heads: the tails are written here. */
	write_free(z, s, e - s);
	zlock(z);
	set_bits(z->bits, s - z->map->base_pfn, e - s, true);
	z->free_pages += e - s;
	spin_unlock(&z->lock);
}

/* ---- allocation: next fit ---- */

/* The first naturally aligned run of @n free bits starting in [from, to)
 * and ending by z->hi; z->hi if none. */
static uint64_t search(const struct bm_zone *z, uint64_t from, uint64_t to, uint64_t n)
{
	uint64_t base = z->map->base_pfn;

	while (from < to) {
		from = find_bit(z->bits, from, to, true);
		if (from == to)
			break;
		uint64_t i = ((base + from + n - 1) & ~(n - 1)) - base;   /* aligned up */
		if (i + n > z->hi || i >= to)
			break;
		uint64_t used = find_bit(z->bits, i, i + n, false);
		if (used == i + n)
			return i;
		from = used + 1;
	}
	return z->hi;
}

static uint64_t take(struct bm_zone *z, unsigned order)
{
	uint64_t n = 1ULL << order, i;

	if (z->free_pages < n)
		return ALLOC_NO_PFN;
	i = search(z, z->cursor, z->hi, n);
	if (i == z->hi)
		i = search(z, z->lo, z->cursor, n);   /* wrap around once */
	if (i == z->hi)
		return ALLOC_NO_PFN;
	set_bits(z->bits, i, n, false);
	z->free_pages -= n;
	z->cursor = i + n < z->hi ? i + n : z->lo;
	return z->map->base_pfn + i;
}

static void write_allocated(const struct bm_zone *z, uint64_t pfn, unsigned order,
			    unsigned flags)
{
	alloc_write_allocated(z->map, pfn, order, z->zone, flags);
}

static uint64_t bm_alloc(void *self, uint32_t node, unsigned order, unsigned flags)
{
	/* Above 4 GiB first: memory below it is kept for who needs it. */
	int top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;

	for (int zone = top; zone >= 0; zone--) {
		struct bm_zone *z = zone_of(self, node, (enum page_zone)zone);
		uint64_t pfn;
		if (!z)
			continue;
		zlock(z);
		pfn = take(z, order);
		spin_unlock(&z->lock);
		if (pfn != ALLOC_NO_PFN) {
			/* The block is ours: its descriptors are written unlocked. */
			write_allocated(z, pfn, order, flags);
			return pfn;
		}
	}
	return ALLOC_NO_PFN;
}

static void bm_free(void *self, uint64_t pfn, unsigned order)
{
	struct bm *b = self;
	uint32_t nid = memmap_nid_of_pfn(b->mm, pfn);
	struct bm_zone *z = nid == MEMMAP_NO_NODE ? 0 : zone_of(b, nid, page_zone_of_pfn(pfn));
	uint64_t n = 1ULL << order;

	ASSERT(z && pfn - z->map->base_pfn >= z->lo && pfn + n - z->map->base_pfn <= z->hi,
	       "pfn %#llx order %u is in no zone", (ull)pfn, order);
	const struct page *head = memmap_page(z->map, pfn);
	ASSERT(head->type != PAGE_FREE && head->order == order,
	       "bitmap: pfn %#llx: freeing order %u, its head says type %s order %u", (ull)pfn,
	       order, page_type_name(head->type), head->order);
	write_free(z, pfn, n);
	zlock(z);
	uint64_t i = pfn - z->map->base_pfn;
	ASSERT(find_bit(z->bits, i, i + n, true) == i + n, "pfn %#llx order %u: already free",
	       (ull)pfn, order);
	set_bits(z->bits, i, n, true);
	z->free_pages += n;
	spin_unlock(&z->lock);
}

/* ---- counts and checks ---- */

static uint64_t bm_free_pages(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		const struct bm_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (z)
			total += __atomic_load_n(&z->free_pages, __ATOMIC_RELAXED);
	}
	return total;
}

static uint64_t count_bits(const struct bm_zone *z)
{
	uint64_t n = 0;

	for (uint64_t i = find_bit(z->bits, z->lo, z->hi, true); i < z->hi;
	     i = find_bit(z->bits, i + 1, z->hi, true))
		n++;
	return n;
}

static uint64_t bm_count_free(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		struct bm_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (!z)
			continue;
		zlock(z);
		total += count_bits(z);
		spin_unlock(&z->lock);
	}
	return total;
}

/* The counter is the popcount, every free bit's descriptor a free order-0
 * head, and no other page's head says free. */
static bool bm_check(void *self)
{
	struct bm *b = self;
	bool ok = true;

	for (uint32_t n = 0; n < b->nr_nodes; n++) {
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
			struct bm_zone *z = zone_of(b, n, (enum page_zone)zone);
			if (!z)
				continue;
			zlock(z);
			uint64_t bits = count_bits(z);
			if (bits != z->free_pages) {
				pr_err("bitmap: node %u zone %u: %llu free bits, counter says %llu", n,
				       zone, (ull)bits, (ull)z->free_pages);
				ok = false;
			}
			for (uint64_t i = find_bit(z->bits, z->lo, z->hi, true); i < z->hi;
			     i = find_bit(z->bits, i + 1, z->hi, true)) {
				const struct page *p = &z->map->pages[i];
				if (p->type != PAGE_FREE || p->order != 0 || p->zone != zone ||
				    p->word != PAGE_POISON_FREE) {
					pr_err("bitmap: node %u: free pfn %#llx: expected type %s order 0 "
					       "word %#x, found type %s order %u word %#x", n,
					       (ull)(z->map->base_pfn + i), page_type_name(PAGE_FREE),
					       PAGE_POISON_FREE, page_type_name(p->type), p->order,
					       p->word);
					ok = false;
					break;
				}
			}
			spin_unlock(&z->lock);
		}
	}
	return ok;
}

/* Each free run cut into the aligned blocks a search could hand out. */
static void bm_free_blocks(void *self, uint32_t node, uint64_t blocks[ALLOC_NR_ORDERS])
{
	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		struct bm_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (!z)
			continue;
		uint64_t base = z->map->base_pfn;
		zlock(z);
		for (uint64_t i = find_bit(z->bits, z->lo, z->hi, true); i < z->hi;) {
			uint64_t e = find_bit(z->bits, i, z->hi, false);
			for (uint64_t p = base + i; p < base + e;) {
				unsigned k = memmap_block_order(p, base + e, ALLOC_MAX_ORDER);
				blocks[k]++;
				p += 1ULL << k;
			}
			i = find_bit(z->bits, e, z->hi, true);
		}
		spin_unlock(&z->lock);
	}
}

static void bm_lock_stats(void *self, struct alloc_lock_stats *out)
{
	struct bm *b = self;

	for (uint32_t n = 0; n < b->nr_nodes; n++)
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++)
			if (zone_of(b, n, (enum page_zone)zone))
				alloc_lock_stats_add(out, &b->zones[n][zone].lock_st);
}

const struct alloc_ops bitmap_alloc_ops = {
	.name = "bitmap",
	.summary = "one bit per page, next-fit search per node and zone",
	.create = bm_create,
	.free_range = bm_free_range,
	.alloc = bm_alloc,
	.free = bm_free,
	.free_pages = bm_free_pages,
	.count_free = bm_count_free,
	.check = bm_check,
	.free_blocks = bm_free_blocks,
	.lock_stats = bm_lock_stats,
};

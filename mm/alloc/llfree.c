/*
 * llfree.c: a lock-free page allocator behind the seam (memboot.alloc=llfree),
 * in the spirit of LLFree (Wrenger et al., USENIX ATC'23): no lock anywhere,
 * only atomic read-modify-writes on words that many CPUs share rarely.
 *
 * Structure, per node and zone (the node's pages below and above 4 GiB):
 *  - areas of 512 pages (2 MiB, one x86-64 huge page), aligned in pfns;
 *  - per area, a 512-bit field (8 words, 1 = taken) and a 32-bit state
 *    word: free pages (bits 0-9) and a "reserved" flag (bit 10);
 *  - per CPU slot, the area it currently allocates from (its reservation).
 *
 * Allocation of 2^order pages, order <= 6: the CPU's reserved area first:
 * take the pages from its counter (a CAS that fails if fewer are free),
 * then find a naturally aligned run of clear bits inside one word and set
 * it with a CAS; if none is found the counter is given back. When the
 * reserved area cannot serve, the CPU reserves another: the first area
 * (onwards from its last one, or from a start spread by slot; partly used
 * areas before whole ones) not reserved by anyone with enough free pages,
 * claimed by a CAS on the reserved flag, and releases its old one.
 * Orders 7 and 8 take 2 or 4 whole words (CAS each from 0, rolled back
 * if one fails); order 9 takes an area whose counter says 512 (CAS to 0);
 * order 10 two neighbouring areas the same way. Frees clear bits and add
 * to the counter; nothing merges because nothing was split: a block is
 * just bits, and a whole area is again a 2 MiB block once its counter is
 * back to 512.
 *
 * Why these choices: the counter is taken before the bits so that an
 * order-9 CAS (512 -> 0) can never race a small allocation that found its
 * bits but not yet its count; reservations keep CPUs on different areas
 * so their CASes rarely hit the same cache line (LLFree's point), and
 * no CPU ever waits on another: a failed CAS retries on fresh data.
 *
 * Descriptors: as bitmap does, every free page is its own order-0
 * PAGE_FREE head (so the census counts free pages exactly), an allocated
 * block's head says PAGE_ALLOCATED and its tails are written; lazy init
 * buys nothing here (free_range writes every descriptor). Bookkeeping: one
 * bit per page plus 4 bytes per 2 MiB (about 33 KiB per GiB).
 */
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "mm/alloc/alloc.h"

typedef unsigned long long ull;   /* for printf */

#define AREA_ORDER 9
#define AREA_PAGES (1u << AREA_ORDER)
#define AREA_WORDS (AREA_PAGES / 64)
#define ST_FREE_MASK 0x3ffu
#define ST_RESERVED 0x400u
#define SLOTS 64                 /* reservations: CPUs share them modulo SLOTS */
#define NO_AREA UINT32_MAX

_Static_assert(ALLOC_MAX_ORDER == AREA_ORDER + 1, "order 10 is two areas");

struct ll_zone {
	bool used;
	uint8_t zone;
	const struct memmap_node *map;
	uint64_t base_pfn;           /* first area's first pfn (aligned to 1024) */
	uint64_t lo_pfn, hi_pfn;     /* [lo, hi): the zone's pages */
	uint32_t nr_areas;
	uint64_t *bits;              /* nr_areas * AREA_WORDS */
	uint32_t *state;             /* nr_areas */
	uint32_t reserved[SLOTS];    /* each slot's area, NO_AREA if none */
	uint8_t hint[SLOTS];         /* each slot's last word in its area */
};

struct ll {
	const struct memmap *mm;
	uint32_t nr_nodes;
	uint32_t (*this_cpu)(void);
	struct ll_zone zones[][PAGE_NR_ZONES];
};

static inline uint32_t ld32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint64_t ld64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline bool cas32(uint32_t *p, uint32_t *old, uint32_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

static inline bool cas64(uint64_t *p, uint64_t *old, uint64_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

/* ---- set-up ---- */

static void *ll_create(const struct alloc_setup *setup)
{
	uint64_t bytes = sizeof(struct ll) + setup->nr_nodes * sizeof(struct ll_zone[PAGE_NR_ZONES]);
	struct ll *l = (struct ll *)(uintptr_t)setup->reserve(setup->reserve_ctx, bytes, 0);

	if (!l) {
		pr_err("llfree: no memory for its zones (%llu bytes)", (ull)bytes);
		return NULL;
	}
	memset(l, 0, bytes);
	l->mm = setup->mm;
	l->nr_nodes = setup->nr_nodes;
	l->this_cpu = setup->this_cpu;
	for (uint32_t n = 0; n < l->nr_nodes; n++) {
		const struct memmap_node *map = &l->mm->nodes[n];
		if (!map->nr_pages)
			continue;
		for (int z = 0; z < PAGE_NR_ZONES; z++) {
			uint64_t s, e;
			if (!page_zone_span(map->base_pfn, map->base_pfn + map->nr_pages,
					    (enum page_zone)z, &s, &e))
				continue;
			struct ll_zone *lz = &l->zones[n][z];
			/* Aligned to 4 MiB, so that an even area and the next are
			 * an aligned order-10 block. */
			uint64_t base = s & ~(ALLOC_MAX_ORDER_PAGES - 1);
			uint32_t areas = (uint32_t)((e - base + AREA_PAGES - 1) / AREA_PAGES);
			uint64_t need = (uint64_t)areas * (AREA_WORDS * 8 + 4);
			uint64_t at = setup->reserve(setup->reserve_ctx, need, n);
			if (!at) {
				pr_err("llfree: no memory for node %u zone %d (%llu bytes)", n, z,
				       (ull)need);
				return NULL;
			}
			*lz = (struct ll_zone){
				.used = true, .zone = (uint8_t)z, .map = map, .base_pfn = base,
				.lo_pfn = s, .hi_pfn = e, .nr_areas = areas,
				.bits = (uint64_t *)(uintptr_t)at,
				.state = (uint32_t *)(uintptr_t)(at + (uint64_t)areas * AREA_WORDS * 8),
			};
			/* Everything taken and nothing counted until free_range;
			 * pages outside the zone stay taken for good. */
			memset(lz->bits, 0xff, (size_t)areas * AREA_WORDS * 8);
			memset(lz->state, 0, (size_t)areas * 4);
			for (int i = 0; i < SLOTS; i++)
				lz->reserved[i] = NO_AREA;
		}
	}
	return l;
}

static struct ll_zone *zone_of(struct ll *l, uint32_t node, enum page_zone zone)
{
	return node < l->nr_nodes && l->zones[node][zone].used ? &l->zones[node][zone] : 0;
}

static struct ll_zone *zone_of_pfn(struct ll *l, uint64_t pfn)
{
	uint32_t nid = memmap_nid_of_pfn(l->mm, pfn);
	struct ll_zone *z = nid == MEMMAP_NO_NODE ? 0 : zone_of(l, nid, page_zone_of_pfn(pfn));

	return z && pfn >= z->lo_pfn && pfn < z->hi_pfn ? z : 0;
}

static void write_free(const struct ll_zone *z, uint64_t pfn, uint64_t n)
{
	for (uint64_t p = pfn; p < pfn + n; p++)
		memmap_write_head(memmap_page(z->map, p), PAGE_FREE, 0, z->zone, 0,
				  PAGE_POISON_FREE);
}

/* Clear bits [i, i + n) (any alignment) and count them free per area. */
static void give_bits(struct ll_zone *z, uint64_t i, uint64_t n)
{
	while (n) {
		unsigned off = (unsigned)(i & 63);
		uint64_t take = 64 - off < n ? 64 - off : n;
		uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << off;
		uint64_t was = __atomic_fetch_and(&z->bits[i >> 6], ~mask, __ATOMIC_ACQ_REL);
		ASSERT((was & mask) == mask, "llfree: node %u pfn %#llx: freeing a free page",
		       z->map->nid, (ull)(z->base_pfn + (i & ~63ULL) + (uint64_t)__builtin_ctzll(~was & mask)));
		__atomic_fetch_add(&z->state[i / AREA_PAGES], (uint32_t)take, __ATOMIC_ACQ_REL);
		i += take;
		n -= take;
	}
}

static void ll_free_range(void *self, uint32_t node, enum page_zone zone, uint64_t s, uint64_t e)
{
	struct ll_zone *z = zone_of(self, node, zone);

	ASSERT(z && s < e && s >= z->lo_pfn && e <= z->hi_pfn,
	       "llfree: node %u zone %u: [%#llx, %#llx) is not in the zone", node, zone, (ull)s,
	       (ull)e);
	write_free(z, s, e - s);
	give_bits(z, s - z->base_pfn, e - s);
}

/* ---- allocation ---- */

/* Take @n pages off area @a's counter; false if fewer are free. */
static bool take_count(struct ll_zone *z, uint32_t a, uint32_t n)
{
	uint32_t st = ld32(&z->state[a]);

	while ((st & ST_FREE_MASK) >= n)
		if (cas32(&z->state[a], &st, st - n))
			return true;
	return false;
}

/* Bit positions p (multiples of 2^order, order <= 5) where bits
 * p .. p + 2^order - 1 of @v are all clear. */
static inline uint64_t free_runs(uint64_t v, unsigned order)
{
	static const uint64_t aligned[6] = {
		~0ULL, 0x5555555555555555ULL, 0x1111111111111111ULL, 0x0101010101010101ULL,
		0x0001000100010001ULL, 0x0000000100000001ULL,
	};
	uint64_t f = ~v;

	for (unsigned s = 1; s < (1u << order); s <<= 1)
		f &= f >> s;
	return f & aligned[order];
}

/* A naturally aligned run of 2^order (order <= 6) clear bits in area @a,
 * set; its bit index, or UINT64_MAX. The count was taken already. The
 * search starts at @hint (the word this CPU last took from). */
static uint64_t take_small(struct ll_zone *z, uint32_t a, unsigned order, unsigned hint)
{
	unsigned n = 1u << order;
	uint64_t mask0 = n == 64 ? ~0ULL : (1ULL << n) - 1;

	for (unsigned k = 0; k < AREA_WORDS; k++) {
		unsigned w = (hint + k) % AREA_WORDS;
		uint64_t *word = &z->bits[(uint64_t)a * AREA_WORDS + w];
		uint64_t v = ld64(word);
		for (;;) {
			uint64_t f = order == 6 ? (v == 0) : free_runs(v, order);
			if (!f)
				break;
			unsigned j = (unsigned)__builtin_ctzll(f);
			if (cas64(word, &v, v | (mask0 << j)))
				return (uint64_t)a * AREA_PAGES + w * 64 + j;
		}
	}
	return UINT64_MAX;
}

/* 2 or 4 whole words (orders 7, 8), each taken from 0 by CAS, or none. */
static uint64_t take_words(struct ll_zone *z, uint32_t a, unsigned order)
{
	unsigned words = 1u << (order - 6);

	for (unsigned w = 0; w < AREA_WORDS; w += words) {
		uint64_t *first = &z->bits[(uint64_t)a * AREA_WORDS + w];
		unsigned got = 0;
		for (; got < words; got++) {
			uint64_t zero = 0;
			if (!cas64(&first[got], &zero, ~0ULL))
				break;
		}
		if (got == words)
			return (uint64_t)a * AREA_PAGES + w * 64;
		while (got--)
			__atomic_store_n(&first[got], 0, __ATOMIC_RELEASE);
	}
	return UINT64_MAX;
}

/* A whole area whose counter says 512 (keeping its reserved flag). */
static bool take_area(struct ll_zone *z, uint32_t a)
{
	uint32_t st = ld32(&z->state[a]);

	while ((st & ST_FREE_MASK) == AREA_PAGES)
		if (cas32(&z->state[a], &st, st & ST_RESERVED)) {
			for (unsigned w = 0; w < AREA_WORDS; w++)
				__atomic_store_n(&z->bits[(uint64_t)a * AREA_WORDS + w], ~0ULL,
						 __ATOMIC_RELEASE);
			return true;
		}
	return false;
}

static uint64_t try_area(struct ll_zone *z, uint32_t a, unsigned order, uint32_t slot)
{
	uint64_t i;

	if (order >= AREA_ORDER)
		return order == AREA_ORDER && take_area(z, a) ? (uint64_t)a * AREA_PAGES : UINT64_MAX;
	if (!take_count(z, a, 1u << order))
		return UINT64_MAX;
	i = order <= 6 ? take_small(z, a, order, z->hint[slot]) : take_words(z, a, order);
	if (i != UINT64_MAX)
		z->hint[slot] = (uint8_t)((i % AREA_PAGES) / 64);   /* a hint: races are harmless */
	if (i == UINT64_MAX)
		__atomic_fetch_add(&z->state[a], 1u << order, __ATOMIC_ACQ_REL);
	return i;
}

static uint32_t slot_of(const struct ll *l)
{
	return l->this_cpu ? l->this_cpu() % SLOTS : 0;
}

/* Reserve an area with at least 2^order free pages for @slot, not
 * reserved by anyone, onwards from @after (or a start spread by slot). */
static uint32_t reserve_area(struct ll_zone *z, uint32_t slot, unsigned order, uint32_t after)
{
	uint32_t need = 1u << order;
	/* Onwards from the last reservation: the areas behind it were full. */
	uint32_t start = after != NO_AREA ? (after + 1) % z->nr_areas
					  : (uint32_t)((uint64_t)z->nr_areas * slot / SLOTS);

	/* Partly used areas first, whole ones only then: small blocks fill
	 * the holes, and free areas stay whole for 2 MiB and 4 MiB blocks
	 * (LLFree searches partial trees before free ones for the same
	 * reason). */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < z->nr_areas; k++) {
			uint32_t a = (start + k) % z->nr_areas, st = ld32(&z->state[a]);
			while (!(st & ST_RESERVED) && (st & ST_FREE_MASK) >= need &&
			       (pass || (st & ST_FREE_MASK) < AREA_PAGES))
				if (cas32(&z->state[a], &st, st | ST_RESERVED))
					return a;
		}
	return NO_AREA;
}

static void unreserve(struct ll_zone *z, uint32_t a)
{
	if (a != NO_AREA)
		__atomic_fetch_and(&z->state[a], ~ST_RESERVED, __ATOMIC_ACQ_REL);
}

static uint64_t alloc_zone(struct ll *l, struct ll_zone *z, unsigned order)
{
	uint32_t slot = slot_of(l);
	uint32_t mine = __atomic_load_n(&z->reserved[slot], __ATOMIC_ACQUIRE);
	uint64_t i;

	if (order == ALLOC_MAX_ORDER) {
		/* Two neighbouring whole areas, the first even. */
		for (uint32_t a = 0; a + 1 < z->nr_areas; a += 2) {
			if (!take_area(z, a))
				continue;
			if (take_area(z, a + 1))
				return (uint64_t)a * AREA_PAGES;
			for (unsigned w = 0; w < AREA_WORDS; w++)
				__atomic_store_n(&z->bits[(uint64_t)a * AREA_WORDS + w], 0,
						 __ATOMIC_RELEASE);
			__atomic_fetch_add(&z->state[a], AREA_PAGES, __ATOMIC_ACQ_REL);
		}
		return UINT64_MAX;
	}
	if (order == AREA_ORDER) {
		/* Whole areas are taken where they are, reserved or not: a
		 * reservation is a preference, not ownership. */
		for (uint32_t k = 0; k < z->nr_areas; k++)
			if (take_area(z, (uint32_t)((mine == NO_AREA ? 0 : mine) + k) % z->nr_areas))
				return (uint64_t)(((mine == NO_AREA ? 0 : mine) + k) % z->nr_areas) *
				       AREA_PAGES;
		return UINT64_MAX;
	}
	if (mine != NO_AREA) {
		i = try_area(z, mine, order, slot);
		if (i != UINT64_MAX)
			return i;
	}
	/* A new reservation, then anyone's area (memory is never stranded on
	 * another CPU's reservation). */
	uint32_t a = reserve_area(z, slot, order, mine);
	if (a != NO_AREA) {
		uint32_t old = __atomic_exchange_n(&z->reserved[slot], a, __ATOMIC_ACQ_REL);
		unreserve(z, old);
		i = try_area(z, a, order, slot);
		if (i != UINT64_MAX)
			return i;
	}
	for (uint32_t k = 0; k < z->nr_areas; k++) {
		i = try_area(z, k, order, slot);
		if (i != UINT64_MAX)
			return i;
	}
	return UINT64_MAX;
}

static void write_allocated(const struct ll_zone *z, uint64_t pfn, unsigned order,
			    unsigned flags)
{
	alloc_write_allocated(z->map, pfn, order, z->zone, flags);
}

static uint64_t ll_alloc(void *self, uint32_t node, unsigned order, unsigned flags)
{
	int top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;

	for (int zone = top; zone >= 0; zone--) {
		struct ll_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (!z)
			continue;
		uint64_t i = alloc_zone(self, z, order);
		if (i != UINT64_MAX) {
			write_allocated(z, z->base_pfn + i, order, flags);
			return z->base_pfn + i;
		}
	}
	return ALLOC_NO_PFN;
}

static void ll_free(void *self, uint64_t pfn, unsigned order)
{
	struct ll_zone *z = zone_of_pfn(self, pfn);
	uint64_t n = 1ULL << order;

	ASSERT(z && pfn + n <= z->hi_pfn && !(pfn & (n - 1)), "llfree: pfn %#llx order %u is in no zone",
	       (ull)pfn, order);
	const struct page *head = memmap_page(z->map, pfn);
	ASSERT(head->type != PAGE_FREE && head->order == order,
	       "llfree: pfn %#llx: freeing order %u, its head says type %s order %u", (ull)pfn,
	       order, page_type_name(head->type), head->order);
	write_free(z, pfn, n);
	give_bits(z, pfn - z->base_pfn, n);
}

/* ---- counts and checks ---- */

static uint64_t zone_free(const struct ll_zone *z)
{
	uint64_t total = 0;

	for (uint32_t a = 0; a < z->nr_areas; a++)
		total += ld32(&z->state[a]) & ST_FREE_MASK;
	return total;
}

static uint64_t ll_free_pages(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		const struct ll_zone *z = zone_of(self, node, (enum page_zone)zone);
		if (z)
			total += zone_free(z);
	}
	return total;
}

static uint64_t area_clear_bits(const struct ll_zone *z, uint32_t a)
{
	uint64_t n = 0;

	for (unsigned w = 0; w < AREA_WORDS; w++)
		n += (uint64_t)__builtin_popcountll(~ld64(&z->bits[(uint64_t)a * AREA_WORDS + w]));
	return n;
}

static uint64_t ll_count_free(void *self, uint32_t node)
{
	uint64_t total = 0;

	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		const struct ll_zone *z = zone_of(self, node, (enum page_zone)zone);
		for (uint32_t a = 0; z && a < z->nr_areas; a++)
			total += area_clear_bits(z, a);
	}
	return total;
}

/* With nobody allocating: each area's counter is its clear bits, every
 * clear bit's descriptor a free order-0 head, no bit outside the zone
 * clear, and reservations name real reserved areas. */
static bool ll_check(void *self)
{
	struct ll *l = self;
	bool ok = true;

	for (uint32_t n = 0; n < l->nr_nodes; n++) {
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
			struct ll_zone *z = zone_of(l, n, (enum page_zone)zone);
			if (!z)
				continue;
			for (uint32_t a = 0; a < z->nr_areas; a++) {
				uint32_t st = ld32(&z->state[a]);
				uint64_t clear = area_clear_bits(z, a);
				if ((st & ST_FREE_MASK) != clear) {
					pr_err("llfree: node %u zone %d area %u: %llu clear bits, counter says %u",
					       n, zone, a, (ull)clear, st & ST_FREE_MASK);
					ok = false;
				}
				for (unsigned b = 0; b < AREA_PAGES && ok; b++) {
					uint64_t i = (uint64_t)a * AREA_PAGES + b, pfn = z->base_pfn + i;
					if (ld64(&z->bits[i >> 6]) & (1ULL << (i & 63)))
						continue;
					if (pfn < z->lo_pfn || pfn >= z->hi_pfn) {
						pr_err("llfree: node %u: pfn %#llx outside the zone is free",
						       n, (ull)pfn);
						ok = false;
						break;
					}
					const struct page *p = memmap_page(z->map, pfn);
					if (p->type != PAGE_FREE || p->order != 0 || p->zone != zone ||
					    p->word != PAGE_POISON_FREE) {
						pr_err("llfree: node %u: free pfn %#llx: expected type %s "
						       "order 0 word %#x, found type %s order %u word %#x",
						       n, (ull)pfn, page_type_name(PAGE_FREE),
						       PAGE_POISON_FREE, page_type_name(p->type), p->order,
						       p->word);
						ok = false;
					}
				}
			}
			for (int s = 0; s < SLOTS; s++) {
				uint32_t a = z->reserved[s];
				if (a != NO_AREA && (a >= z->nr_areas || !(ld32(&z->state[a]) & ST_RESERVED))) {
					pr_err("llfree: node %u zone %d: slot %d holds area %u, not reserved",
					       n, zone, s, a);
					ok = false;
				}
			}
		}
	}
	return ok;
}

/* Each free run of bits cut into aligned blocks (at most order 10). */
static void ll_free_blocks(void *self, uint32_t node, uint64_t blocks[ALLOC_NR_ORDERS])
{
	for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
		const struct ll_zone *z = zone_of(self, node, (enum page_zone)zone);
		uint64_t total = z ? (uint64_t)z->nr_areas * AREA_PAGES : 0, i = 0;
		while (i < total) {
			if (ld64(&z->bits[i >> 6]) & (1ULL << (i & 63))) {
				i++;
				continue;
			}
			uint64_t e = i;
			while (e < total && !(ld64(&z->bits[e >> 6]) & (1ULL << (e & 63))))
				e++;
			for (uint64_t p = z->base_pfn + i; p < z->base_pfn + e;) {
				unsigned k = memmap_block_order(p, z->base_pfn + e, ALLOC_MAX_ORDER);
				blocks[k]++;
				p += 1ULL << k;
			}
			i = e;
		}
	}
}

/* Release every reservation (nobody allocating): nothing is cached, but a
 * census or a test then starts from the same state. */
static void ll_drain(void *self)
{
	struct ll *l = self;

	for (uint32_t n = 0; n < l->nr_nodes; n++)
		for (int zone = 0; zone < PAGE_NR_ZONES; zone++) {
			struct ll_zone *z = zone_of(l, n, (enum page_zone)zone);
			for (int s = 0; z && s < SLOTS; s++)
				unreserve(z, __atomic_exchange_n(&z->reserved[s], NO_AREA,
								 __ATOMIC_ACQ_REL));
		}
}

const struct alloc_ops llfree_alloc_ops = {
	.name = "llfree",
	.summary = "lock-free: per-CPU reservations of 2 MiB areas, atomic bit fields, no lock",
	.create = ll_create,
	.free_range = ll_free_range,
	.alloc = ll_alloc,
	.free = ll_free,
	.free_pages = ll_free_pages,
	.count_free = ll_count_free,
	.check = ll_check,
	.free_blocks = ll_free_blocks,
	.drain = ll_drain,
};

/*
 * buddy.h: the buddy allocator over one node's descriptor array.
 *
 * Overview
 *  A zone (struct buddy_zone) is one node's pages of one address class:
 *  PAGE_ZONE_DMA32 (below 4 GiB) or PAGE_ZONE_NORMAL (above). It keeps a
 *  free list per order 0..BUDDY_MAX_ORDER of naturally aligned blocks of
 *  2^order pages. Lists are doubly linked through the head descriptors'
 *  next/prev fields, which hold node-relative indices (mm/page.h), so the
 *  allocator needs no memory of its own beyond struct buddy_zone. One
 *  spinlock per zone guards the lists and counters; functions named _locked
 *  expect the caller to hold it.
 *
 *  BUDDY_MAX_ORDER (build option, default 10) is the largest block: 2^10
 *  pages = 4 MiB, as Linux's MAX_PAGE_ORDER 10 on x86_64. Max-order blocks
 *  never merge, which is what lets buddy_free_range() link them without the
 *  lock and splice them in at once.
 *
 * Boot (per chunk of a node, on any CPU, chunks disjoint):
 *   eager: memmap_init_range(map, s, e, PAGE_RESERVED, zone);
 *          buddy_free_range(z, s, e);
 *   lazy:  memmap_init_heads(map, s, e, PAGE_RESERVED, zone, BUDDY_MAX_ORDER);
 *          buddy_free_range(z, s, e);
 *  Blocks freed inside a chunk merge with free buddies in neighbouring chunks
 *  under the zone lock, so chunk edges need no alignment for correctness
 *  (mm/memmap.h says what must be initialised before a free looks across).
 *
 * Lazy blocks
 *  A free block flagged PAGE_F_LAZY_UNINIT has unwritten tail descriptors.
 *  Splitting it writes only the heads of the halves (which stay lazy);
 *  allocating writes the tails of the block handed out, nothing more
 *  (memmap_lazy_fill), and counts them (lazy_filled_pages) so the kernel can
 *  report what lazy init cost the allocations that paid for it. A merge of a
 *  lazy block with any other stays lazy.
 *
 * Debugging
 *  Free heads carry PAGE_POISON_FREE in their word and tails written by the
 *  allocator PAGE_POISON_TAIL. Unless NDEBUG (kernel debug builds and the
 *  host tests), every allocation first checks the free head it takes
 *  (buddy_check_free_head) and every free checks that the block is not free
 *  already. Page contents are the kernel's business: buddy_set_page_hooks()
 *  installs functions called for each block leaving (on_alloc) or entering
 *  (on_free) the free lists, e.g. to poison and check pages in debug builds.
 *
 * Behind the seam
 *  buddy_alloc_ops (the default of memboot.alloc=) keeps one zone per node
 *  and address class; the seam's front (mm/alloc/alloc.h) picks the node by
 *  distance, the ops pick the zone, highest first.
 */
#ifndef MEMBOOT_MM_BUDDY_H
#define MEMBOOT_MM_BUDDY_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/spinlock.h"
#include "mm/alloc/alloc.h"
#include "mm/memmap.h"
#include "mm/page.h"

#ifndef BUDDY_MAX_ORDER
#define BUDDY_MAX_ORDER 10
#endif
_Static_assert(BUDDY_MAX_ORDER >= 1 && BUDDY_MAX_ORDER <= PAGE_ORDER_LIMIT,
	       "BUDDY_MAX_ORDER out of range");

#define BUDDY_NR_ORDERS (BUDDY_MAX_ORDER + 1)
#define BUDDY_MAX_ORDER_PAGES (1ULL << BUDDY_MAX_ORDER)
#define BUDDY_NO_PFN UINT64_MAX
#define BUDDY_MAX_NODES MEMMAP_MAX_NODES

/*
 * One node's zone.
 * Invariants (hold the lock to rely on them; buddy_check_zone() tests all
 * but the overlap, which needs a bitmap the allocator does not keep):
 *  [start_pfn, end_pfn) lies inside map's span and inside the zone's address
 *  class; every block on list k is a block of 2^k pages inside it, aligned
 *  to 2^k, whose head says PAGE_FREE, order k, this zone, word
 *  PAGE_POISON_FREE; head[k] is the first (MEMMAP_NONE: empty), prev of the
 *  first and next of the last are MEMMAP_NONE, and next/prev agree;
 *  nr_free[k] is the length of list k; free_pages == sum nr_free[k] << k;
 *  no two free blocks overlap and no two free buddies of order
 *  < BUDDY_MAX_ORDER both sit on a list (they would have merged).
 */
struct buddy_zone {
	struct spinlock lock;
	uint8_t zone;                        /* enum page_zone */
	uint32_t nid;
	const struct memmap_node *map;
	uint64_t start_pfn, end_pfn;         /* [start, end) */
	uint32_t head[BUDDY_NR_ORDERS];      /* node-relative index of the first block */
	uint64_t nr_free[BUDDY_NR_ORDERS];   /* blocks on each list */
	uint64_t free_pages;
	/* Statistics, under the lock. */
	uint64_t lazy_fill_allocs;           /* allocations that wrote tails */
	uint64_t lazy_filled_pages;          /* tails they wrote */
	struct alloc_lock_stats lock_st;     /* this zone's lock (its own entry points) */
};

/* Called for each block of 2^order pages at pfn leaving or entering the free
 * lists. May run with the zone lock held (the _locked functions): it must
 * not call into the buddy allocator. */
typedef void (*buddy_page_hook)(const struct buddy_zone *z, uint64_t pfn, unsigned order);

/* Empty zone over [start_pfn, end_pfn) of @map (inside the span and inside
 * the address class of @zone; start < end). */
void buddy_zone_init(struct buddy_zone *z, const struct memmap_node *map, enum page_zone zone,
		     uint64_t start_pfn, uint64_t end_pfn);

/*
 * Free [start_pfn, end_pfn) (inside the zone) as the largest naturally
 * aligned blocks (memmap_block_order), merging each with free buddies.
 * Every block head must have been written (memmap_init_range, or
 * memmap_init_heads over the same block cut) and none may be free;
 * a head's PAGE_F_LAZY_UNINIT is kept. Max-order blocks are linked without
 * the lock and spliced in at once, in address order, in front of the list;
 * smaller blocks take the lock one by one. Safe to run concurrently on
 * disjoint ranges of one zone.
 */
void buddy_free_range(struct buddy_zone *z, uint64_t start_pfn, uint64_t end_pfn);

/* A block of 2^order pages (order <= BUDDY_MAX_ORDER): its first pfn, or
 * BUDDY_NO_PFN when the zone has no block that large. The head says
 * PAGE_ALLOCATED, @order, refcount 1; all its descriptors are written. */
uint64_t buddy_alloc(struct buddy_zone *z, unsigned order);

/* buddy_alloc(), and the tail descriptors this allocation had to write
 * because its block was lazy (0 if none) in *lazy_filled_pages. */
uint64_t buddy_alloc_ex(struct buddy_zone *z, unsigned order, uint64_t *lazy_filled_pages);

/* The same with z->lock held (a batch of allocations under one lock). */
uint64_t buddy_alloc_locked(struct buddy_zone *z, unsigned order, uint64_t *lazy_filled_pages);

/* Give back the block of 2^order pages at @pfn, merging it with its free
 * buddies. The block must be one buddy_alloc() returned with this order (its
 * head may have been retyped, e.g. PAGE_PAGETABLE), not free. */
void buddy_free(struct buddy_zone *z, uint64_t pfn, unsigned order);
void buddy_free_locked(struct buddy_zone *z, uint64_t pfn, unsigned order);

/* Free pages by the counter (a racy snapshot without the lock). */
static inline uint64_t buddy_free_pages(const struct buddy_zone *z)
{
	return __atomic_load_n(&z->free_pages, __ATOMIC_RELAXED);
}

/* Free pages by walking every list (takes the lock): the census cross-check
 * of free_pages. */
uint64_t buddy_count_free(struct buddy_zone *z);

/* True if the block at @pfn is a well-formed head of a free block of
 * 2^order pages on list @order of @z (type, order, zone, flags, poison word,
 * alignment, bounds, links that agree with the neighbours'). Logs the first
 * problem found. Call with the lock held, or on a zone nobody changes. */
bool buddy_check_free_head(const struct buddy_zone *z, uint64_t pfn, unsigned order);

/* Check every invariant listed at struct buddy_zone (takes the lock); logs
 * each violation. */
bool buddy_check_zone(struct buddy_zone *z);

/* Install hooks (NULL: none). Global; set them before the CPUs allocate. */
void buddy_set_page_hooks(buddy_page_hook on_free, buddy_page_hook on_alloc);

/* The buddy allocator behind the seam (mm/alloc/alloc.h): zones for every node
 * with memory, nodes chosen by the seam's front. */
extern const struct alloc_ops buddy_alloc_ops;

#endif

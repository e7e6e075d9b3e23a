/*
 * alloc.h: the allocator seam, the one interface between memory init and
 * the page allocator (docs/allocators.md).
 *
 * Overview
 *  An allocator is a table of operations (struct alloc_ops) over the page
 *  descriptors of every node (mm/memmap.h). Memory init hands it memory
 *  (free_range), everyone else asks the front below for blocks of 2^order
 *  pages: alloc_pages(), alloc_free(), and their bulk forms, which a per-CPU
 *  front refills and drains through. The front picks the node order (the
 *  asked node first, then the others by distance), grows deferred memory on
 *  demand, counts, and in debug builds poisons freed pages; an allocator
 *  only serves one node at a time and keeps its own lists.
 *
 *  One allocator is chosen per boot with memboot.alloc=NAME from
 *  alloc_table[] (buddy is the default). Adding one means a new file
 *  mm/alloc/NAME.c defining NAME_alloc_ops and one X(NAME) line in
 *  ALLOC_TABLE (mm/alloc/table.h), nothing else: the kernel, the host
 *  conformance suite (tests/host/test_alloc.c), the benchmarks, the lab,
 *  the guest tests and tools/memboot bench's alloc axis all take the table
 *  (tests/tools/test_alloc_table.py shows it in a scratch tree).
 *
 * What an allocator must do (the conformance suite checks each)
 *  - create: empty lists for every node of setup->mm that has an array,
 *    its state in memory from setup->reserve; returns that state (@self).
 *  - free_range(node, zone, s, e): take [s, e) of one node and one zone
 *    (the front cuts at the 4 GiB line). Each head of the block cut
 *    memmap_block_order(.., ALLOC_MAX_ORDER) makes of [s, e) is written
 *    (type PAGE_RESERVED, maybe PAGE_F_LAZY_UNINIT: its tails are not);
 *    called concurrently on disjoint ranges. Afterwards the descriptors of
 *    the range say PAGE_FREE in a way the census (memmap_count_types)
 *    counts exactly the allocator's free pages.
 *  - alloc(node, order, flags): a naturally aligned block of 2^order pages
 *    on @node (below 4 GiB with ALLOC_DMA32), or ALLOC_NO_PFN. The head
 *    says PAGE_ALLOCATED, @order, refcount 1; the tails are written unless
 *    ALLOC_NO_TAILS (the caller then retypes the head, e.g. PAGE_HUGE).
 *    Lazy tails the allocator writes are counted with alloc_count_lazy().
 *  - free(pfn, order): take back a block alloc() gave (its head may have
 *    been retyped), from any CPU.
 *  - free_pages(node): its free-page counter; count_free(node): the same
 *    by walking its structures (the census cross-check); check(): every
 *    invariant, logging each violation.
 *  - alloc_bulk / free_bulk (optional): many blocks under one lock.
 *  - drain (optional): give back anything cached in front of the lists.
 */
#ifndef MEMBOOT_MM_ALLOC_H
#define MEMBOOT_MM_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/counter.h"
#include "kernel/services/spinlock.h"
#include "mm/memmap.h"
#include "mm/page.h"

#define ALLOC_NO_PFN UINT64_MAX
#define ALLOC_MAX_ORDER 10            /* largest block: 4 MiB, as Linux's MAX_PAGE_ORDER */
#define ALLOC_MAX_ORDER_PAGES (1ULL << ALLOC_MAX_ORDER)
#define ALLOC_MAX_NODES MEMMAP_MAX_NODES

/* alloc flags */
#define ALLOC_DMA32 0x1u      /* below 4 GiB (the DMA32 zone) only */
#define ALLOC_THISNODE 0x2u   /* this node only: no fallback to others */
#define ALLOC_NO_TAILS 0x4u   /* tails are never read (a huge pool page): write the head only */

/* What an allocator is given at init. */
struct alloc_setup {
	const struct memmap *mm;      /* every node's descriptors */
	uint32_t nr_nodes;
	/* Memory for the allocator's own structures on @node, taken before
	 * memory is handed out (physmem at boot, malloc on the host); 0 if
	 * none. The bytes are reserved for good. */
	uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node);
	void *reserve_ctx;
	/* The calling CPU's id, for allocators that keep per-CPU state (NULL:
	 * they treat every caller as one CPU). */
	uint32_t (*this_cpu)(void);
};

/* Free blocks of each order 0..ALLOC_MAX_ORDER (as /proc/buddyinfo). */
#define ALLOC_NR_ORDERS (ALLOC_MAX_ORDER + 1)

/* An allocator's own lock, counted: what the lab reports as the
 * allocator's contention (not the per-CPU front's). Counters are written
 * with the lock held; spin time is in cycles of the CPU's counter
 * (arch_counter(), arch/counter.h: the kernel's and, in host builds, the
 * host's, the lab's clock). */
struct alloc_lock_stats {
	uint64_t acquired;
	uint64_t contended;           /* acquisitions that found the lock held */
	uint64_t spin_cycles;
};

static inline void alloc_spin_lock(struct spinlock *l, struct alloc_lock_stats *st)
{
	if (__builtin_expect(spin_trylock(l), 1)) {
		st->acquired++;
		return;
	}
	uint64_t t0 = arch_counter();
	spin_lock(l);
	st->acquired++;
	st->contended++;
	st->spin_cycles += arch_counter() - t0;
}

static inline void alloc_lock_stats_add(struct alloc_lock_stats *to,
					const struct alloc_lock_stats *from)
{
	to->acquired += from->acquired;
	to->contended += from->contended;
	to->spin_cycles += from->spin_cycles;
}

/*
 * Every call takes the allocator's own state (@self, what create()
 * returned), so several allocators, each over its own machine, run side
 * by side (the lab, tools/memboot lab). No allocator keeps file-scope state.
 */
struct alloc_ops {
	const char *name;             /* memboot.alloc=NAME */
	const char *summary;          /* one line for the boot log */
	/* The allocator's state over @setup, in memory from setup->reserve
	 * (its bookkeeping, counted by the caller); NULL if it cannot start. */
	void *(*create)(const struct alloc_setup *setup);
	void (*free_range)(void *self, uint32_t node, enum page_zone zone, uint64_t start_pfn,
			   uint64_t end_pfn);
	uint64_t (*alloc)(void *self, uint32_t node, unsigned order, unsigned flags);
	void (*free)(void *self, uint64_t pfn, unsigned order);
	uint64_t (*free_pages)(void *self, uint32_t node);
	uint64_t (*count_free)(void *self, uint32_t node);
	bool (*check)(void *self);
	/* Free blocks by order on @node, added to @blocks: the allocator's
	 * own view of fragmentation (a free run that its structures could
	 * hand out as one aligned 2^k block counts at order k). */
	void (*free_blocks)(void *self, uint32_t node, uint64_t blocks[ALLOC_NR_ORDERS]);
	/* Optional; the front loops over alloc/free when NULL. */
	uint32_t (*alloc_bulk)(void *self, uint32_t node, unsigned order, unsigned flags,
			       uint32_t count, uint64_t *pfns);
	void (*free_bulk)(void *self, const uint64_t *pfns, uint32_t count, unsigned order);
	void (*drain)(void *self);
	/* Optional: the allocator's own locks, summed (none: all zero). */
	void (*lock_stats)(void *self, struct alloc_lock_stats *out);
};

/* Every allocator memboot.alloc can name, NULL-terminated; [0] the default. */
extern const struct alloc_ops *const alloc_table[];

/* The allocator called @name, or NULL. */
const struct alloc_ops *alloc_find(const char *name);

/* The name memboot.alloc= asked for ("buddy" without it), parsed by
 * alloc_param_table; not checked against alloc_table[]. */
const char *alloc_requested(void);
struct param_table;
extern const struct param_table alloc_param_table;

/* Statistics beside the seam (relaxed atomics; snapshots). */
struct alloc_counters {
	uint64_t allocs;              /* blocks handed out */
	uint64_t frees;
	uint64_t failures;            /* requests nobody could serve */
	uint64_t remote_allocs;       /* served by another node than asked */
	uint64_t grows;               /* deferred init grown on demand */
	uint64_t lazy_fill_allocs;    /* allocations that wrote lazy tails */
	uint64_t lazy_filled_pages;   /* tails they wrote */
};
extern struct alloc_counters alloc_counters;

/* For allocators: an allocation wrote @pages lazy tail descriptors. */
void alloc_count_lazy(uint64_t pages);

/*
 * Make @ops the allocator: its init over @setup, and each node's fallback
 * order by @distance (nr_nodes x nr_nodes, SLIT style; NULL: 10 local, 20
 * remote; ties to the lower node id). False if init failed.
 */
bool alloc_init(const struct alloc_ops *ops, const struct alloc_setup *setup,
		const uint8_t *distance);

/* The allocator in use (NULL before alloc_init). */
const struct alloc_ops *alloc_current(void);

/* Hand [start_pfn, end_pfn) of @node to the allocator, cut at the 4 GiB
 * line (page_zone_split). Same rules as ops->free_range. */
void alloc_free_range(uint32_t node, uint64_t start_pfn, uint64_t end_pfn);

/* 2^order pages, from @node if it can, else the nearest node that has them
 * (unless ALLOC_THISNODE). ALLOC_NO_PFN if none. While a grow hook is set,
 * an empty allocator first grows deferred memory. */
uint64_t alloc_pages(uint32_t node, unsigned order, unsigned flags);
void alloc_free(uint64_t pfn, unsigned order);

/* Up to @count blocks into @pfns (same node order as alloc_pages); returns
 * how many. For per-CPU fronts refilling their lists. */
uint32_t alloc_pages_bulk(uint32_t node, unsigned order, unsigned flags, uint32_t count,
			  uint64_t *pfns);
void alloc_free_bulk(const uint64_t *pfns, uint32_t count, unsigned order);

/* Anything cached in front of the lists goes back (before a census). */
void alloc_drain(void);

/* Free pages: by the allocator's counters, and by walking its lists. */
uint64_t alloc_free_count(void);
uint64_t alloc_count_free(void);
/* The allocator's invariants. */
bool alloc_check(void);

/* Set while deferred memory remains: initialise more on @node (or
 * anywhere); true if it did. NULL: no growing. */
void alloc_set_grow(bool (*grow)(void *ctx, uint32_t node), void *ctx);

/* Debug builds: poison pages on free, check the poison on allocation
 * (page contents must be addressable at pfn << PAGE_SHIFT). */
void alloc_enable_poison(void);

/* The node order alloc_pages() tries for @node (for tests and reports). */
uint32_t alloc_fallback_order(uint32_t node, uint32_t *nodes);

/* Free blocks by order over every node (the buddyinfo of a census). */
void alloc_free_blocks(uint64_t blocks[ALLOC_NR_ORDERS]);

/* The allocator in use's state (for reports; NULL before alloc_init). */
void *alloc_current_self(void);

/*
 * ---- a cache in front (the per-CPU lists, mm/alloc/alloc_pcp.c) ----
 * The front knows a cache only through these hooks, which the cache
 * installs; the cache calls the allocator through alloc_raw_*() below.
 * alloc_init() removes any cache.
 */
struct alloc_cache {
	unsigned max_order;           /* it serves orders 0..max_order without flags */
	uint64_t (*alloc)(uint32_t node, unsigned order);        /* ALLOC_NO_PFN: none */
	bool (*free)(uint64_t pfn, unsigned order);             /* true: cached */
	uint64_t (*drain_this_cpu)(void);
	uint64_t (*drain_all)(void);
	uint64_t (*pages)(void);                                 /* pages cached */
};
void alloc_set_cache(const struct alloc_cache *cache);   /* NULL: none */
/* Pages on the cache in front (0 without one). */
uint64_t alloc_cached_pages(void);

/* The allocator itself, one node, no growth, no counters, no poisoning:
 * the cache counts and poisons at its own front door. A block it takes is
 * checked as the front checks every block (alloc_verify_block). */
uint32_t alloc_raw_bulk(uint32_t node, unsigned order, uint32_t count, uint64_t *pfns);
void alloc_raw_free_bulk(const uint64_t *pfns, uint32_t count, unsigned order);
uint64_t alloc_raw_free_pages(uint32_t node);
const struct memmap *alloc_memmap(void);
uint32_t alloc_nr_nodes(void);

/*
 * What the front checks of every block an allocator hands out, before it
 * is used or retyped: naturally aligned, on a node, inside its span, head
 * PAGE_ALLOCATED with @order and refcount 1, in the right zone. False, with
 * the allocator, the pfn and the expected and found type named in the log.
 */
bool alloc_verify_block(const struct alloc_ops *ops, const struct memmap *mm, uint64_t pfn,
			unsigned order, unsigned flags);

/* What an allocator writes into the descriptors of the block [pfn, pfn +
 * 2^order) it hands out (the contract, docs/allocators.md): the head
 * allocated with refcount 1, and unless ALLOC_NO_TAILS every tail typed
 * PAGE_TAIL with the tail poison. For allocators whose free blocks keep no
 * state in their tails (bitmap, llfree); buddy's own lists write theirs. */
static inline void alloc_write_allocated(const struct memmap_node *map, uint64_t pfn,
					 unsigned order, enum page_zone zone, unsigned flags)
{
	memmap_write_head(memmap_page(map, pfn), PAGE_ALLOCATED, order, zone, 0, 1);
	if (flags & ALLOC_NO_TAILS)
		return;   /* the tails keep their free heads; the head's order covers them */
	for (uint64_t p = pfn + 1; p < pfn + (1ULL << order); p++)
		memmap_write_head(memmap_page(map, p), PAGE_TAIL, 0, zone, 0, PAGE_POISON_TAIL);
}

#endif

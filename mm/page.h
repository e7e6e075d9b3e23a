/*
 * page.h: the page descriptor (struct page), one per 4 KiB page frame.
 *
 * Overview
 *  Every page of a node's span has one descriptor in that node's array
 *  (mm/memmap.h). A descriptor is 16 bytes by default: a type, the order of
 *  the block it heads, a zone, flags, one 32-bit word that is a reference
 *  count or, for a page-table page, that table's lock, and two 32-bit links
 *  (node-relative page indices) for the buddy free lists. The size is a build
 *  option, MEMMAP_DESC_BYTES = 16, 32 or 64 (the extra bytes are padding), so
 *  a benchmark can show what the descriptor size costs at boot.
 *  docs/memory-layout.md has the table and the reasoning.
 *
 * Heads and tails
 *  Only the head descriptor of a block is meaningful: a block is 2^order
 *  pages starting at a pfn aligned to 2^order, and its head says what the
 *  whole block is (free, allocated, a huge page, reserved ...). Descriptors
 *  after the head, the tails, are never read by the allocator or the census:
 *  they hold PAGE_TAIL when the allocator wrote them, whatever an earlier
 *  memmap_init_range() left there, or, inside a block flagged
 *  PAGE_F_LAZY_UNINIT and inside huge pages, nothing at all (the array memory
 *  as the early allocator handed it over). A single page is a block of
 *  order 0, so a descriptor written by memmap_init_range() is a head.
 *
 * Invariants of a head (checked where it is read, see buddy_check_free_head):
 *  type < PAGE_NR_TYPES; order <= PAGE_ORDER_LIMIT; zone < PAGE_NR_ZONES;
 *  flags only PAGE_F_* bits; next/prev are MEMMAP_NONE unless the block is
 *  on a free list (type PAGE_FREE); a free head's word is PAGE_POISON_FREE.
 */
#ifndef MEMBOOT_MM_PAGE_H
#define MEMBOOT_MM_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/limits.h"
#include "kernel/services/spinlock.h"


#ifndef MEMMAP_DESC_BYTES
#define MEMMAP_DESC_BYTES 16
#endif
#if MEMMAP_DESC_BYTES != 16 && MEMMAP_DESC_BYTES != 32 && MEMMAP_DESC_BYTES != 64
#error "MEMMAP_DESC_BYTES must be 16, 32 or 64"
#endif

/* A link that points nowhere (end of a free list, or not on one). */
#define MEMMAP_NONE 0xffffffffu

/* No block is larger than 2^20 pages (4 GiB): the DMA32/Normal boundary at
 * 4 GiB is aligned to that, so no block ever straddles two zones. */
#define PAGE_ORDER_LIMIT 20

enum page_type {
	PAGE_UNINIT = 0,     /* never written (what a zeroed array reads as) */
	PAGE_FREE,           /* head of a block on a buddy free list */
	PAGE_TAIL,           /* written by the allocator inside a block; not a head */
	PAGE_RESERVED,       /* in use since boot, or initialised and not yet freed */
	PAGE_MEMMAP,         /* holds descriptors */
	PAGE_PAGETABLE,      /* a page-table page; its lock is in ptlock */
	PAGE_HUGE,           /* head of a huge pool page (order 9 or 18) */
	PAGE_ALLOCATED,      /* head of a block handed out by the page allocator */
	PAGE_HOLE,           /* not RAM; written only where a buddy search can look */
	PAGE_PCP,            /* head of a block on a per-CPU list (mm/alloc/alloc_pcp.h) */
	PAGE_BAD,            /* failed the memory test or named bad (mm/memtest.h): never free */
	PAGE_NR_TYPES
};

/* Head flags. */
#define PAGE_F_LAZY_UNINIT 0x01u  /* the block's tail descriptors are not written */
#define PAGE_F_ALL 0x01u

/* Zones: which physical addresses a block may come from. */
enum page_zone {
	PAGE_ZONE_DMA32 = 0,     /* below 4 GiB */
	PAGE_ZONE_NORMAL = 1,    /* 4 GiB and above */
	PAGE_NR_ZONES
};
#define PAGE_ZONE_DMA32_END_PFN (1ULL << (32 - PAGE_SHIFT))

/* The word of a free head: any other value means someone wrote to a free
 * descriptor (use after free of the descriptor, a stray refcount). */
#define PAGE_POISON_FREE 0xf4eef4eeu
/* The word of a tail the allocator wrote. */
#define PAGE_POISON_TAIL 0x7a117a11u

struct page {
	uint8_t type;            /* enum page_type */
	uint8_t order;           /* a head covers 2^order pages */
	uint8_t zone;            /* enum page_zone */
	uint8_t flags;           /* PAGE_F_* */
	union {
		uint32_t refcount;       /* PAGE_ALLOCATED: references (1 when handed out) */
		struct spinlock ptlock;  /* PAGE_PAGETABLE: the lock of this table */
		uint32_t word;           /* free heads and tails: a poison value */
	};
	uint32_t next;           /* free list: node-relative index, or MEMMAP_NONE */
	uint32_t prev;
#if MEMMAP_DESC_BYTES > 16
	uint8_t pad[MEMMAP_DESC_BYTES - 16];
#endif
} __attribute__((aligned(MEMMAP_DESC_BYTES)));

_Static_assert(sizeof(struct spinlock) == 4, "ptlock must fit the 32-bit word");
_Static_assert(sizeof(struct page) == MEMMAP_DESC_BYTES, "struct page size");
_Static_assert(_Alignof(struct page) == MEMMAP_DESC_BYTES, "struct page alignment");
_Static_assert(__builtin_offsetof(struct page, type) == 0, "type at 0");
_Static_assert(__builtin_offsetof(struct page, order) == 1, "order at 1");
_Static_assert(__builtin_offsetof(struct page, zone) == 2, "zone at 2");
_Static_assert(__builtin_offsetof(struct page, flags) == 3, "flags at 3");
_Static_assert(__builtin_offsetof(struct page, refcount) == 4, "refcount at 4");
_Static_assert(__builtin_offsetof(struct page, ptlock) == 4, "ptlock at 4");
_Static_assert(__builtin_offsetof(struct page, next) == 8, "next at 8");
_Static_assert(__builtin_offsetof(struct page, prev) == 12, "prev at 12");
_Static_assert(PAGE_NR_TYPES <= 255 && PAGE_NR_ZONES <= 255, "byte fields");
_Static_assert(PAGE_ZONE_DMA32_END_PFN % (1ULL << PAGE_ORDER_LIMIT) == 0,
	       "the zone boundary is aligned to the largest block");

/* Zone of a page frame by its address alone. */
static inline enum page_zone page_zone_of_pfn(uint64_t pfn)
{
	return pfn < PAGE_ZONE_DMA32_END_PFN ? PAGE_ZONE_DMA32 : PAGE_ZONE_NORMAL;
}

/*
 * Call fn(ctx, zone, s, e) for the parts of [start_pfn, end_pfn) below and
 * above the 4 GiB line, low part first: the one place the zone split is
 * written (page_zone_span() gives one zone's part). Nothing is called for
 * an empty range.
 */
typedef void (*page_zone_fn)(void *ctx, enum page_zone zone, uint64_t start_pfn,
			     uint64_t end_pfn);
static inline void page_zone_split(uint64_t start_pfn, uint64_t end_pfn, page_zone_fn fn,
				   void *ctx)
{
	if (start_pfn < PAGE_ZONE_DMA32_END_PFN && start_pfn < end_pfn)
		fn(ctx, PAGE_ZONE_DMA32, start_pfn,
		   end_pfn < PAGE_ZONE_DMA32_END_PFN ? end_pfn : PAGE_ZONE_DMA32_END_PFN);
	if (end_pfn > PAGE_ZONE_DMA32_END_PFN && start_pfn < end_pfn)
		fn(ctx, PAGE_ZONE_NORMAL,
		   start_pfn > PAGE_ZONE_DMA32_END_PFN ? start_pfn : PAGE_ZONE_DMA32_END_PFN, end_pfn);
}

/* The part of [start_pfn, end_pfn) that lies in @zone, in [*s, *e); false
 * when there is none. The same split as page_zone_split(), for code that
 * walks the zones itself. */
static inline bool page_zone_span(uint64_t start_pfn, uint64_t end_pfn, enum page_zone zone,
				  uint64_t *s, uint64_t *e)
{
	uint64_t zs = zone == PAGE_ZONE_DMA32 ? 0 : PAGE_ZONE_DMA32_END_PFN;
	uint64_t ze = zone == PAGE_ZONE_DMA32 ? PAGE_ZONE_DMA32_END_PFN : UINT64_MAX;

	*s = start_pfn > zs ? start_pfn : zs;
	*e = end_pfn < ze ? end_pfn : ze;
	return *s < *e;
}

/* A short name for logs ("free", "reserved", ...); "?" when out of range. */
const char *page_type_name(unsigned type);

#endif

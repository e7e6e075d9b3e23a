/*
 * census.h: every page below the top of usable memory counted exactly once,
 * from the page descriptors' heads, and cross-checked against the page
 * allocator (mm/alloc/alloc.h) and the early allocator's reservations.
 *
 * A page is free, pcp (on a per-CPU list), reserved, memmap, pagetable,
 * huge, allocated, bad memory (PAGE_BAD: failed memtest, or named bad on
 * the command line; its record key is bad_mem, since `bad` already counts
 * impossible descriptors), a hole (not RAM), or lost: a descriptor nobody accounts for (unwritten, a tail where a
 * head should be, a hole marker inside RAM), or a difference between the
 * descriptors and the allocators' own counts. The census prints a line and
 * a `census` record, and names the pfn ranges that are wrong.
 */
#ifndef MEMBOOT_MM_CENSUS_H
#define MEMBOOT_MM_CENSUS_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/memmap.h"
#include "mm/page.h"

struct census_input {
	const struct memmap *mm;
	const struct mm_node_range *ranges;   /* usable memory, sorted per node */
	uint32_t nr_ranges;
	/* Pages the early allocator handed out that must now be reserved,
	 * memmap or pagetable heads. */
	uint64_t fixed_pages;
	/* Pages the memory test and the bad-memory keys took out (PAGE_BAD). */
	uint64_t bad_pages;
};

struct census {
	uint64_t counts[PAGE_NR_TYPES];
	uint64_t pages;              /* the top of usable memory, in pages */
	uint64_t hole;
	uint64_t lost;
	uint64_t bad;                /* descriptors with impossible fields, misaligned blocks */
	bool check_ok;               /* the allocator's check() passed */
	uint64_t free_blocks[11];    /* the allocator's free blocks by order 0..10 */
};

/* Count, report as @when, and return true if nothing is lost, no block is
 * misaligned and the allocator's check() passed. Drains the allocator's
 * per-CPU fronts first (alloc_drain). */
bool census_take(const struct census_input *in, const char *when, struct census *out);

#endif

/*
 * pagealloc.h: the kernel's page allocator once memory is initialised: the
 * buddy zones of every node (mm/buddy.h), with fallback by distance.
 *
 * Before the "meminit" phase, early allocations come from physmem; after it
 * physmem is retired (its free memory now belongs to the buddy lists) and
 * everything comes from here.
 */
#ifndef MEMBOOT_KERNEL_PAGEALLOC_H
#define MEMBOOT_KERNEL_PAGEALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/buddy.h"
#include "mm/memmap.h"

#define PAGE_NO_PFN BUDDY_NO_PFN

extern struct memmap memmap;
extern struct buddy_set buddy_set;
extern struct buddy_zone buddy_zones[BUDDY_MAX_NODES][PAGE_NR_ZONES];

/* Build each node's fallback list (after the zones exist). */
void pagealloc_init(uint32_t nr_nodes, const uint8_t *distance);

/*
 * 2^order contiguous pages, from @node if it can, else the nearest node with
 * memory. PAGE_NO_PFN if none anywhere. While deferred init is still
 * pending, an empty allocator first initialises more memory (meminit_grow).
 * *@lazy_filled (may be NULL) gets the tail descriptors written for it.
 */
uint64_t page_alloc(uint32_t node, unsigned order, uint64_t *lazy_filled);
void page_free(uint64_t pfn, unsigned order);

/* Free pages in all zones, by the zones' counters. */
uint64_t pagealloc_free_pages(void);

/* Hook: set by meminit while deferred ranges remain; returns true if it
 * initialised more memory on @node (or anywhere). */
extern bool (*pagealloc_grow)(uint32_t node);

/* Debug builds: poison pages on free, check the poison on allocation. */
void pagealloc_enable_poison(void);

#endif

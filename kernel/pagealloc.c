/*
 * pagealloc.c: node-aware page allocation over the buddy zones.
 */
#include "kernel/pagealloc.h"

#include <string.h>

#include "arch/percpu.h"
#include "kernel/log.h"
#include "kernel/panic.h"

struct memmap memmap;
struct buddy_set buddy_set;
struct buddy_zone buddy_zones[BUDDY_MAX_NODES][PAGE_NR_ZONES];
static struct buddy_fallback fallback[BUDDY_MAX_NODES];
bool (*pagealloc_grow)(uint32_t node);

void pagealloc_init(uint32_t nr_nodes, const uint8_t *distance)
{
	for (uint32_t n = 0; n < nr_nodes; n++)
		buddy_fallback_build(&fallback[n], &buddy_set, n, distance, PAGE_ZONE_NORMAL);
}

uint64_t page_alloc(uint32_t node, unsigned order, uint64_t *lazy_filled)
{
	uint64_t pfn, filled = 0;
	ASSERT(node < buddy_set.nr_nodes && order <= BUDDY_MAX_ORDER, "node %u order %u",
	       node, order);
	for (;;) {
		const struct buddy_fallback *fb = &fallback[node];
		pfn = BUDDY_NO_PFN;
		for (uint32_t i = 0; i < fb->nr && pfn == BUDDY_NO_PFN; i++)
			pfn = buddy_alloc_ex(fb->zones[i], order, &filled);
		if (pfn != BUDDY_NO_PFN || !pagealloc_grow || !pagealloc_grow(node))
			break;
	}
	if (lazy_filled)
		*lazy_filled = filled;
	return pfn;
}

void page_free(uint64_t pfn, unsigned order)
{
	struct buddy_zone *z = buddy_zone_of_pfn(&buddy_set, pfn);

	ASSERT(z, "pfn 0x%llx belongs to no zone", (unsigned long long)pfn);
	buddy_free(z, pfn, order);
}

uint64_t pagealloc_free_pages(void)
{
	uint64_t total = 0;
	for (uint32_t n = 0; n < buddy_set.nr_nodes; n++)
		for (int z = 0; z < PAGE_NR_ZONES; z++)
			if (buddy_set.zones[n][z])
				total += buddy_free_pages(buddy_set.zones[n][z]);
	return total;
}

/* --- poisoning (debug builds) -------------------------------------------
 * Boot-time freeing of all memory is the measured hot path and writes no
 * page contents. After it, every freed page is filled with a pattern; an
 * allocation that finds the pattern's first word on a page checks the whole
 * page, so a write to a free page is caught at its next allocation. */

#ifdef MEMBOOT_DEBUG
#define POISON_WORD 0x6b6b6b6b6b6b6b6bULL

static void poison_on_free(const struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	memset((void *)(uintptr_t)(pfn << 12), 0x6b, (size_t)4096 << order);
}

static void poison_on_alloc(const struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	for (uint64_t p = pfn; p < pfn + (1ULL << order); p++) {
		const uint64_t *w = (const uint64_t *)(uintptr_t)(p << 12);
		if (w[0] != POISON_WORD)
			continue;   /* never poisoned: freed at boot */
		for (unsigned i = 1; i < 512; i++)
			ASSERT(w[i] == POISON_WORD,
			       "free page 0x%llx was written at offset %u while free (0x%llx)",
			       (unsigned long long)(p << 12), i * 8, (unsigned long long)w[i]);
	}
}

#endif

void pagealloc_enable_poison(void)
{
#ifdef MEMBOOT_DEBUG
	buddy_set_page_hooks(poison_on_free, poison_on_alloc);
	pr_info("pagealloc: debug build: free pages are poisoned and checked on allocation");
#endif
}

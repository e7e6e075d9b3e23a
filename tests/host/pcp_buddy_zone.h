/*
 * pcp_buddy_zone.h: a per-CPU list backend over one buddy zone, for the pcp
 * host tests and the pcp host benchmark (bench/pcp_bench.c), which put the
 * lists in front of the kernel's buddy code without the allocator seam.
 * The kernel's own backend goes through the seam (mm/alloc/alloc_pcp.c).
 *
 * @zone is a struct buddy_zone *; the caller holds its lock, as struct
 * pcp_backend's _locked members require.
 */
#ifndef MEMBOOT_TESTS_HOST_PCP_BUDDY_ZONE_H
#define MEMBOOT_TESTS_HOST_PCP_BUDDY_ZONE_H

#include <stdint.h>

#include "mm/alloc/buddy.h"
#include "mm/alloc/pcp.h"

static unsigned pcp_buddy_zone_take(void *zone, unsigned order, unsigned n, uint64_t *out)
{
	unsigned got = 0;

	while (got < n) {
		uint64_t pfn = buddy_alloc_locked(zone, order, NULL);

		if (pfn == BUDDY_NO_PFN)
			break;
		out[got++] = pfn;
	}
	return got;
}

static void pcp_buddy_zone_give(void *zone, unsigned order, const uint64_t *pfns, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		buddy_free_locked(zone, pfns[i], order);
}

static uint64_t pcp_buddy_zone_free_pages(void *zone)
{
	return buddy_free_pages(zone);
}

static const struct pcp_backend pcp_buddy_zone_backend = {
	pcp_buddy_zone_take, pcp_buddy_zone_give, pcp_buddy_zone_free_pages,
};

#endif

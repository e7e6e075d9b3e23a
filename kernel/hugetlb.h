/*
 * hugetlb.h: 1 GiB and 2 MiB huge page pools per node.
 *
 * 1 GiB pages are reserved from physmem on their exact node, naturally
 * aligned, right after the topology is known and before anything else large
 * is taken from the node (phase "hugetlb1g"). Their descriptors get a head
 * and nothing else (meminit skips their 262143 tails). 2 MiB pages come from
 * each node's buddy lists after meminit, allocated in parallel by the node's
 * CPUs (phase "hugetlb"); again only the head is written.
 */
#ifndef MEMBOOT_KERNEL_HUGETLB_H
#define MEMBOOT_KERNEL_HUGETLB_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/hugetlb.h"

struct physmem;
struct memmap;

void hugetlb_reserve_gigantic(struct physmem *pm);
/* Write the head descriptor of each 1 GiB pool page of @nid (meminit). */
void hugetlb_mark_gigantic(uint32_t nid);
/* Pages physmem reserved for 1 GiB pool pages (for the census). */
uint64_t hugetlb_gigantic_pages(void);
/* Build the 2 MiB pools, zero if asked, report (phase "hugetlb"). */
void hugetlb_init_pools(void);
/* One 2 MiB or 1 GiB pool page, from @node's pool if it has one, else the
 * nearest node's by id distance; ALLOC_NO_PFN when every pool is empty. */
uint64_t hugetlb_pool_take(uint32_t node, enum hugetlb_size size);
/* Free pages of @size in all pools (a racy snapshot). */
uint64_t hugetlb_pool_free(enum hugetlb_size size);
/* Give back a page hugetlb_pool_take() returned, to its own node's pool. */
void hugetlb_pool_give(uint64_t pfn, enum hugetlb_size size);
/* memboot.selftest=hugetlb: every CPU takes and gives back every pool page. */
bool hugetlb_selftest(void);

#endif

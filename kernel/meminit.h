/*
 * meminit.h: page descriptors for every node, filled by the node's own CPUs,
 * and the buddy allocator handed all free memory (phases "memmap" and
 * "meminit"); then the census that accounts for every page.
 *
 * Policies (memboot.init=):
 *   serial    the boot CPU fills and frees everything (the baseline);
 *   deferred  the boot CPU fills what must exist before any parallel work
 *             (reserved ranges, the hole markers) and a first section of
 *             its node's free memory (memboot.early_pages), growing that on
 *             demand if early allocations outgrow it; then each node's CPUs
 *             fill and free the rest in parallel (the default);
 *   lazy      like deferred, but only the head descriptor of each max-order
 *             block is written; a block's other descriptors are written when
 *             it is first split.
 * Threads per node (memboot.init_threads=): 1, node (all of the node's CPUs,
 * the default), all (every CPU on each node in turn), or a number.
 */
#ifndef MEMBOOT_KERNEL_MEMINIT_H
#define MEMBOOT_KERNEL_MEMINIT_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/memmap.h"

/* Every node's page descriptors (phase "memmap"). */
extern struct memmap memmap;

enum meminit_policy { MEMINIT_SERIAL, MEMINIT_DEFERRED, MEMINIT_LAZY };

/* Allocate each node's descriptor array from its own memory (phase "memmap"). */
void meminit_arrays(void);
struct hugetlb_pools;

/* Fill descriptors and free memory to the buddy lists (phase "meminit");
 * the 1 GiB pool pages of @hp get their heads. */
void meminit_run(const struct hugetlb_pools *hp);
/* Count every page below the top of usable memory; false if any is lost. */
bool census_run(const char *when);
/* Allocation self-test on every CPU at once (memboot.selftest=alloc). */
/* *skipped: too little free memory to run it; not a failure. */
bool meminit_alloc_selftest(bool *skipped);

#endif

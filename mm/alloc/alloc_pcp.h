/*
 * alloc_pcp.h: per-CPU page lists (mm/alloc/pcp.h) in front of whichever
 * allocator sits behind the seam (mm/alloc/alloc.h).
 *
 * Overview
 *  Once alloc_pcp_init() ran, alloc_pages() serves blocks of order
 *  0..PCP_MAX_ORDER without flags (ALLOC_THISNODE aside) from the calling
 *  CPU's list for each node it tries, and alloc_free() puts such blocks on
 *  the calling CPU's list for the block's node. Every CPU has one list per
 *  node with memory, in memory on the CPU's own node. A node's lists refill
 *  from and drain to the allocator under one lock per node, the zone lock
 *  of Linux (the allocator's own lock inside it is then uncontended but for
 *  callers that bypass the lists: flagged and larger allocations).
 *
 *  A block on a list has its head typed PAGE_PCP, so the census counts it
 *  as such ("pcp"); alloc_pcp_pages() is the same by the lists' counters.
 *  Only a CPU itself touches its lists, except alloc_pcp_drain_all(), which
 *  is for when the other CPUs do not allocate (before a census, after a
 *  self-test), as Linux's drain_all_pages() runs on each CPU through work
 *  items instead.
 */
#ifndef MEMBOOT_MM_ALLOC_PCP_H
#define MEMBOOT_MM_ALLOC_PCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/alloc/pcp.h"

struct alloc_pcp_setup {
	uint32_t nr_cpus;                  /* CPUs with lists: ids [0, nr_cpus) */
	const uint32_t *cpu_node;          /* each CPU's node (where its lists live) */
	uint32_t (*this_cpu)(void);        /* the caller's id, < nr_cpus */
	uint64_t (*now_ns)(void);          /* for lock spin time (may be NULL) */
	/* Memory for @cpu's list of @node (kept for good), on cpu_node[cpu];
	 * NULL if none. */
	void *(*mem)(void *ctx, size_t bytes, uint32_t cpu, uint32_t node);
	void *mem_ctx;
	/* nr_cpus pointers, kept for good: CPU c's row of list pointers (one
	 * per node, taken from @mem on cpu_node[c]) goes in rows[c]. */
	struct pcp_list ***rows;
	struct pcp_config cfg;
};

/* Put lists in front of the allocator in use (after memory was handed to
 * it: each node's size sets its lists' sizes). False, with the reason
 * logged and no lists in front, if memory for them was missing. Policy off
 * still installs them: every request then goes to the allocator under the
 * node lock, so the counters compare. */
bool alloc_pcp_init(const struct alloc_pcp_setup *s);

/* Bytes alloc_pcp_init() will ask @s->mem for, per CPU (all its lists):
 * to reserve them before memory goes to the allocator. Needs alloc_init(). */
size_t alloc_pcp_bytes_per_cpu(const struct alloc_pcp_setup *s);

/* Lists gone (without draining: call alloc_pcp_drain_all first). */
void alloc_pcp_reset(void);

bool alloc_pcp_active(void);

/* For mm/alloc/alloc.c: a block from this CPU's list for @node, or ALLOC_NO_PFN
 * (not a list order, or the node has nothing). */
uint64_t alloc_pcp_alloc(uint32_t node, unsigned order);
/* For mm/alloc/alloc.c: true if the block went onto this CPU's list. */
bool alloc_pcp_free(uint64_t pfn, unsigned order);

/* This CPU's lists, every node: decay (pcp_tick) and drain. */
void alloc_pcp_tick(void);
uint64_t alloc_pcp_drain_this_cpu(void);
/* Every CPU's lists (other CPUs must not allocate meanwhile). */
uint64_t alloc_pcp_drain_all(void);

/* Pages on all lists, by their counters. */
uint64_t alloc_pcp_pages(void);

/* Each list's state and counters; NULL where a (cpu, node) has none. */
const struct pcp_list *alloc_pcp_list(uint32_t cpu, uint32_t node);
const struct pcp_zone *alloc_pcp_zone(uint32_t node);
uint32_t alloc_pcp_nr_cpus(void);

/* Sum of every list's counters (of @node, or every node with
 * ALLOC_PCP_ALL_NODES), and their zeroing (between runs of a benchmark). */
#define ALLOC_PCP_ALL_NODES 0xffffffffu
void alloc_pcp_stats(uint32_t node, struct pcp_stats *out);
void alloc_pcp_stats_reset(void);

#endif

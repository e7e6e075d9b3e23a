/*
 * pcp.h: per-CPU page lists in front of a page allocator, with Linux's PCP
 * high auto-tuning (v6.7) as switchable steps.
 *
 * Overview
 *  A pcp_zone stands for one zone of the allocator behind the lists (buddy
 *  or any other): it holds the zone's lock, a small backend (take blocks
 *  out of the zone, give them back, read its free-page count) and the
 *  sizing every CPU shares (batch, high_min, high_max, watermarks). A
 *  pcp_list is one CPU's lists for that zone, one LIFO stack of block pfns
 *  per order 0..PCP_MAX_ORDER (Linux's PAGE_ALLOC_COSTLY_ORDER), living in
 *  memory the caller gives (per-CPU memory on the CPU's node in the
 *  kernel). Only the owning CPU touches its list; the zone lock is taken
 *  only to refill or drain a batch (or for orders above PCP_MAX_ORDER, and
 *  for everything when the policy is off, so the counters compare).
 *
 * Policies (memboot.pcp=off|fixed|auto)
 *  off    every allocation and free goes to the zone under its lock.
 *  fixed  high_min == high_max: from memboot.pcp_high_fraction (Linux's
 *         percpu_pagelist_high_fraction: managed pages / fraction, split
 *         over the node's CPUs) or, when 0, from the zone's low watermark
 *         as Linux does by default. No auto-tuning (equal bounds turn it
 *         off, as the sysctl does since commit 90b41691b988).
 *  auto   high moves between high_min (the default above) and high_max
 *         (the value for fraction 8), tuned by the steps below.
 *
 * Steps (memboot.pcp_steps=, the patches of Huang Ying's series "mm: PCP
 *  high auto-tuning", v6.7; patch 2 (cache info) and 6 (framework) are
 *  folded into 3 and 7):
 *   1  free_high only on two consecutive high-order frees (PREV_FREE_HIGH_ORDER)
 *   3  keep up to batch high-order pages before a free_high drain when the
 *      CPU's data cache slice holds more than 4 batches (FREE_HIGH_BATCH)
 *   4  cap the free batch scale factor at PCP_BATCH_SCALE_MAX
 *   5  scale the refill batch of order 0 by alloc_factor
 *   7  tune high automatically: raise on refill and on frees to a full
 *      list, decay by 1/8 on a tick
 *   8  shrink high when the zone is under its high watermark
 *   9  decay only pages seen idle since the last tick (count_min); the
 *      patch dropped from the series, off in "mainline"
 *  10  detect consecutive frees by a counter of freed pages (free_count)
 *
 * Counters (struct pcp_stats, per list): zone lock acquisitions, the
 * contended ones (a failed trylock before the lock was taken) and their
 * spin time, pages taken from the zone (alloc_zone) against blocks served
 * from the list, free_high drains, and high's min/max over time.
 */
#ifndef MEMBOOT_MM_PCP_H
#define MEMBOOT_MM_PCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/spinlock.h"

#define PCP_MAX_ORDER 3            /* PAGE_ALLOC_COSTLY_ORDER */
#define PCP_NR_ORDERS (PCP_MAX_ORDER + 1)
#define PCP_BATCH_SCALE_MAX 5      /* CONFIG_PCP_BATCH_SCALE_MAX default */
#define PCP_HIGH_FRACTION_MIN 8    /* MIN_PERCPU_PAGELIST_HIGH_FRACTION */
#define PCP_HIGH_FRACTION_MAX 1000000   /* memboot.pcp_high_fraction's top */
#define PCP_NO_PFN UINT64_MAX

enum pcp_policy { PCP_OFF, PCP_FIXED, PCP_AUTO };

#define PCP_STEP(n) (1u << (n))
#define PCP_STEPS_KNOWN (PCP_STEP(1) | PCP_STEP(3) | PCP_STEP(4) | PCP_STEP(5) | \
			 PCP_STEP(7) | PCP_STEP(8) | PCP_STEP(9) | PCP_STEP(10))
/* What mainline Linux has since 6.7: every step but 9. */
#define PCP_STEPS_MAINLINE (PCP_STEPS_KNOWN & ~PCP_STEP(9))

/* Where the blocks come from and go to. The _locked calls run with the
 * zone lock held by the pcp code. */
struct pcp_backend {
	/* Up to @n blocks of 2^order pages into out[]; how many it took. */
	unsigned (*take_locked)(void *zone, unsigned order, unsigned n, uint64_t *out);
	/* Give back n blocks of 2^order pages. */
	void (*give_locked)(void *zone, unsigned order, const uint64_t *pfns, unsigned n);
	/* Free pages in the zone (a racy snapshot is fine). */
	uint64_t (*free_pages)(void *zone);
};

struct pcp_config {
	enum pcp_policy policy;
	uint32_t steps;                   /* PCP_STEP() bits */
	uint32_t high_fraction;           /* 0: default (low watermark) */
	uint64_t cache_bytes;             /* per-CPU data cache slice (step 3) */
};

/* One zone as the lists see it; shared by every CPU. */
struct pcp_zone {
	const struct pcp_backend *be;
	void *zone;
	struct spinlock *lock;
	uint64_t (*now_ns)(void);         /* for spin time; NULL: not measured */
	struct pcp_config cfg;
	uint64_t managed_pages;
	uint64_t wmark_min, wmark_low, wmark_high;   /* pages */
	int batch, high_min, high_max;
	uint32_t nr_cpus;                 /* CPUs the high is split over */
	bool auto_tune;                   /* policy auto, step 7, high_min < high_max */
	volatile int below_high;          /* step 8: ZONE_BELOW_HIGH */
	uint32_t cap[PCP_NR_ORDERS];      /* blocks each list of a CPU can hold */
};

struct pcp_stats {
	uint64_t lock_acquired;           /* zone lock acquisitions */
	uint64_t lock_contended;          /* ... after a failed trylock */
	uint64_t spin_ns;                 /* time spent waiting for it */
	uint64_t alloc_zone_pages;        /* pages taken from the zone */
	uint64_t alloc_pcp;               /* allocations served from the list */
	uint64_t alloc_zone;              /* allocations that went to the zone */
	uint64_t refills, drains;         /* batches moved */
	uint64_t drained_pages;           /* pages given back to the zone */
	uint64_t free_high;               /* drains by the free_high heuristic */
	int high_min_seen, high_max_seen; /* high over time */
};

#define PCPF_PREV_FREE_HIGH_ORDER 0x01
#define PCPF_FREE_HIGH_BATCH 0x02

/* One CPU's lists for one zone. */
struct pcp_list {
	struct pcp_zone *pz;
	uint32_t cpu;
	int count;                        /* pages on all lists */
	int count_min;                    /* step 9: fewest pages since the last tick, as
					   Linux updated on allocation only */
	int high;
	uint8_t flags;                    /* PCPF_* */
	uint8_t alloc_factor;             /* step 5 */
	uint8_t free_factor;              /* before step 10 */
	int free_count;                   /* step 10: consecutive freed pages */
	uint32_t nr[PCP_NR_ORDERS];       /* blocks on each order's ring */
	uint32_t base[PCP_NR_ORDERS];     /* slot of the coldest block */
	uint64_t *blocks[PCP_NR_ORDERS];  /* rings of pz->cap[o] slots */
	struct pcp_stats st;
};

/*
 * Size @pz for a zone of @managed_pages out of @total_managed_pages in the
 * system (watermarks follow Linux's min_free_kbytes split over zones), and
 * @nr_cpus CPUs on its node sharing high. Policy off leaves the lists
 * unused (every call goes to the zone).
 */
void pcp_zone_init(struct pcp_zone *pz, const struct pcp_backend *be, void *zone,
		   struct spinlock *lock, const struct pcp_config *cfg, uint64_t managed_pages,
		   uint64_t total_managed_pages, uint32_t nr_cpus);

/* Bytes one CPU's list for @pz needs (struct and stacks), 64-byte multiple. */
size_t pcp_list_bytes(const struct pcp_zone *pz);

/* Lay out a list in @mem (pcp_list_bytes(pz) bytes, 8-byte aligned). */
struct pcp_list *pcp_list_init(struct pcp_zone *pz, void *mem, uint32_t cpu);

/* A block of 2^order pages: from the list (order <= PCP_MAX_ORDER and not
 * off) or the zone. PCP_NO_PFN when the list is empty and the zone cannot
 * refill it. */
uint64_t pcp_alloc(struct pcp_list *l, unsigned order);

/* Give back a block of 2^order pages that belongs to the list's zone. */
void pcp_free(struct pcp_list *l, uint64_t pfn, unsigned order);

/* Periodic work (Linux's vmstat refresh, once a second there): decay high
 * and drain what is above it. Returns pages drained. */
int pcp_tick(struct pcp_list *l);

/* Every page on the list back to the zone; returns pages drained. */
uint64_t pcp_drain(struct pcp_list *l);

/* Invariants: count == sum of blocks << order, each ring within its
 * capacity, high within [high_min, high_max]. Logs the first violation. */
bool pcp_check(const struct pcp_list *l);

/* Command-line values. Each returns false (and a message in @err) on a bad
 * value, leaving *out unchanged. */
bool pcp_parse_policy(const char *s, enum pcp_policy *out, char *err, size_t err_bytes);
/* "mainline", "none", "all", or a list of step numbers (cmdline_parse_list's
 * rule): all plain (exactly those steps), or all prefixed + or - to add to or
 * remove from mainline ("+9,-10"). */
bool pcp_parse_steps(const char *s, uint32_t *out, char *err, size_t err_bytes);
/* "1,3,4" for a step mask ("none" when empty). */
void pcp_format_steps(uint32_t steps, char *buf, size_t bytes);
const char *pcp_policy_name(enum pcp_policy p);

/* Linux's zone_batchsize() for a zone of @managed_pages. */
int pcp_batch_for(uint64_t managed_pages);

/* Add @b's counters into @a (high seen: min of mins, max of maxes). */
void pcp_stats_add(struct pcp_stats *a, const struct pcp_stats *b);

/* --- per-CPU lists: command-line keys (docs/cmdline.md) --- */

struct pcp_settings {
	unsigned policy;           /* enum pcp_policy (mm/alloc/pcp.h): memboot.pcp */
	uint32_t steps;            /* PCP_STEP() bits: memboot.pcp_steps */
	uint64_t high_fraction;    /* memboot.pcp_high_fraction */
	char churn_mix[16];        /* memboot.churn_mix */
	uint64_t churn_allocs;     /* memboot.churn_allocs */
	uint64_t churn_seed;       /* not a key: every churn run is the same run */
};

extern struct pcp_settings pcp_settings;
struct param_table;
extern const struct param_table pcp_param_table;

#endif

/*
 * churn.h: a kbuild-like page allocation workload for every CPU, the same
 * code in the guest (memboot.selftest=churn) and on the host (make
 * bench-pcp, pthreads).
 *
 * Overview
 *  Each worker runs "processes" one after another, as a build server's CPU
 *  runs compiler jobs:
 *   fork   an order-1 PGD (two pages with page table isolation), a
 *          kernel stack (four order-0 pages with VMAP_STACK), page tables;
 *   run    a burst of mostly order-0 pages and a few order 1..3 (slab
 *          pages, short-lived), some freed again soon (temporaries), some
 *          kept by the worker as long-lived pages (page cache) that are
 *          evicted oldest first when its share is full;
 *   exit   every page of the process freed at once, the PGD last (the
 *          pattern patch 1 of the PCP series is about).
 *  A share of frees is done on another worker (pages freed by the reader of
 *  a pipe): they go to that worker's inbox and are freed there. A tick (the
 *  caller's, e.g. pcp_tick) runs every tick_allocs allocations. Sizes are
 *  fractions of the pages per worker the caller gives (sized to the memory
 *  present); every decision comes from a per-worker xorshift seeded from
 *  the seed, so a run is repeatable up to the timing of remote frees.
 *
 *  A run: churn_init(), then on every worker churn_worker_run(), wait for
 *  all, then churn_worker_finish() on every worker (its inbox), wait again.
 *  Afterwards no page is held by the workload.
 */
#ifndef MEMBOOT_MM_CHURN_H
#define MEMBOOT_MM_CHURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/spinlock.h"

#define CHURN_MAX_WORKERS 256
#define CHURN_NO_PFN UINT64_MAX

/* The shape of the load; fractions are of the pages per worker. */
struct churn_mix {
	const char *name;
	uint32_t burst_min_div, burst_max_div;  /* process burst in [pages/max_div, pages/min_div] */
	uint32_t temp_pct;       /* of burst pages freed again during the run */
	uint32_t keep_pct;       /* of burst pages that become long-lived */
	uint32_t keep_div;       /* long-lived share: pages / keep_div */
	uint32_t remote_pct;     /* of frees done on another worker */
	uint32_t tick_allocs;    /* allocations between ticks */
	uint32_t work_iters;     /* compute per allocated page (the compiler) */
	uint32_t high_order_pct; /* of burst allocations that are order 1..3 */
};

/* "kbuild" (the default), "deep" (bursts deeper than a list's high_max,
 * frequent ticks: where patch 9 should matter), "net" (runs of high-order
 * frees: free_high). NULL if unknown. */
const struct churn_mix *churn_find_mix(const char *name);
/* Names, for messages: "kbuild, deep, net". */
const char *churn_mix_names(void);

struct churn_ops {
	uint64_t (*alloc)(void *ctx, unsigned order);   /* CHURN_NO_PFN: none */
	void (*free)(void *ctx, uint64_t pfn, unsigned order);
	void (*tick)(void *ctx);                        /* may be NULL */
};

struct churn_params {
	uint64_t seed;
	uint32_t nr_workers;
	uint64_t pages_per_worker;   /* the budget one worker holds at most */
	uint64_t allocs_per_worker;  /* allocations each worker makes */
	const struct churn_mix *mix;
};

struct churn_result {
	uint64_t allocs, alloc_pages, failed;   /* failed: allocator had none */
	uint64_t frees, remote_frees;           /* remote: handed to another worker */
	uint64_t processes, ticks;
	uint64_t sink;                          /* keeps the compute honest */
};

struct churn_worker;

struct churn {
	struct churn_params p;
	const struct churn_ops *ops;
	struct churn_worker *w[CHURN_MAX_WORKERS];
};

/* Bytes one worker's state needs (8-byte aligned memory). */
size_t churn_worker_bytes(const struct churn_params *p);

/* Set up @c; mem[i] is churn_worker_bytes() for worker i. False (with a
 * message logged) when the parameters make no sense: no workers, more than
 * CHURN_MAX_WORKERS, a budget under 256 pages, no mix. */
bool churn_init(struct churn *c, const struct churn_params *p, const struct churn_ops *ops,
		void *const *mem);

/* Worker @i's processes, with @ctx handed to the ops (its CPU's lists). */
void churn_worker_run(struct churn *c, uint32_t i, void *ctx);

/* After every worker's run returned: free what others sent to @i. */
void churn_worker_finish(struct churn *c, uint32_t i, void *ctx);

const struct churn_result *churn_worker_result(const struct churn *c, uint32_t i);

#endif

/*
 * lab_stats.h: the allocator lab's figures, one code for the host lab
 * (bench/lab.c) and the guest's replay (kernel/selftest/replay.c), so that
 * the two rows of one trace are computed alike.
 *
 *  - A latency histogram: log-linear buckets (LAB_HIST_SUB per power of
 *    two, exact below 2 * LAB_HIST_SUB), fixed size, no allocation, integer
 *    only (the kernel has no floating point), mergeable: one per thread,
 *    merged at the end, so that recording takes no lock and no atomic.
 *    A percentile is the largest value of the bucket that holds the rank
 *    lab_pct_rank() names, never above the largest value seen: at most
 *    1/LAB_HIST_SUB (1.6 %) above the exact figure.
 *  - Fragmentation from free blocks by order (as /proc/buddyinfo): free
 *    pages and Linux's unusable free space index (mm/vmstat.c,
 *    unusable_free_index, shown in debugfs extfrag/unusable_index): the
 *    share of free memory in blocks too small for @order.
 */
#ifndef MEMBOOT_MM_ALLOC_LAB_STATS_H
#define MEMBOOT_MM_ALLOC_LAB_STATS_H

#include <stdint.h>

/* 64 buckets per power of two: at most 1.6 % above the exact figure, fine
 * enough that designs a few percent apart get different percentiles (at
 * 16, three allocators' p99 fell into one bucket). 30 KiB a histogram. */
#define LAB_HIST_SUB_BITS 6
#define LAB_HIST_SUB (1u << LAB_HIST_SUB_BITS)
/* Values 0 .. 2*SUB-1 exactly, then SUB buckets for each power of two
 * 2^k, k = SUB_BITS+1 .. 63. */
#define LAB_HIST_BUCKETS ((64 - LAB_HIST_SUB_BITS + 1) * LAB_HIST_SUB)

struct lab_hist {
	uint64_t n, max;
	uint64_t count[LAB_HIST_BUCKETS];
};

/* Quantiles in parts per 100000: p50 = 50000, p99 = 99000, p99.9 = 99900. */
#define LAB_P50 50000u
#define LAB_P99 99000u
#define LAB_P999 99900u
#define LAB_Q_ONE 100000u

/* The 0-based rank, in @n values sorted ascending, of quantile @q:
 * floor((n - 1) * q), the rule of the lab's sorted samples and of the
 * histogram alike. */
uint64_t lab_pct_rank(uint64_t n, uint32_t q);

void lab_hist_add(struct lab_hist *h, uint64_t v);
void lab_hist_merge(struct lab_hist *to, const struct lab_hist *from);
/* The value at quantile @q (0 when empty); LAB_Q_ONE gives the maximum. */
uint64_t lab_hist_pct(const struct lab_hist *h, uint32_t q);
/* Bucket of @v and the largest value that bucket holds (for tests). */
uint32_t lab_hist_bucket(uint64_t v);
uint64_t lab_hist_bucket_top(uint32_t b);

/* Pages in @blocks[0 .. nr_orders - 1] (blocks[k] free blocks of order k). */
uint64_t lab_free_pages(const uint64_t *blocks, unsigned nr_orders);
/* Linux's unusable free space index at @order, times @scale (Linux: 1000),
 * truncated as Linux's div_u64: free pages not in blocks of @order or
 * larger, over free pages; 0 with no free page. */
uint64_t lab_unusable_index(const uint64_t *blocks, unsigned nr_orders, unsigned order,
			    uint64_t scale);
/* Linux's fragmentation index at @order (mm/vmstat.c, __fragmentation_index;
 * debugfs extfrag/extfrag_index), times @scale (Linux: 1000): only meaningful
 * when a request of @order would fail. -@scale when a free block of @order
 * or larger exists (no failure), 0 with no free block; else towards 0 a
 * failure for lack of memory, towards @scale one for fragmentation. */
int64_t lab_extfrag_index(const uint64_t *blocks, unsigned nr_orders, unsigned order,
			  uint64_t scale);

#endif

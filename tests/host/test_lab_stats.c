/*
 * test_lab_stats.c: the lab's shared figures (mm/alloc/lab_stats.c), which
 * the host lab and the guest's replay both report: percentile ranks, the
 * latency histogram on known distributions, and Linux's unusable free space
 * index (mm/vmstat.c unusable_free_index) on known free-block sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mm/alloc/lab_stats.h"

static struct lab_hist h;

static void test_rank(void **state)
{
	assert_int_equal(lab_pct_rank(0, LAB_P50), 0);
	assert_int_equal(lab_pct_rank(1, LAB_P99), 0);
	assert_int_equal(lab_pct_rank(1000, LAB_P50), 499);     /* floor(999 * 0.5) */
	assert_int_equal(lab_pct_rank(1000, LAB_P99), 989);     /* floor(999 * 0.99) */
	assert_int_equal(lab_pct_rank(1000, LAB_P999), 998);    /* floor(999 * 0.999) */
	assert_int_equal(lab_pct_rank(1000, LAB_Q_ONE), 999);
	/* No overflow far beyond 2^47 values. */
	assert_int_equal(lab_pct_rank(1ULL << 60, LAB_P50), ((1ULL << 60) - 1) / 2);
}

static void test_buckets(void **state)
{
	/* Exact below 128; then every bucket's top is one below the next
	 * bucket's first value, and no bucket is wider than 1/64 of its base. */
	for (uint64_t v = 0; v < 2 * LAB_HIST_SUB; v++) {
		assert_int_equal(lab_hist_bucket(v), v);
		assert_int_equal(lab_hist_bucket_top((uint32_t)v), v);
	}
	for (uint32_t b = 2 * LAB_HIST_SUB; b + 1 < LAB_HIST_BUCKETS; b++) {
		uint64_t top = lab_hist_bucket_top(b), first = b ? lab_hist_bucket_top(b - 1) + 1 : 0;
		assert_int_equal(lab_hist_bucket(top), b);
		assert_true(top - first + 1 <= (first >> 6) + 1);
		assert_int_equal(lab_hist_bucket(top + 1), b + 1);
	}
	assert_int_equal(lab_hist_bucket(UINT64_MAX), LAB_HIST_BUCKETS - 1);
	assert_int_equal(lab_hist_bucket_top(LAB_HIST_BUCKETS - 1), UINT64_MAX);
	/* [256, 512) in 64 buckets of 4: 500 is in [500, 504). */
	assert_int_equal(lab_hist_bucket(503), lab_hist_bucket(500));
	assert_true(lab_hist_bucket(499) != lab_hist_bucket(500));
	assert_int_equal(lab_hist_bucket_top(lab_hist_bucket(500)), 503);
}

static void test_uniform(void **state)
{
	/* 1..1000 each once: exact ranks 500, 990, 999, max 1000; the
	 * histogram answers with the top of the bucket that holds them. */
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1000; v >= 1; v--)
		lab_hist_add(&h, v);
	assert_int_equal(h.n, 1000);
	assert_int_equal(h.max, 1000);
	assert_int_equal(lab_hist_pct(&h, LAB_P50), 503);    /* bucket [500, 504) */
	assert_int_equal(lab_hist_pct(&h, LAB_P99), 991);    /* bucket [984, 992) */
	assert_int_equal(lab_hist_pct(&h, LAB_P999), 999);   /* bucket [992, 1000) */
	assert_int_equal(lab_hist_pct(&h, LAB_Q_ONE), 1000);
	uint64_t exact[] = { 500, 990, 999 }, q[] = { LAB_P50, LAB_P99, LAB_P999 };
	for (int i = 0; i < 3; i++) {
		uint64_t got = lab_hist_pct(&h, (uint32_t)q[i]);
		assert_true(got >= exact[i] && got <= exact[i] + exact[i] / 64);
	}
}

static void test_small_exact_and_merge(void **state)
{
	/* 980 values of 3 and 20 of 25, split over two histograms: p50 3,
	 * p99 25 (rank 989 is past the 980 threes), max 25, all exact. */
	struct lab_hist a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 980; i++)
		lab_hist_add(i % 2 ? &a : &b, 3);
	for (int i = 0; i < 20; i++)
		lab_hist_add(&b, 25);
	lab_hist_merge(&a, &b);
	assert_int_equal(a.n, 1000);
	assert_int_equal(lab_hist_pct(&a, LAB_P50), 3);
	assert_int_equal(lab_hist_pct(&a, 98000), 3);    /* rank floor(999 * .98) = 979: the last 3 */
	assert_int_equal(lab_hist_pct(&a, 98100), 25);   /* rank 980: the first 25 */
	assert_int_equal(lab_hist_pct(&a, LAB_P99), 25);
	assert_int_equal(lab_hist_pct(&a, LAB_Q_ONE), 25);
	memset(&b, 0, sizeof(b));
	assert_int_equal(lab_hist_pct(&b, LAB_P50), 0);
}

/* Linux's formula, written out as mm/vmstat.c has it: fill_contig_page_info
 * then unusable_free_index, for one order. */
static uint64_t linux_unusable(const uint64_t *nr_free, unsigned order)
{
	uint64_t free_pages = 0, free_blocks_suitable = 0;
	for (unsigned k = 0; k < 11; k++) {
		free_pages += nr_free[k] << k;
		if (k >= order)
			free_blocks_suitable += nr_free[k] << (k - order);
	}
	if (!free_pages)
		return 0;
	return (free_pages - (free_blocks_suitable << order)) * 1000 / free_pages;
}

static void test_unusable_index(void **state)
{
	/* 10 x o0, 5 x o1, 2 x o9, 1 x o10: 2068 free pages, 2048 of them in
	 * blocks of order 9 or more: 20000 / 2068 = 9 thousandths. */
	uint64_t blocks[11] = { 10, 5, 0, 0, 0, 0, 0, 0, 0, 2, 1 };
	assert_int_equal(lab_free_pages(blocks, 11), 2068);
	assert_int_equal(lab_unusable_index(blocks, 11, 9, 1000), 9);
	assert_int_equal(lab_unusable_index(blocks, 11, 9, 10000), 96);
	assert_int_equal(lab_unusable_index(blocks, 11, 0, 1000), 0);
	/* Only order-0 pages: all unusable at order 9; nothing free: 0. */
	uint64_t small[11] = { 7 }, none[11] = { 0 };
	assert_int_equal(lab_unusable_index(small, 11, 9, 1000), 1000);
	assert_int_equal(lab_unusable_index(none, 11, 9, 1000), 0);
	/* Against Linux's formula on every order of a spread of sets. */
	uint64_t set[11];
	for (uint64_t seed = 1; seed < 200; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
		for (unsigned k = 0; k < 11; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			set[k] = x % 4 == 0 ? 0 : x % 1000;
		}
		for (unsigned o = 0; o < 11; o++)
			assert_int_equal(lab_unusable_index(set, 11, o, 1000), linux_unusable(set, o));
	}
}

/* Linux's __fragmentation_index, written out as mm/vmstat.c has it. */
static int64_t linux_extfrag(const uint64_t *nr_free, unsigned order)
{
	uint64_t free_pages = 0, total = 0, suitable = 0, requested = 1ULL << order;
	for (unsigned k = 0; k < 11; k++) {
		free_pages += nr_free[k] << k;
		total += nr_free[k];
		if (k >= order)
			suitable += nr_free[k] << (k - order);
	}
	if (!total)
		return 0;
	if (suitable)
		return -1000;
	return 1000 - (int64_t)((1000 + free_pages * 1000 / requested) / total);
}

static void test_extfrag_index(void **state)
{
	/* 512 single pages: order 9 would fail with 512 pages free, all
	 * scattered: 1000 - (1000 + 1000) / 512 = 997 (fragmentation). */
	uint64_t scattered[11] = { 512 };
	assert_int_equal(lab_extfrag_index(scattered, 11, 9, 1000), 997);
	assert_int_equal(lab_extfrag_index(scattered, 11, 0, 1000), -1000);   /* would succeed */
	/* One free page: order 9 fails for want of memory: 1000 - 1001 = -1. */
	uint64_t one[11] = { 1 }, none[11] = { 0 };
	assert_int_equal(lab_extfrag_index(one, 11, 9, 1000), -1);
	assert_int_equal(lab_extfrag_index(none, 11, 9, 1000), 0);
	uint64_t set[11];
	for (uint64_t seed = 1; seed < 200; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
		for (unsigned k = 0; k < 11; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			set[k] = x % 3 == 0 || k > seed % 11 ? 0 : x % 1000;
		}
		for (unsigned o = 0; o < 11; o++)
			assert_int_equal(lab_extfrag_index(set, 11, o, 1000), linux_extfrag(set, o));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_small_exact_and_merge),
		cmocka_unit_test(test_unusable_index),
		cmocka_unit_test(test_extfrag_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_numaperf.c: the numaperf self-test's pure parts
 * (kernel/selftest/numaperf_calc.c): the chase's permutation is one cycle
 * through every slot, random and reproducible, through a slot function as
 * the kernel's blocks are; the ratios and bandwidths round as documented.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/selftest/numaperf_calc.h"

/* Slots spread over blocks of @per elements each, as the kernel's lines
 * are over 2 MiB blocks, with a guard word between them. */
struct blocks {
	uint64_t *mem;
	uint64_t per;
};

static uint64_t *slot(void *arg, uint64_t i)
{
	struct blocks *b = arg;

	return &b->mem[(i / b->per) * (b->per + 1) + i % b->per];
}

#define GUARD 0xdeadbeefcafef00dULL

static struct blocks make(uint64_t n, uint64_t per)
{
	struct blocks b = { .per = per };
	uint64_t words = (n / per + 1) * (per + 1);

	b.mem = malloc(words * sizeof(uint64_t));
	assert_non_null(b.mem);
	for (uint64_t w = 0; w < words; w++)
		b.mem[w] = GUARD;
	return b;
}

/* Follow the chain from 0: it must come back to 0 after exactly n steps,
 * visiting each slot once, with the guards untouched. */
static void check_one_cycle(uint64_t n, uint64_t per, uint64_t seed)
{
	struct blocks b = make(n, per);
	uint8_t *seen = calloc(n ? n : 1, 1);
	uint64_t p = 0, steps = 0;

	numaperf_cycle(n, seed, slot, &b);
	if (n == 0) {
		assert_int_equal(b.mem[0], GUARD);
		goto out;
	}
	do {
		assert_true(p < n);
		assert_int_equal(seen[p], 0);
		seen[p] = 1;
		p = *slot(&b, p);
		steps++;
	} while (p != 0 && steps <= n);
	assert_int_equal(p, 0);
	assert_int_equal(steps, n);
	for (uint64_t blk = 0; blk <= n / per; blk++)
		assert_int_equal(b.mem[blk * (per + 1) + per], GUARD);
out:
	free(seen);
	free(b.mem);
}

static void test_one_cycle_through_every_slot(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 32768, 32769, 100003 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		check_one_cycle(sizes[k], 32768, 1);
		check_one_cycle(sizes[k], 5, 0x6e756d61ULL + k);
	}
}

/* No slot points at itself or at its neighbour for most of the chain: a
 * sequential or strided order would let the prefetchers hide memory. */
static void test_the_order_is_random_and_reproducible(void **state)
{
	enum { N = 4096 };
	struct blocks a = make(N, N), b = make(N, N), c = make(N, N);
	uint64_t next = 0, differ = 0, same = 0;

	(void)state;
	numaperf_cycle(N, 42, slot, &a);
	numaperf_cycle(N, 42, slot, &b);
	numaperf_cycle(N, 43, slot, &c);
	for (uint64_t i = 0; i < N; i++) {
		assert_int_not_equal(*slot(&a, i), i);                 /* no fixed point */
		next += *slot(&a, i) == i + 1;
		same += *slot(&a, i) == *slot(&b, i);
		differ += *slot(&a, i) != *slot(&c, i);
	}
	assert_int_equal(same, N);                 /* the same seed, the same chain */
	assert_true(differ > N - N / 16);          /* another seed, another chain */
	assert_true(next < 16);                    /* about 1 expected */
	free(a.mem);
	free(b.mem);
	free(c.mem);
}

static void test_ratio_milli(void **state)
{
	(void)state;
	assert_int_equal(numaperf_ratio_milli(123456, 123456), 1000);  /* local: exactly 1 */
	assert_int_equal(numaperf_ratio_milli(1, 1), 1000);
	assert_int_equal(numaperf_ratio_milli(3, 2), 1500);
	assert_int_equal(numaperf_ratio_milli(2, 3), 667);             /* 666.67 rounds up */
	assert_int_equal(numaperf_ratio_milli(1, 3), 333);             /* 333.33 rounds down */
	assert_int_equal(numaperf_ratio_milli(1, 2000), 1);            /* 0.5 rounds up */
	assert_int_equal(numaperf_ratio_milli(1, 2001), 0);
	assert_int_equal(numaperf_ratio_milli(0, 5), 0);
	assert_int_equal(numaperf_ratio_milli(5, 0), 0);               /* no local figure */
	/* Picosecond latencies of slow memory: no overflow. */
	assert_int_equal(numaperf_ratio_milli(10000000000ULL, 5000000000ULL), 2000);
}

static void test_mbps(void **state)
{
	(void)state;
	assert_int_equal(numaperf_mbps(64ULL << 20, 6710886), 10000);  /* 64 MiB in 6.7 ms */
	assert_int_equal(numaperf_mbps(1000000, 1000000), 1000);       /* 1 byte/ns = 1000 MB/s */
	assert_int_equal(numaperf_mbps(4194304, 10000000), 419);       /* rounded down */
	assert_int_equal(numaperf_mbps(4096, 0), 0);
	assert_int_equal(numaperf_mbps(0, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cycle_through_every_slot),
		cmocka_unit_test(test_the_order_is_random_and_reproducible),
		cmocka_unit_test(test_ratio_milli),
		cmocka_unit_test(test_mbps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

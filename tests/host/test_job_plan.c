/*
 * test_job_plan.c: the job runner's chunking covers every unit exactly once,
 * keeps inner boundaries aligned, and balances as documented.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/jobs/plan.h"
#include "tests/host/host_support.h"

/* Check a plan against a counting array of [start, end). */
static void check_cover(uint64_t start, uint64_t size, uint64_t align, uint64_t min_chunk,
			uint32_t avail, uint32_t max_threads)
{
	struct job_plan p;
	uint8_t *seen = calloc(size, 1);

	assert_true(job_plan_make(&p, start, size, align, min_chunk, avail, max_threads));
	assert_int_equal(p.start, start);
	assert_int_equal(p.end, start + size);
	assert_int_equal(p.chunk_units % align, 0);
	assert_true(p.chunk_units >= (min_chunk ? min_chunk : 1));
	assert_true(p.threads >= 1 && p.threads <= avail);
	if (max_threads)
		assert_true(p.threads <= max_threads);
	assert_true(p.threads <= p.nr_chunks);
	for (uint32_t i = 0; i < p.nr_chunks; i++) {
		uint64_t s, e;
		job_plan_chunk(&p, i, &s, &e);
		assert_true(s < e);
		assert_true(s >= start && e <= start + size);
		if (i > 0)
			assert_int_equal(s % align, 0);          /* inner boundary aligned */
		if (i + 1 < p.nr_chunks)
			assert_int_equal(e % align, 0);
		for (uint64_t u = s; u < e; u++)
			seen[u - start]++;
	}
	for (uint64_t u = 0; u < size; u++)
		assert_int_equal(seen[u], 1);
	free(seen);
}

static void test_exact_cover_many_shapes(void **state)
{
	static const uint64_t starts[] = { 0, 1, 7, 512, 1000, 4096 + 3 };
	static const uint64_t sizes[] = { 1, 2, 7, 511, 512, 513, 4097, 100003 };
	static const uint64_t aligns[] = { 1, 2, 8, 512 };
	static const uint64_t mins[] = { 0, 1, 64, 1000 };
	static const uint32_t threads[] = { 1, 2, 3, 16 };

	for (size_t a = 0; a < sizeof(starts) / 8; a++)
		for (size_t b = 0; b < sizeof(sizes) / 8; b++)
			for (size_t c = 0; c < sizeof(aligns) / 8; c++)
				for (size_t d = 0; d < sizeof(mins) / 8; d++)
					for (size_t t = 0; t < 4; t++)
						check_cover(starts[a], sizes[b], aligns[c], mins[d],
							    threads[t], t == 3 ? 5 : 0);
}

static void test_four_chunks_per_thread(void **state)
{
	struct job_plan p;

	assert_true(job_plan_make(&p, 0, 1 << 20, 1, 1, 4, 0));
	assert_int_equal(p.threads, 4);
	assert_int_equal(p.nr_chunks, 16);
	assert_int_equal(p.chunk_units, 1 << 16);
}

static void test_min_chunk_limits_threads(void **state)
{
	struct job_plan p;

	/* 1000 units, at least 400 a chunk: three pieces at most, so 3 threads. */
	assert_true(job_plan_make(&p, 0, 1000, 1, 400, 16, 0));
	assert_int_equal(p.chunk_units, 400);
	assert_int_equal(p.nr_chunks, 3);
	assert_int_equal(p.threads, 3);
}

static void test_aligned_grid_starts_below_start(void **state)
{
	struct job_plan p;
	uint64_t s, e;

	/* Pages [1000, 5000) in 512-page blocks: the grid starts at 512. */
	assert_true(job_plan_make(&p, 1000, 4000, 512, 512, 2, 0));
	assert_int_equal(p.grid_start, 512);
	assert_int_equal(p.chunk_units, 512);
	job_plan_chunk(&p, 0, &s, &e);
	assert_int_equal(s, 1000);
	assert_int_equal(e, 1024);
	job_plan_chunk(&p, p.nr_chunks - 1, &s, &e);
	assert_int_equal(s, 4608);
	assert_int_equal(e, 5000);
	assert_int_equal(p.nr_chunks, 9);
}

static void test_empty_and_overflow_refused(void **state)
{
	struct job_plan p;

	assert_false(job_plan_make(&p, 0, 0, 1, 1, 1, 0));
	assert_false(job_plan_make(&p, UINT64_MAX - 5, 10, 1, 1, 1, 0));
	assert_true(job_plan_make(&p, UINT64_MAX - 10, 10, 1, 1, 2, 0));
	assert_int_equal(p.end, UINT64_MAX);
}

static void test_huge_range_stays_in_32_bit_chunks(void **state)
{
	struct job_plan p;
	uint64_t s, e;

	assert_true(job_plan_make(&p, 0, 1ULL << 60, 1, 1, 1, 0));
	assert_int_equal(p.nr_chunks, 4);
	assert_true(job_plan_make(&p, 0, 1ULL << 40, 1, 1, 64, 0));
	assert_int_equal(p.nr_chunks, 256);
	job_plan_chunk(&p, 255, &s, &e);
	assert_int_equal(e, 1ULL << 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_cover_many_shapes),
		cmocka_unit_test(test_four_chunks_per_thread),
		cmocka_unit_test(test_min_chunk_limits_threads),
		cmocka_unit_test(test_aligned_grid_starts_below_start),
		cmocka_unit_test(test_empty_and_overflow_refused),
		cmocka_unit_test(test_huge_range_stays_in_32_bit_chunks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

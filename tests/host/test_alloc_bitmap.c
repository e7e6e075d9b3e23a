/*
 * test_alloc_bitmap.c: what makes the bitmap allocator itself (the seam's
 * contract is test_alloc.c's): next fit (each search starts where the last
 * allocation ended and wraps once), natural alignment across a node whose
 * first pfn is not aligned, and bad frees caught.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mm/alloc/alloc.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

/* One node, [0x1003, 0x1803): its first pfn is not aligned to anything. */
#define BASE 0x1003ULL
#define PAGES 0x800ULL

static struct memmap mm;
static memmap_nid_t *table;
static struct page *array;
static void *bitmap_mem[2];   /* the allocator's state and the node's bitmap */
static unsigned nr_bitmap_mem;

static uint64_t reserve(void *ctx, uint64_t bytes, uint32_t node)
{
	void *p = malloc(bytes);

	assert_true(nr_bitmap_mem < 2);
	memset(p, 0xff, bytes);
	bitmap_mem[nr_bitmap_mem++] = p;
	return (uint64_t)(uintptr_t)p;
}

static int setup(void **state)
{
	struct memmap_node n;

	table = malloc(memmap_nid_table_bytes(BASE + PAGES));
	array = aligned_alloc(64, memmap_desc_bytes(PAGES));
	memset(array, 0xa5, memmap_desc_bytes(PAGES));
	memmap_init(&mm, table, BASE + PAGES);
	memmap_node_init(&n, 0, BASE, PAGES, array);
	memmap_add_node(&mm, &n);
	memmap_set_nid(&mm, BASE, BASE + PAGES, 0);
	struct alloc_setup s = { .mm = &mm, .nr_nodes = 1, .reserve = reserve };
	assert_true(alloc_init(alloc_find("bitmap"), &s, NULL));
	memmap_init_range(&mm.nodes[0], BASE, BASE + PAGES, PAGE_RESERVED, PAGE_ZONE_DMA32);
	alloc_free_range(0, BASE, BASE + PAGES);
	assert_int_equal(alloc_free_count(), PAGES);
	return 0;
}

static int teardown(void **state)
{
	assert_true(alloc_check());
	free(table);
	free(array);
	while (nr_bitmap_mem)
		free(bitmap_mem[--nr_bitmap_mem]);
	return 0;
}

static void test_next_fit(void **state)
{
	uint64_t a = alloc_pages(0, 0, 0), b = alloc_pages(0, 0, 0);

	assert_int_equal(a, BASE);
	assert_int_equal(b, BASE + 1);
	/* A freed page is not reused until the search wraps around. */
	alloc_free(a, 0);
	assert_int_equal(alloc_pages(0, 0, 0), BASE + 2);
	/* Order 3 from the cursor (BASE + 3): the next multiple of 8. */
	uint64_t c = alloc_pages(0, 3, 0);
	assert_int_equal(c, (BASE + 3 + 7) & ~7ULL);
	/* Take everything after the cursor, one page at a time; the next
	 * search wraps and finds the pages skipped on the way. */
	uint64_t got = 0;
	while (alloc_pages(0, 0, 0) != ALLOC_NO_PFN)
		got++;
	assert_int_equal(got, PAGES - 2 - 8);
	assert_int_equal(alloc_free_count(), 0);
	alloc_free(c, 3);
	assert_int_equal(alloc_pages(0, 3, 0), c);
}

static void test_alignment(void **state)
{
	/* The first 4 MiB-aligned pfn of the node is 0x1400. */
	assert_int_equal(alloc_pages(0, 10, 0), 0x1400);
	assert_int_equal(alloc_pages(0, 10, 0), ALLOC_NO_PFN);   /* only one fits */
	uint64_t p = alloc_pages(0, 9, 0);
	assert_int_equal(p, 0x1200);   /* wrapped: the aligned one before the cursor */
	alloc_free(p, 9);
	alloc_free(0x1400, 10);
	assert_int_equal(alloc_free_count(), PAGES);
}

/* Free @pfn at @order in a child; true if it died of a failed ASSERT. */
static bool free_dies(uint64_t pfn, unsigned order)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		alloc_free(pfn, order);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void test_bad_frees_caught(void **state)
{
	uint64_t p = alloc_pages(0, 2, 0);

	assert_true(free_dies(p, 1));      /* not the order it was given with */
	assert_false(free_dies(p, 2));     /* right: fine (in the child) */
	alloc_free(p, 2);
	assert_true(free_dies(p, 2));      /* free already */
	assert_true(free_dies(BASE + PAGES, 0));   /* not on the node */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_next_fit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_frees_caught, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_hugetlb.c: huge page request parsing and per-node planning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mm/hugetlb.h"
#include "tests/host/host_support.h"

static char err[160];

/* The configuration of a command line without huge page keys. */
static struct hugetlb_config fresh_config(void)
{
	return (struct hugetlb_config){ .current = -1, .default_size = HUGETLB_2M };
}

static void test_sizes(void **state)
{
	enum hugetlb_size s;

	assert_true(hugetlb_parse_size("2M", &s, err, sizeof(err)));
	assert_int_equal(s, HUGETLB_2M);
	assert_true(hugetlb_parse_size("2048K", &s, err, sizeof(err)));
	assert_int_equal(s, HUGETLB_2M);
	assert_true(hugetlb_parse_size("1G", &s, err, sizeof(err)));
	assert_int_equal(s, HUGETLB_1G);
	assert_true(hugetlb_parse_size("1073741824", &s, err, sizeof(err)));
	assert_int_equal(s, HUGETLB_1G);
	assert_false(hugetlb_parse_size("4M", &s, err, sizeof(err)));
	assert_string_equal(err, "a huge page size: 2M or 1G");
	assert_false(hugetlb_parse_size("", &s, err, sizeof(err)));
	assert_false(hugetlb_parse_size(NULL, &s, err, sizeof(err)));
	assert_int_equal(hugetlb_size_bytes(HUGETLB_1G), 1ULL << 30);
	assert_string_equal(hugetlb_size_name(HUGETLB_2M), "2.00 MiB");
}

static void test_sequence_of_words(void **state)
{
	struct hugetlb_config c;

	c = fresh_config();
	/* hugepages= before any hugepagesz= counts for the default size. */
	assert_true(hugetlb_parse_pages(&c, "8", err, sizeof(err)));
	assert_true(c.req[HUGETLB_2M].set && c.req[HUGETLB_2M].total == 8);
	assert_true(hugetlb_parse_pagesz(&c, "1G", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "0:2,1:3", err, sizeof(err)));
	assert_true(c.req[HUGETLB_1G].per_node);
	assert_int_equal(c.req[HUGETLB_1G].node_count[0], 2);
	assert_int_equal(c.req[HUGETLB_1G].node_count[1], 3);
	assert_int_equal(c.req[HUGETLB_2M].total, 8);     /* untouched */
	/* The last request for a size wins. */
	assert_true(hugetlb_parse_pages(&c, "5", err, sizeof(err)));
	assert_false(c.req[HUGETLB_1G].per_node);
	assert_int_equal(c.req[HUGETLB_1G].total, 5);

	c = fresh_config();
	assert_true(hugetlb_parse_default(&c, "1G", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "3", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_1G].total, 3);
	assert_false(c.req[HUGETLB_2M].set);
}

static void test_invalid_pagesz_makes_next_pages_ignored(void **state)
{
	struct hugetlb_config c;

	/* hugepagesz=1G hugepages=1 hugepagesz=3G hugepages=4: four pages of
	 * 1 GiB would be the previous size's, not the one asked for. */
	c = fresh_config();
	assert_true(hugetlb_parse_pagesz(&c, "1G", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "1", err, sizeof(err)));
	assert_false(hugetlb_parse_pagesz(&c, "3G", err, sizeof(err)));
	assert_false(hugetlb_parse_pages(&c, "4", err, sizeof(err)));
	assert_string_equal(err, "a valid hugepagesz= before it; it follows an invalid one, so it is ignored");
	assert_int_equal(c.req[HUGETLB_1G].total, 1);
	assert_false(c.req[HUGETLB_2M].set);

	/* hugepagesz=3G hugepages=1: not one page of the default size. */
	c = fresh_config();
	assert_false(hugetlb_parse_pagesz(&c, "3G", err, sizeof(err)));
	assert_false(hugetlb_parse_pages(&c, "1", err, sizeof(err)));
	assert_false(c.req[HUGETLB_2M].set);
	assert_false(c.req[HUGETLB_1G].set);

	/* A valid hugepagesz= afterwards opens the way again. */
	assert_true(hugetlb_parse_pagesz(&c, "2M", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "6", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_2M].total, 6);
}

static void test_default_pagesz_in_any_position(void **state)
{
	struct hugetlb_config c;

	/* hugepages=2 default_hugepagesz=1G: two 1 GiB pages, as in Linux. */
	c = fresh_config();
	assert_true(hugetlb_parse_pages(&c, "2", err, sizeof(err)));
	assert_true(hugetlb_parse_default(&c, "1G", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_1G].total, 2);
	assert_false(c.req[HUGETLB_2M].set);

	/* ... also with other sizes' pairs between them. */
	c = fresh_config();
	assert_true(hugetlb_parse_pages(&c, "3", err, sizeof(err)));
	assert_true(hugetlb_parse_pagesz(&c, "2M", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "7", err, sizeof(err)));
	assert_true(hugetlb_parse_default(&c, "1G", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_1G].total, 3);
	assert_int_equal(c.req[HUGETLB_2M].total, 7);

	/* The default-size count is not replaced by a pair for that size. */
	c = fresh_config();
	assert_true(hugetlb_parse_pages(&c, "3", err, sizeof(err)));
	assert_true(hugetlb_parse_pagesz(&c, "2M", err, sizeof(err)));
	assert_true(hugetlb_parse_pages(&c, "9", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_2M].total, 3);
}

static void test_bad_counts(void **state)
{
	struct hugetlb_config c;

	c = fresh_config();
	assert_false(hugetlb_parse_pages(&c, "", err, sizeof(err)));
	assert_false(hugetlb_parse_pages(&c, "x", err, sizeof(err)));
	assert_false(hugetlb_parse_pages(&c, "0:2,1", err, sizeof(err)));
	assert_string_equal(err, "node:count pairs; '1' has no ':'");
	assert_false(hugetlb_parse_pages(&c, "0:a", err, sizeof(err)));
	assert_string_equal(err, "node:count pairs of numbers; '0:a' is not");
	assert_false(hugetlb_parse_pages(&c, "256:1", err, sizeof(err)));
	assert_string_equal(err, "node numbers below 256; node 256 is not");
	assert_false(hugetlb_parse_pages(&c, "99999999999", err, sizeof(err)));
	assert_false(c.req[HUGETLB_2M].set);                 /* nothing half applied */
}

static void test_plan_spread_round_robin(void **state)
{
	struct hugetlb_request r = { .set = true, .total = 7 };
	bool mem[4] = { true, false, true, true };
	uint64_t out[HUGETLB_MAX_NODES];
	int bad;

	/* 7 over the three nodes with memory: 3, 2, 2, lowest first. */
	assert_int_equal(hugetlb_plan(&r, 4, mem, out, &bad), 7);
	assert_int_equal(bad, -1);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 2);
	assert_int_equal(out[3], 2);

	bool none[2] = { false, false };
	assert_int_equal(hugetlb_plan(&r, 2, none, out, &bad), 0);
	r.set = false;
	assert_int_equal(hugetlb_plan(&r, 4, mem, out, &bad), 0);
}

static void test_plan_per_node_and_unknown_node(void **state)
{
	struct hugetlb_request r = { .set = true, .per_node = true };
	bool mem[2] = { true, false };
	uint64_t out[HUGETLB_MAX_NODES];
	int bad;

	r.node_count[0] = 2;
	r.node_count[1] = 4;       /* no memory: planned, the kernel reports the failure */
	r.node_count[5] = 1;       /* no such node */
	r.node_count[9] = 1;
	assert_int_equal(hugetlb_plan(&r, 2, mem, out, &bad), 6);
	assert_int_equal(bad, 5);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 4);
	assert_int_equal(out[5], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_sequence_of_words),
		cmocka_unit_test(test_invalid_pagesz_makes_next_pages_ignored),
		cmocka_unit_test(test_default_pagesz_in_any_position),
		cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_plan_spread_round_robin),
		cmocka_unit_test(test_plan_per_node_and_unknown_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

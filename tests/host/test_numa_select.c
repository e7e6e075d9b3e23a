/*
 * test_numa_select.c: the balanced choice of CPUs per node (mm/numa_select.c):
 * numa_balanced_quota()'s shares and numa_select_balanced()'s choice over
 * CPUs in MADT order. The builder's use of it beyond NUMA_MAX_CPUS is
 * test_numa.c's (test_too_many_cpus_balanced).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mm/numa.h"

/* The quota itself: equal shares, a small group keeps all it has, the
 * remainder from the boot CPU's group on, fewer places than groups. */
static void test_balanced_quota(void **state)
{
	uint32_t q[4];

	(void)state;
	/* 1024 CPUs in 4 nodes, a limit of 256: 64 each. */
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 256, 256, 256, 256 }, 4, 256, 0, q), 256);
	assert_int_equal(q[0], 64); assert_int_equal(q[1], 64);
	assert_int_equal(q[2], 64); assert_int_equal(q[3], 64);
	/* Small nodes keep every CPU; the big ones share the rest evenly. */
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 10, 500, 500, 14 }, 4, 256, 0, q), 256);
	assert_int_equal(q[0], 10); assert_int_equal(q[1], 116);
	assert_int_equal(q[2], 116); assert_int_equal(q[3], 14);
	/* 10 over 3 groups: the extra one goes to the first group (2). */
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 8, 8, 8 }, 3, 10, 2, q), 10);
	assert_int_equal(q[0], 3); assert_int_equal(q[1], 3); assert_int_equal(q[2], 4);
	/* Fewer places than groups: the boot CPU's group first, then on. */
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 4, 4, 4, 4 }, 4, 2, 3, q), 2);
	assert_int_equal(q[3], 1); assert_int_equal(q[0], 1);
	assert_int_equal(q[1], 0); assert_int_equal(q[2], 0);
	/* Enough for all, empty groups, a limit of 0 (acts as 1). */
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 3, 0, 5 }, 3, 100, 0, q), 8);
	assert_int_equal(q[0], 3); assert_int_equal(q[1], 0); assert_int_equal(q[2], 5);
	assert_int_equal(numa_balanced_quota((uint32_t[]){ 3, 5 }, 2, 0, 1, q), 1);
	assert_int_equal(q[0], 0); assert_int_equal(q[1], 1);
}

/* The choice over CPUs in MADT order: 1024 CPUs in 4 nodes interleaved and
 * in blocks, a limit of 256: 64 of each node, the first of each, the boot
 * CPU always among them. */
static void test_select_balanced(void **state)
{
	static uint32_t group[1024];
	static bool keep[1024];
	uint32_t q[4], per[4] = { 0 };

	(void)state;
	for (uint32_t i = 0; i < 1024; i++)
		group[i] = i / 256;
	assert_int_equal(numa_select_balanced(group, 1024, 4, 256, keep, q), 256);
	for (uint32_t i = 0; i < 1024; i++) {
		per[group[i]] += keep[i];
		assert_int_equal(keep[i], i % 256 < 64);
	}
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(per[n], 64);
	/* The boot CPU on node 2, every other CPU round robin. */
	for (uint32_t i = 0; i < 1024; i++)
		group[i] = (i + 2) % 4;
	assert_int_equal(numa_select_balanced(group, 1024, 4, 3, keep, q), 3);
	assert_true(keep[0] && keep[1] && keep[2] && !keep[3]);
	assert_int_equal(q[2], 1); assert_int_equal(q[3], 1); assert_int_equal(q[0], 1);
	assert_int_equal(q[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced_quota),
		cmocka_unit_test(test_select_balanced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_physmem.c: host unit tests for mm/physmem.c, the early allocator.
 *
 * Each test starts from an empty struct physmem and an empty log. Addresses
 * and sizes are exact; a randomized test at the end replays 10,000 operations
 * from a fixed seed against a page bitmap model and compares everything the
 * allocator reports with what the model predicts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/log.h"
#include "mm/physmem.h"
#include "tests/host/host_support.h"

#define K4 0x1000ULL
#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

static struct physmem pm;

static int setup(void **state)
{
	(void)state;
	physmem_init(&pm);
	host_log_reset();
	return 0;
}

/* free + reserved == total on every node and over all nodes; invariants hold. */
static void assert_consistent(const struct physmem *p)
{
	uint64_t total = 0, reserved = 0, free_b = 0;

	assert_true(physmem_check(p));
	for (uint32_t n = 0; n < p->nr_nodes; n++) {
		uint64_t t = physmem_total_bytes(p, n);
		uint64_t r = physmem_reserved_bytes(p, n);
		uint64_t f = physmem_free_bytes(p, n);
		assert_int_equal(f + r, t);
		total += t;
		reserved += r;
		free_b += f;
	}
	assert_int_equal(physmem_total_bytes(p, PHYSMEM_ANY_NODE), total);
	assert_int_equal(physmem_reserved_bytes(p, PHYSMEM_ANY_NODE), reserved);
	assert_int_equal(physmem_free_bytes(p, PHYSMEM_ANY_NODE), free_b);
}

static void assert_mem(uint32_t i, uint64_t start, uint64_t end, uint32_t node)
{
	assert_true(i < pm.nr_mem);
	assert_int_equal(pm.mem[i].start, start);
	assert_int_equal(pm.mem[i].end, end);
	assert_int_equal(pm.mem[i].node, node);
}

static void assert_resv(uint32_t i, uint64_t start, uint64_t end, uint32_t node,
			enum physmem_resv_type type)
{
	assert_true(i < pm.nr_resv);
	assert_int_equal(pm.resv[i].start, start);
	assert_int_equal(pm.resv[i].end, end);
	assert_int_equal(pm.resv[i].node, node);
	assert_int_equal(pm.resv[i].type, type);
}

/* Free ranges collected by physmem_for_each_free(). */
struct franges {
	uint32_t n;
	uint32_t stop_after;   /* 0: never stop */
	uint64_t start[1100];
	uint64_t end[1100];
	uint32_t node[1100];
};

static bool collect(void *ctx, uint64_t start, uint64_t end, uint32_t node)
{
	struct franges *f = ctx;

	assert_true(f->n < 1100);
	f->start[f->n] = start;
	f->end[f->n] = end;
	f->node[f->n] = node;
	f->n++;
	return f->stop_after == 0 || f->n < f->stop_after;
}

/* ---- init and add ------------------------------------------------------ */

static void test_init_empty(void **state)
{
	(void)state;
	assert_int_equal(pm.nr_mem, 0);
	assert_int_equal(pm.nr_resv, 0);
	assert_int_equal(pm.nr_nodes, 1);
	assert_int_equal(pm.failed_allocs, 0);
	assert_int_equal(pm.distance[0][0], 10);
	assert_int_equal(pm.distance[0][1], 20);
	assert_int_equal(pm.distance[63][63], 10);
	assert_int_equal(pm.distance[63][0], 20);
	assert_int_equal(physmem_total_bytes(&pm, PHYSMEM_ANY_NODE), 0);
	assert_int_equal(physmem_free_bytes(&pm, 0), 0);
	assert_int_equal(physmem_node_of(&pm, 0), PHYSMEM_NO_NODE);
	assert_int_equal(physmem_alloc(&pm, K4, K4, PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_KERNEL), 0);
	assert_int_equal(pm.failed_allocs, 1);
	assert_true(host_log_contains("physmem: cannot allocate 4096 bytes (align 0x1000) on any node for 'kernel'"));
	assert_consistent(&pm);
}

/* Retirement: what stays reserved is counted in pages, physmem says it is
 * retired, and the report lists every type's bytes. */
static void test_retire_and_report(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(9)));
	assert_true(physmem_reserve(&pm, MiB(1), MiB(2), PHYSMEM_RESV_KERNEL));
	assert_true(physmem_alloc(&pm, 3 * K4, K4, 0, false, PHYSMEM_RESV_MEMMAP) != 0);
	assert_false(pm.retired);
	assert_int_equal(physmem_retire(&pm), (MiB(1) + 3 * K4) / K4);
	assert_true(pm.retired);
	host_log_reset();
	physmem_report_retired(&pm);
	assert_true(host_log_contains("\"event\":\"physmem_retire\",\"reserved_bytes\":1060864,"
				      "\"ranges\":2,\"types\":{"));
	assert_true(host_log_contains("\"kernel\":1048576"));
	assert_true(host_log_contains("\"memmap\":12288"));
	assert_true(host_log_contains("physmem: retired; 1036 KiB in 2 ranges stay reserved"));
}

/* A placement with a fallback: its failure is no warning and no count. */
static void test_try_alloc_is_quiet(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(3)));
	host_log_reset();
	/* 2 MiB aligned 2 MiB: [1M, 3M) holds no aligned 2 MiB block. */
	assert_int_equal(physmem_try_alloc(&pm, MiB(2), MiB(2), 0, true, PHYSMEM_RESV_MEMMAP), 0);
	assert_int_equal(pm.failed_allocs, 0);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	/* The fallback succeeds, and says nothing either. */
	assert_int_equal(physmem_alloc(&pm, MiB(2), K4, 0, false, PHYSMEM_RESV_MEMMAP), MiB(1));
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	/* A window is named only when there is one. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, MiB(1), MiB(2), 0, true, PHYSMEM_RESV_KERNEL), 0);
	assert_true(host_log_contains("physmem: cannot allocate 4096 bytes (align 0x1000) in [mem 0x0000000000100000-0x00000000001fffff] on node 0 (exact) for 'kernel'"));
	assert_consistent(&pm);
}

static void test_add_sorts_and_merges(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(2), MiB(4)));
	assert_true(physmem_add(&pm, K4, MiB(1)));
	assert_int_equal(pm.nr_mem, 2);
	assert_mem(0, K4, MiB(1), 0);
	assert_mem(1, MiB(2), MiB(4), 0);

	/* Filling the hole joins all three into one range. */
	assert_true(physmem_add(&pm, MiB(1), MiB(2)));
	assert_int_equal(pm.nr_mem, 1);
	assert_mem(0, K4, MiB(4), 0);

	assert_true(physmem_add(&pm, MiB(8), MiB(9)));
	assert_int_equal(pm.nr_mem, 2);
	assert_mem(1, MiB(8), MiB(9), 0);
	/* Touching on the left only. */
	assert_true(physmem_add(&pm, MiB(7), MiB(8)));
	assert_int_equal(pm.nr_mem, 2);
	assert_mem(1, MiB(7), MiB(9), 0);

	assert_int_equal(physmem_total_bytes(&pm, PHYSMEM_ANY_NODE), MiB(6) - K4);
	assert_int_equal(physmem_total_bytes(&pm, 0), MiB(6) - K4);
	assert_int_equal(physmem_free_bytes(&pm, 0), MiB(6) - K4);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), 0);
	assert_int_equal(physmem_node_of(&pm, 0), PHYSMEM_NO_NODE);
	assert_int_equal(physmem_node_of(&pm, K4 - 1), PHYSMEM_NO_NODE);
	assert_int_equal(physmem_node_of(&pm, K4), 0);
	assert_int_equal(physmem_node_of(&pm, MiB(4) - 1), 0);
	assert_int_equal(physmem_node_of(&pm, MiB(4)), PHYSMEM_NO_NODE);
	assert_int_equal(physmem_node_of(&pm, MiB(7)), 0);
	assert_int_equal(physmem_node_of(&pm, MiB(9)), PHYSMEM_NO_NODE);
	assert_int_equal(host_log_count(LOG_ERR), 0);
	assert_consistent(&pm);
}

static void test_add_overlap_is_ignored(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(4)));
	assert_false(physmem_add(&pm, MiB(3), MiB(5)));
	assert_true(host_log_contains("physmem: memory [mem 0x0000000000300000-0x00000000004fffff] overlaps [mem 0x0000000000100000-0x00000000003fffff] node 0; ignored"));
	assert_false(physmem_add(&pm, 0, MiB(1) + K4));
	assert_false(physmem_add(&pm, MiB(1), MiB(4)));
	assert_false(physmem_add(&pm, MiB(2), MiB(2) + K4));
	assert_int_equal(host_log_count(LOG_ERR), 4);
	assert_int_equal(pm.nr_mem, 1);
	assert_mem(0, MiB(1), MiB(4), 0);
	/* Touching is not overlapping. */
	assert_true(physmem_add(&pm, MiB(4), MiB(5)));
	assert_mem(0, MiB(1), MiB(5), 0);
	assert_consistent(&pm);
}

static void test_add_table_full(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < PHYSMEM_MAX_MEM; i++)
		assert_true(physmem_add(&pm, i * MiB(2), i * MiB(2) + MiB(1)));
	assert_int_equal(pm.nr_mem, 256);
	assert_int_equal(host_log_count(LOG_ERR), 0);

	assert_false(physmem_add(&pm, MiB(600), MiB(601)));
	assert_true(host_log_contains("physmem: more than 256 memory ranges; [mem 0x0000000025800000-0x00000000258fffff] dropped"));
	assert_int_equal(pm.nr_mem, 256);
	assert_int_equal(physmem_total_bytes(&pm, 0), MiB(256));

	/* Touching an existing range needs no slot. */
	assert_true(physmem_add(&pm, MiB(511), MiB(511) + K4));
	assert_int_equal(pm.nr_mem, 256);
	assert_mem(255, MiB(510), MiB(511) + K4, 0);
	/* Closing a hole frees one. */
	assert_true(physmem_add(&pm, MiB(1), MiB(2)));
	assert_int_equal(pm.nr_mem, 255);
	assert_mem(0, 0, MiB(3), 0);
	assert_mem(1, MiB(4), MiB(5), 0);
	assert_int_equal(physmem_total_bytes(&pm, 0), MiB(257) + K4);
	assert_consistent(&pm);
}

/* ---- nodes -------------------------------------------------------------- */

static void test_set_node_splits_ranges(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, GiB(4)));
	assert_true(physmem_reserve(&pm, GiB(1) - 2 * K4, GiB(1) + 2 * K4, PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 1);

	/*
	 *  0        1G              3G       4G
	 *  |  node 0 |    node 1     | node 0 |
	 *          [boot]  <- split at 1G, one part per node
	 */
	assert_true(physmem_set_node(&pm, GiB(1), GiB(3), 1));
	assert_int_equal(pm.nr_nodes, 2);
	assert_int_equal(pm.nr_mem, 3);
	assert_mem(0, 0, GiB(1), 0);
	assert_mem(1, GiB(1), GiB(3), 1);
	assert_mem(2, GiB(3), GiB(4), 0);
	assert_int_equal(pm.nr_resv, 2);
	assert_resv(0, GiB(1) - 2 * K4, GiB(1), 0, PHYSMEM_RESV_KERNEL);
	assert_resv(1, GiB(1), GiB(1) + 2 * K4, 1, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), 2 * K4);
	assert_int_equal(physmem_reserved_bytes(&pm, 1), 2 * K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), 4 * K4);
	assert_int_equal(physmem_total_bytes(&pm, 0), GiB(2));
	assert_int_equal(physmem_total_bytes(&pm, 1), GiB(2));
	assert_int_equal(physmem_free_bytes(&pm, 0), GiB(2) - 2 * K4);
	assert_int_equal(physmem_free_bytes(&pm, 1), GiB(2) - 2 * K4);
	assert_int_equal(physmem_node_of(&pm, GiB(1) - 1), 0);
	assert_int_equal(physmem_node_of(&pm, GiB(1)), 1);
	assert_int_equal(physmem_node_of(&pm, GiB(3) - 1), 1);
	assert_int_equal(physmem_node_of(&pm, GiB(3)), 0);
	assert_consistent(&pm);

	/* Same node again: nothing to split, the neighbours merge. */
	assert_true(physmem_set_node(&pm, GiB(3), GiB(4), 1));
	assert_int_equal(pm.nr_mem, 2);
	assert_mem(0, 0, GiB(1), 0);
	assert_mem(1, GiB(1), GiB(4), 1);

	/* Everything on node 1: one range, and the two halves of 'kernel' merge. */
	assert_true(physmem_set_node(&pm, 0, GiB(1), 1));
	assert_int_equal(pm.nr_mem, 1);
	assert_mem(0, 0, GiB(4), 1);
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, GiB(1) - 2 * K4, GiB(1) + 2 * K4, 1, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_total_bytes(&pm, 0), 0);
	assert_int_equal(physmem_total_bytes(&pm, 1), GiB(4));
	assert_int_equal(pm.nr_nodes, 2);
	assert_consistent(&pm);
}

static void test_set_node_over_holes(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(1)));
	assert_true(physmem_add(&pm, MiB(2), MiB(3)));
	assert_true(physmem_add(&pm, MiB(5), MiB(6)));
	assert_true(physmem_reserve(&pm, KiB(256), MiB(6), PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 3);

	assert_true(physmem_set_node(&pm, KiB(512), MiB(5), 2));
	assert_int_equal(pm.nr_nodes, 3);
	assert_int_equal(pm.nr_mem, 4);
	assert_mem(0, 0, KiB(512), 0);
	assert_mem(1, KiB(512), MiB(1), 2);
	assert_mem(2, MiB(2), MiB(3), 2);
	assert_mem(3, MiB(5), MiB(6), 0);
	assert_int_equal(pm.nr_resv, 4);
	assert_resv(0, KiB(256), KiB(512), 0, PHYSMEM_RESV_KERNEL);
	assert_resv(1, KiB(512), MiB(1), 2, PHYSMEM_RESV_KERNEL);
	assert_resv(2, MiB(2), MiB(3), 2, PHYSMEM_RESV_KERNEL);
	assert_resv(3, MiB(5), MiB(6), 0, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_total_bytes(&pm, 1), 0);
	assert_int_equal(physmem_total_bytes(&pm, 2), KiB(1536));
	assert_int_equal(physmem_reserved_bytes(&pm, 2), KiB(1536));
	assert_int_equal(physmem_free_bytes(&pm, 0), KiB(256));

	/* A range with no memory at all still declares the node. */
	assert_true(physmem_set_node(&pm, GiB(8), GiB(9), 4));
	assert_int_equal(pm.nr_nodes, 5);
	assert_int_equal(pm.nr_mem, 4);
	assert_consistent(&pm);
}

static void test_set_node_no_slot(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < PHYSMEM_MAX_MEM; i++)
		assert_true(physmem_add(&pm, i * MiB(2), i * MiB(2) + MiB(1)));

	/* Two boundaries strictly inside range 0 need two slots: refused whole. */
	assert_false(physmem_set_node(&pm, K4, 2 * K4, 1));
	assert_true(host_log_contains("physmem: no slot left to split at a node boundary: [mem 0x0000000000001000-0x0000000000001fff] stays off node 1"));
	assert_int_equal(pm.nr_mem, 256);
	assert_int_equal(pm.nr_nodes, 1);
	assert_mem(0, 0, MiB(1), 0);

	/* A whole range needs no split. */
	assert_true(physmem_set_node(&pm, MiB(2), MiB(3), 1));
	assert_int_equal(pm.nr_mem, 256);
	assert_mem(1, MiB(2), MiB(3), 1);
	assert_int_equal(pm.nr_nodes, 2);
	assert_consistent(&pm);
}

static void test_set_node_no_reservation_slot(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(64)));
	for (uint32_t i = 0; i < PHYSMEM_MAX_RESV - 1; i++)
		assert_true(physmem_reserve(&pm, 2 * i * K4, (2 * i + 1) * K4, PHYSMEM_RESV_KERNEL));
	assert_true(physmem_reserve(&pm, MiB(8), MiB(8) + 2 * K4, PHYSMEM_RESV_MEMMAP));
	assert_int_equal(pm.nr_resv, 512);

	/* The memory split fits, the split of 'memmap' does not: nothing changes. */
	assert_false(physmem_set_node(&pm, MiB(8) + K4, MiB(16), 1));
	assert_int_equal(pm.nr_mem, 1);
	assert_int_equal(pm.nr_nodes, 1);
	assert_int_equal(pm.nr_resv, 512);
	assert_resv(511, MiB(8), MiB(8) + 2 * K4, 0, PHYSMEM_RESV_MEMMAP);

	/* A boundary between reservations only splits memory. */
	assert_true(physmem_set_node(&pm, MiB(8) + 2 * K4, MiB(64), 1));
	assert_int_equal(pm.nr_mem, 2);
	assert_mem(1, MiB(8) + 2 * K4, MiB(64), 1);
	assert_consistent(&pm);
}

static void test_set_distance(void **state)
{
	static const uint8_t slit[9] = {
		10, 21, 31,
		22, 10, 32,
		23, 33, 10,
	};

	(void)state;
	physmem_set_distance(&pm, 3, NULL);
	assert_int_equal(pm.nr_nodes, 3);
	assert_int_equal(pm.distance[1][2], 20);
	assert_int_equal(pm.distance[2][2], 10);

	physmem_set_distance(&pm, 3, slit);
	assert_int_equal(pm.nr_nodes, 3);
	assert_int_equal(pm.distance[0][1], 21);
	assert_int_equal(pm.distance[0][2], 31);
	assert_int_equal(pm.distance[1][0], 22);
	assert_int_equal(pm.distance[2][1], 33);
	assert_int_equal(pm.distance[2][2], 10);
	assert_int_equal(pm.distance[0][3], 20);
	assert_true(physmem_check(&pm));

	/* A later node gets the defaults; the matrix stays. */
	assert_true(physmem_add(&pm, 0, MiB(1)));
	assert_true(physmem_set_node(&pm, 0, MiB(1), 4));
	assert_int_equal(pm.nr_nodes, 5);
	assert_int_equal(pm.distance[0][4], 20);
	assert_int_equal(pm.distance[4][4], 10);
	assert_int_equal(pm.distance[0][2], 31);
	assert_consistent(&pm);

	/* Back to one node once no memory is on the others. */
	assert_true(physmem_set_node(&pm, 0, MiB(1), 0));
	physmem_set_distance(&pm, 1, NULL);
	assert_int_equal(pm.nr_nodes, 1);
	assert_int_equal(pm.distance[0][1], 20);
	assert_consistent(&pm);
}

/* ---- reserve ------------------------------------------------------------ */

static void test_reserve_outside_memory(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(2)));
	assert_true(physmem_add(&pm, MiB(3), MiB(4)));

	/* Wholly outside (firmware data below 1 MiB, MMIO): nothing to record. */
	assert_true(physmem_reserve(&pm, 0, K4, PHYSMEM_RESV_PAGE0));
	assert_true(physmem_reserve(&pm, MiB(5), MiB(6), PHYSMEM_RESV_KERNEL));
	assert_true(physmem_reserve(&pm, UINT64_MAX - 10, UINT64_MAX, PHYSMEM_RESV_MEMMAP));
	assert_int_equal(pm.nr_resv, 0);

	/* Partly outside: only the usable part. */
	assert_true(physmem_reserve(&pm, MiB(1) - K4, MiB(1) + K4, PHYSMEM_RESV_ALLOC));
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, MiB(1), MiB(1) + K4, 0, PHYSMEM_RESV_ALLOC);

	/* Across a hole: one entry per side. */
	assert_true(physmem_reserve(&pm, KiB(1536), KiB(3584), PHYSMEM_RESV_PAGETABLE));
	assert_int_equal(pm.nr_resv, 3);
	assert_resv(1, KiB(1536), MiB(2), 0, PHYSMEM_RESV_PAGETABLE);
	assert_resv(2, MiB(3), KiB(3584), 0, PHYSMEM_RESV_PAGETABLE);

	/* Rounded outward to whole pages. */
	assert_true(physmem_reserve(&pm, MiB(1) + 0x2010, MiB(1) + 0x2020, PHYSMEM_RESV_PERCPU));
	assert_resv(1, MiB(1) + 0x2000, MiB(1) + 0x3000, 0, PHYSMEM_RESV_PERCPU);
	assert_true(physmem_reserve(&pm, MiB(1) + 0x4fff, MiB(1) + 0x6001, PHYSMEM_RESV_PCP));
	assert_resv(2, MiB(1) + 0x4000, MiB(1) + 0x7000, 0, PHYSMEM_RESV_PCP);

	assert_int_equal(pm.nr_resv, 5);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), K4 + KiB(1024) + K4 + 3 * K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), MiB(1));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_ALLOC), K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGE0), 0);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), 0);
	assert_int_equal(physmem_free_bytes(&pm, 0), MiB(2) - MiB(1) - 5 * K4);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(host_log_count(LOG_ERR), 0);
	assert_consistent(&pm);
}

static void test_reserve_overlap_keeps_first_owner(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(2)));
	assert_true(physmem_reserve(&pm, MiB(1), MiB(1) + KiB(16), PHYSMEM_RESV_KERNEL));
	host_log_reset();

	assert_true(physmem_reserve(&pm, MiB(1) + KiB(8), MiB(1) + KiB(24), PHYSMEM_RESV_MEMMAP));
	assert_true(host_log_contains("physmem: reserve [mem 0x0000000000102000-0x0000000000105fff] 'memmap' overlaps 'kernel' at [mem 0x0000000000102000-0x0000000000103fff]; the overlap stays with 'kernel'"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(pm.nr_resv, 2);
	assert_resv(0, MiB(1), MiB(1) + KiB(16), 0, PHYSMEM_RESV_KERNEL);
	assert_resv(1, MiB(1) + KiB(16), MiB(1) + KiB(24), 0, PHYSMEM_RESV_MEMMAP);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), KiB(24));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), KiB(16));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_MEMMAP), KiB(8));
	assert_int_equal(physmem_free_bytes(&pm, 0), MiB(1) - KiB(24));

	/* Wholly inside 'kernel': a warning, nothing recorded. */
	host_log_reset();
	assert_true(physmem_reserve(&pm, MiB(1) + K4, MiB(1) + 2 * K4, PHYSMEM_RESV_PAGETABLE));
	assert_true(host_log_contains("'pagetable' overlaps 'kernel' at [mem 0x0000000000101000-0x0000000000101fff]"));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), 0);
	assert_int_equal(pm.nr_resv, 2);

	/* Covering both and more, partly below memory: two warnings, only new pages recorded. */
	host_log_reset();
	assert_true(physmem_reserve(&pm, MiB(1) - K4, MiB(1) + KiB(32), PHYSMEM_RESV_PERCPU));
	assert_int_equal(host_log_count(LOG_WARN), 2);
	assert_true(host_log_contains("'percpu' overlaps 'kernel'"));
	assert_true(host_log_contains("'percpu' overlaps 'memmap'"));
	assert_int_equal(pm.nr_resv, 3);
	assert_resv(2, MiB(1) + KiB(24), MiB(1) + KiB(32), 0, PHYSMEM_RESV_PERCPU);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), KiB(32));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PERCPU), KiB(8));

	/* Same owner again: still a warning (a double reservation), no double count. */
	host_log_reset();
	assert_true(physmem_reserve(&pm, MiB(1), MiB(1) + KiB(16), PHYSMEM_RESV_KERNEL));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), KiB(32));
	assert_int_equal(pm.nr_resv, 3);
	assert_consistent(&pm);
}

static void test_reserve_merges_same_owner(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(16)));
	assert_true(physmem_reserve(&pm, MiB(1), MiB(1) + K4, PHYSMEM_RESV_PAGETABLE));
	assert_true(physmem_reserve(&pm, MiB(1) + K4, MiB(1) + 2 * K4, PHYSMEM_RESV_PAGETABLE));
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, MiB(1), MiB(1) + 2 * K4, 0, PHYSMEM_RESV_PAGETABLE);

	/* Right-hand neighbour of the same name. */
	assert_true(physmem_reserve(&pm, MiB(1) - K4, MiB(1), PHYSMEM_RESV_PAGETABLE));
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, MiB(1) - K4, MiB(1) + 2 * K4, 0, PHYSMEM_RESV_PAGETABLE);

	/* A different name touching stays separate. */
	assert_true(physmem_reserve(&pm, MiB(1) + 2 * K4, MiB(1) + 3 * K4, PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 2);

	/* Filling the gap between two of one name joins them into one. */
	assert_true(physmem_reserve(&pm, MiB(2), MiB(2) + K4, PHYSMEM_RESV_MEMMAP));
	assert_true(physmem_reserve(&pm, MiB(2) + 2 * K4, MiB(2) + 3 * K4, PHYSMEM_RESV_MEMMAP));
	assert_int_equal(pm.nr_resv, 4);
	assert_true(physmem_reserve(&pm, MiB(2) + K4, MiB(2) + 2 * K4, PHYSMEM_RESV_MEMMAP));
	assert_int_equal(pm.nr_resv, 3);
	assert_resv(2, MiB(2), MiB(2) + 3 * K4, 0, PHYSMEM_RESV_MEMMAP);

	/* A reservation over gaps between others joins them where names agree. */
	assert_true(physmem_reserve(&pm, MiB(3), MiB(3) + K4, PHYSMEM_RESV_PERCPU));
	assert_true(physmem_reserve(&pm, MiB(3) + 2 * K4, MiB(3) + 3 * K4, PHYSMEM_RESV_ALLOC));
	assert_true(physmem_reserve(&pm, MiB(3) + 4 * K4, MiB(3) + 5 * K4, PHYSMEM_RESV_PERCPU));
	assert_int_equal(pm.nr_resv, 6);
	host_log_reset();
	assert_true(physmem_reserve(&pm, MiB(3), MiB(3) + 6 * K4, PHYSMEM_RESV_PERCPU));
	assert_int_equal(host_log_count(LOG_WARN), 3);
	/* y[0,1) + new[1,2) | z[2,3) | new[3,4) + y[4,5) + new[5,6) */
	assert_int_equal(pm.nr_resv, 6);
	assert_resv(3, MiB(3), MiB(3) + 2 * K4, 0, PHYSMEM_RESV_PERCPU);
	assert_resv(4, MiB(3) + 2 * K4, MiB(3) + 3 * K4, 0, PHYSMEM_RESV_ALLOC);
	assert_resv(5, MiB(3) + 3 * K4, MiB(3) + 6 * K4, 0, PHYSMEM_RESV_PERCPU);

	/* Same name on two nodes: one entry per node. */
	assert_true(physmem_set_node(&pm, MiB(8), MiB(16), 1));
	assert_true(physmem_reserve(&pm, MiB(8) - K4, MiB(8) + K4, PHYSMEM_RESV_PERCPU));
	assert_int_equal(pm.nr_resv, 8);
	assert_resv(6, MiB(8) - K4, MiB(8), 0, PHYSMEM_RESV_PERCPU);
	assert_resv(7, MiB(8), MiB(8) + K4, 1, PHYSMEM_RESV_PERCPU);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PERCPU), 7 * K4);
	assert_consistent(&pm);
}

/* Every type has its own word for messages; anything else is "?". */
static void test_resv_type_names(void **state)
{
	(void)state;
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_PAGE0), "page0");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_KERNEL), "kernel");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_TRAMPOLINE), "trampoline");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_PAGETABLE), "pagetable");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_PERCPU), "percpu");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_HUGETLB_1G), "hugetlb");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_HUGETLB_TABLES), "hugetlb-tables");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_MEMMAP), "memmap");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_ALLOC), "alloc");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_PCP), "pcp");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_MEMINIT), "meminit");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_NONE), "none");
	assert_string_equal(physmem_resv_type_name(PHYSMEM_RESV_TYPE_COUNT), "?");
	assert_string_equal(physmem_resv_type_name(0xffffffffu), "?");
	/* No two types share a word: messages name exactly one owner. */
	for (uint32_t i = 1; i < PHYSMEM_RESV_TYPE_COUNT; i++) {
		assert_string_not_equal(physmem_resv_type_name(i), "?");
		for (uint32_t j = i + 1; j < PHYSMEM_RESV_TYPE_COUNT; j++)
			assert_string_not_equal(physmem_resv_type_name(i), physmem_resv_type_name(j));
	}
}

/*
 * The type is what a reservation is: stored with each entry, kept by
 * splits, summed by physmem_reserved_bytes_of(), and the one thing (with
 * the node) that decides whether touching neighbours merge.
 */
static void test_resv_types_kept(void **state)
{
	uint64_t at;

	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(4)));
	assert_true(physmem_reserve(&pm, 0, K4, PHYSMEM_RESV_PAGE0));
	assert_true(physmem_reserve(&pm, MiB(1), MiB(2), PHYSMEM_RESV_KERNEL));
	/* Touching the kernel but of another type: its own entry. */
	assert_true(physmem_reserve(&pm, MiB(2), MiB(2) + K4, PHYSMEM_RESV_PAGETABLE));
	/* Touching a page-table page of the same type: merged. */
	assert_true(physmem_reserve(&pm, MiB(2) + K4, MiB(2) + 2 * K4, PHYSMEM_RESV_PAGETABLE));
	assert_int_equal(pm.nr_resv, 3);
	assert_resv(0, 0, K4, 0, PHYSMEM_RESV_PAGE0);
	assert_resv(1, MiB(1), MiB(2), 0, PHYSMEM_RESV_KERNEL);
	assert_resv(2, MiB(2), MiB(2) + 2 * K4, 0, PHYSMEM_RESV_PAGETABLE);

	/* Allocations carry their type; top down, so the highest free page. */
	at = physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_MEMMAP);
	assert_int_equal(at, MiB(4) - K4);
	assert_resv(3, MiB(4) - K4, MiB(4), 0, PHYSMEM_RESV_MEMMAP);
	at = physmem_alloc_range(&pm, K4, K4, 0x1000, 0x100000, 0, false,
				 PHYSMEM_RESV_TRAMPOLINE);
	assert_int_equal(at, 0x100000 - K4);
	assert_int_equal(pm.resv[1].type, PHYSMEM_RESV_TRAMPOLINE);

	/* A type that is not there sums to 0; the others to their bytes. */
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGE0), K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), MiB(1));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), 2 * K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_MEMMAP), K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_TRAMPOLINE), K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_HUGETLB_1G), 0);

	/* Freeing the middle of the kernel's range: both halves stay "kernel". */
	assert_true(physmem_free(&pm, MiB(1) + K4, MiB(1) + 2 * K4));
	assert_resv(2, MiB(1), MiB(1) + K4, 0, PHYSMEM_RESV_KERNEL);
	assert_resv(3, MiB(1) + 2 * K4, MiB(2), 0, PHYSMEM_RESV_KERNEL);
	/* Splitting by node keeps the type on both sides too. */
	assert_true(physmem_set_node(&pm, MiB(1) + MiB(1) / 2, MiB(4), 1));
	for (uint32_t i = 0; i < pm.nr_resv; i++)
		if (pm.resv[i].start >= MiB(1) + 2 * K4 && pm.resv[i].end <= MiB(2))
			assert_int_equal(pm.resv[i].type, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), MiB(1) - K4);

	/* An overlap keeps the first type; the warning names both. */
	host_log_reset();
	assert_true(physmem_reserve(&pm, MiB(1), MiB(1) + K4, PHYSMEM_RESV_PERCPU));
	assert_true(host_log_contains("'percpu' overlaps 'kernel'"));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PERCPU), 0);
	assert_consistent(&pm);
}

/* Only the usable ranges of a map become memory; the rest is not RAM. */
static void test_add_map_takes_usable_only(void **state)
{
	const struct mem_range map[] = {
		{ 0, 0x9f000, MEM_USABLE },
		{ 0x9f000, 0x100000, MEM_RESERVED },
		{ 0x100000, MiB(8), MEM_USABLE },
		{ MiB(8), MiB(9), MEM_ACPI },
		{ MiB(9), MiB(10), MEM_NVS },
		{ MiB(10), MiB(11), MEM_UNUSABLE },
		{ MiB(11), MiB(16), MEM_USABLE },
	};

	(void)state;
	assert_int_equal(physmem_add_map(&pm, NULL, 0), 0);
	assert_int_equal(pm.nr_mem, 0);
	assert_int_equal(physmem_add_map(&pm, map, 7), 0);
	assert_int_equal(pm.nr_mem, 3);
	assert_mem(0, 0, 0x9f000, 0);
	assert_mem(1, 0x100000, MiB(8), 0);
	assert_mem(2, MiB(11), MiB(16), 0);
	assert_int_equal(physmem_total_bytes(&pm, PHYSMEM_ANY_NODE), 0x9f000 + MiB(7) + MiB(5));
	assert_int_equal(pm.nr_resv, 0);
	/* The same map again: each usable range overlaps, is refused and counted. */
	host_log_reset();
	assert_int_equal(physmem_add_map(&pm, map, 7), 3);
	assert_int_equal(host_log_count(LOG_ERR), 3);
	assert_int_equal(pm.nr_mem, 3);
	assert_consistent(&pm);
}

static void test_reserve_slot_exhaustion(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, GiB(1)));
	/* Pages 1, 3, 5, ..., 1023: 512 entries, none touching. */
	for (uint32_t i = 0; i < PHYSMEM_MAX_RESV; i++)
		assert_true(physmem_reserve(&pm, (2 * i + 1) * K4, (2 * i + 2) * K4, PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 512);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), MiB(2));
	host_log_reset();

	assert_false(physmem_reserve(&pm, MiB(8), MiB(8) + K4, PHYSMEM_RESV_MEMMAP));
	assert_true(host_log_contains("physmem: out of reservation slots (512 of 512 used, 1 more needed); [mem 0x0000000000800000-0x0000000000800fff] 'memmap' not reserved"));
	assert_int_equal(pm.nr_resv, 512);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), MiB(2));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_MEMMAP), 0);
	assert_consistent(&pm);

	/* Spanning several gaps: refused whole, nothing half done. */
	assert_false(physmem_reserve(&pm, 0, MiB(8) + K4, PHYSMEM_RESV_PAGETABLE));
	assert_int_equal(pm.nr_resv, 512);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), MiB(2));

	/* Joining both neighbours frees a slot; touching one needs none. */
	assert_true(physmem_reserve(&pm, 2 * K4, 3 * K4, PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 511);
	assert_resv(0, K4, 4 * K4, 0, PHYSMEM_RESV_KERNEL);
	assert_true(physmem_reserve(&pm, MiB(4), MiB(8), PHYSMEM_RESV_KERNEL));
	assert_int_equal(pm.nr_resv, 511);
	assert_resv(510, MiB(4) - K4, MiB(8), 0, PHYSMEM_RESV_KERNEL);
	assert_true(physmem_reserve(&pm, MiB(9), MiB(10), PHYSMEM_RESV_PERCPU));
	assert_int_equal(pm.nr_resv, 512);

	/* Allocation with no slot: a clear failure. */
	host_log_reset();
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_MEMMAP), 0);
	assert_int_equal(pm.failed_allocs, 1);
	assert_true(host_log_contains("physmem: out of reservation slots (512 used) for 'memmap'"));
	assert_true(host_log_contains("physmem: cannot allocate 4096 bytes (align 0x1000) on node 0 (exact) for 'memmap'"));
	assert_int_equal(pm.nr_resv, 512);
	/* ...but one that joins its owner still works. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, 0, MiB(10) + K4, 0, true, PHYSMEM_RESV_PERCPU), MiB(10));
	assert_int_equal(pm.nr_resv, 512);
	assert_resv(511, MiB(9), MiB(10) + K4, 0, PHYSMEM_RESV_PERCPU);

	/* A hole in the middle needs a slot; trimming an end does not. */
	host_log_reset();
	assert_false(physmem_free(&pm, MiB(9) + K4, MiB(9) + 2 * K4));
	assert_true(host_log_contains("physmem: out of reservation slots; cannot free [mem 0x0000000000901000-0x0000000000901fff] from 'percpu'"));
	assert_int_equal(pm.nr_resv, 512);
	assert_resv(511, MiB(9), MiB(10) + K4, 0, PHYSMEM_RESV_PERCPU);
	assert_true(physmem_free(&pm, MiB(9), MiB(9) + K4));
	assert_resv(511, MiB(9) + K4, MiB(10) + K4, 0, PHYSMEM_RESV_PERCPU);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), MiB(7) + K4);
	assert_consistent(&pm);
}

/* ---- alloc -------------------------------------------------------------- */

static void test_alloc_exact_node(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(128)));
	assert_true(physmem_set_node(&pm, MiB(64), MiB(128), 1));

	assert_int_equal(physmem_alloc(&pm, K4, K4, 1, true, PHYSMEM_RESV_KERNEL), MiB(128) - K4);
	assert_int_equal(physmem_node_of(&pm, MiB(128) - K4), 1);

	/* Too big for node 1: exact never spills over to node 0. */
	assert_int_equal(physmem_alloc(&pm, MiB(64), K4, 1, true, PHYSMEM_RESV_MEMMAP), 0);
	assert_int_equal(pm.failed_allocs, 1);
	assert_true(host_log_contains("physmem: cannot allocate 67108864 bytes (align 0x1000) on node 1 (exact) for 'memmap'"));
	assert_int_equal(physmem_reserved_bytes(&pm, 0), 0);

	/* Fill node 1, then ask once more. */
	assert_int_equal(physmem_alloc(&pm, MiB(64) - K4, K4, 1, true, PHYSMEM_RESV_PAGETABLE), MiB(64));
	assert_int_equal(physmem_free_bytes(&pm, 1), 0);
	assert_int_equal(physmem_alloc(&pm, K4, K4, 1, true, PHYSMEM_RESV_PERCPU), 0);
	assert_int_equal(pm.failed_allocs, 2);
	assert_int_equal(physmem_free_bytes(&pm, 0), MiB(63));
	assert_int_equal(physmem_reserved_bytes(&pm, 0), 0);

	/* Without exact the nearest other node serves it. */
	assert_int_equal(physmem_alloc(&pm, K4, K4, 1, false, PHYSMEM_RESV_PERCPU), MiB(64) - K4);
	assert_int_equal(physmem_node_of(&pm, MiB(64) - K4), 0);
	assert_int_equal(pm.failed_allocs, 2);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PERCPU), K4);
	assert_consistent(&pm);
}

static void test_alloc_nearest_node_fallback(void **state)
{
	/* Node 2 is nearer to 0 than node 1 is; node 1 prefers 2 over 0. */
	static const uint8_t slit[9] = {
		10, 40, 20,
		40, 10, 30,
		20, 30, 10,
	};

	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(768)));
	assert_true(physmem_set_node(&pm, MiB(256), MiB(512), 1));
	assert_true(physmem_set_node(&pm, MiB(512), MiB(768), 2));
	physmem_set_distance(&pm, 3, slit);

	/* Node 0 has room: its own top. */
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 0, false, PHYSMEM_RESV_KERNEL), MiB(254));

	assert_true(physmem_reserve(&pm, 0, MiB(256), PHYSMEM_RESV_MEMMAP));
	assert_int_equal(physmem_free_bytes(&pm, 0), 0);
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 0, true, PHYSMEM_RESV_PAGETABLE), 0);
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 0, false, PHYSMEM_RESV_PAGETABLE), MiB(766));
	assert_int_equal(physmem_node_of(&pm, MiB(766)), 2);
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 1, false, PHYSMEM_RESV_PERCPU), MiB(510));

	/* Node 2 full as well: node 0 falls back to node 1. */
	assert_true(physmem_reserve(&pm, MiB(512), MiB(768), PHYSMEM_RESV_ALLOC));
	assert_int_equal(physmem_free_bytes(&pm, 2), 0);
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 0, false, PHYSMEM_RESV_PAGETABLE), MiB(508));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), MiB(4));
	assert_int_equal(physmem_node_of(&pm, MiB(508)), 1);

	/* Node 1 full too: every request fails, exact or not. */
	assert_true(physmem_reserve(&pm, MiB(256), MiB(512), PHYSMEM_RESV_PCP));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 2, false, PHYSMEM_RESV_MEMINIT), 0);
	assert_int_equal(physmem_alloc(&pm, K4, K4, PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_MEMINIT), 0);
	assert_int_equal(pm.failed_allocs, 3);
	assert_true(host_log_contains("on node 2 or another for 'meminit'"));
	assert_consistent(&pm);
}

static void test_alloc_distance_ties_and_any_node(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(768)));
	assert_true(physmem_set_node(&pm, MiB(256), MiB(512), 1));
	assert_true(physmem_set_node(&pm, MiB(512), MiB(768), 2));

	/* PHYSMEM_ANY_NODE: the lowest node first, top down within it. */
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_KERNEL), MiB(254));
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), PHYSMEM_ANY_NODE, true, PHYSMEM_RESV_KERNEL), MiB(252));

	/* Default distances tie: node 2 falls back to node 0, the lower id. */
	assert_true(physmem_reserve(&pm, MiB(512), MiB(768), PHYSMEM_RESV_MEMMAP));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 2, false, PHYSMEM_RESV_PAGETABLE), MiB(252) - K4);
	/* And node 0 to node 1. */
	assert_true(physmem_reserve(&pm, 0, MiB(256), PHYSMEM_RESV_PERCPU));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, false, PHYSMEM_RESV_PAGETABLE), MiB(512) - K4);
	assert_int_equal(physmem_alloc(&pm, K4, K4, PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_KERNEL), MiB(512) - 2 * K4);
	assert_consistent(&pm);
}

static void test_alloc_alignment(void **state)
{
	uint64_t a;

	(void)state;
	assert_true(physmem_add(&pm, MiB(1), GiB(1) + MiB(1)));
	a = physmem_alloc(&pm, MiB(2), MiB(2), 0, true, PHYSMEM_RESV_KERNEL);
	assert_int_equal(a, GiB(1) - MiB(2));
	assert_int_equal(a % MiB(2), 0);
	/* The 1 MiB above it is too small for 2 MiB but holds an aligned page. */
	assert_int_equal(physmem_alloc(&pm, K4, MiB(2), 0, true, PHYSMEM_RESV_MEMMAP), GiB(1));
	/* Size is rounded up to whole pages. */
	assert_int_equal(physmem_alloc(&pm, 1, K4, 0, true, PHYSMEM_RESV_PAGETABLE), GiB(1) + MiB(1) - K4);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), K4);

	/* Node 1 holds exactly one aligned GiB: [3G, 4G) inside [3G-2M, 4G+2M). */
	assert_true(physmem_add(&pm, GiB(3) - MiB(2), GiB(4) + MiB(2)));
	assert_true(physmem_set_node(&pm, GiB(3) - MiB(2), GiB(4) + MiB(2), 1));
	assert_int_equal(physmem_alloc(&pm, GiB(1), GiB(1), 1, true, PHYSMEM_RESV_HUGETLB_1G), GiB(3));
	assert_int_equal(physmem_free_bytes(&pm, 1), MiB(4));
	assert_int_equal(physmem_alloc(&pm, GiB(1), GiB(1), 1, true, PHYSMEM_RESV_HUGETLB_1G), 0);
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 1, true, PHYSMEM_RESV_KERNEL), GiB(4));
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 1, true, PHYSMEM_RESV_KERNEL), GiB(3) - MiB(2));
	assert_int_equal(physmem_free_bytes(&pm, 1), 0);

	/* A whole GiB of memory that straddles a GiB boundary holds no aligned GiB. */
	assert_true(physmem_add(&pm, GiB(5) + K4, GiB(6) + K4));
	assert_true(physmem_set_node(&pm, GiB(5) + K4, GiB(6) + K4, 2));
	assert_int_equal(physmem_alloc(&pm, GiB(1), GiB(1), 2, true, PHYSMEM_RESV_HUGETLB_1G), 0);
	assert_int_equal(physmem_alloc(&pm, GiB(1), K4, 2, true, PHYSMEM_RESV_PERCPU), GiB(5) + K4);
	assert_int_equal(pm.failed_allocs, 2);
	assert_consistent(&pm);
}

static void test_alloc_top_down(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(16)));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_PAGETABLE), MiB(16) - K4);
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_PAGETABLE), MiB(16) - 2 * K4);
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_PAGETABLE), MiB(16) - 3 * K4);
	/* Repeated small allocations of one owner share one slot. */
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, MiB(16) - 3 * K4, MiB(16), 0, PHYSMEM_RESV_PAGETABLE);

	assert_int_equal(physmem_alloc(&pm, 2 * K4, K4, 0, true, PHYSMEM_RESV_PERCPU), MiB(16) - 5 * K4);
	assert_int_equal(physmem_alloc(&pm, 100, K4, 0, true, PHYSMEM_RESV_PAGETABLE), MiB(16) - 6 * K4);
	assert_int_equal(pm.nr_resv, 3);

	/* A reservation in the way: the next allocation goes below it. */
	assert_true(physmem_reserve(&pm, MiB(8), MiB(16) - 6 * K4, PHYSMEM_RESV_KERNEL));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_MEMMAP), MiB(8) - K4);

	/* A higher range of the same node wins. */
	assert_true(physmem_add(&pm, MiB(32), MiB(33)));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_ALLOC), MiB(33) - K4);
	/* No room for 1 MiB left up there: the lower range serves it. */
	assert_int_equal(physmem_alloc(&pm, MiB(1), K4, 0, true, PHYSMEM_RESV_PCP), MiB(8) - K4 - MiB(1));
	assert_consistent(&pm);
}

static void test_alloc_address_limits(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, K4, KiB(640)));
	assert_true(physmem_add(&pm, MiB(1), GiB(8)));

	/* SMP trampoline: below 1 MiB. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, 0, MiB(1), PHYSMEM_ANY_NODE, false,
					     PHYSMEM_RESV_TRAMPOLINE), KiB(640) - K4);
	/* 32-bit DMA: below 4 GiB. */
	assert_int_equal(physmem_alloc_range(&pm, KiB(64), KiB(64), 0, GiB(4), 0, true, PHYSMEM_RESV_KERNEL),
			 GiB(4) - KiB(64));
	/* A small window: two pages, then nothing. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, GiB(6), GiB(6) + 2 * K4, 0, true, PHYSMEM_RESV_MEMMAP),
			 GiB(6) + K4);
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, GiB(6), GiB(6) + 2 * K4, 0, true, PHYSMEM_RESV_MEMMAP),
			 GiB(6));
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, GiB(6), GiB(6) + 2 * K4, 0, true, PHYSMEM_RESV_MEMMAP), 0);
	assert_int_equal(pm.failed_allocs, 1);
	assert_true(host_log_contains("physmem: cannot allocate 4096 bytes (align 0x1000) in [mem 0x0000000180000000-0x0000000180001fff] on node 0 (exact) for 'memmap'"));

	/* Unaligned limits are honoured byte for byte. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, MiB(1) + 1, MiB(1) + 2 * K4 + 100, 0, true,
					     PHYSMEM_RESV_PAGETABLE), MiB(1) + K4);
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, MiB(1) + 1, MiB(1) + 2 * K4 + 100, 0, true,
					     PHYSMEM_RESV_PAGETABLE), 0);
	/* Above all memory. */
	assert_int_equal(physmem_alloc_range(&pm, K4, K4, GiB(8), PHYSMEM_ADDR_MAX, 0, false, PHYSMEM_RESV_PERCPU), 0);
	assert_int_equal(pm.failed_allocs, 3);
	/* Unlimited: the top of memory. */
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_ALLOC), GiB(8) - K4);
	assert_consistent(&pm);
}

static void test_alloc_never_returns_zero(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, 0, 2 * K4));
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_KERNEL), K4);
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_KERNEL), 0);
	assert_int_equal(pm.failed_allocs, 1);
	assert_int_equal(physmem_free_bytes(&pm, 0), K4);   /* page 0 stays free */

	physmem_init(&pm);
	assert_true(physmem_add(&pm, 0, 4 * K4));
	assert_int_equal(physmem_alloc(&pm, K4, 2 * K4, 0, true, PHYSMEM_RESV_MEMMAP), 2 * K4);
	assert_int_equal(physmem_alloc(&pm, K4, 2 * K4, 0, true, PHYSMEM_RESV_MEMMAP), 0);
	assert_int_equal(physmem_alloc(&pm, K4, K4, 0, true, PHYSMEM_RESV_MEMMAP), 3 * K4);
	assert_consistent(&pm);
}

/* ---- free --------------------------------------------------------------- */

static void test_free_and_realloc(void **state)
{
	uint64_t a;

	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(16)));
	a = physmem_alloc(&pm, KiB(64), K4, 0, true, PHYSMEM_RESV_KERNEL);
	assert_int_equal(a, MiB(16) - KiB(64));
	assert_true(physmem_free(&pm, a, a + KiB(64)));
	assert_int_equal(pm.nr_resv, 0);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), 0);
	assert_int_equal(physmem_alloc(&pm, KiB(64), K4, 0, true, PHYSMEM_RESV_KERNEL), a);

	/* A hole in the middle splits the reservation... */
	assert_true(physmem_free(&pm, a + KiB(16), a + KiB(32)));
	assert_int_equal(pm.nr_resv, 2);
	assert_resv(0, a, a + KiB(16), 0, PHYSMEM_RESV_KERNEL);
	assert_resv(1, a + KiB(32), a + KiB(64), 0, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), KiB(48));
	/* ...and is the highest fit for the next allocation, which rejoins them. */
	assert_int_equal(physmem_alloc(&pm, KiB(16), K4, 0, true, PHYSMEM_RESV_KERNEL), a + KiB(16));
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, a, a + KiB(64), 0, PHYSMEM_RESV_KERNEL);

	/* Trimming either end. */
	assert_true(physmem_free(&pm, a, a + K4));
	assert_true(physmem_free(&pm, a + KiB(60), a + KiB(64)));
	assert_int_equal(pm.nr_resv, 1);
	assert_resv(0, a + K4, a + KiB(60), 0, PHYSMEM_RESV_KERNEL);
	/* Unaligned arguments round outward, like reserve. */
	assert_true(physmem_free(&pm, a + K4 + 1, a + K4 + 2));
	assert_resv(0, a + 2 * K4, a + KiB(60), 0, PHYSMEM_RESV_KERNEL);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_KERNEL), KiB(52));

	/* Across several owners. */
	assert_true(physmem_reserve(&pm, MiB(2), MiB(2) + 2 * K4, PHYSMEM_RESV_MEMMAP));
	assert_true(physmem_reserve(&pm, MiB(2) + 2 * K4, MiB(2) + 4 * K4, PHYSMEM_RESV_PAGETABLE));
	assert_true(physmem_reserve(&pm, MiB(2) + 4 * K4, MiB(2) + 6 * K4, PHYSMEM_RESV_PERCPU));
	assert_true(physmem_free(&pm, MiB(2) + K4, MiB(2) + 5 * K4));
	assert_int_equal(pm.nr_resv, 3);
	assert_resv(0, MiB(2), MiB(2) + K4, 0, PHYSMEM_RESV_MEMMAP);
	assert_resv(1, MiB(2) + 5 * K4, MiB(2) + 6 * K4, 0, PHYSMEM_RESV_PERCPU);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_PAGETABLE), 0);

	/* Nothing reserved there: a warning, nothing changes. */
	host_log_reset();
	assert_true(physmem_free(&pm, MiB(3), MiB(3) + K4));
	assert_true(host_log_contains("physmem: free [mem 0x0000000000300000-0x0000000000300fff]: nothing reserved there"));
	assert_int_equal(pm.nr_resv, 3);
	assert_int_equal(physmem_reserved_bytes(&pm, 0), KiB(52) + 2 * K4);
	assert_consistent(&pm);
}

/* ---- for_each_free ------------------------------------------------------ */

static void test_for_each_free_exact(void **state)
{
	static struct franges f;

	(void)state;
	assert_true(physmem_add(&pm, 0, MiB(2)));
	assert_true(physmem_set_node(&pm, MiB(1), MiB(2), 1));
	assert_true(physmem_add(&pm, MiB(4), MiB(8)));
	assert_true(physmem_reserve(&pm, 0, K4, PHYSMEM_RESV_PAGE0));
	assert_true(physmem_reserve(&pm, KiB(512), KiB(516), PHYSMEM_RESV_MEMMAP));
	assert_true(physmem_reserve(&pm, MiB(1) - K4, MiB(1) + K4, PHYSMEM_RESV_PAGETABLE));
	assert_true(physmem_reserve(&pm, MiB(4), MiB(5), PHYSMEM_RESV_KERNEL));
	assert_true(physmem_reserve(&pm, MiB(8) - K4, MiB(8), PHYSMEM_RESV_PERCPU));

	memset(&f, 0, sizeof(f));
	physmem_for_each_free(&pm, PHYSMEM_ANY_NODE, collect, &f);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.start[0], K4);
	assert_int_equal(f.end[0], KiB(512));
	assert_int_equal(f.node[0], 0);
	assert_int_equal(f.start[1], KiB(516));
	assert_int_equal(f.end[1], MiB(1) - K4);
	assert_int_equal(f.node[1], 0);
	assert_int_equal(f.start[2], MiB(1) + K4);
	assert_int_equal(f.end[2], MiB(2));
	assert_int_equal(f.node[2], 1);
	assert_int_equal(f.start[3], MiB(5));
	assert_int_equal(f.end[3], MiB(8) - K4);
	assert_int_equal(f.node[3], 0);

	memset(&f, 0, sizeof(f));
	physmem_for_each_free(&pm, 1, collect, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.start[0], MiB(1) + K4);
	assert_int_equal(f.end[0], MiB(2));

	memset(&f, 0, sizeof(f));
	physmem_for_each_free(&pm, 0, collect, &f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.start[2], MiB(5));

	/* Stops when the callback says so. */
	memset(&f, 0, sizeof(f));
	f.stop_after = 2;
	physmem_for_each_free(&pm, PHYSMEM_ANY_NODE, collect, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.start[1], KiB(516));

	/* Touching free memory on two nodes is two ranges; with no reservations, whole ranges. */
	physmem_init(&pm);
	assert_true(physmem_add(&pm, 0, MiB(2)));
	assert_true(physmem_set_node(&pm, MiB(1), MiB(2), 1));
	memset(&f, 0, sizeof(f));
	physmem_for_each_free(&pm, PHYSMEM_ANY_NODE, collect, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.start[0], K4 * 0);
	assert_int_equal(f.end[0], MiB(1));
	assert_int_equal(f.start[1], MiB(1));
	assert_int_equal(f.end[1], MiB(2));
	assert_int_equal(f.node[1], 1);
	assert_consistent(&pm);
}

/* ---- check and dump ----------------------------------------------------- */

static void corrupt_expect(void (*mutate)(struct physmem *), const char *message)
{
	struct physmem *bad = malloc(sizeof(*bad));

	assert_non_null(bad);
	memcpy(bad, &pm, sizeof(*bad));
	mutate(bad);
	host_log_reset();
	assert_false(physmem_check(bad));
	if (!host_log_contains(message))
		fail_msg("physmem_check did not log \"%s\"", message);
	free(bad);
}

static void overlap_mem(struct physmem *p)       { p->mem[0].end = MiB(8) + K4; }
static void unaligned_mem(struct physmem *p)     { p->mem[0].start = MiB(1) + 1; }
static void empty_mem(struct physmem *p)         { p->mem[0].end = p->mem[0].start; }
static void unmerged_mem(struct physmem *p)      { p->mem[1].node = 0; }
static void bad_mem_node(struct physmem *p)      { p->mem[1].node = 5; }
static void overlap_resv(struct physmem *p)      { p->resv[1].start = MiB(2) + K4; }
static void resv_outside(struct physmem *p)      { p->resv[0].start = 0; }
static void resv_across_nodes(struct physmem *p) { p->resv[2].start = MiB(8) - K4; }
static void resv_wrong_node(struct physmem *p)   { p->resv[2].node = 0; }
static void resv_bad_type(struct physmem *p)     { p->resv[1].type = PHYSMEM_RESV_TYPE_COUNT; }
static void resv_no_type(struct physmem *p)      { p->resv[1].type = PHYSMEM_RESV_NONE; }
static void unsorted_resv(struct physmem *p)
{
	struct physmem_resv t = p->resv[0];
	p->resv[0] = p->resv[1];
	p->resv[1] = t;
}
static void unmerged_resv(struct physmem *p)
{
	p->resv[1].start = MiB(2) + 2 * K4;
	p->resv[1].end = MiB(2) + 3 * K4;
	p->resv[1].type = p->resv[0].type;
}
static void bad_distance(struct physmem *p)      { p->distance[0][1] = 10; }
static void bad_local_distance(struct physmem *p) { p->distance[1][1] = 20; }
static void too_many_resv(struct physmem *p)     { p->nr_resv = 600; }
static void too_many_mem(struct physmem *p)      { p->nr_mem = 300; }
static void no_nodes(struct physmem *p)          { p->nr_nodes = 0; }

static void test_check_catches_corruption(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), MiB(16)));
	assert_true(physmem_set_node(&pm, MiB(8), MiB(16), 1));
	assert_true(physmem_reserve(&pm, MiB(2), MiB(2) + 2 * K4, PHYSMEM_RESV_KERNEL));
	assert_true(physmem_reserve(&pm, MiB(3), MiB(3) + K4, PHYSMEM_RESV_MEMMAP));
	assert_true(physmem_reserve(&pm, MiB(9), MiB(9) + K4, PHYSMEM_RESV_PAGETABLE));
	assert_true(physmem_check(&pm));
	assert_int_equal(host_log_count(LOG_ERR), 0);

	corrupt_expect(overlap_mem, "physmem: check: memory[1] [0x800000-0x1000000) not after [0x100000-0x801000)");
	corrupt_expect(unaligned_mem, "physmem: check: memory[0] [0x100001-0x800000) empty or not page aligned");
	corrupt_expect(empty_mem, "physmem: check: memory[0] [0x100000-0x100000) empty or not page aligned");
	corrupt_expect(unmerged_mem, "physmem: check: memory[1] at 0x800000 not merged with its neighbour on node 0");
	corrupt_expect(unmerged_mem, "physmem: check: reservation[2] [0x900000-0x901000) on node 1, its memory on node 0");
	corrupt_expect(bad_mem_node, "physmem: check: memory[1] on node 5 of 2");
	corrupt_expect(overlap_resv, "physmem: check: reservation[1] [0x201000-0x301000) not after [0x200000-0x202000)");
	corrupt_expect(unsorted_resv, "physmem: check: reservation[1] [0x200000-0x202000) not after [0x300000-0x301000)");
	corrupt_expect(resv_outside, "physmem: check: reservation[0] [0x0-0x202000) not inside one memory range");
	corrupt_expect(resv_across_nodes, "physmem: check: reservation[2] [0x7ff000-0x901000) not inside one memory range");
	corrupt_expect(resv_wrong_node, "physmem: check: reservation[2] [0x900000-0x901000) on node 0, its memory on node 1");
	char bad_type[96];

	snprintf(bad_type, sizeof(bad_type), "physmem: check: reservation[1] at 0x300000 has type %u",
		 (unsigned)PHYSMEM_RESV_TYPE_COUNT);
	corrupt_expect(resv_bad_type, bad_type);
	corrupt_expect(resv_no_type, "physmem: check: reservation[1] at 0x300000 has type 0");
	corrupt_expect(unmerged_resv, "physmem: check: reservation[1] at 0x202000 not merged with its neighbour 'kernel'");
	corrupt_expect(bad_distance, "physmem: check: distance[0][1] = 10");
	corrupt_expect(bad_local_distance, "physmem: check: distance[1][1] = 20");
	corrupt_expect(too_many_resv, "physmem: check: nr_resv 600 > 512");
	corrupt_expect(too_many_mem, "physmem: check: nr_mem 300 > 256");
	corrupt_expect(no_nodes, "physmem: check: nr_nodes 0");

	/* The original is untouched. */
	host_log_reset();
	assert_true(physmem_check(&pm));
	assert_int_equal(host_log_count(LOG_ERR), 0);
}

static void test_dump_lines(void **state)
{
	(void)state;
	assert_true(physmem_add(&pm, MiB(1), GiB(1)));
	assert_true(physmem_reserve(&pm, MiB(1), MiB(3), PHYSMEM_RESV_KERNEL));
	host_log_reset();
	physmem_dump(&pm);
	assert_true(host_log_contains("physmem: 1 memory ranges, 1 reservations, 1 nodes, 0 failed allocations"));
	assert_true(host_log_contains("physmem: memory [mem 0x0000000000100000-0x000000003fffffff] node 0"));
	assert_true(host_log_contains("physmem: reserved [mem 0x0000000000100000-0x00000000002fffff] node 0 'kernel'"));
	assert_true(host_log_contains("physmem: node 0: 1047552 KiB total, 2048 KiB reserved, 1045504 KiB free"));
	assert_true(host_log_contains("physmem: all nodes: 1047552 KiB total, 2048 KiB reserved, 1045504 KiB free"));
	assert_int_equal(host_log_count(LOG_INFO), 5);

	/* Two nodes: a line per range, reservation and node. */
	assert_true(physmem_set_node(&pm, KiB(524288), GiB(1), 1));
	assert_int_equal(physmem_alloc(&pm, MiB(2), MiB(2), 1, true, PHYSMEM_RESV_MEMMAP), GiB(1) - MiB(2));
	assert_int_equal(physmem_alloc(&pm, GiB(2), K4, 1, true, PHYSMEM_RESV_HUGETLB_1G), 0);
	host_log_reset();
	physmem_dump(&pm);
	assert_int_equal(host_log_count(LOG_INFO), 1 + 2 + 2 + 2 + 1);
	assert_true(host_log_contains("physmem: 2 memory ranges, 2 reservations, 2 nodes, 1 failed allocations"));
	assert_true(host_log_contains("physmem: memory [mem 0x0000000000100000-0x000000001fffffff] node 0"));
	assert_true(host_log_contains("physmem: memory [mem 0x0000000020000000-0x000000003fffffff] node 1"));
	assert_true(host_log_contains("physmem: reserved [mem 0x000000003fe00000-0x000000003fffffff] node 1 'memmap'"));
	assert_true(host_log_contains("physmem: node 0: 523264 KiB total, 2048 KiB reserved, 521216 KiB free"));
	assert_true(host_log_contains("physmem: node 1: 524288 KiB total, 2048 KiB reserved, 522240 KiB free"));
	assert_true(host_log_contains("physmem: all nodes: 1047552 KiB total, 4096 KiB reserved, 1043456 KiB free"));
}

/* ---- randomized, against a page bitmap model ----------------------------- */

#define R_PAGES 1024u          /* the model covers [0, 4 MiB) */
#define R_CHUNK 16u            /* memory is added and assigned to nodes in 64 KiB chunks */
#define R_MAX_USABLE 480u      /* keeps every table below its limit */
#define R_NODES 3u
#define R_TYPES 4u
#define R_OPS 10000u

static const enum physmem_resv_type r_types[R_TYPES] = {
	PHYSMEM_RESV_KERNEL, PHYSMEM_RESV_MEMMAP, PHYSMEM_RESV_PAGETABLE, PHYSMEM_RESV_PERCPU,
};

struct model {
	bool usable[R_PAGES];
	uint8_t node[R_PAGES];
	uint8_t owner[R_PAGES];   /* 0: free, else 1 + index into r_types */
};

static uint64_t rng = 0x6d656d626f6f74ULL;   /* fixed seed */

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

static uint32_t model_usable_pages(const struct model *m)
{
	uint32_t n = 0;
	for (uint32_t p = 0; p < R_PAGES; p++)
		n += m->usable[p];
	return n;
}

/* Pages [*first, *last) touched by the byte range [start, end). */
static void model_pages(uint64_t start, uint64_t end, uint64_t *first, uint64_t *last)
{
	*first = start / K4;
	*last = (end + K4 - 1) / K4;
	if (*first > R_PAGES)
		*first = R_PAGES;
	if (*last > R_PAGES)
		*last = R_PAGES;
}

static uint64_t model_alloc(const struct model *m, const struct physmem *p, uint64_t size_bytes,
			    uint64_t align_bytes, uint64_t lo, uint64_t hi, uint32_t node, bool exact)
{
	uint64_t pages = (size_bytes + K4 - 1) / K4, step = align_bytes / K4;
	uint64_t first = (lo + K4 - 1) / K4, limit = hi / K4;
	int64_t best[R_NODES];
	uint32_t pick = PHYSMEM_NO_NODE;

	if (limit > R_PAGES)
		limit = R_PAGES;
	for (uint32_t n = 0; n < R_NODES; n++) {
		best[n] = -1;
		if (limit < pages)
			continue;
		for (int64_t a = (int64_t)((limit - pages) / step * step);
		     a >= (int64_t)first && a > 0; a -= (int64_t)step) {
			bool fits = true;
			for (uint64_t q = (uint64_t)a; q < (uint64_t)a + pages && fits; q++)
				fits = m->usable[q] && m->owner[q] == 0 && m->node[q] == n;
			if (fits) {
				best[n] = a;
				break;
			}
		}
	}
	if (node == PHYSMEM_ANY_NODE) {
		for (uint32_t n = 0; n < R_NODES && pick == PHYSMEM_NO_NODE; n++)
			if (best[n] >= 0)
				pick = n;
	} else if (best[node] >= 0) {
		pick = node;
	} else if (!exact) {
		for (uint32_t n = 0; n < R_NODES; n++)
			if (best[n] >= 0 && (pick == PHYSMEM_NO_NODE ||
					     p->distance[node][n] < p->distance[node][pick]))
				pick = n;
	}
	return pick == PHYSMEM_NO_NODE ? 0 : (uint64_t)best[pick] * K4;
}

static void model_compare(const struct model *m, const struct physmem *p)
{
	static struct franges f;
	uint64_t total[R_NODES] = { 0 }, reserved[R_NODES] = { 0 }, named[R_TYPES] = { 0 };
	uint32_t nr_mem = 0, nr_resv = 0, nr_free = 0;

	assert_true(physmem_check(p));
	assert_int_equal(p->nr_nodes, R_NODES);
	memset(&f, 0, sizeof(f));
	physmem_for_each_free(p, PHYSMEM_ANY_NODE, collect, &f);

	for (uint32_t q = 0; q < R_PAGES; q++) {
		bool prev_usable = q > 0 && m->usable[q - 1];
		bool same_node = prev_usable && m->node[q - 1] == m->node[q];

		if (!m->usable[q])
			continue;
		total[m->node[q]] += K4;
		if (!same_node)
			nr_mem++;
		if (m->owner[q]) {
			reserved[m->node[q]] += K4;
			named[m->owner[q] - 1] += K4;
			if (!same_node || m->owner[q - 1] != m->owner[q])
				nr_resv++;
		} else {
			if (!same_node || m->owner[q - 1] != 0) {
				assert_true(nr_free < f.n);
				assert_int_equal(f.start[nr_free], (uint64_t)q * K4);
				assert_int_equal(f.node[nr_free], m->node[q]);
				nr_free++;
			}
			assert_true(f.end[nr_free - 1] >= (uint64_t)(q + 1) * K4);
			if (q + 1 == R_PAGES || !m->usable[q + 1] || m->owner[q + 1] ||
			    m->node[q + 1] != m->node[q])
				assert_int_equal(f.end[nr_free - 1], (uint64_t)(q + 1) * K4);
		}
	}
	assert_int_equal(f.n, nr_free);
	assert_int_equal(p->nr_mem, nr_mem);
	assert_int_equal(p->nr_resv, nr_resv);
	for (uint32_t n = 0; n < R_NODES; n++) {
		assert_int_equal(physmem_total_bytes(p, n), total[n]);
		assert_int_equal(physmem_reserved_bytes(p, n), reserved[n]);
		assert_int_equal(physmem_free_bytes(p, n), total[n] - reserved[n]);
	}
	for (uint32_t i = 0; i < R_TYPES; i++)
		assert_int_equal(physmem_reserved_bytes_of(p, r_types[i]), named[i]);
	assert_consistent(p);
}

/* A byte range near the model's pages, often unaligned, sometimes past its end. */
static void random_bytes(uint64_t max_pages, uint64_t *start, uint64_t *end)
{
	*start = rnd_below(R_PAGES + 16) * K4 + (rnd_below(2) ? rnd_below(K4) : 0);
	*end = *start + 1 + rnd_below(max_pages * K4);
}

static void test_random_against_model(void **state)
{
	static const uint8_t slit[R_NODES * R_NODES] = {
		10, 30, 20,
		30, 10, 25,
		20, 25, 10,
	};
	static struct model m;
	uint32_t adds = 0, set_nodes = 0, reserves = 0, overlaps = 0;
	uint32_t allocs = 0, alloc_fails = 0, frees = 0, free_warns = 0;

	(void)state;
	memset(&m, 0, sizeof(m));
	physmem_set_distance(&pm, R_NODES, slit);
	/* 320 pages in three ranges, spread over the three nodes. */
	assert_true(physmem_add(&pm, 0, 64 * K4));
	assert_true(physmem_add(&pm, 128 * K4, 256 * K4));
	assert_true(physmem_add(&pm, 384 * K4, 512 * K4));
	assert_true(physmem_set_node(&pm, 192 * K4, 448 * K4, 1));
	assert_true(physmem_set_node(&pm, 448 * K4, 512 * K4, 2));
	for (uint32_t q = 0; q < R_PAGES; q++) {
		m.usable[q] = q < 64 || (q >= 128 && q < 256) || (q >= 384 && q < 512);
		m.node[q] = q >= 448 ? 2 : q >= 192 ? 1 : 0;
	}
	model_compare(&m, &pm);

	for (uint32_t op = 0; op < R_OPS; op++) {
		uint64_t kind = rnd_below(100), start, end, first, last;

		host_log_reset();
		if (kind < 4) {
			/* Add a chunk-aligned range: refused if it overlaps memory. */
			uint64_t c = rnd_below(R_PAGES / R_CHUNK), len = 1 + rnd_below(4);
			bool overlap = false;

			first = c * R_CHUNK;
			last = (c + len) * R_CHUNK < R_PAGES ? (c + len) * R_CHUNK : R_PAGES;
			for (uint64_t q = first; q < last; q++)
				overlap |= m.usable[q];
			if (!overlap && model_usable_pages(&m) + (last - first) > R_MAX_USABLE)
				continue;
			assert_int_equal(physmem_add(&pm, first * K4, last * K4), !overlap);
			assert_int_equal(host_log_count(LOG_ERR), overlap);
			for (uint64_t q = first; q < last && !overlap; q++) {
				m.usable[q] = true;
				m.node[q] = 0;
				m.owner[q] = 0;
			}
			adds++;
		} else if (kind < 8) {
			/* Move a chunk-aligned range to a node. */
			uint64_t c = rnd_below(R_PAGES / R_CHUNK), len = 1 + rnd_below(8);
			uint32_t node = (uint32_t)rnd_below(R_NODES);

			first = c * R_CHUNK;
			last = (c + len) * R_CHUNK < R_PAGES ? (c + len) * R_CHUNK : R_PAGES;
			assert_true(physmem_set_node(&pm, first * K4, last * K4, node));
			for (uint64_t q = first; q < last; q++)
				if (m.usable[q])
					m.node[q] = (uint8_t)node;
			set_nodes++;
		} else if (kind < 35) {
			/* Reserve: pages already reserved keep their owner, with a warning. */
			uint32_t who = (uint32_t)rnd_below(R_TYPES);
			bool overlap = false;

			random_bytes(32, &start, &end);
			model_pages(start, end, &first, &last);
			for (uint64_t q = first; q < last; q++) {
				if (m.usable[q] && m.owner[q])
					overlap = true;
				else if (m.usable[q])
					m.owner[q] = (uint8_t)(who + 1);
			}
			assert_true(physmem_reserve(&pm, start, end, r_types[who]));
			if (overlap)
				assert_true(host_log_contains("overlaps"));
			else
				assert_int_equal(host_log_count(LOG_WARN), 0);
			overlaps += overlap;
			reserves++;
		} else if (kind < 70) {
			/* Allocate: the model predicts the exact address. */
			uint64_t size = (1 + rnd_below(16)) * K4 - (rnd_below(2) ? rnd_below(K4) : 0);
			uint64_t align = K4 << rnd_below(9);
			uint64_t lo = 0, hi = PHYSMEM_ADDR_MAX, want, got;
			uint32_t node = (uint32_t)rnd_below(R_NODES + 1);
			uint32_t who = (uint32_t)rnd_below(R_TYPES);
			bool exact = rnd_below(2);
			uint32_t failed = pm.failed_allocs;

			if (node == R_NODES)
				node = PHYSMEM_ANY_NODE;
			if (rnd_below(2)) {
				lo = rnd_below((R_PAGES + 2) * K4);
				hi = lo + 1 + rnd_below(R_PAGES * K4);
			}
			want = model_alloc(&m, &pm, size, align, lo, hi, node, exact);
			got = physmem_alloc_range(&pm, size, align, lo, hi, node, exact, r_types[who]);
			assert_int_equal(got, want);
			if (got) {
				assert_int_equal(got % align, 0);
				for (uint64_t q = got / K4; q < (got + size + K4 - 1) / K4; q++)
					m.owner[q] = (uint8_t)(who + 1);
				assert_int_equal(pm.failed_allocs, failed);
			} else {
				assert_int_equal(pm.failed_allocs, failed + 1);
				assert_true(host_log_contains("physmem: cannot allocate"));
				alloc_fails++;
			}
			allocs++;
		} else {
			/* Free: a random range, or now and then everything. */
			bool any = false;

			if (kind < 99) {
				random_bytes(64, &start, &end);
			} else {
				start = 0;
				end = R_PAGES * K4;
			}
			model_pages(start, end, &first, &last);
			for (uint64_t q = first; q < last; q++) {
				any |= m.owner[q] != 0;
				m.owner[q] = 0;
			}
			assert_true(physmem_free(&pm, start, end));
			if (any) {
				assert_int_equal(host_log_count(LOG_WARN), 0);
			} else {
				assert_true(host_log_contains("nothing reserved there"));
				free_warns++;
			}
			frees++;
		}
		model_compare(&m, &pm);
	}

	/* Every kind of operation ran often, on both of its outcomes. */
	assert_true(adds > 50);
	assert_true(set_nodes > 300);
	assert_true(reserves > 2000);
	assert_true(overlaps > 200);
	assert_true(allocs > 3000);
	assert_true(allocs - alloc_fails > 1000);
	assert_true(alloc_fails > 300);
	assert_true(frees > 2000);
	assert_true(free_warns > 50);
	print_message("random: %u adds, %u set_node, %u reserves (%u overlapping), %u allocs (%u failed), %u frees (%u of nothing)\n",
		      adds, set_nodes, reserves, overlaps, allocs, alloc_fails, frees, free_warns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_init_empty, setup),
		cmocka_unit_test_setup(test_try_alloc_is_quiet, setup),
		cmocka_unit_test_setup(test_retire_and_report, setup),
		cmocka_unit_test_setup(test_add_sorts_and_merges, setup),
		cmocka_unit_test_setup(test_add_overlap_is_ignored, setup),
		cmocka_unit_test_setup(test_add_table_full, setup),
		cmocka_unit_test_setup(test_set_node_splits_ranges, setup),
		cmocka_unit_test_setup(test_set_node_over_holes, setup),
		cmocka_unit_test_setup(test_set_node_no_slot, setup),
		cmocka_unit_test_setup(test_set_node_no_reservation_slot, setup),
		cmocka_unit_test_setup(test_set_distance, setup),
		cmocka_unit_test_setup(test_reserve_outside_memory, setup),
		cmocka_unit_test_setup(test_reserve_overlap_keeps_first_owner, setup),
		cmocka_unit_test_setup(test_reserve_merges_same_owner, setup),
		cmocka_unit_test_setup(test_resv_type_names, setup),
		cmocka_unit_test_setup(test_resv_types_kept, setup),
		cmocka_unit_test_setup(test_add_map_takes_usable_only, setup),
		cmocka_unit_test_setup(test_reserve_slot_exhaustion, setup),
		cmocka_unit_test_setup(test_alloc_exact_node, setup),
		cmocka_unit_test_setup(test_alloc_nearest_node_fallback, setup),
		cmocka_unit_test_setup(test_alloc_distance_ties_and_any_node, setup),
		cmocka_unit_test_setup(test_alloc_alignment, setup),
		cmocka_unit_test_setup(test_alloc_top_down, setup),
		cmocka_unit_test_setup(test_alloc_address_limits, setup),
		cmocka_unit_test_setup(test_alloc_never_returns_zero, setup),
		cmocka_unit_test_setup(test_free_and_realloc, setup),
		cmocka_unit_test_setup(test_for_each_free_exact, setup),
		cmocka_unit_test_setup(test_check_catches_corruption, setup),
		cmocka_unit_test_setup(test_dump_lines, setup),
		cmocka_unit_test_setup(test_random_against_model, setup),
	};

	return cmocka_run_group_tests_name("physmem", tests, NULL, NULL);
}

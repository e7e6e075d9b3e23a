/*
 * test_hugetlb.c: the huge page pools (mm/hugetlb/hugetlb.c, mm/hugetlb/pool.c):
 * request parsing through hugetlb's own key table, per-node planning, 1 GiB
 * pages reserved from physmem on their exact node (and the refusals), 2 MiB
 * pools built in parallel on simulated nodes by the kernel's job runner on
 * pthreads (tests/host/job_host.c), counts per node, take/give, running out,
 * the census of the result and the self-test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "kernel/services/cmdline.h"
#include "kernel/services/jobs/job.h"
#include "mm/alloc/alloc.h"
#include "mm/census.h"
#include "mm/hugetlb/hugetlb.h"
#include "mm/mminit.h"
#include "mm/memmap.h"
#include "mm/physmem.h"
#include "tests/host/host_support.h"
#include "tests/host/job_host.h"
#include "tests/host/sim_memmap.h"

#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

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
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_1G], 0), 2);
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_1G], 1), 3);
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_1G], 2), 0);
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
	assert_string_equal(err, "node:count pairs; '0:a' is not a pair of numbers (count up to 2^32)");
	assert_false(hugetlb_parse_pages(&c, "256:1", err, sizeof(err)));
	assert_string_equal(err, "node:count pairs; node numbers below 256; node 256 is not");
	assert_false(hugetlb_parse_pages(&c, "99999999999", err, sizeof(err)));
	assert_false(c.req[HUGETLB_2M].set);                 /* nothing half applied */
}

static void test_node_count_pairs(void **state)
{
	struct hugetlb_config c = fresh_config();
	char line[512];
	size_t used = 0;

	assert_true(hugetlb_parse_pages(&c, "3:1,0:2", err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_2M].nr_counts, 2);
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_2M], 3), 1);
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_2M], 0), 2);
	/* A node named twice is refused whole (the list rule), not the last count. */
	c = fresh_config();
	assert_false(hugetlb_parse_pages(&c, "3:1,0:2,3:7", err, sizeof(err)));
	assert_string_equal(err, "node:count pairs, each at most once; '3:7' repeats '3:1'");
	assert_false(c.req[HUGETLB_2M].set);

	/* HUGETLB_MAX_NODE_COUNTS pairs fit; one more does not. */
	for (int n = 0; n < HUGETLB_MAX_NODE_COUNTS; n++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%d:%d",
					 used ? "," : "", n * 7, n + 1);
	c = fresh_config();
	assert_true(hugetlb_parse_pages(&c, line, err, sizeof(err)));
	assert_int_equal(c.req[HUGETLB_2M].nr_counts, HUGETLB_MAX_NODE_COUNTS);
	assert_int_equal(hugetlb_request_count(&c.req[HUGETLB_2M], 7 * 31), 32);
	snprintf(line + used, sizeof(line) - used, ",255:1");
	c = fresh_config();
	assert_false(hugetlb_parse_pages(&c, line, err, sizeof(err)));
	assert_string_equal(err, "node:count pairs; at most 32 items");
	assert_false(c.req[HUGETLB_2M].set);
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

	r.counts[0] = (struct hugetlb_node_count){ 9, 1 };   /* no such node */
	r.counts[1] = (struct hugetlb_node_count){ 0, 2 };
	r.counts[2] = (struct hugetlb_node_count){ 5, 1 };   /* no such node, the lowest */
	r.counts[3] = (struct hugetlb_node_count){ 1, 4 };   /* no memory: planned, the pool
								 reports the failure */
	r.nr_counts = 4;
	assert_int_equal(hugetlb_plan(&r, 2, mem, out, &bad), 6);
	assert_int_equal(bad, 5);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 4);
	assert_int_equal(out[5], 0);
}

/* --- hugetlb's own keys ----------------------------------------------------- */

static struct cmdline_result parse_keys(const char *line)
{
	const struct param_table *const tables[] = { &hugetlb_param_table };

	hugetlb_settings = (struct hugetlb_settings){ .config = HUGETLB_CONFIG_INIT };
	host_log_reset();
	return cmdline_parse_tables(line, tables, 1);
}

static void test_keys_in_own_table(void **state)
{
	struct cmdline_result r;

	assert_string_equal(hugetlb_param_table.owner, "hugetlb");
	assert_int_equal(hugetlb_param_table.count, 4);
	r = parse_keys("hugepagesz=1G hugepages=1 hugepagesz=3G hugepages=4");
	assert_int_equal(r.words, 4);
	assert_int_equal(r.applied, 2);
	assert_int_equal(r.invalid, 2);
	assert_true(host_log_contains("cmdline: bad value '3G' for 'hugepagesz'"));
	assert_true(host_log_contains("cmdline: bad value '4' for 'hugepages' (expected a valid "
				      "hugepagesz= before it; it follows an invalid one, so it is "
				      "ignored); keeping the default"));
	assert_int_equal(hugetlb_settings.config.req[HUGETLB_1G].total, 1);
	assert_false(hugetlb_settings.config.req[HUGETLB_2M].set);
	assert_false(hugetlb_settings.zero);

	r = parse_keys("hugepages=2 default_hugepagesz=1G memboot.hugetlb_zero");
	assert_int_equal(r.applied, 3);
	assert_int_equal(r.unknown, 0);
	assert_int_equal(hugetlb_settings.config.req[HUGETLB_1G].total, 2);
	assert_false(hugetlb_settings.config.req[HUGETLB_2M].set);
	assert_true(hugetlb_settings.zero);

	/* Keys of other subsystems are not hugetlb's. */
	r = parse_keys("memboot.trace hugepages=3");
	assert_int_equal(r.unknown, 1);
	assert_int_equal(hugetlb_settings.config.req[HUGETLB_2M].total, 3);
}

/* --- tables the pools take ---------------------------------------------------- */

#define MAX_TABLES 64
static void *tables[MAX_TABLES];
static uint32_t nr_tables, table_budget;

/* malloc, up to table_budget tables: then NULL, as a full machine would. */
static void *table_alloc(void *ctx, size_t bytes, uint32_t node)
{
	if (nr_tables >= table_budget || nr_tables >= MAX_TABLES)
		return NULL;
	tables[nr_tables] = malloc(bytes);
	return tables[nr_tables++];
}

static void free_tables(void)
{
	for (uint32_t i = 0; i < nr_tables; i++)
		free(tables[i]);
	nr_tables = 0;
	table_budget = MAX_TABLES;
}

static struct hugetlb_config config_of(const char *line)
{
	parse_keys(line);
	return hugetlb_settings.config;
}

/* --- 1 GiB pages from physmem ------------------------------------------------- */

/*
 * Node 0: [0, 2 GiB) with page 0 and a firmware page at 1.5 GiB reserved:
 * no whole aligned GiB is free. Node 1: [4 GiB, 6 GiB): two. Node 2:
 * [6 GiB, 6.5 GiB): less than one.
 */
static struct physmem pm;
static const bool three_with_mem[3] = { true, true, true };

static void gigantic_machine(void)
{
	physmem_init(&pm);
	assert_true(physmem_add(&pm, 0, GiB(2)));
	assert_true(physmem_add(&pm, GiB(4), GiB(6) + MiB(512)));
	assert_true(physmem_set_node(&pm, 0, GiB(2), 0));
	assert_true(physmem_set_node(&pm, GiB(4), GiB(6), 1));
	assert_true(physmem_set_node(&pm, GiB(6), GiB(6) + MiB(512), 2));
	assert_true(physmem_reserve(&pm, 0, 4096, PHYSMEM_RESV_PAGE0));
	assert_true(physmem_reserve(&pm, GiB(1) + MiB(512), GiB(1) + MiB(512) + 4096,
				    PHYSMEM_RESV_KERNEL));
	free_tables();
}

static void test_gigantic_on_exact_node_and_refusals(void **state)
{
	struct hugetlb_pools hp;
	struct hugetlb_config c = config_of("hugepagesz=1G hugepages=0:1,1:3,2:1");

	gigantic_machine();
	host_log_reset();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, true, &pm, table_alloc, NULL));
	const struct hugetlb_pool *p0 = &hp.nodes[0].pool[HUGETLB_1G];
	const struct hugetlb_pool *p1 = &hp.nodes[1].pool[HUGETLB_1G];
	const struct hugetlb_pool *p2 = &hp.nodes[2].pool[HUGETLB_1G];
	/* Node 0 and node 2 have no whole aligned GiB: nothing, never a page
	 * of node 1 instead. Node 1 gives the two it has. */
	assert_int_equal(p0->requested, 1);
	assert_int_equal(p0->total, 0);
	assert_int_equal(p2->requested, 1);
	assert_int_equal(p2->total, 0);
	assert_int_equal(p1->requested, 3);
	assert_int_equal(p1->total, 2);
	assert_int_equal(p1->nr_free, 2);
	uint64_t a = p1->pfns[0] << 12, b = p1->pfns[1] << 12;
	assert_true((a == GiB(4) && b == GiB(5)) || (a == GiB(5) && b == GiB(4)));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_HUGETLB_1G), GiB(2));
	assert_int_equal(physmem_free_bytes(&pm, 1), 0);
	assert_int_equal(hp.gigantic_pages, 2ULL << 18);
	assert_true(host_log_contains("HugeTLB: allocating 1 of page size 1.00 GiB failed node0.  "
				      "Only allocated 0 hugepages."));
	assert_true(host_log_contains("HugeTLB: allocating 3 of page size 1.00 GiB failed node1.  "
				      "Only allocated 2 hugepages."));
	assert_true(host_log_contains("failed node2."));
	/* The per-node table is for the three nodes there are, not 256. */
	assert_int_equal(hp.nr_nodes, 3);
	free_tables();
}

static void test_gigantic_spread_and_unknown_node(void **state)
{
	struct hugetlb_pools hp;
	struct hugetlb_config c = config_of("hugepagesz=1G hugepages=4");
	const bool mem[3] = { false, true, false };

	/* A spread request goes to the nodes with memory only: all 4 to node 1. */
	gigantic_machine();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, mem, true, &pm, table_alloc, NULL));
	assert_int_equal(hp.nodes[0].pool[HUGETLB_1G].requested, 0);
	assert_int_equal(hp.nodes[1].pool[HUGETLB_1G].requested, 4);
	assert_int_equal(hp.nodes[1].pool[HUGETLB_1G].total, 2);
	free_tables();

	/* A node that does not exist: named, and that part dropped. */
	c = config_of("hugepagesz=1G hugepages=1:1,7:1");
	gigantic_machine();
	host_log_reset();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, true, &pm, table_alloc, NULL));
	assert_true(host_log_contains("hugepages= names node 7, but there are 3 nodes"));
	assert_int_equal(hp.nodes[1].pool[HUGETLB_1G].total, 1);
	free_tables();
}

static void test_gigantic_without_cpu_support_or_tables(void **state)
{
	struct hugetlb_pools hp;
	struct hugetlb_config c = config_of("hugepagesz=1G hugepages=1:1");

	gigantic_machine();
	host_log_reset();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, false, &pm, table_alloc, NULL));
	assert_true(host_log_contains("this CPU has no 1 GiB pages"));
	assert_int_equal(hp.nodes[1].pool[HUGETLB_1G].total, 0);
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_HUGETLB_1G), 0);
	assert_int_equal(hp.gigantic_pages, 0);
	free_tables();

	/* No memory for the tables: every pool empty, nothing reserved. */
	gigantic_machine();
	table_budget = 0;
	host_log_reset();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_false(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, true, &pm, table_alloc, NULL));
	assert_null(hp.nodes);
	assert_true(host_log_contains("no memory for the pool tables"));
	assert_int_equal(physmem_reserved_bytes_of(&pm, PHYSMEM_RESV_HUGETLB_1G), 0);
	assert_int_equal(hugetlb_pool_take(&hp, 1, HUGETLB_1G), ALLOC_NO_PFN);
	assert_int_equal(hugetlb_pool_total(&hp), 0);
	free_tables();

	/* No request: no table taken at all. */
	c = config_of("");
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, true, &pm, table_alloc, NULL));
	assert_null(hp.nodes);
	assert_int_equal(nr_tables, 0);
}

static bool all_bytes(const void *p, uint8_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const uint8_t *)p)[i] != v)
			return false;
	return true;
}

static void test_gigantic_heads_only(void **state)
{
	struct hugetlb_pools hp;
	struct hugetlb_config c = config_of("hugepagesz=1G hugepages=1:2");
	struct memmap_node node1;
	const uint64_t start_pfn = GiB(4) >> 12, pages = GiB(2) >> 12;
	void *desc = malloc(memmap_desc_bytes(pages));

	gigantic_machine();
	hugetlb_pools_init(&hp, 3, 0, 0);
	assert_true(hugetlb_reserve_gigantic(&hp, &c, three_with_mem, true, &pm, table_alloc, NULL));
	assert_int_equal(hp.nodes[1].pool[HUGETLB_1G].total, 2);
	memset(desc, 0xa5, memmap_desc_bytes(pages));
	memmap_node_init(&node1, 1, start_pfn, pages, desc);
	hugetlb_mark_gigantic(&hp, &node1, 1);
	hugetlb_mark_gigantic(&hp, &node1, 0);     /* node 0's pool is empty: nothing */
	hugetlb_mark_gigantic(&hp, &node1, 9);     /* no such node: nothing */
	for (uint64_t pfn = start_pfn; pfn < start_pfn + pages; pfn += 1ULL << 18) {
		const struct page *head = memmap_page(&node1, pfn);
		assert_int_equal(head->type, PAGE_HUGE);
		assert_int_equal(head->order, HUGETLB_GIGANTIC_ORDER);
		/* The 262143 tails are never written. */
		assert_true(all_bytes(memmap_page(&node1, pfn + 1), 0xa5,
				      memmap_desc_bytes((1ULL << 18) - 1)));
	}
	free(desc);
	free_tables();
}

/* --- 2 MiB pools on simulated nodes -------------------------------------------- */

/* The three-node machine of test_init (sim_memmap.h): node 0 has a hole,
 * node 2 has no CPUs. */
#define NR_USABLE SIM3_NR_USABLE
#define NR_NODES SIM3_NR_NODES
#define TOP SIM3_TOP_PFN

static struct memmap mm;
static memmap_nid_t *nid_table;
static struct page *arrays[NR_NODES];
static void *alloc_mem[8];
static uint32_t nr_alloc_mem;
static struct mminit mi;
static struct mminit_node mi_nodes[NR_NODES];
/* The simulated physical memory: pool pages are written (self-test). */
static uint8_t *ram;

static uint64_t reserve(void *ctx, uint64_t bytes, uint32_t node)
{
	void *p = malloc(bytes);
	alloc_mem[nr_alloc_mem++] = p;
	return (uint64_t)(uintptr_t)p;
}

/* Every usable page free in the allocator, as after memory init. */
static void machine_start(void)
{
	struct mminit_config cfg = { .policy = MMINIT_SERIAL, .boot_node = 0 };

	sim_memmap_build(&mm, &nid_table, arrays, sim3_span, NR_NODES, sim3_usable, NR_USABLE, TOP);
	nr_alloc_mem = 0;
	struct alloc_setup setup = { .mm = &mm, .nr_nodes = NR_NODES, .reserve = reserve };
	assert_true(alloc_init(alloc_find("buddy"), &setup, NULL));
	mminit_start(&mi, mi_nodes, &mm, NR_NODES, &cfg);
	for (int i = 0; i < NR_USABLE; i++)
		assert_true(mminit_add_free(&mi, sim3_usable[i].node, sim3_usable[i].start_pfn,
					    sim3_usable[i].end_pfn));
	sim_memmap_mark_holes(&mi, NR_NODES, sim3_usable, NR_USABLE);
	mminit_run(&mi, NULL, NULL);
	/* Reserved address space only: the pages the tests write get memory. */
	ram = mmap(NULL, TOP << 12, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(ram != MAP_FAILED);
	free_tables();
}

static void machine_stop(void)
{
	munmap(ram, TOP << 12);
	for (uint32_t i = 0; i < nr_alloc_mem; i++)
		free(alloc_mem[i]);
	sim_memmap_free(nid_table, arrays, NR_NODES);
	free_tables();
}

static uint64_t usable_pages(void)
{
	uint64_t n = 0;
	for (int i = 0; i < NR_USABLE; i++)
		n += sim3_usable[i].end_pfn - sim3_usable[i].start_pfn;
	return n;
}

static void build(struct hugetlb_pools *hp, const char *line, bool zero)
{
	struct hugetlb_config c = config_of(line);

	hugetlb_pools_init(hp, NR_NODES, (uintptr_t)ram, 0);
	assert_true(hugetlb_reserve_gigantic(hp, &c, three_with_mem, true, NULL, table_alloc, NULL));
	host_log_reset();
	hugetlb_build_pools(hp, &c, zero, three_with_mem, &mm, table_alloc, NULL);
}

/* Every pool page is a huge head of its own node, naturally aligned, once. */
static void check_pool_pages(const struct hugetlb_pools *hp)
{
	for (uint32_t n = 0; n < NR_NODES; n++) {
		const struct hugetlb_pool *p = &hp->nodes[n].pool[HUGETLB_2M];
		for (uint64_t i = 0; i < p->nr_free; i++) {
			uint64_t pfn = p->pfns[i];
			const struct page *pg = memmap_pfn_to_page(&mm, pfn);
			assert_int_equal(pfn & 511, 0);
			assert_int_equal(memmap_nid_of_pfn(&mm, pfn), n);
			assert_int_equal(pg->type, PAGE_HUGE);
			assert_int_equal(pg->order, HUGETLB_HUGE_ORDER);
			for (uint64_t j = 0; j < i; j++)
				assert_true(p->pfns[j] != pfn);
		}
	}
}

static void census_check(uint64_t huge_pages)
{
	struct census_input in = { .mm = &mm, .ranges = sim3_usable, .nr_ranges = NR_USABLE };
	struct census c;

	assert_true(census_take(&in, "test", &c));
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.counts[PAGE_HUGE], huge_pages);
	assert_int_equal(c.counts[PAGE_FREE] + c.counts[PAGE_HUGE], usable_pages());
}

static void test_2m_pools_in_parallel_per_node(void **state)
{
	struct hugetlb_pools hp;

	machine_start();
	/* 20 spread over three nodes: 7, 7, 6. */
	build(&hp, "hugepages=20", false);
	assert_int_equal(hp.nodes[0].pool[HUGETLB_2M].requested, 7);
	assert_int_equal(hp.nodes[1].pool[HUGETLB_2M].requested, 7);
	assert_int_equal(hp.nodes[2].pool[HUGETLB_2M].requested, 6);
	for (uint32_t n = 0; n < NR_NODES; n++) {
		const struct hugetlb_pool *p = &hp.nodes[n].pool[HUGETLB_2M];
		assert_int_equal(p->total, p->requested);
		assert_int_equal(p->nr_free, p->total);
		assert_false(p->zeroed);
		/* Each node's own CPUs ran its chunks; node 2 has none: the caller. */
		assert_true(p->nr_times >= 1);
		assert_true(p->threads >= 1 && p->threads <= p->cpus);
		for (uint32_t i = 0; i < p->nr_times; i++) {
			uint32_t cpu = p->times[i].cpu;
			if (n == 2)
				assert_int_equal(cpu, 0);
			else
				assert_int_equal(sim3_cpu_nodes[cpu], n);
		}
		assert_int_equal(hp.nodes[n].pool[HUGETLB_1G].total, 0);
	}
	assert_int_equal(hp.nodes[2].pool[HUGETLB_2M].cpus, 1);
	check_pool_pages(&hp);
	assert_int_equal(hugetlb_pool_free(&hp, HUGETLB_2M), 20);
	assert_int_equal(hugetlb_pool_total(&hp), 20);
	census_check(20 * 512);

	/* One line and one record per pool, from one call. */
	host_log_reset();
	hugetlb_report(&hp, false);
	assert_true(host_log_contains("HugeTLB: node 1: 7 of 7 2.00 MiB pages in "));
	assert_true(host_log_contains("HugeTLB: node 2: 6 of 6 2.00 MiB pages in "));
	assert_true(host_log_contains("MEMBOOT {\"event\":\"hugetlb\",\"node\":2,"
				      "\"size_bytes\":2097152,\"requested\":6,\"allocated\":6,"));
	assert_int_equal(host_log_total(), 6);

	/* memboot.trace: each pool's chunks and pages too. */
	host_log_reset();
	hugetlb_report(&hp, true);
	size_t chunks = 0, pages = 0;
	for (size_t i = 0; i < host_log_total(); i++) {
		const char *l = host_log_line(i);
		chunks += strstr(l, "{\"event\":\"chunk\",\"job\":\"hugetlb\",") != NULL;
		pages += strstr(l, "{\"event\":\"huge_page\",") != NULL;
	}
	assert_int_equal(pages, 20);
	assert_int_equal(chunks, hp.nodes[0].pool[HUGETLB_2M].nr_times +
				 hp.nodes[1].pool[HUGETLB_2M].nr_times +
				 hp.nodes[2].pool[HUGETLB_2M].nr_times);
	assert_true(chunks >= 3);
	machine_stop();
}

static void test_take_give_round_trip(void **state)
{
	struct hugetlb_pools hp;
	uint64_t got[8];

	machine_start();
	build(&hp, "hugepages=0:2,2:3", false);
	/* Node 1 has none: its nearest by id, node 2 (1 + 1) before node 0. */
	for (int i = 0; i < 3; i++) {
		got[i] = hugetlb_pool_take(&hp, 1, HUGETLB_2M);
		assert_int_equal(memmap_nid_of_pfn(&mm, got[i]), 2);
	}
	got[3] = hugetlb_pool_take(&hp, 1, HUGETLB_2M);
	assert_int_equal(memmap_nid_of_pfn(&mm, got[3]), 0);
	got[4] = hugetlb_pool_take(&hp, 0, HUGETLB_2M);
	assert_int_equal(memmap_nid_of_pfn(&mm, got[4]), 0);
	/* Running out: every pool empty, of either size. */
	assert_int_equal(hugetlb_pool_take(&hp, 0, HUGETLB_2M), ALLOC_NO_PFN);
	assert_int_equal(hugetlb_pool_take(&hp, 2, HUGETLB_1G), ALLOC_NO_PFN);
	assert_int_equal(hugetlb_pool_free(&hp, HUGETLB_2M), 0);
	/* Back to their own nodes' pools, whoever took them. */
	for (int i = 0; i < 5; i++)
		hugetlb_pool_give(&hp, got[i], HUGETLB_2M);
	assert_int_equal(hp.nodes[0].pool[HUGETLB_2M].nr_free, 2);
	assert_int_equal(hp.nodes[1].pool[HUGETLB_2M].nr_free, 0);
	assert_int_equal(hp.nodes[2].pool[HUGETLB_2M].nr_free, 3);
	check_pool_pages(&hp);
	census_check(5 * 512);
	machine_stop();
}

static void test_more_than_fits_takes_what_fits_on_that_node(void **state)
{
	struct hugetlb_pools hp;

	machine_start();
	/* Node 2 is [0x40000, 0x48000): 64 pages of 2 MiB, no more. */
	build(&hp, "hugepages=2:100", true);
	const struct hugetlb_pool *p = &hp.nodes[2].pool[HUGETLB_2M];
	assert_int_equal(p->requested, 100);
	assert_int_equal(p->total, 64);
	assert_true(p->zeroed);
	assert_true(host_log_contains("HugeTLB: allocating 100 of page size 2.00 MiB failed node2.  "
				      "Only allocated 64 hugepages."));
	/* Never a page of another node. */
	assert_int_equal(hp.nodes[0].pool[HUGETLB_2M].total, 0);
	assert_int_equal(hp.nodes[1].pool[HUGETLB_2M].total, 0);
	check_pool_pages(&hp);
	census_check(64 * 512);
	assert_int_equal(alloc_pages(2, 0, ALLOC_THISNODE), ALLOC_NO_PFN);
	machine_stop();
}

static void test_selftest_on_every_cpu(void **state)
{
	struct hugetlb_pools hp;

	machine_start();
	build(&hp, "hugepages=12", false);
	struct hugetlb_taken *scratch = malloc(hugetlb_selftest_bytes(&hp));
	host_log_reset();
	assert_true(hugetlb_selftest(&hp, scratch));
	assert_true(host_log_contains("{\"event\":\"hugetlb_test\",\"pages\":12,\"taken\":12,"
				      "\"errors\":0,\"free_after\":12}"));
	/* A page that is not a huge head of its pool's node is an error. */
	uint64_t pfn = hp.nodes[1].pool[HUGETLB_2M].pfns[0];
	memmap_pfn_to_page(&mm, pfn)->type = PAGE_ALLOCATED;
	host_log_reset();
	assert_false(hugetlb_selftest(&hp, scratch));
	assert_true(host_log_contains("\"errors\":1,"));
	memmap_pfn_to_page(&mm, pfn)->type = PAGE_HUGE;
	free(scratch);
	machine_stop();
}

static int cpus_up(void **state)
{
	job_host_start(4, sim3_cpu_nodes);
	table_budget = MAX_TABLES;
	return 0;
}

static int cpus_down(void **state)
{
	job_host_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_sequence_of_words),
		cmocka_unit_test(test_invalid_pagesz_makes_next_pages_ignored),
		cmocka_unit_test(test_default_pagesz_in_any_position),
		cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_node_count_pairs),
		cmocka_unit_test(test_plan_spread_round_robin),
		cmocka_unit_test(test_plan_per_node_and_unknown_node),
		cmocka_unit_test(test_keys_in_own_table),
		cmocka_unit_test(test_gigantic_on_exact_node_and_refusals),
		cmocka_unit_test(test_gigantic_spread_and_unknown_node),
		cmocka_unit_test(test_gigantic_without_cpu_support_or_tables),
		cmocka_unit_test(test_gigantic_heads_only),
		cmocka_unit_test(test_2m_pools_in_parallel_per_node),
		cmocka_unit_test(test_take_give_round_trip),
		cmocka_unit_test(test_more_than_fits_takes_what_fits_on_that_node),
		cmocka_unit_test(test_selftest_on_every_cpu),
	};
	return cmocka_run_group_tests(tests, cpus_up, cpus_down);
}

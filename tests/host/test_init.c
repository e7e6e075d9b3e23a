/*
 * test_init.c: the init-policy engine (mm/mminit.c) and the census
 * (mm/census.c) on the host, with the kernel's job runner on simulated CPUs
 * (tests/host/job_host.c): serial, deferred and lazy x threads 1, node, all
 * and N, on three nodes (one without CPUs) with a hole and reserved ranges;
 * deferred growth on demand; both allocators; and a census that names a
 * lost page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>

#include <cmocka.h>

#include "kernel/services/jobs/job.h"
#include "mm/alloc/alloc.h"
#include "mm/census.h"
#include "mm/mminit.h"
#include "kernel/services/jobs/platform.h"
#include "mm/memmap.h"
#include "tests/host/host_support.h"
#include "tests/host/job_host.h"
#include "tests/host/sim_memmap.h"

/* The shared three-node machine (sim_memmap.h): node 0 has a hole, node 2
 * has no CPUs; 4 CPUs (sim3_cpu_nodes), two on node 0 (the caller is CPU 0)
 * and two on node 1. */
#define NR_USABLE SIM3_NR_USABLE
#define NR_NODES SIM3_NR_NODES
/* Early reservations on node 0. */
#define RESV_PAGES 0x100      /* [0x100, 0x200): reserved */
#define MEMMAP_PAGES 0x100    /* [0x200, 0x300): descriptors */
#define TOP SIM3_TOP_PFN

static struct memmap mm;
static memmap_nid_t *table;
static struct page *arrays[NR_NODES];
static void *reserved_mem[NR_NODES + 1];   /* each node's, and the allocator's state */
static uint32_t nr_reserved_mem;
static struct mminit mi;
static struct mminit_node mi_nodes[NR_NODES];

static uint64_t reserve(void *ctx, uint64_t bytes, uint32_t node)
{
	void *p = malloc(bytes);
	reserved_mem[nr_reserved_mem++] = p;
	return (uint64_t)(uintptr_t)p;
}


static uint64_t total_free(void)
{
	uint64_t n = 0;
	for (int i = 0; i < NR_USABLE; i++)
		n += sim3_usable[i].end_pfn - sim3_usable[i].start_pfn;
	return n - RESV_PAGES - MEMMAP_PAGES;
}

/* The machine, the allocator, and the engine's inputs, as the kernel's
 * meminit phase gives them. */
static void start(const char *alloc_name, const struct mminit_config *cfg)
{
	sim_memmap_build(&mm, &table, arrays, sim3_span, NR_NODES, sim3_usable, NR_USABLE, TOP);
	nr_reserved_mem = 0;
	struct alloc_setup setup = { .mm = &mm, .nr_nodes = NR_NODES, .reserve = reserve };
	assert_true(alloc_init(alloc_find(alloc_name), &setup, NULL));

	mminit_start(&mi, mi_nodes, &mm, NR_NODES, cfg);
	for (int i = 0; i < NR_USABLE; i++) {
		uint64_t s = sim3_usable[i].start_pfn;
		if (s == 0x100)
			s += RESV_PAGES + MEMMAP_PAGES;
		assert_true(mminit_add_free(&mi, sim3_usable[i].node, s, sim3_usable[i].end_pfn));
	}
	mminit_write_fixed(&mi, 0, 0x100, 0x200, PAGE_RESERVED);
	mminit_write_fixed(&mi, 0, 0x200, 0x300, PAGE_MEMMAP);
	sim_memmap_mark_holes(&mi, NR_NODES, sim3_usable, NR_USABLE);
}

static void stop(void)
{
	for (uint32_t i = 0; i < nr_reserved_mem; i++)
		free(reserved_mem[i]);
	sim_memmap_free(table, arrays, NR_NODES);
}

static bool census(struct census *c)
{
	struct census_input in = { .mm = &mm, .ranges = sim3_usable, .nr_ranges = NR_USABLE,
				   .fixed_pages = RESV_PAGES + MEMMAP_PAGES };
	return census_take(&in, "test", c);
}

static void check_done(const struct mminit_config *cfg)
{
	struct census c;

	assert_true(census(&c));
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.counts[PAGE_FREE], total_free());
	assert_int_equal(c.counts[PAGE_RESERVED], RESV_PAGES);
	assert_int_equal(c.counts[PAGE_MEMMAP], MEMMAP_PAGES);
	assert_int_equal(c.hole, 0x100 + 0x1000);
	assert_int_equal(c.pages, TOP);
	assert_int_equal(alloc_free_count(), total_free());
	assert_true(alloc_check());
	for (uint32_t n = 0; n < NR_NODES; n++) {
		const struct mminit_node *w = &mi.nodes[n];
		assert_int_equal(w->nr_todo, 0);
		assert_int_equal(mminit_done_pages(&mi, n), w->free_pages);
		if (cfg->policy == MMINIT_SERIAL) {
			assert_int_equal(w->threads, 1);
			assert_int_equal(w->parallel_pages, 0);
		} else if (n != cfg->boot_node) {
			assert_int_equal(w->early_pages, 0);
		}
	}
	/* Every free page can be had, once. */
	uint64_t got = 0;
	while (alloc_pages(0, 0, 0) != ALLOC_NO_PFN)
		got++;
	assert_int_equal(got, total_free());
}

/*
 * Each node's usable time: its first piece of work no earlier than the
 * phase start, wait + work = usable, every chunk (and the boot CPU's early
 * section) inside [first, end], and the latest node's end before the phase
 * returned: after the last node's work, before anything that follows.
 */
static void check_usable(uint64_t phase_start, uint64_t phase_end)
{
	uint64_t last_end = 0;

	for (uint32_t n = 0; n < NR_NODES; n++) {
		const struct mminit_node *w = &mi.nodes[n];
		struct mminit_usable u;

		mminit_node_usable(w, phase_start, &u);
		assert_true(u.first_ticks >= phase_start);
		assert_true(u.end_ticks >= u.first_ticks && u.end_ticks <= phase_end);
		assert_int_equal(u.wait_ticks, u.first_ticks - phase_start);
		assert_int_equal(u.work_ticks, u.end_ticks - u.first_ticks);
		assert_int_equal(u.wait_ticks + u.work_ticks, u.usable_ticks);
		assert_int_equal(u.usable_ticks, u.end_ticks - phase_start);
		for (uint32_t i = 0; i < w->nr_chunks && i < MMINIT_TRACE_CHUNKS; i++) {
			assert_true(w->chunks[i].start_ticks >= u.first_ticks);
			assert_true(w->chunks[i].start_ticks + w->chunks[i].ns <= u.end_ticks);
			assert_true(w->chunks[i].end_ticks >= w->chunks[i].start_ticks);
			assert_true(w->chunks[i].end_ticks <= w->end_ticks);
		}
		if (w->early_pages && w->parallel_pages) {
			assert_int_equal(u.first_ticks, w->early_start_ticks);
			assert_true(u.end_ticks >= w->early_end_ticks);
			assert_true(u.end_ticks >= w->end_ticks);
		}
		last_end = u.end_ticks > last_end ? u.end_ticks : last_end;
	}
	assert_true(last_end > phase_start && last_end <= phase_end);
}

/* A node whose work started before the phase's own clock read, one with
 * nothing to do, and the early section growing after the chunks ended. */
static void test_usable_edges(void **state)
{
	struct mminit_node w = { 0 };
	struct mminit_usable u;

	mminit_node_usable(&w, 100, &u);
	assert_int_equal(u.usable_ticks, 0);
	assert_int_equal(u.end_ticks, 0);
	w = (struct mminit_node){ .start_ticks = 150, .end_ticks = 170,
				  .early_start_ticks = 120, .early_end_ticks = 180 };
	mminit_node_usable(&w, 100, &u);
	assert_int_equal(u.first_ticks, 120);
	assert_int_equal(u.end_ticks, 180);
	assert_int_equal(u.wait_ticks, 20);
	assert_int_equal(u.work_ticks, 60);
	assert_int_equal(u.usable_ticks, 80);
	w = (struct mminit_node){ .start_ticks = 90, .end_ticks = 130 };
	mminit_node_usable(&w, 100, &u);
	assert_int_equal(u.wait_ticks, 0);
	assert_int_equal(u.usable_ticks, 30);
}

static int64_t test_offset_none(uint32_t cpu, void *ctx)
{
	(void)cpu;
	(void)ctx;
	return 0;
}

/* CPU 1 ran 500 ticks ahead and CPU 2 300 behind (what the TSC check,
 * which runs after memory init, finds); the others agree. */
static int64_t test_offset(uint32_t cpu, void *ctx)
{
	(void)ctx;
	return cpu == 1 ? 500 : cpu == 2 ? -300 : 0;
}

/* The APs' chunk times moved into the boot CPU's clock after the work, each
 * node's first start and last end recomputed from them, and every ns figure
 * converted again from ticks (the work ran on a quick clock estimate: here
 * the ns left by it are wrong on purpose). */
static void test_correct_ticks(void **state)
{
	static struct mminit_node nodes[3];
	struct mminit m = { .nr_nodes = 3, .nodes = nodes };
	struct mminit_usable u;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	/* Node 0: CPU 1's chunk read first (1550) but began at 1050, after
	 * CPU 0's (1100); it ended last in its own clock (2600 -> 2100), CPU 0's
	 * at 2000. */
	nodes[0].chunks[0] = (struct job_chunk_time){ .cpu = 1, .start_ticks = 1550, .end_ticks = 2600,
						      .ns = 1 };
	nodes[0].chunks[1] = (struct job_chunk_time){ .cpu = 0, .start_ticks = 1100, .end_ticks = 2000,
						      .ns = 2 };
	nodes[0].nr_chunks = 2;
	nodes[0].start_ticks = 1100;      /* as measured: min and max of the raw */
	nodes[0].end_ticks = 2600;
	nodes[0].ns = 1500;
	nodes[0].early_ticks = 40;
	nodes[0].early_ns = 3;
	/* Node 1: only CPU 2, behind: both its times move later. */
	nodes[1].chunks[0] = (struct job_chunk_time){ .cpu = 2, .start_ticks = 700, .end_ticks = 900 };
	nodes[1].nr_chunks = 1;
	nodes[1].start_ticks = 700;
	nodes[1].end_ticks = 900;
	nodes[1].ns = 200;
	/* Node 2: more chunks than are kept, one of the kept on CPU 1: its
	 * figures cannot be recomputed and stay; the kept times still move. */
	nodes[2].nr_chunks = MMINIT_TRACE_CHUNKS + 1;
	for (uint32_t i = 0; i < MMINIT_TRACE_CHUNKS; i++)
		nodes[2].chunks[i] = (struct job_chunk_time){ .cpu = i == 7 ? 1 : 3,
							      .start_ticks = 5000 + i, .end_ticks = 6000 + i };
	nodes[2].start_ticks = 5000;
	nodes[2].end_ticks = 7000;
	nodes[2].ns = 7;                  /* converted again from 5000..7000 */

	assert_int_equal(mminit_retime(&m, test_offset, NULL), 1);
	assert_int_equal(nodes[0].chunks[0].start_ticks, 1050);
	assert_int_equal(nodes[0].chunks[0].end_ticks, 2100);
	assert_int_equal(nodes[0].chunks[1].start_ticks, 1100);
	assert_int_equal(nodes[0].chunks[0].ns, 1050);
	assert_int_equal(nodes[0].chunks[1].ns, 900);
	assert_int_equal(nodes[0].early_ns, 40);
	assert_int_equal(nodes[0].start_ticks, 1050);
	assert_int_equal(nodes[0].end_ticks, 2100);
	assert_int_equal(nodes[0].ns, 1050);
	assert_int_equal(nodes[1].start_ticks, 1000);
	assert_int_equal(nodes[1].end_ticks, 1200);
	assert_int_equal(nodes[1].ns, 200);
	assert_int_equal(nodes[2].chunks[7].start_ticks, 4507);
	assert_int_equal(nodes[2].chunks[8].start_ticks, 5008);
	assert_int_equal(nodes[2].start_ticks, 5000);
	assert_int_equal(nodes[2].end_ticks, 7000);
	assert_int_equal(nodes[2].ns, 2000);
	/* The usable figures follow: node 0 waited 50 after a phase start of
	 * 1000 and was usable at 2100. */
	mminit_node_usable(&nodes[0], 1000, &u);
	assert_int_equal(u.wait_ticks, 50);
	assert_int_equal(u.usable_ticks, 1100);
	/* Nothing to move: nothing changes, nothing is inexact. */
	assert_int_equal(mminit_retime(&m, test_offset_none, NULL), 0);
	assert_int_equal(nodes[0].start_ticks, 1050);
	assert_int_equal(nodes[2].end_ticks, 7000);
}

struct matrix_case {
	enum mminit_policy policy;
	uint32_t max_threads;
	bool all;
	/* the most threads nodes 0, 1, 2 may use in the parallel part (threads
	 * counts the CPUs that ran a chunk: a CPU slow to wake may get none) */
	uint32_t threads[NR_NODES];
};

static void run_case(const struct matrix_case *k, const char *alloc_name)
{
	struct mminit_config cfg = { .policy = k->policy, .max_threads = k->max_threads,
				     .all_cpus = k->all, .early_pages = 4096, .boot_node = 0,
				     .trace = true };

	start(alloc_name, &cfg);
	uint64_t phase_start = job_platform_ticks();
	mminit_run(&mi, NULL, NULL);
	uint64_t phase_end = job_platform_ticks();
	check_usable(phase_start, phase_end);
	for (uint32_t n = 0; n < NR_NODES; n++) {
		if (k->policy == MMINIT_SERIAL)
			assert_int_equal(mi.nodes[n].threads, 1);
		assert_true(mi.nodes[n].threads >= 1 && mi.nodes[n].threads <= k->threads[n]);
		if (k->policy != MMINIT_SERIAL) {
			uint64_t ran = 0;
			assert_true(mi.nodes[n].nr_chunks >= 1);
			for (uint32_t i = 0; i < mi.nodes[n].nr_chunks; i++)
				ran |= 1ULL << mi.nodes[n].chunks[i].cpu;
			assert_int_equal(__builtin_popcountll(ran), mi.nodes[n].threads);
			/* Chunks ran on the node's own CPUs (a CPU-less node: the
			 * caller), unless every CPU was asked for. */
			for (uint32_t i = 0; i < mi.nodes[n].nr_chunks; i++) {
				uint32_t cpu = mi.nodes[n].chunks[i].cpu;
				if (!k->all)
					assert_int_equal(n == 2 ? 0 : sim3_cpu_nodes[cpu], n == 2 ? cpu : n);
			}
		}
	}
	/* 4096 pages from 0x300, up to the next 4 MiB boundary. */
	assert_int_equal(mi.nodes[0].early_pages, k->policy == MMINIT_SERIAL
						  ? mi.nodes[0].free_pages : 0x1400 - 0x300);
	check_done(&cfg);
	stop();
}

static void test_policies_by_threads(void **state)
{
	static const struct matrix_case cases[] = {
		{ MMINIT_SERIAL, 0, false, { 1, 1, 1 } },
		{ MMINIT_DEFERRED, 1, false, { 1, 1, 1 } },    /* threads=1 */
		{ MMINIT_DEFERRED, 0, false, { 2, 2, 1 } },    /* threads=node */
		{ MMINIT_DEFERRED, 0, true, { 4, 4, 1 } },     /* threads=all: node 2 is small */
		{ MMINIT_DEFERRED, 3, false, { 2, 2, 1 } },    /* threads=3: a node has 2 */
		{ MMINIT_LAZY, 1, false, { 1, 1, 1 } },
		{ MMINIT_LAZY, 0, false, { 2, 2, 1 } },
		{ MMINIT_LAZY, 0, true, { 4, 4, 1 } },
		{ MMINIT_LAZY, 3, false, { 2, 2, 1 } },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], "buddy");
		if (cases[i].max_threads == 0 && !cases[i].all)
			run_case(&cases[i], "bitmap");
	}
}

/* Early boot asks for more than the first section: init grows on demand. */
static uint64_t early_pfns[20000];
static uint32_t nr_early;

static void early_allocs(void *ctx)
{
	for (nr_early = 0; nr_early < 20000; nr_early++) {
		early_pfns[nr_early] = alloc_pages(0, 0, 0);
		assert_int_not_equal(early_pfns[nr_early], ALLOC_NO_PFN);
	}
}

static void test_deferred_grows_on_demand(void **state)
{
	struct mminit_config cfg = { .policy = MMINIT_DEFERRED, .early_pages = 1024,
				     .boot_node = 0 };

	start("buddy", &cfg);
	mminit_run(&mi, early_allocs, NULL);
	/* 1024 pages first (from 0x300 up to a 4 MiB boundary), then one
	 * section of MMINIT_GROW_PAGES when they ran out. */
	assert_int_equal(mi.grows, 1);
	assert_int_equal(alloc_counters.grows, 1);
	assert_int_equal(mi.nodes[0].early_pages, 0x800 - 0x300 + MMINIT_GROW_PAGES);
	for (uint32_t i = 0; i < nr_early; i++)
		alloc_free(early_pfns[i], 0);
	check_done(&cfg);
	stop();
}

/* A page whose descriptor nobody accounts for fails the census, by pfn. */
static void test_census_names_a_lost_page(void **state)
{
	struct mminit_config cfg = { .policy = MMINIT_DEFERRED, .early_pages = 1024 };
	struct census c;
	char want[96];

	start("buddy", &cfg);
	mminit_run(&mi, NULL, NULL);
	uint64_t pfn = alloc_pages(1, 0, 0);
	/* As if someone wrote a tail over the head of a page in use. */
	memmap_pfn_to_page(&mm, pfn)->type = PAGE_TAIL;
	host_log_reset();
	assert_false(census(&c));
	assert_int_equal(c.lost, 1);
	snprintf(want, sizeof(want), "census: node 1: pfns [0x%llx-0x%llx) not accounted for",
		 (unsigned long long)pfn, (unsigned long long)pfn + 1);
	assert_true(host_log_contains(want));
	/* The human line is rendered from the census record (one call): its
	 * counts are the census's own, the lost page included. */
	char line[256];
	snprintf(line, sizeof(line), "census (test): %llu pages: %llu free, 0 pcp, %llu reserved, "
		 "%llu memmap, 0 pagetable, 0 huge, %llu allocated, 0 bad, %llu hole, 1 lost",
		 (unsigned long long)c.pages, (unsigned long long)c.counts[PAGE_FREE],
		 (unsigned long long)c.counts[PAGE_RESERVED], (unsigned long long)c.counts[PAGE_MEMMAP],
		 (unsigned long long)c.counts[PAGE_ALLOCATED], (unsigned long long)c.hole);
	assert_true(host_log_contains(line));
	snprintf(line, sizeof(line), "\"event\":\"census\",\"when\":\"test\",\"pages\":%llu,",
		 (unsigned long long)c.pages);
	assert_true(host_log_contains(line));
	assert_true(host_log_contains("\"hole\":4352,\"lost\":1,\"check\":true,\"bad\":0,"));
	/* A free page the allocator does not know about is lost too. */
	memmap_pfn_to_page(&mm, pfn)->type = PAGE_ALLOCATED;
	assert_true(census(&c));
	alloc_free(pfn, 0);
	assert_true(census(&c));
	stop();
}

/* --- the test hook (mm/mminit.h, struct mminit_test): memtest's place --- */

/* Pages the fake test calls bad: in the boot CPU's early section (two
 * together), at the start of a range, at a node's last page, on node 1,
 * and on the CPU-less node 2. */
static const uint64_t bad_pfns[] = { 0x400, 0x401, 0x9000, 0x1ffff, 0x23456, 0x47fff };
#define NR_BAD (sizeof(bad_pfns) / sizeof(bad_pfns[0]))
static uint8_t tested[TOP];       /* times each pfn was tested */
static uint8_t tested_node_ok[TOP];

static uint32_t fake_test(void *ctx, uint32_t node, uint64_t s, uint64_t e, uint64_t *bad)
{
	uint32_t n = 0;

	(void)ctx;
	for (uint64_t pfn = s; pfn < e; pfn++) {
		__atomic_fetch_add(&tested[pfn], 1, __ATOMIC_RELAXED);
		/* Each piece is handed to the test with the node it is on. */
		tested_node_ok[pfn] = memmap_nid_of_pfn(&mm, pfn) == node;
	}
	for (size_t i = 0; i < NR_BAD; i++)
		if (bad_pfns[i] >= s && bad_pfns[i] < e)
			bad[n++] = bad_pfns[i];
	return n;
}

/*
 * Under every policy, every free page is tested exactly once before it is
 * freed, on its own node; the bad ones become PAGE_BAD, are never freed and
 * never handed out, and the census counts them against the engine's count
 * with nothing lost.
 */
static void test_tested_before_freed(void **state)
{
	static const struct mminit_test hook = { fake_test, NULL };
	static const enum mminit_policy policies[] = { MMINIT_SERIAL, MMINIT_DEFERRED, MMINIT_LAZY };

	for (size_t k = 0; k < 3; k++) {
		struct mminit_config cfg = { .policy = policies[k], .early_pages = 4096,
					     .boot_node = 0, .test = &hook };
		struct census c;

		memset(tested, 0, sizeof(tested));
		memset(tested_node_ok, 0, sizeof(tested_node_ok));
		start("buddy", &cfg);
		mminit_run(&mi, NULL, NULL);
		for (int r = 0; r < NR_USABLE; r++)
			for (uint64_t pfn = sim3_usable[r].start_pfn; pfn < sim3_usable[r].end_pfn; pfn++) {
				bool fixed = pfn >= 0x100 && pfn < 0x300;
				assert_int_equal(tested[pfn], fixed ? 0 : 1);
				assert_true(fixed || tested_node_ok[pfn]);
			}
		uint64_t bad = 0;
		for (uint32_t n = 0; n < NR_NODES; n++)
			bad += mi.nodes[n].bad_pages;
		assert_int_equal(bad, NR_BAD);
		for (size_t i = 0; i < NR_BAD; i++)
			assert_int_equal(memmap_pfn_to_page(&mm, bad_pfns[i])->type, PAGE_BAD);
		struct census_input in = { .mm = &mm, .ranges = sim3_usable, .nr_ranges = NR_USABLE,
					   .fixed_pages = RESV_PAGES + MEMMAP_PAGES, .bad_pages = bad };
		assert_true(census_take(&in, "test", &c));
		assert_int_equal(c.lost, 0);
		assert_int_equal(c.counts[PAGE_BAD], NR_BAD);
		assert_int_equal(c.counts[PAGE_FREE], total_free() - NR_BAD);
		/* The census holds the engine to its count. */
		in.bad_pages = bad - 1;
		assert_false(census_take(&in, "test", &c));
		assert_int_equal(c.lost, 1);
		/* Everything free can be had, and no bad page among it. */
		uint64_t got = 0, pfn;
		for (uint32_t n = 0; n < NR_NODES; n++)
			while ((pfn = alloc_pages(n, 0, 0)) != ALLOC_NO_PFN) {
				for (size_t i = 0; i < NR_BAD; i++)
					assert_true(pfn != bad_pfns[i]);
				got++;
			}
		assert_int_equal(got, total_free() - NR_BAD);
		stop();
	}
}

/* A piece with more bad pages than its test can name: the rest of the
 * piece from the last one named is bad, nothing lost, nothing of it free. */
static uint32_t flood_test(void *ctx, uint32_t node, uint64_t s, uint64_t e, uint64_t *bad)
{
	(void)ctx;
	(void)node;
	if (!(0x30000 >= s && 0x30000 < e))
		return 0;
	for (uint32_t i = 0; i < MMINIT_TEST_BAD_MAX; i++)
		bad[i] = 0x30000 + i;
	return MMINIT_TEST_BAD_MAX + 1;
}

static void test_more_bad_pages_than_named(void **state)
{
	static const struct mminit_test hook = { flood_test, NULL };
	/* With a deadline (as the kernel's default) chunks go in 4 MiB steps. */
	struct mminit_config cfg = { .policy = MMINIT_DEFERRED, .early_pages = 4096, .boot_node = 0,
				     .test = &hook, .deadline_ns = 10000 * 1000000ULL };
	struct census c;

	start("buddy", &cfg);
	mminit_run(&mi, NULL, NULL);
	/* The piece is the step [0x30000, 0x30400) of node 1's chunk. */
	assert_int_equal(mi.nodes[1].bad_pages, 0x400);
	assert_int_equal(memmap_pfn_to_page(&mm, 0x303ff)->type, PAGE_BAD);
	struct census_input in = { .mm = &mm, .ranges = sim3_usable, .nr_ranges = NR_USABLE,
				   .fixed_pages = RESV_PAGES + MEMMAP_PAGES, .bad_pages = 0x400 };
	assert_true(census_take(&in, "test", &c));
	assert_int_equal(c.counts[PAGE_FREE], total_free() - 0x400);
	stop();
}

/* A node CPU that stops in the middle of its chunk (between two steps):
 * the init still frees every page exactly once (a second free of a block
 * would break the allocator's check and the census), each tested once. */
static volatile uint32_t parked = 0xffffffffu;
static volatile bool park_release;

static void park_on_node1(const struct job *j, uint32_t cpu)
{
	uint32_t none = 0xffffffffu;

	if (cpu == 0 || job_platform_node(cpu) != 1 ||
	    !__atomic_compare_exchange_n(&parked, &none, cpu, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	while (!__atomic_load_n(&park_release, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void test_vanished_cpu_mid_chunk(void **state)
{
	static const struct mminit_test hook = { fake_test, NULL };
	struct mminit_config cfg = { .policy = MMINIT_DEFERRED, .early_pages = 4096, .boot_node = 0,
				     .test = &hook, .deadline_ns = 20 * 1000000ULL };
	struct census c;

	memset(tested, 0, sizeof(tested));
	parked = 0xffffffffu;
	park_release = false;
	start("buddy", &cfg);
	job_step_hook = park_on_node1;
	mminit_run(&mi, NULL, NULL);
	job_step_hook = NULL;
	assert_true(parked == 2 || parked == 3);
	assert_false(job_platform_online(parked));
	for (int r = 0; r < NR_USABLE; r++)
		for (uint64_t pfn = sim3_usable[r].start_pfn; pfn < sim3_usable[r].end_pfn; pfn++)
			assert_int_equal(tested[pfn], pfn >= 0x100 && pfn < 0x300 ? 0 : 1);
	struct census_input in = { .mm = &mm, .ranges = sim3_usable, .nr_ranges = NR_USABLE,
				   .fixed_pages = RESV_PAGES + MEMMAP_PAGES, .bad_pages = NR_BAD };
	assert_true(census_take(&in, "test", &c));
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.counts[PAGE_FREE], total_free() - NR_BAD);
	assert_true(alloc_check());
	park_release = true;
	while (job_platform_busy(parked))
		sched_yield();
	stop();
}

static int cpus_up(void **state)
{
	job_host_start(4, sim3_cpu_nodes);
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
		cmocka_unit_test(test_policies_by_threads),
		cmocka_unit_test(test_deferred_grows_on_demand),
		cmocka_unit_test(test_census_names_a_lost_page),
		cmocka_unit_test(test_usable_edges),
		cmocka_unit_test(test_correct_ticks),
		cmocka_unit_test(test_tested_before_freed),
		cmocka_unit_test(test_more_bad_pages_than_named),
		cmocka_unit_test(test_vanished_cpu_mid_chunk),
	};
	return cmocka_run_group_tests(tests, cpus_up, cpus_down);
}

/*
 * test_alloc_checks.c: the checks around the seam catch deliberately broken
 * allocators, each named in the messages:
 *  - an allocator that forgets to write the head it hands out (the front's
 *    alloc_verify_block, also on the per-CPU lists' refill path);
 *  - one that hands out a misaligned block (the front), and a misaligned
 *    free head in the descriptors (the census, memmap_count_types);
 *  - one that inserts a free block twice (the allocator's check(), which
 *    every census runs).
 * The broken allocators are real ones (bitmap, buddy) with one operation
 * wrapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/buddy.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

/* One node, [0x2000, 0x3000): 16 MiB, four 4 MiB blocks. */
#define BASE 0x2000ULL
#define PAGES 0x1000ULL

static struct memmap mm;
static memmap_nid_t *table;
static struct page *array;
static void *mem[4];
static unsigned nr_mem;
static const struct alloc_ops *real;   /* the allocator a broken one wraps */
static struct alloc_ops broken;

static uint64_t reserve(void *ctx, uint64_t bytes, uint32_t node)
{
	assert_true(nr_mem < 4);
	mem[nr_mem] = malloc(bytes);
	return (uint64_t)(uintptr_t)mem[nr_mem++];
}

static void start(const char *real_name, const char *name)
{
	struct memmap_node n;

	real = alloc_find(real_name);
	assert_non_null(real);
	broken = *real;
	broken.name = name;
	nr_mem = 0;
	table = malloc(memmap_nid_table_bytes(BASE + PAGES));
	array = aligned_alloc(64, memmap_desc_bytes(PAGES));
	memset(array, 0xa5, memmap_desc_bytes(PAGES));
	memmap_init(&mm, table, BASE + PAGES);
	memmap_node_init(&n, 0, BASE, PAGES, array);
	memmap_add_node(&mm, &n);
	memmap_set_nid(&mm, BASE, BASE + PAGES, 0);
	mm.nr_nodes = 1;
}

static void fill(void)
{
	struct alloc_setup s = { .mm = &mm, .nr_nodes = 1, .reserve = reserve };

	assert_true(alloc_init(&broken, &s, NULL));
	memmap_init_range(&mm.nodes[0], BASE, BASE + PAGES, PAGE_RESERVED, PAGE_ZONE_DMA32);
	alloc_free_range(0, BASE, BASE + PAGES);
	host_log_reset();
}

static void stop(void)
{
	alloc_pcp_reset();
	while (nr_mem)
		free(mem[--nr_mem]);
	free(array);
	free(table);
}

/* Run @fn in a child; true if it died of a panic (SIGABRT). */
static bool dies(void (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		fn();
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* ---- head type not written ---- */

static uint64_t alloc_no_head(void *self, uint32_t node, unsigned order, unsigned flags)
{
	uint64_t pfn = real->alloc(self, node, order, flags);

	if (pfn != ALLOC_NO_PFN)   /* as if it never wrote the head: still free */
		memmap_write_head(memmap_pfn_to_page(&mm, pfn), PAGE_FREE, order,
				  page_zone_of_pfn(pfn), 0, PAGE_POISON_FREE);
	return pfn;
}

static void alloc_one(void)
{
	alloc_pages(0, 0, 0);
}

static uint32_t test_cpu(void) { return 0; }
static void *list_mem(void *ctx, size_t bytes, uint32_t cpu, uint32_t node)
{
	return aligned_alloc(64, (bytes + 63) & ~(size_t)63);   /* the child exits */
}

/* The same through the per-CPU lists: their refill takes blocks from the
 * allocator, and the front checks those too before they are typed pcp. */
static void alloc_one_via_lists(void)
{
	uint32_t node = 0;
	static struct pcp_list **rows[1];   /* the one CPU's row of list pointers */
	struct alloc_pcp_setup s = {
		.nr_cpus = 1, .cpu_node = &node, .this_cpu = test_cpu, .mem = list_mem, .rows = rows,
		.cfg = { .policy = PCP_AUTO, .steps = PCP_STEPS_KNOWN, .cache_bytes = 1 << 20 },
	};
	if (!alloc_pcp_init(&s))
		_exit(3);
	alloc_pages(0, 0, 0);
}

static void test_head_not_written(void **state)
{
	const char *allocators[] = { "buddy", "bitmap" };

	for (int i = 0; i < 2; i++) {
		start(allocators[i], "nohead");
		broken.alloc = alloc_no_head;
		broken.alloc_bulk = NULL;
		fill();
		/* The check itself, in this process: named, with the pfn and
		 * the expected and found types by name. */
		uint64_t pfn = broken.alloc(alloc_current_self(), 0, 3, 0);
		assert_false(alloc_verify_block(&broken, &mm, pfn, 3, 0));
		char want[160];
		snprintf(want, sizeof(want), "alloc: nohead: block pfn %#llx order 3: head expected "
			 "type allocated order 3 zone 0 refcount 1, found type free",
			 (unsigned long long)pfn);
		assert_true(host_log_contains(want));
		/* Through the front, alone and with the lists in front. */
		assert_true(dies(alloc_one));
		assert_true(dies(alloc_one_via_lists));
		/* The real allocator passes the same checks. */
		broken.alloc = real->alloc;
		broken.alloc_bulk = real->alloc_bulk;
		assert_false(dies(alloc_one));
		assert_false(dies(alloc_one_via_lists));
		pfn = alloc_pages(0, 3, 0);
		assert_true(alloc_verify_block(&broken, &mm, pfn, 3, 0));
		stop();
	}
}

/* ---- misaligned blocks ---- */

static uint64_t alloc_misaligned(void *self, uint32_t node, unsigned order, unsigned flags)
{
	uint64_t pfn = real->alloc(self, node, order + 1, flags);

	if (pfn == ALLOC_NO_PFN)
		return pfn;
	/* Hand out a block one page in: 2^order pages, not aligned. */
	memmap_write_head(memmap_pfn_to_page(&mm, pfn + 1), PAGE_ALLOCATED, order,
			  page_zone_of_pfn(pfn), 0, 1);
	return pfn + 1;
}

static void alloc_order2(void)
{
	alloc_pages(0, 2, 0);
}

static void test_misaligned(void **state)
{
	start("buddy", "skewed");
	broken.alloc = alloc_misaligned;
	fill();
	uint64_t pfn = broken.alloc(alloc_current_self(), 0, 2, 0);
	assert_false(alloc_verify_block(&broken, &mm, pfn, 2, 0));
	assert_true(host_log_contains("alloc: skewed: block pfn"));
	assert_true(host_log_contains("is not aligned to 4 pages"));
	assert_true(dies(alloc_order2));

	/* The census: a free head of order 2 one page in, as an allocator
	 * that linked a misaligned free block would leave it. */
	uint64_t counts[PAGE_NR_TYPES] = { 0 };
	struct memmap_range r = { BASE, BASE + PAGES };
	assert_int_equal(memmap_count_types(&mm.nodes[0], &r, 1, counts), 0);
	/* pfn - 1 is the head of the order-3 block the broken allocator took:
	 * make it order 1, and pfn + 1 (two pages in) a free order-2 head. */
	memmap_write_head(memmap_pfn_to_page(&mm, pfn - 1), PAGE_ALLOCATED, 1, PAGE_ZONE_DMA32, 0,
			  1);
	memmap_write_head(memmap_pfn_to_page(&mm, pfn + 1), PAGE_FREE, 2, PAGE_ZONE_DMA32, 0,
			  PAGE_POISON_FREE);
	host_log_reset();
	memset(counts, 0, sizeof(counts));
	assert_int_equal(memmap_count_types(&mm.nodes[0], &r, 1, counts), 1);
	char want[96];
	snprintf(want, sizeof(want), "pfn %#llx: free block of order 2 is not aligned",
		 (unsigned long long)pfn + 1);
	assert_true(host_log_contains(want));
	stop();
}

/* ---- a free block inserted twice ---- */

static void test_double_insert(void **state)
{
	struct buddy_zone z;
	struct page *pages = aligned_alloc(64, memmap_desc_bytes(PAGES));
	struct memmap_node n;

	memmap_node_init(&n, 0, BASE, PAGES, pages);
	memmap_init_range(&n, BASE, BASE + PAGES, PAGE_RESERVED, PAGE_ZONE_DMA32);
	buddy_zone_init(&z, &n, PAGE_ZONE_DMA32, BASE, BASE + PAGES);
	buddy_free_range(&z, BASE, BASE + PAGES);
	uint64_t a = buddy_alloc(&z, 0), b = buddy_alloc(&z, 0);
	assert_int_equal(b, a + 1);
	buddy_free(&z, b, 0);   /* b alone on list 0 (a is held) */
	assert_true(buddy_check_zone(&z));
	/* Insert b again, as a broken free would: push it onto list 0 once
	 * more (it becomes its own successor). */
	uint32_t idx = memmap_index(&n, b);
	memmap_page(&n, b)->next = z.head[0];
	z.head[0] = idx;
	z.nr_free[0]++;
	z.free_pages++;
	host_log_reset();
	assert_false(buddy_check_zone(&z));
	char want[96];
	snprintf(want, sizeof(want), "free head %#llx order 0: next %#llx does not link back",
		 (unsigned long long)b, (unsigned long long)b);
	assert_true(host_log_contains(want));
	/* And its free count no longer matches the descriptors. */
	assert_int_equal(buddy_free_pages(&z), PAGES - 1 + 1);
	free(pages);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_not_written),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_double_insert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

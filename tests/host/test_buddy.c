/*
 * test_buddy.c: the buddy allocator's own structure: exact free lists after
 * splits, merges and range frees, zone and span edges, concurrent range
 * frees, lazy blocks, hooks, the debug checks, and a randomized run checked
 * against a bitmap model. What every allocator must do behind the seam
 * (node fallback included) is in test_alloc.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mm/alloc/buddy.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

#define GUARD 0xa5

_Static_assert(BUDDY_MAX_ORDER == 10, "these tests expect the default max order");

/* One node's array, full of GUARD bytes until something writes it. */
struct fix {
	struct page *buf;
	struct memmap_node node;
};

static void fix_make(struct fix *f, uint32_t nid, uint64_t base_pfn, uint64_t nr)
{
	size_t bytes = (nr * sizeof(struct page) + 63) & ~(size_t)63;

	f->buf = aligned_alloc(64, bytes);
	assert_non_null(f->buf);
	memset(f->buf, GUARD, bytes);
	memmap_node_init(&f->node, nid, base_pfn, nr, f->buf);
}

static void fix_free(struct fix *f)
{
	free(f->buf);
}

static bool is_guard(const struct page *p)
{
	const uint8_t *b = (const uint8_t *)p;
	for (size_t i = 0; i < sizeof(*p); i++)
		if (b[i] != GUARD)
			return false;
	return true;
}

/* The pfns on list @order, first to last. */
static size_t list_pfns(const struct buddy_zone *z, unsigned order, uint64_t *out, size_t cap)
{
	size_t n = 0;

	for (uint32_t i = z->head[order]; i != MEMMAP_NONE; i = z->map->pages[i].next) {
		assert_true(n < cap);
		out[n++] = memmap_index_pfn(z->map, i);
	}
	return n;
}

#define END_OF_LIST UINT64_MAX
/* Assert list @order holds exactly the pfns given (END_OF_LIST terminated). */
static void assert_list_(const struct buddy_zone *z, unsigned order, const uint64_t *want)
{
	uint64_t got[64];
	size_t n = list_pfns(z, order, got, 64), w = 0;

	while (want[w] != END_OF_LIST)
		w++;
	if (n != w)
		fail_msg("list %u: %zu blocks, want %zu", order, n, w);
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("list %u [%zu]: %#llx, want %#llx", order, i,
				 (unsigned long long)got[i], (unsigned long long)want[i]);
}
#define assert_list(z, order, ...) \
	assert_list_((z), (order), (const uint64_t[]){ __VA_ARGS__ __VA_OPT__(,) END_OF_LIST })

static void assert_consistent(struct buddy_zone *z)
{
	assert_true(buddy_check_zone(z));
	assert_int_equal(buddy_count_free(z), z->free_pages);
}

/* Eager boot of [s, e) of a zone: every descriptor, then free. */
static void boot_eager(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_range(z->map, s, e, PAGE_RESERVED, z->zone);
	buddy_free_range(z, s, e);
}

static void boot_lazy(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_heads(z->map, s, e, PAGE_RESERVED, z->zone, BUDDY_MAX_ORDER);
	buddy_free_range(z, s, e);
}

/* ---- splits and merges ---- */

static void test_alloc_free_every_order(void **state)
{
	struct fix f;
	struct buddy_zone z;

	fix_make(&f, 0, 0, 4096);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 4096);
	assert_int_equal(z.free_pages, 0);
	assert_int_equal(buddy_alloc(&z, 0), BUDDY_NO_PFN);
	boot_eager(&z, 0, 4096);
	assert_list(&z, 10, 0, 1024, 2048, 3072);
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k);
	assert_int_equal(z.free_pages, 4096);
	assert_int_equal(z.nr_free[10], 4);

	/* Order 0 splits the first max block all the way down. */
	assert_int_equal(buddy_alloc(&z, 0), 0);
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k, 1ULL << k);
	assert_list(&z, 10, 1024, 2048, 3072);
	assert_int_equal(z.free_pages, 4095);
	const struct page *p = memmap_page(&f.node, 0);
	assert_int_equal(p->type, PAGE_ALLOCATED);
	assert_int_equal(p->order, 0);
	assert_int_equal(p->refcount, 1);
	assert_int_equal(p->next, MEMMAP_NONE);
	assert_consistent(&z);
	buddy_free(&z, 0, 0);
	assert_list(&z, 10, 0, 1024, 2048, 3072);
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k);
	assert_consistent(&z);

	/* Every order, alone: allocate, check, free, back to four max blocks. */
	for (unsigned k = 0; k <= 10; k++) {
		uint64_t pfn = buddy_alloc(&z, k);
		assert_int_equal(pfn, 0);
		assert_int_equal(memmap_page(&f.node, pfn)->order, k);
		assert_int_equal(z.free_pages, 4096 - (1ULL << k));
		assert_consistent(&z);
		buddy_free(&z, pfn, k);
		assert_list(&z, 10, 0, 1024, 2048, 3072);
		assert_int_equal(z.free_pages, 4096);
	}
	/* Every order at once: 1+2+...+1024 = 2047 pages, then free in
	 * reverse. */
	uint64_t got[11];
	for (unsigned k = 0; k <= 10; k++) {
		got[k] = buddy_alloc(&z, k);
		assert_int_not_equal(got[k], BUDDY_NO_PFN);
		assert_int_equal(got[k] & ((1ULL << k) - 1), 0);
	}
	assert_int_equal(z.free_pages, 4096 - 2047);
	assert_consistent(&z);
	for (int k = 10; k >= 0; k--)
		buddy_free(&z, got[k], (unsigned)k);
	assert_int_equal(z.free_pages, 4096);
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k);
	assert_int_equal(z.nr_free[10], 4);
	assert_consistent(&z);
	fix_free(&f);
}

static void test_merge_two_buddies(void **state)
{
	struct fix f;
	struct buddy_zone z;

	fix_make(&f, 0, 0, 1024);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 1024);
	boot_eager(&z, 0, 1024);
	assert_int_equal(buddy_alloc(&z, 0), 0);
	assert_int_equal(buddy_alloc(&z, 0), 1);
	assert_int_equal(buddy_alloc(&z, 0), 2);
	assert_int_equal(buddy_alloc(&z, 0), 3);
	assert_list(&z, 0);
	assert_list(&z, 1);
	assert_list(&z, 2, 4);

	buddy_free(&z, 2, 0);
	assert_list(&z, 0, 2);
	buddy_free(&z, 3, 0);             /* 2 and 3 -> order 1 at 2; 0, 1 still used */
	assert_list(&z, 0);
	assert_list(&z, 1, 2);
	assert_list(&z, 2, 4);
	/* The absorbed head is a tail now. */
	assert_int_equal(memmap_page(&f.node, 3)->type, PAGE_TAIL);
	assert_int_equal(memmap_page(&f.node, 3)->word, PAGE_POISON_TAIL);
	assert_consistent(&z);

	buddy_free(&z, 1, 0);             /* buddy 0 allocated: no merge */
	assert_list(&z, 0, 1);
	buddy_free(&z, 0, 0);             /* 0+1, +2, +4, ... back to one block */
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k);
	assert_list(&z, 10, 0);
	assert_int_equal(memmap_page(&f.node, 0)->type, PAGE_FREE);
	assert_int_equal(memmap_page(&f.node, 0)->order, 10);
	assert_consistent(&z);
	fix_free(&f);
}

static void test_no_merge_with_non_free_buddies(void **state)
{
	struct fix f;
	struct buddy_zone z;

	fix_make(&f, 0, 0, 64);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 64);
	memmap_init_range(&f.node, 0, 64, PAGE_RESERVED, PAGE_ZONE_DMA32);

	/* Buddy reserved: [1, 16) stays four blocks, 0 is not free. */
	buddy_free_range(&z, 1, 16);
	assert_list(&z, 0, 1);
	assert_list(&z, 1, 2);
	assert_list(&z, 2, 4);
	assert_list(&z, 3, 8);
	assert_consistent(&z);

	/* Buddy free but of another order: 16 is free order 0; [18, 20) is
	 * order 1, its buddy [16, 18) is not a free order-1 block. */
	buddy_free_range(&z, 16, 17);
	buddy_free_range(&z, 18, 20);
	assert_list(&z, 0, 16, 1);
	assert_list(&z, 1, 18, 2);
	/* A page-table page (a retyped allocation) is not free either. */
	memmap_page(&f.node, 17)->type = PAGE_PAGETABLE;
	buddy_free_range(&z, 20, 24);      /* buddy [16, 20) is not one free block */
	assert_list(&z, 2, 20, 4);
	assert_consistent(&z);

	/* Freeing the reserved page 0 now merges up to order 4. */
	buddy_free(&z, 0, 0);
	assert_list(&z, 0, 16);
	assert_list(&z, 1, 18);
	assert_list(&z, 2, 20);
	assert_list(&z, 3);
	assert_list(&z, 4, 0);
	/* And the page-table page closes the gap: 16..24 and up. */
	buddy_free(&z, 17, 0);
	assert_list(&z, 0);
	assert_list(&z, 1);
	assert_list(&z, 2);
	assert_list(&z, 3, 16);
	assert_list(&z, 4, 0);
	assert_int_equal(z.free_pages, 24);
	assert_consistent(&z);
	fix_free(&f);
}

static void test_no_merge_across_zones_or_span(void **state)
{
	struct fix f;
	struct buddy_zone low, high;

	/* A node across 4 GiB: 256 pages below, 256 above. */
	fix_make(&f, 0, 0xfff00, 512);
	buddy_zone_init(&low, &f.node, PAGE_ZONE_DMA32, 0xfff00, 0x100000);
	buddy_zone_init(&high, &f.node, PAGE_ZONE_NORMAL, 0x100000, 0x100100);
	boot_eager(&low, 0xfff00, 0x100000);
	boot_eager(&high, 0x100000, 0x100100);
	assert_list(&low, 8, 0xfff00);
	assert_list(&high, 8, 0x100000);
	assert_int_equal(low.free_pages, 256);
	assert_int_equal(high.free_pages, 256);
	assert_int_equal(memmap_page(&f.node, 0xfff00)->zone, PAGE_ZONE_DMA32);
	assert_int_equal(memmap_page(&f.node, 0x100000)->zone, PAGE_ZONE_NORMAL);
	/* The last page below 4 GiB and the first above are no buddies. */
	uint64_t a = buddy_alloc(&low, 8), b = buddy_alloc(&high, 8);
	buddy_free(&low, a, 8);
	buddy_free(&high, b, 8);
	assert_list(&low, 8, 0xfff00);
	assert_list(&high, 8, 0x100000);
	assert_consistent(&low);
	assert_consistent(&high);
	fix_free(&f);

	/* A span starting at pfn 1: the buddy of pfn 1 (pfn 0) is outside the
	 * array and never read (ASan would see it); likewise at the end. */
	fix_make(&f, 0, 1, 62);
	buddy_zone_init(&low, &f.node, PAGE_ZONE_DMA32, 1, 63);
	boot_eager(&low, 1, 63);
	assert_list(&low, 0, 62, 1);
	assert_list(&low, 1, 60, 2);
	assert_list(&low, 2, 56, 4);
	assert_list(&low, 3, 48, 8);
	assert_list(&low, 4, 32, 16);
	assert_list(&low, 5);
	assert_int_equal(low.free_pages, 62);
	assert_consistent(&low);
	fix_free(&f);
}

static void test_free_range_largest_aligned_blocks(void **state)
{
	struct fix f;
	struct buddy_zone z;

	/* [3, 2053): 3/0 4/2 8/3 ... 512/9 1024/10 2048/2 2052/0, pushed in
	 * that order (the first of each list is the last pushed). */
	fix_make(&f, 0, 0, 2100);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 3, 2053);
	boot_eager(&z, 3, 2053);
	assert_list(&z, 0, 2052, 3);
	assert_list(&z, 1);
	assert_list(&z, 2, 2048, 4);
	for (unsigned k = 3; k <= 10; k++)
		assert_list(&z, k, 1ULL << k);
	assert_int_equal(z.free_pages, 2050);
	assert_consistent(&z);
	/* Descriptors outside the zone were never touched. */
	for (uint64_t pfn = 0; pfn < 3; pfn++)
		assert_true(is_guard(memmap_page(&f.node, pfn)));
	for (uint64_t pfn = 2053; pfn < 2100; pfn++)
		assert_true(is_guard(memmap_page(&f.node, pfn)));
	fix_free(&f);

	/* Several max blocks come out in address order from one call. */
	fix_make(&f, 0, 0x1000, 8 * 1024);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0x1000, 0x3000);
	boot_eager(&z, 0x1800, 0x3000);
	boot_eager(&z, 0x1000, 0x1800);
	assert_list(&z, 10, 0x1000, 0x1400, 0x1800, 0x1c00, 0x2000, 0x2400, 0x2800, 0x2c00);
	assert_consistent(&z);
	fix_free(&f);
}

/* ---- concurrency ---- */

struct chunk_job {
	struct buddy_zone *z;
	pthread_barrier_t *start;
	const uint64_t (*chunks)[2];
	size_t nr;
};

static void *free_chunks(void *arg)
{
	struct chunk_job *j = arg;

	pthread_barrier_wait(j->start);
	for (size_t i = 0; i < j->nr; i++)
		buddy_free_range(j->z, j->chunks[i][0], j->chunks[i][1]);
	return NULL;
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every free block as (order << 56 | pfn), sorted. */
static size_t free_blocks(const struct buddy_zone *z, uint64_t *out, size_t cap)
{
	size_t n = 0;

	for (unsigned k = 0; k <= BUDDY_MAX_ORDER; k++)
		for (uint32_t i = z->head[k]; i != MEMMAP_NONE; i = z->map->pages[i].next) {
			assert_true(n < cap);
			out[n++] = (uint64_t)k << 56 | memmap_index_pfn(z->map, i);
		}
	qsort(out, n, sizeof(*out), cmp_u64);
	return n;
}

static void test_concurrent_free_range_merges_across_chunks(void **state)
{
	enum { THREADS = 4, CHUNKS = 600, CAP = 4096 };
	const uint64_t s = 5, e = 5 + 50000;
	struct fix ref_f, f;
	struct buddy_zone ref, z;
	uint64_t *want = malloc(CAP * 8), *got = malloc(CAP * 8);
	size_t nwant;

	/* The serial result. */
	fix_make(&ref_f, 0, 0, e + 3);
	buddy_zone_init(&ref, &ref_f.node, PAGE_ZONE_DMA32, s, e);
	boot_eager(&ref, s, e);
	nwant = free_blocks(&ref, want, CAP);
	assert_int_equal(ref.free_pages, e - s);

	fix_make(&f, 0, 0, e + 3);
	rnd_state = 0x5eed5eed12345ULL;
	for (int iter = 0; iter < 30; iter++) {
		uint64_t cuts[CHUNKS + 1], chunks[THREADS][CHUNKS][2];
		struct chunk_job jobs[THREADS];
		pthread_t th[THREADS];
		pthread_barrier_t start;

		/* Chunks at random (unaligned) cuts, dealt round-robin:
		 * neighbouring chunks are freed by different threads at the
		 * same time, so merges cross chunk edges under the lock. */
		int nchunks = iter % 2 ? 40 : CHUNKS;   /* some max-order blocks, or almost none */
		cuts[0] = s;
		cuts[nchunks] = e;
		for (int i = 1; i < nchunks; i++)
			cuts[i] = s + rnd() % (e - s);
		qsort(cuts, (size_t)nchunks + 1, 8, cmp_u64);
		memset(f.buf, GUARD, (e + 3) * sizeof(struct page));
		buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, s, e);
		memmap_init_range(&f.node, s, e, PAGE_RESERVED, PAGE_ZONE_DMA32);
		pthread_barrier_init(&start, NULL, THREADS);
		for (int t = 0; t < THREADS; t++) {
			jobs[t] = (struct chunk_job){ .z = &z, .start = &start,
						      .chunks = (const uint64_t (*)[2])chunks[t] };
			for (int i = t; i < nchunks; i += THREADS)
				if (cuts[i] < cuts[i + 1]) {
					chunks[t][jobs[t].nr][0] = cuts[i];
					chunks[t][jobs[t].nr][1] = cuts[i + 1];
					jobs[t].nr++;
				}
		}
		for (int t = 0; t < THREADS; t++)
			assert_int_equal(pthread_create(&th[t], NULL, free_chunks, &jobs[t]), 0);
		for (int t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
		pthread_barrier_destroy(&start);

		assert_int_equal(z.free_pages, e - s);
		assert_int_equal(free_blocks(&z, got, CAP), nwant);
		assert_memory_equal(got, want, nwant * 8);
		assert_consistent(&z);
	}
	free(want);
	free(got);
	fix_free(&f);
	fix_free(&ref_f);
}

struct churn_job {
	struct buddy_zone *z;
	pthread_barrier_t *start;
	uint64_t seed;
	uint64_t pages_held_at_end;
};

static void *churn(void *arg)
{
	struct churn_job *j = arg;
	uint64_t pfns[64];
	unsigned orders[64], n = 0;
	uint64_t x = j->seed;

	pthread_barrier_wait(j->start);
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (n < 64 && (n == 0 || x % 2)) {
			unsigned order = (unsigned)(x >> 8) % 4;
			uint64_t pfn = buddy_alloc(j->z, order);
			if (pfn != BUDDY_NO_PFN) {
				pfns[n] = pfn;
				orders[n++] = order;
			}
		} else {
			unsigned k = (unsigned)(x >> 16) % n;
			buddy_free(j->z, pfns[k], orders[k]);
			pfns[k] = pfns[--n];
			orders[k] = orders[n];
		}
	}
	while (n) {
		n--;
		buddy_free(j->z, pfns[n], orders[n]);
	}
	return NULL;
}

static void test_concurrent_alloc_free(void **state)
{
	enum { THREADS = 4 };
	struct fix f;
	struct buddy_zone z;
	pthread_t th[THREADS];
	struct churn_job jobs[THREADS];
	pthread_barrier_t start;
	uint64_t want[64], got[64];
	size_t nwant;

	fix_make(&f, 0, 0x40, 8192);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0x40, 0x40 + 8192);
	boot_lazy(&z, 0x40, 0x40 + 8192);
	nwant = free_blocks(&z, want, 64);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (struct churn_job){ .z = &z, .start = &start, .seed = 77 + (uint64_t)t };
		assert_int_equal(pthread_create(&th[t], NULL, churn, &jobs[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&start);
	assert_int_equal(z.free_pages, 8192);
	assert_int_equal(free_blocks(&z, got, 64), nwant);
	assert_memory_equal(got, want, nwant * 8);
	assert_consistent(&z);
	fix_free(&f);
}

static void test_exhaustion(void **state)
{
	struct fix f;
	struct buddy_zone z;
	uint64_t seen[16] = { 0 };

	fix_make(&f, 0, 16, 16);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 16, 32);
	boot_eager(&z, 16, 32);
	assert_list(&z, 4, 16);
	assert_int_equal(buddy_alloc(&z, 5), BUDDY_NO_PFN);   /* larger than the zone */
	assert_int_equal(buddy_alloc(&z, 10), BUDDY_NO_PFN);
	for (int i = 0; i < 16; i++) {
		uint64_t pfn = buddy_alloc(&z, 0);
		assert_true(pfn >= 16 && pfn < 32);
		assert_int_equal(seen[pfn - 16], 0);
		seen[pfn - 16] = 1;
	}
	assert_int_equal(z.free_pages, 0);
	assert_int_equal(buddy_alloc(&z, 0), BUDDY_NO_PFN);
	assert_int_equal(buddy_count_free(&z), 0);
	for (uint64_t pfn = 16; pfn < 32; pfn++)
		buddy_free(&z, pfn, 0);
	assert_list(&z, 4, 16);
	assert_consistent(&z);
	fix_free(&f);
}

/* ---- lazy blocks ---- */

static void test_lazy_blocks(void **state)
{
	struct fix f;
	struct buddy_zone z;
	uint64_t filled = 99;

	fix_make(&f, 0, 0, 2048);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 2048);
	boot_lazy(&z, 0, 2048);
	assert_list(&z, 10, 0, 1024);
	assert_int_equal(memmap_page(&f.node, 0)->flags, PAGE_F_LAZY_UNINIT);
	assert_true(is_guard(memmap_page(&f.node, 1)));      /* tails never written */
	assert_true(is_guard(memmap_page(&f.node, 1025)));

	/* Order 0 from a lazy block: 10 split heads and the page itself,
	 * nothing else; the halves stay lazy. */
	assert_int_equal(buddy_alloc_ex(&z, 0, &filled), 0);
	assert_int_equal(filled, 0);
	assert_int_equal(z.lazy_fill_allocs, 0);
	for (unsigned k = 0; k < 10; k++) {
		assert_list(&z, k, 1ULL << k);
		assert_int_equal(memmap_page(&f.node, 1ULL << k)->flags, PAGE_F_LAZY_UNINIT);
	}
	assert_true(is_guard(memmap_page(&f.node, 3)));
	assert_true(is_guard(memmap_page(&f.node, 1023)));

	/* Order 3: its seven tails are written now, and counted. */
	assert_int_equal(buddy_alloc_ex(&z, 3, &filled), 8);
	assert_int_equal(filled, 7);
	assert_int_equal(z.lazy_fill_allocs, 1);
	assert_int_equal(z.lazy_filled_pages, 7);
	assert_int_equal(memmap_page(&f.node, 8)->type, PAGE_ALLOCATED);
	assert_int_equal(memmap_page(&f.node, 8)->flags, 0);
	for (uint64_t pfn = 9; pfn < 16; pfn++) {
		assert_int_equal(memmap_page(&f.node, pfn)->type, PAGE_TAIL);
		assert_int_equal(memmap_page(&f.node, pfn)->word, PAGE_POISON_TAIL);
	}
	assert_true(is_guard(memmap_page(&f.node, 17)));
	assert_consistent(&z);

	/* Freed back, it is no longer lazy; its buddy [0, 8) is not free. */
	buddy_free(&z, 8, 3);
	assert_list(&z, 3, 8);
	assert_int_equal(memmap_page(&f.node, 8)->flags, 0);
	/* Freeing 0 merges everything; merged with lazy halves, lazy again. */
	buddy_free(&z, 0, 0);
	assert_list(&z, 10, 0, 1024);
	for (unsigned k = 0; k < 10; k++)
		assert_list(&z, k);
	assert_int_equal(memmap_page(&f.node, 0)->flags, PAGE_F_LAZY_UNINIT);
	/* A max-order allocation of a lazy block writes all its tails. */
	assert_int_equal(buddy_alloc_ex(&z, 10, &filled), 0);
	assert_int_equal(filled, 1023);
	for (uint64_t pfn = 1; pfn < 1024; pfn++)
		assert_false(is_guard(memmap_page(&f.node, pfn)));
	assert_int_equal(z.lazy_fill_allocs, 2);
	assert_int_equal(z.lazy_filled_pages, 1030);
	buddy_free(&z, 0, 10);
	assert_int_equal(memmap_page(&f.node, 0)->flags, 0);
	assert_consistent(&z);

	/* The census sees the same free pages as the counters. */
	uint64_t counts[PAGE_NR_TYPES] = { 0 };
	const struct memmap_range all = { 0, 2048 };
	assert_int_equal(memmap_count_types(&f.node, &all, 1, counts), 0);
	assert_int_equal(counts[PAGE_FREE], z.free_pages);
	fix_free(&f);
}

/* ---- hooks ---- */

static struct { uint64_t pfn; unsigned order; int n; } hook_freed, hook_alloced;

static void on_free(const struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	hook_freed.pfn = pfn;
	hook_freed.order = order;
	hook_freed.n++;
}

static void on_alloc(const struct buddy_zone *z, uint64_t pfn, unsigned order)
{
	hook_alloced.pfn = pfn;
	hook_alloced.order = order;
	hook_alloced.n++;
}

static void test_hooks(void **state)
{
	struct fix f;
	struct buddy_zone z;

	fix_make(&f, 0, 0, 4096);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 4096);
	buddy_set_page_hooks(on_free, on_alloc);
	boot_eager(&z, 1, 4096);             /* 1/0 2/1 ... 512/9 1024/10 x3: 13 blocks */
	assert_int_equal(hook_freed.n, 13);
	assert_int_equal(hook_freed.pfn, 3072);
	assert_int_equal(hook_freed.order, 10);
	assert_int_equal(buddy_alloc(&z, 2), 4);
	assert_int_equal(hook_alloced.n, 1);
	assert_int_equal(hook_alloced.pfn, 4);
	assert_int_equal(hook_alloced.order, 2);
	buddy_free(&z, 4, 2);
	assert_int_equal(hook_freed.n, 14);
	assert_int_equal(hook_freed.pfn, 4);
	assert_int_equal(hook_freed.order, 2);
	spin_lock(&z.lock);
	assert_int_equal(buddy_alloc_locked(&z, 0, NULL), 1);
	buddy_free_locked(&z, 1, 0);
	spin_unlock(&z.lock);
	assert_int_equal(hook_alloced.n, 2);
	assert_int_equal(hook_freed.n, 15);
	buddy_set_page_hooks(NULL, NULL);
	assert_int_equal(buddy_alloc(&z, 0), 1);
	buddy_free(&z, 1, 0);
	assert_int_equal(hook_alloced.n, 2);
	assert_int_equal(hook_freed.n, 15);
	fix_free(&f);
}

/* ---- debug checks ---- */

/* Run fn in a child; true if it died of SIGABRT (a failed ASSERT). */
static bool dies(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static struct { struct buddy_zone *z; uint64_t pfn; unsigned order; } child_args;

static void child_alloc(void *arg)
{
	buddy_alloc(child_args.z, child_args.order);
}

static void child_free(void *arg)
{
	buddy_free(child_args.z, child_args.pfn, child_args.order);
}

static void test_debug_checks(void **state)
{
	struct fix f;
	struct buddy_zone z;
	struct page *p, saved;

	fix_make(&f, 0, 0, 64);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, 0, 64);
	boot_eager(&z, 0, 64);
	assert_int_equal(buddy_alloc(&z, 0), 0);
	assert_int_equal(buddy_alloc(&z, 0), 1);   /* lists: 2/1 4/2 8/3 16/4 32/5 */
	p = memmap_page(&f.node, 4);
	saved = *p;
	assert_true(buddy_check_free_head(&z, 4, 2));

	/* A stray write into a free descriptor's word. */
	host_log_reset();
	p->refcount = 1;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("not the free poison"));
	assert_false(buddy_check_zone(&z));
	*p = saved;

	/* Wrong order, type, zone, flags; broken links; bad arguments. */
	host_log_reset();
	p->order = 3;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("descriptor says order 3"));
	*p = saved;
	p->type = PAGE_ALLOCATED;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("type allocated"));
	*p = saved;
	p->zone = PAGE_ZONE_NORMAL;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("descriptor says zone 1"));
	*p = saved;
	p->flags = 0x80;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("unknown flags 0x80"));
	*p = saved;
	p->next = 5;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("does not link back"));
	*p = saved;
	p->prev = 2;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("does not link back"));
	*p = saved;
	p->next = 1000;
	assert_false(buddy_check_free_head(&z, 4, 2));
	assert_true(host_log_contains("outside the zone"));
	*p = saved;
	assert_false(buddy_check_free_head(&z, 6, 2));
	assert_true(host_log_contains("not aligned"));
	assert_false(buddy_check_free_head(&z, 64, 0));
	assert_false(buddy_check_free_head(&z, 8, 2));     /* a free head, other order */
	assert_true(buddy_check_zone(&z));

	/* An allocation that takes a corrupt free head stops the kernel. */
	child_args = (typeof(child_args)){ &z, 0, 2 };
	p->word = 0;
	assert_true(dies(child_alloc, NULL));
	*p = saved;
	assert_false(dies(child_alloc, NULL));              /* the same, intact: fine */

	/* Double free, and a wrong order, are caught on free. */
	buddy_free(&z, 0, 0);
	child_args = (typeof(child_args)){ &z, 0, 0 };
	assert_true(dies(child_free, NULL));               /* 0 is free now */
	assert_int_equal(buddy_alloc(&z, 2), 4);
	child_args = (typeof(child_args)){ &z, 4, 1 };
	assert_true(dies(child_free, NULL));               /* 4 is order 2 */
	child_args = (typeof(child_args)){ &z, 6, 2 };
	assert_true(dies(child_free, NULL));               /* not aligned */
	buddy_free(&z, 4, 2);
	buddy_free(&z, 1, 0);
	assert_list(&z, 6, 0);
	assert_consistent(&z);
	fix_free(&f);
}

/* ---- randomized run against a bitmap model ---- */

struct model {
	uint8_t *free;           /* 1 per free page, indexed pfn - start */
	uint64_t start, end, nr_free;
};

static bool model_has_block(const struct model *m, unsigned order)
{
	uint64_t size = 1ULL << order;

	for (uint64_t p = (m->start + size - 1) & ~(size - 1); p + size <= m->end; p += size) {
		uint64_t i = 0;
		while (i < size && m->free[p - m->start + i])
			i++;
		if (i == size)
			return true;
	}
	return false;
}

static void random_run(bool lazy)
{
	/* A zone with an unaligned start and end, and a reserved run and a
	 * hole inside that are never freed. */
	const uint64_t base = 0x37, start = 0x37, end = 0x37 + 30011;
	const uint64_t resv_s = 0x2000, resv_e = 0x2345, hole_s = 0x5001, hole_e = 0x5a00;
	struct fix f;
	struct buddy_zone z;
	struct model m = { .start = start, .end = end };
	struct { uint64_t pfn; unsigned order; } *held = malloc(40000 * sizeof(*held));
	size_t nheld = 0;
	uint64_t want[512], got[512];
	size_t nwant;

	fix_make(&f, 0, base, end - base);
	buddy_zone_init(&z, &f.node, PAGE_ZONE_DMA32, start, end);
	m.free = calloc(end - start, 1);
	const uint64_t parts[3][2] = { { start, resv_s }, { resv_e, hole_s }, { hole_e, end } };
	memmap_init_range(&f.node, resv_s, resv_e, PAGE_RESERVED, PAGE_ZONE_DMA32);
	memmap_mark_hole(&f.node, hole_s, hole_e, BUDDY_MAX_ORDER);
	for (int i = 0; i < 3; i++) {
		if (lazy)
			boot_lazy(&z, parts[i][0], parts[i][1]);
		else
			boot_eager(&z, parts[i][0], parts[i][1]);
		memset(m.free + parts[i][0] - start, 1, parts[i][1] - parts[i][0]);
		m.nr_free += parts[i][1] - parts[i][0];
	}
	assert_int_equal(z.free_pages, m.nr_free);
	assert_consistent(&z);
	nwant = free_blocks(&z, want, 512);

	rnd_state = lazy ? 0xabcdef0123ULL : 0x1234567890ULL;
	for (int op = 0; op < 100000; op++) {
		uint64_t r = rnd();
		bool do_alloc = nheld == 0 || (r & 1023) < (m.nr_free * 1024 / (end - start) > 300 ? 560 : 400);
		if (do_alloc) {
			/* Orders 0..10, mostly small. */
			unsigned order = (unsigned)__builtin_ctzll((r >> 10) | (1ULL << 10));
			uint64_t pfn = buddy_alloc(&z, order);
			if (pfn == BUDDY_NO_PFN) {
				assert_false(model_has_block(&m, order));
				continue;
			}
			assert_int_equal(pfn & ((1ULL << order) - 1), 0);
			assert_true(pfn >= start && pfn + (1ULL << order) <= end);
			for (uint64_t i = 0; i < (1ULL << order); i++) {
				assert_int_equal(m.free[pfn - start + i], 1);
				m.free[pfn - start + i] = 0;
			}
			m.nr_free -= 1ULL << order;
			const struct page *p = memmap_page(&f.node, pfn);
			assert_int_equal(p->type, PAGE_ALLOCATED);
			assert_int_equal(p->order, order);
			assert_int_equal(p->refcount, 1);
			assert_int_equal(p->flags, 0);
			/* Every descriptor of the block is initialised now. */
			for (uint64_t i = 1; i < (1ULL << order); i++) {
				unsigned t = memmap_page(&f.node, pfn + i)->type;
				assert_true(t == PAGE_TAIL || t == PAGE_RESERVED);
			}
			held[nheld].pfn = pfn;
			held[nheld++].order = order;
		} else {
			size_t k = (size_t)(r >> 20) % nheld;
			uint64_t pfn = held[k].pfn;
			unsigned order = held[k].order;
			buddy_free(&z, pfn, order);
			memset(m.free + pfn - start, 1, 1ULL << order);
			m.nr_free += 1ULL << order;
			held[k] = held[--nheld];
		}
		assert_int_equal(z.free_pages, m.nr_free);
		if (op % 1000 == 0)
			assert_int_equal(buddy_count_free(&z), m.nr_free);
		if (op % 10000 == 0)
			assert_true(buddy_check_zone(&z));
	}
	assert_consistent(&z);
	assert_int_equal(buddy_count_free(&z), m.nr_free);
	if (lazy)
		assert_true(z.lazy_fill_allocs > 0 && z.lazy_filled_pages > z.lazy_fill_allocs);
	else
		assert_int_equal(z.lazy_fill_allocs, 0);

	/* Free everything: back to the boot-time lists. */
	while (nheld) {
		size_t k = (size_t)(rnd() % nheld);
		buddy_free(&z, held[k].pfn, held[k].order);
		held[k] = held[--nheld];
	}
	assert_int_equal(free_blocks(&z, got, 512), nwant);
	assert_memory_equal(got, want, nwant * 8);
	assert_consistent(&z);

	/* The census over what was initialised agrees. */
	uint64_t counts[PAGE_NR_TYPES] = { 0 };
	const struct memmap_range ranges[] = { { start, hole_s }, { hole_e, end } };
	assert_int_equal(memmap_count_types(&f.node, ranges, 2, counts), 0);
	assert_int_equal(counts[PAGE_FREE], z.free_pages);
	assert_int_equal(counts[PAGE_RESERVED], resv_e - resv_s);
	free(m.free);
	free(held);
	fix_free(&f);
}

static void test_random_100k_eager(void **state)
{
	random_run(false);
}

static void test_random_100k_lazy(void **state)
{
	random_run(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free_every_order),
		cmocka_unit_test(test_merge_two_buddies),
		cmocka_unit_test(test_no_merge_with_non_free_buddies),
		cmocka_unit_test(test_no_merge_across_zones_or_span),
		cmocka_unit_test(test_free_range_largest_aligned_blocks),
		cmocka_unit_test(test_concurrent_free_range_merges_across_chunks),
		cmocka_unit_test(test_concurrent_alloc_free),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_lazy_blocks),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_debug_checks),
		cmocka_unit_test(test_random_100k_eager),
		cmocka_unit_test(test_random_100k_lazy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

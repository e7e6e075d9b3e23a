/*
 * test_sparse.c: descriptors only for present memory (mm/memmap.h, "sparse
 * storage"): the backing plan, and a node whose span holds a 1 TiB hole run
 * end to end (init, holes, buddy frees and allocations, census) over an
 * array reserved with mmap where only the planned runs are backed. Any read
 * or write of an unbacked descriptor is a SIGSEGV, so the test fails on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "mm/alloc/buddy.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

#define GIB_PAGES (1ULL << 18)
#define TIB_PAGES (1ULL << 28)
#define UNIT_PAGES (MEMMAP_BACKING_ALIGN_BYTES / sizeof(struct page))
#define BLOCK (1ULL << BUDDY_MAX_ORDER)

static uint64_t backed_pages(const struct memmap_range *runs, uint32_t n)
{
	uint64_t t = 0;

	for (uint32_t i = 0; i < n; i++)
		t += runs[i].end_pfn - runs[i].start_pfn;
	return t;
}

static void test_runs_one_aligned_range(void **state)
{
	struct memmap_range present[] = { { 0x40000, 0x80000 } }, runs[4];

	(void)state;
	assert_int_equal(memmap_backing_runs(present, 1, 0x40000, 0x80000, BUDDY_MAX_ORDER, runs, 4), 1);
	assert_int_equal(runs[0].start_pfn, 0x40000);
	assert_int_equal(runs[0].end_pfn, 0x80000);
}

static void test_runs_round_out_and_clamp(void **state)
{
	/* Low memory as firmware gives it: [1 page, 0x9f) and [0x100, 0x7ffdf). */
	struct memmap_range present[] = { { 1, 0x9f }, { 0x100, 0x7ffdf } }, runs[4];
	uint32_t n;

	(void)state;
	n = memmap_backing_runs(present, 2, 1, 0x7ffdf, BUDDY_MAX_ORDER, runs, 4);
	/* Both fall in the first block: one run, clamped to the span. */
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].start_pfn, 1);
	assert_int_equal(runs[0].end_pfn, 0x7ffdf);
}

static void test_runs_split_at_a_large_hole(void **state)
{
	/* QEMU's layout for large guests: [0, 2 GiB) then [1 TiB, 1 TiB + 126 GiB). */
	struct memmap_range present[] = { { 0x100, 2 * GIB_PAGES },
					  { TIB_PAGES, TIB_PAGES + 126 * GIB_PAGES } }, runs[4];
	uint64_t span_end = TIB_PAGES + 126 * GIB_PAGES, present_pages = 0;
	uint32_t n;

	(void)state;
	n = memmap_backing_runs(present, 2, 0x100, span_end, BUDDY_MAX_ORDER, runs, 4);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].start_pfn, 0x100);
	assert_int_equal(runs[0].end_pfn, 2 * GIB_PAGES);
	assert_int_equal(runs[1].start_pfn, TIB_PAGES);
	assert_int_equal(runs[1].end_pfn, span_end);
	for (int i = 0; i < 2; i++)
		present_pages += present[i].end_pfn - present[i].start_pfn;
	/* Descriptor bytes within 1% of present pages x descriptor size (the
	 * dense array would be 8.9 times larger). */
	assert_true(backed_pages(runs, n) * 100 <= present_pages * 101);
	assert_true(span_end - 0x100 > 8 * backed_pages(runs, n));
}

static void test_runs_unaligned_edges_cover_the_blocks(void **state)
{
	/* A hole whose edges are not block aligned: the blocks around both
	 * edges are backed, the whole blocks inside the hole are not. */
	uint64_t a = 5 * BLOCK + 17, b = 40 * BLOCK + 3;
	struct memmap_range present[] = { { 0, a }, { b, 64 * BLOCK } }, runs[4];
	uint32_t n;

	(void)state;
	n = memmap_backing_runs(present, 2, 0, 64 * BLOCK, BUDDY_MAX_ORDER, runs, 4);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].start_pfn, 0);
	assert_int_equal(runs[0].end_pfn, 6 * BLOCK);
	assert_int_equal(runs[1].start_pfn, 40 * BLOCK);
	assert_int_equal(runs[1].end_pfn, 64 * BLOCK);
}

static void test_runs_merge_close_ranges_and_count_past_cap(void **state)
{
	struct memmap_range present[8], runs[2];
	uint32_t n;

	(void)state;
	/* Eight ranges, each in its own block two blocks apart, then a gap of one
	 * page inside a block, which merges. */
	for (int i = 0; i < 8; i++)
		present[i] = (struct memmap_range){ (uint64_t)i * 4 * BLOCK + 1,
						    (uint64_t)i * 4 * BLOCK + 2 * BLOCK };
	n = memmap_backing_runs(present, 8, 0, 32 * BLOCK, BUDDY_MAX_ORDER, runs, 2);
	assert_int_equal(n, 8);                 /* all counted, two written */
	assert_int_equal(runs[1].start_pfn, 4 * BLOCK);
	assert_int_equal(runs[1].end_pfn, 6 * BLOCK);
	present[1].start_pfn = 2 * BLOCK + 1;   /* one page after range 0's block */
	present[0].end_pfn = 2 * BLOCK;
	n = memmap_backing_runs(present, 2, 0, 32 * BLOCK, BUDDY_MAX_ORDER, runs, 2);
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].end_pfn, 6 * BLOCK);
}

/* A sparse array's backing on the host: "physical" addresses from a counter
 * (never dereferenced), mappings as mprotect() of the reserved window. */
struct fake_backing {
	uint8_t *window;
	uint64_t window_bytes;
	uint64_t next_phys;
	uint64_t mapped_bytes;
	uint32_t pieces_2m;
};

static uint64_t fake_alloc(void *ctx, uint64_t bytes, uint64_t align, uint32_t nid)
{
	struct fake_backing *fb = ctx;
	uint64_t at = (fb->next_phys + align - 1) & ~(align - 1);

	(void)nid;
	fb->next_phys = at + bytes;
	return at;
}

static bool fake_map(void *ctx, uint64_t virt, uint64_t phys, uint64_t bytes)
{
	struct fake_backing *fb = ctx;
	uint8_t *v = (uint8_t *)(uintptr_t)virt;

	assert_true(v >= fb->window && v + bytes <= fb->window + fb->window_bytes + 4096);
	assert_int_equal(virt % 4096, 0);
	assert_int_equal(phys % 4096, 0);
	assert_int_equal(bytes % 4096, 0);
	if (virt % (2ULL << 20) == 0 && phys % (2ULL << 20) == 0 && bytes >= (2ULL << 20))
		fb->pieces_2m++;
	fb->mapped_bytes += bytes;
	return mprotect(v, bytes, PROT_READ | PROT_WRITE) == 0;
}

/*
 * End to end: node span [0x100, 1 TiB + 2 GiB) with memory at [0x100,
 * 1 GiB - 0x1c3) and [1 TiB + 0x501, 1 TiB + 2 GiB) (edges inside blocks, so
 * merges at both edges of the hole read descriptors next to it): the array
 * is a 4 GiB window of which about 12 MiB is backed.
 */
static void test_node_with_a_tib_hole(void **state)
{
	const uint64_t span_s = 0x100, span_e = TIB_PAGES + 2 * GIB_PAGES;
	const uint64_t low_e = GIB_PAGES - 0x1c3, high_s = TIB_PAGES + 0x501;
	struct memmap_range present[] = { { span_s, low_e }, { high_s, span_e } };
	uint64_t window = memmap_desc_bytes(span_e - span_s), counts[PAGE_NR_TYPES] = { 0 };
	struct memmap_node node;
	struct buddy_zone z_low, z_high;
	uint8_t *base;
	struct memmap_range runs[4];

	(void)state;
	/* 2 MiB aligned, as the kernel's windows are. */
	base = mmap(NULL, window + (2ULL << 20), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(base != MAP_FAILED);
	base = (uint8_t *)(((uintptr_t)base + (2ULL << 20) - 1) & ~((2ULL << 20) - 1));
	struct fake_backing fb = { .window = base, .window_bytes = window, .next_phys = 1ULL << 32 };
	const struct memmap_sparse_ops ops = { fake_alloc, fake_map, &fb };
	struct memmap_sparse_stats st;

	assert_true(memmap_node_init_sparse(&node, 0, span_s, span_e - span_s, base, present, 2,
					    BUDDY_MAX_ORDER, &ops, runs, 4, &st));
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.present_pages, (low_e - span_s) + (span_e - high_s));
	assert_int_equal(node.present_pages, st.present_pages);
	assert_int_equal(st.backed_bytes, fb.mapped_bytes);
	/* Descriptor bytes within 1% of present pages x descriptor size, and
	 * the middle of each run in 2 MiB pieces. */
	assert_true(st.backed_bytes >= memmap_desc_bytes(st.present_pages));
	assert_true(st.backed_bytes * 100 <= memmap_desc_bytes(st.present_pages) * 101);
	assert_true(fb.pieces_2m >= 2);

	/* Lazy heads for the low range, full init for the high one; the hole
	 * between them marked; then everything freed to the buddy zones. */
	memmap_init_heads(&node, span_s, low_e, PAGE_RESERVED, PAGE_ZONE_DMA32, BUDDY_MAX_ORDER);
	memmap_mark_hole(&node, low_e, PAGE_ZONE_DMA32_END_PFN, BUDDY_MAX_ORDER);
	memmap_mark_hole(&node, PAGE_ZONE_DMA32_END_PFN, high_s, BUDDY_MAX_ORDER);
	memmap_init_range(&node, high_s, span_e, PAGE_RESERVED, PAGE_ZONE_NORMAL);
	buddy_zone_init(&z_low, &node, PAGE_ZONE_DMA32, span_s, low_e);
	buddy_zone_init(&z_high, &node, PAGE_ZONE_NORMAL, high_s, span_e);
	/* Free in pieces, high pfns first, so that merges look both ways. */
	/* (Lazy heads free only in cuts at multiples of the block size.) */
	for (uint64_t at = low_e, cut; at > span_s; at = cut) {
		cut = (at - 1) & ~(4 * BLOCK - 1);
		cut = cut < span_s ? span_s : cut;
		buddy_free_range(&z_low, cut, at);
	}
	buddy_free_range(&z_high, high_s + 0x777, span_e);
	buddy_free_range(&z_high, high_s, high_s + 0x777);
	assert_int_equal(buddy_free_pages(&z_low), low_e - span_s);
	assert_int_equal(buddy_free_pages(&z_high), span_e - high_s);
	assert_true(buddy_check_zone(&z_low));
	assert_true(buddy_check_zone(&z_high));

	/* Take pages of several orders and give them back: the merges read
	 * buddies right at the hole's edges. */
	for (int i = 0; i < 3000; i++) {
		uint64_t p = buddy_alloc(&z_low, (unsigned)(i % 3));
		uint64_t q = buddy_alloc(&z_high, (unsigned)(i % 4));
		assert_true(p != BUDDY_NO_PFN && q != BUDDY_NO_PFN);
		buddy_free(&z_low, p, (unsigned)(i % 3));
		buddy_free(&z_high, q, (unsigned)(i % 4));
	}
	assert_true(buddy_check_zone(&z_low));
	assert_true(buddy_check_zone(&z_high));
	assert_int_equal(memmap_count_types(&node, present, 2, counts), 0);
	assert_int_equal(counts[PAGE_FREE], (low_e - span_s) + (span_e - high_s));
}

/* ---- packed units for parallel jobs ---- */

struct collect {
	struct memmap_range got[16];
	uint32_t n;
};

static void collect_fn(void *arg, uint64_t s, uint64_t e)
{
	struct collect *c = arg;

	assert_true(c->n < 16 && s < e);
	c->got[c->n++] = (struct memmap_range){ s, e };
}

static void test_packed_units_skip_holes(void **state)
{
	/* Node 0 of a 1 TiB guest: [1 MiB, 2 GiB - 34 pages) and [1 TiB, 1 TiB +
	 * 2 GiB), with a reserved gap inside one block of the first range. */
	struct memmap_range r[] = { { 0x100, 0x2000 }, { 0x2003, 2 * GIB_PAGES - 34 },
				    { TIB_PAGES, TIB_PAGES + 2 * GIB_PAGES } }, seg[3];
	struct collect c = { .n = 0 };
	uint32_t n;

	(void)state;
	n = memmap_pack_segments(r, 3, BUDDY_MAX_ORDER, seg);
	assert_int_equal(n, 2);                  /* the gap's block joins them */
	assert_int_equal(seg[0].start_pfn, 0);
	assert_int_equal(seg[0].end_pfn, 2 * GIB_PAGES);
	assert_int_equal(seg[1].start_pfn, TIB_PAGES);
	assert_int_equal(memmap_packed_pages(seg, n), 4 * GIB_PAGES);
	/* A chunk across the two segments maps to two pfn ranges; aligned packed
	 * offsets are aligned pfns. */
	memmap_packed_for_each(seg, n, 2 * GIB_PAGES - BLOCK, 2 * GIB_PAGES + 3 * BLOCK,
			       collect_fn, &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.got[0].start_pfn, 2 * GIB_PAGES - BLOCK);
	assert_int_equal(c.got[0].end_pfn, 2 * GIB_PAGES);
	assert_int_equal(c.got[1].start_pfn, TIB_PAGES);
	assert_int_equal(c.got[1].end_pfn, TIB_PAGES + 3 * BLOCK);
	for (uint64_t off = 0; off < 4 * GIB_PAGES; off += 977 * BLOCK)
		assert_int_equal(memmap_packed_pfn(seg, n, off) % BLOCK, 0);
	assert_int_equal(memmap_packed_pfn(seg, n, 2 * GIB_PAGES + 5), TIB_PAGES + 5);
	/* Cut the whole packed space in uneven chunks: every pfn of every
	 * segment comes out exactly once, in order. */
	uint64_t next = 0;
	uint32_t si = 0;
	for (uint64_t s = 0; s < 4 * GIB_PAGES;) {
		uint64_t e = s + 37 * BLOCK > 4 * GIB_PAGES ? 4 * GIB_PAGES : s + 37 * BLOCK;
		c.n = 0;
		memmap_packed_for_each(seg, n, s, e, collect_fn, &c);
		for (uint32_t k = 0; k < c.n; k++) {
			if (next == seg[si].end_pfn)
				next = seg[++si].start_pfn;
			assert_int_equal(c.got[k].start_pfn, next == 0 && si == 0 ? 0 : next);
			next = c.got[k].end_pfn;
		}
		s = e;
	}
	assert_int_equal(next, TIB_PAGES + 2 * GIB_PAGES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_one_aligned_range),
		cmocka_unit_test(test_runs_round_out_and_clamp),
		cmocka_unit_test(test_runs_split_at_a_large_hole),
		cmocka_unit_test(test_runs_unaligned_edges_cover_the_blocks),
		cmocka_unit_test(test_runs_merge_close_ranges_and_count_past_cap),
		cmocka_unit_test(test_node_with_a_tib_hole),
		cmocka_unit_test(test_packed_units_skip_holes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_memmap.c: descriptor layout, pfn <-> descriptor lookups, the pfn ->
 * node table, and the fill routines writing exactly what they promise and
 * nothing else (every other byte keeps a guard pattern).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

#define GUARD 0xa5
#define GUARD_DESCS 8       /* descriptors of guard before and after the array */

/* A node's array inside a larger buffer full of GUARD bytes. */
struct arena {
	struct page *buf;        /* GUARD_DESCS + nr + GUARD_DESCS descriptors */
	struct memmap_node node;
	uint64_t nr;
};

static void arena_make(struct arena *a, uint32_t nid, uint64_t base_pfn, uint64_t nr)
{
	size_t bytes = (nr + 2 * GUARD_DESCS) * sizeof(struct page);

	a->buf = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	assert_non_null(a->buf);
	memset(a->buf, GUARD, bytes);
	a->nr = nr;
	memmap_node_init(&a->node, nid, base_pfn, nr, a->buf + GUARD_DESCS);
}

static void arena_free(struct arena *a)
{
	free(a->buf);
}

static bool is_guard(const struct page *p)
{
	const uint8_t *b = (const uint8_t *)p;
	for (size_t i = 0; i < sizeof(*p); i++)
		if (b[i] != GUARD)
			return false;
	return true;
}

/* Every byte of the buffer outside the node's array is still GUARD. */
static void assert_guards_intact(const struct arena *a)
{
	for (uint64_t i = 0; i < GUARD_DESCS; i++) {
		assert_true(is_guard(&a->buf[i]));
		assert_true(is_guard(&a->buf[GUARD_DESCS + a->nr + i]));
	}
}

static void assert_desc(const struct page *p, unsigned type, unsigned order, unsigned zone,
			unsigned flags, uint32_t word, uint32_t next, uint32_t prev)
{
	assert_int_equal(p->type, type);
	assert_int_equal(p->order, order);
	assert_int_equal(p->zone, zone);
	assert_int_equal(p->flags, flags);
	assert_int_equal(p->word, word);
	assert_int_equal(p->next, next);
	assert_int_equal(p->prev, prev);
}

/* Initialize the node's first @nr pages (from pfn 0x100000) as reserved with
 * the node's own store; every descriptor must come out reserved and unlinked. */
static void init_reserved_and_check(struct memmap_node *node, uint64_t nr)
{
	memmap_init_range(node, 0x100000, 0x100000 + nr, PAGE_RESERVED, PAGE_ZONE_NORMAL);
	for (uint64_t i = 0; i < nr; i++)
		assert_desc(&node->pages[i], PAGE_RESERVED, 0, PAGE_ZONE_NORMAL, 0, 0,
			    MEMMAP_NONE, MEMMAP_NONE);
}

/* ---- layout ---- */

static void test_layout(void **state)
{
	struct page p;

	assert_int_equal(MEMMAP_DESC_BYTES, 16);
	assert_int_equal(sizeof(struct page), 16);
	assert_int_equal(_Alignof(struct page), 16);
	assert_int_equal(offsetof(struct page, type), 0);
	assert_int_equal(offsetof(struct page, order), 1);
	assert_int_equal(offsetof(struct page, zone), 2);
	assert_int_equal(offsetof(struct page, flags), 3);
	assert_int_equal(offsetof(struct page, refcount), 4);
	assert_int_equal(offsetof(struct page, ptlock), 4);
	assert_int_equal(offsetof(struct page, word), 4);
	assert_int_equal(offsetof(struct page, next), 8);
	assert_int_equal(offsetof(struct page, prev), 12);
	assert_int_equal(PAGE_UNINIT, 0);
	assert_int_equal(memmap_desc_bytes(2097152), 32u << 20);   /* 8 GiB of RAM: 32 MiB */

	/* The page-table lock is the refcount word. */
	memmap_write_head(&p, PAGE_PAGETABLE, 0, PAGE_ZONE_NORMAL, 0, 0);
	spin_lock(&p.ptlock);
	assert_int_equal(p.refcount, 1);
	assert_false(spin_trylock(&p.ptlock));
	spin_unlock(&p.ptlock);
	assert_int_equal(p.refcount, 0);

	assert_string_equal(page_type_name(PAGE_FREE), "free");
	assert_string_equal(page_type_name(PAGE_HOLE), "hole");
	assert_string_equal(page_type_name(PAGE_NR_TYPES), "?");
	assert_int_equal(page_zone_of_pfn(0xfffff), PAGE_ZONE_DMA32);
	assert_int_equal(page_zone_of_pfn(0x100000), PAGE_ZONE_NORMAL);
}

static void test_write_head_fills_every_byte(void **state)
{
	struct page p;

	memset(&p, GUARD, sizeof(p));
	memmap_write_head(&p, PAGE_FREE, 7, PAGE_ZONE_NORMAL, PAGE_F_LAZY_UNINIT, 0x12345678);
	assert_desc(&p, PAGE_FREE, 7, PAGE_ZONE_NORMAL, PAGE_F_LAZY_UNINIT, 0x12345678,
		    MEMMAP_NONE, MEMMAP_NONE);
}

/* ---- lookups ---- */

static void test_pfn_page_roundtrip(void **state)
{
	struct arena a;

	arena_make(&a, 3, 0x100, 4096);
	assert_int_equal(a.node.nid, 3);
	assert_false(memmap_in_span(&a.node, 0xff));
	assert_true(memmap_in_span(&a.node, 0x100));
	assert_true(memmap_in_span(&a.node, 0x10ff));
	assert_false(memmap_in_span(&a.node, 0x1100));
	assert_false(memmap_in_span(&a.node, 0));
	for (uint64_t pfn = 0x100; pfn < 0x1100; pfn += 37) {
		struct page *p = memmap_page(&a.node, pfn);
		assert_ptr_equal(p, &a.node.pages[pfn - 0x100]);
		assert_int_equal(memmap_pfn(&a.node, p), pfn);
		assert_int_equal(memmap_index(&a.node, pfn), pfn - 0x100);
		assert_int_equal(memmap_index_pfn(&a.node, memmap_index(&a.node, pfn)), pfn);
	}
	assert_guards_intact(&a);
	arena_free(&a);
}

static void test_nid_table(void **state)
{
	/* 8 GiB of address space: node 0 [1 MiB, 513 MiB), not 2 MiB aligned
	 * at its end; node 1 up to 4 GiB with a hole [3 GiB, 4 GiB); node 2 at
	 * [5 GiB, 6 GiB) after a hole; nothing above. */
	static struct page dummy[3][1] __attribute__((aligned(16)));
	struct memmap mm;
	struct memmap_node n;
	uint64_t max_pfn = 0x200000;
	memmap_nid_t *table = malloc(memmap_nid_table_bytes(max_pfn));

	assert_int_equal(memmap_nid_table_bytes(max_pfn), 0x2000);   /* 2 bytes a granule */
	assert_int_equal(memmap_nid_table_bytes(1), 2);
	assert_int_equal(memmap_nid_table_bytes(513), 4);
	memmap_init(&mm, table, max_pfn);
	assert_int_equal(mm.nr_nodes, 0);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x100), MEMMAP_NO_NODE);

	/* Spans (the arrays are never dereferenced here). */
	memmap_node_init(&n, 0, 0x100, 0x20100 - 0x100, dummy[0]);
	memmap_add_node(&mm, &n);
	memmap_node_init(&n, 1, 0x20100, 0x100000 - 0x20100, dummy[1]);
	memmap_add_node(&mm, &n);
	memmap_node_init(&n, 2, 0x140000, 0x40000, dummy[2]);
	memmap_add_node(&mm, &n);
	assert_int_equal(mm.nr_nodes, 3);
	memmap_set_nid(&mm, 0x100, 0x20100, 0);
	memmap_set_nid(&mm, 0x20100, 0xc0000, 1);
	memmap_set_nid(&mm, 0x140000, 0x180000, 2);

	assert_int_equal(table[0], 0);
	assert_int_equal(table[0x20100 >> 9], MEMMAP_NID_MIXED);
	assert_int_equal(table[(0x20100 >> 9) + 1], 1);
	assert_int_equal(table[0xc0000 >> 9], MEMMAP_NID_NONE);

	assert_int_equal(memmap_nid_of_pfn(&mm, 0x100), 0);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x1ffff), 0);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x20000), 0);    /* mixed granule, by span */
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x200ff), 0);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x20100), 1);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x201ff), 1);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x20200), 1);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0xbffff), 1);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0xc0000), MEMMAP_NO_NODE);   /* PCI hole */
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x13ffff), MEMMAP_NO_NODE);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x140000), 2);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x17ffff), 2);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x180000), MEMMAP_NO_NODE);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x1fffff), MEMMAP_NO_NODE);
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x200000), MEMMAP_NO_NODE);  /* >= max_pfn */
	assert_int_equal(memmap_nid_of_pfn(&mm, UINT64_MAX), MEMMAP_NO_NODE);
	/* Granule 0 belongs to node 0, whose span starts at 0x100. */
	assert_int_equal(memmap_nid_of_pfn(&mm, 0x50), 0);

	assert_ptr_equal(memmap_pfn_to_page(&mm, 0x100), &dummy[0][0]);
	assert_ptr_equal(memmap_pfn_to_page(&mm, 0x20100), &dummy[1][0]);
	assert_ptr_equal(memmap_pfn_to_page(&mm, 0x140000), &dummy[2][0]);
	assert_ptr_equal(memmap_pfn_to_page(&mm, 0x20101), &dummy[1][1]);   /* address only */
	assert_null(memmap_pfn_to_page(&mm, 0x50));        /* in a node's granule, not its span */
	assert_null(memmap_pfn_to_page(&mm, 0xc0000));
	assert_null(memmap_pfn_to_page(&mm, 0x300000));
	free(table);
}

/* ---- memmap_init_range ---- */

static void check_init_range(enum memmap_store how, uint64_t s_off, uint64_t e_off)
{
	struct arena a;
	const uint64_t base = 0x1000, nr = 600;

	arena_make(&a, 0, base, nr);
	memmap_init_range_store(&a.node, base + s_off, base + e_off, PAGE_RESERVED,
				PAGE_ZONE_DMA32, how);
	for (uint64_t i = 0; i < nr; i++) {
		if (i >= s_off && i < e_off)
			assert_desc(&a.node.pages[i], PAGE_RESERVED, 0, PAGE_ZONE_DMA32, 0, 0,
				    MEMMAP_NONE, MEMMAP_NONE);
		else
			assert_true(is_guard(&a.node.pages[i]));
	}
	assert_guards_intact(&a);
	arena_free(&a);
}

static void test_init_range_writes_exactly_the_range(void **state)
{
	static const uint64_t cuts[][2] = {
		{ 0, 0 }, { 5, 5 }, { 0, 1 }, { 599, 600 }, { 0, 600 }, { 1, 599 },
		{ 3, 8 }, { 4, 8 }, { 7, 300 }, { 17, 18 }, { 2, 7 },
	};
	/* Every kind this architecture offers, and the node's own. */
	for (int how = MEMMAP_STORE_PLAIN; how <= MEMMAP_STORE_AUTO; how++) {
		if (how != MEMMAP_STORE_AUTO && !memmap_store_offered((enum memmap_store)how))
			continue;
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++)
			check_init_range((enum memmap_store)how, cuts[c][0], cuts[c][1]);
	}
}

static void test_init_range_large(void **state)
{
	/* Many cache lines, both kinds of store, odd edges. */
	struct arena a;
	const uint64_t nr = 20000;

	arena_make(&a, 1, 0x100000, nr);
	for (int how = MEMMAP_STORE_PLAIN; how <= MEMMAP_STORE_AUTO; how++) {
		if (how != MEMMAP_STORE_AUTO && !memmap_store_offered((enum memmap_store)how))
			continue;
		memset(a.node.pages, GUARD, nr * sizeof(struct page));
		memmap_init_range_store(&a.node, 0x100000 + 1, 0x100000 + nr - 1, PAGE_MEMMAP,
					PAGE_ZONE_NORMAL, (enum memmap_store)how);
		assert_true(is_guard(&a.node.pages[0]));
		assert_true(is_guard(&a.node.pages[nr - 1]));
		for (uint64_t i = 1; i < nr - 1; i++)
			assert_desc(&a.node.pages[i], PAGE_MEMMAP, 0, PAGE_ZONE_NORMAL, 0, 0,
				    MEMMAP_NONE, MEMMAP_NONE);
		assert_guards_intact(&a);
	}
	/* The default (the node's store): same bytes. */
	memset(a.node.pages, GUARD, nr * sizeof(struct page));
	init_reserved_and_check(&a.node, nr);
	arena_free(&a);
}

/* ---- choosing the store ---- */

static void test_store_choice_follows_llc(void **state)
{
	struct arch_caches intel = { 32u << 20, "leaf4", 0 };
	struct arch_caches amd = { 260u << 20, "leaf0x8000001d", 0 };
	struct arch_caches unknown = { 0, "none", 0 };

	/* Fits the LLC: plain; larger: non-temporal; the boundary is inclusive. */
	assert_int_equal(memmap_store_choose(NULL, 8u << 20, &intel), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_choose(NULL, 32u << 20, &intel), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_choose(NULL, (32u << 20) + 64, &intel), MEMMAP_STORE_NT);
	assert_int_equal(memmap_store_choose(NULL, 256u << 20, &amd), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_choose(NULL, 1ull << 30, &amd), MEMMAP_STORE_NT);
	/* Unknown cache size, or no caches at all: assume the array does not fit. */
	assert_int_equal(memmap_store_choose(NULL, 4096, &unknown), MEMMAP_STORE_NT);
	assert_int_equal(memmap_store_choose(NULL, 4096, NULL), MEMMAP_STORE_NT);
}

/* A scripted clock for the store probe: each pass reads it twice. */
static const uint64_t *probe_script;
static unsigned probe_reads, probe_flushes;
static const void *probe_flushed_at;
static uint64_t probe_flushed_bytes;

static uint64_t probe_ticks(void)
{
	return probe_script[probe_reads++];
}

static void probe_flush(const void *p, uint64_t bytes)
{
	probe_flushes++;
	probe_flushed_at = p;
	probe_flushed_bytes = bytes;
}

/* A simulated CPU for the probe's fairness: a plain pass costs
 * sim_plain, a non-temporal one sim_nt (its sfence included); flushing
 * the lines a plain pass left dirty costs sim_dirty_flush (clflush
 * writing them back one by one), flushing clean ones sim_clean_flush.
 * The clock advances by the pass's cost when it is read at the pass's
 * end, and by the flush's cost when the flush runs. */
static uint64_t sim_now, sim_plain, sim_nt, sim_dirty_flush, sim_clean_flush;
static unsigned sim_reads, sim_timed_flushes;
static bool sim_dirty, sim_in_pass;

static uint64_t sim_ticks(void)
{
	if (sim_reads++ % 2 == 0) {
		sim_in_pass = true;
		return sim_now;
	}
	/* Passes alternate plain, non-temporal, as the probe runs them. */
	bool plain = (sim_reads / 2 - 1) % 2 == 0;
	sim_now += plain ? sim_plain : sim_nt;
	sim_dirty = plain;
	sim_in_pass = false;
	return sim_now;
}

static void sim_flush(const void *p, uint64_t bytes)
{
	sim_now += sim_dirty ? sim_dirty_flush : sim_clean_flush;
	sim_dirty = false;
	sim_timed_flushes += sim_in_pass;
}

/* Plain stores faster than non-temporal ones, but clflush of their dirty
 * lines slow (as on AMD EPYC, where the probe's timed clflush made plain
 * stores look 1.4-2x slower than in the whole init): the probe times what
 * memory init pays, the
 * stores and NT's fence, not the flush that makes its lines cold, and so
 * picks plain. A probe that flushed inside its timed part picked
 * non-temporal here. */
static void test_store_probe_times_both_kinds_fairly(void **state)
{
	struct memmap_store_probe pr;
	struct arena a;

	arena_make(&a, 0, 0x1000, 4096);
	sim_now = 1000;
	sim_plain = 30, sim_nt = 40, sim_dirty_flush = 50, sim_clean_flush = 5;
	sim_reads = sim_timed_flushes = 0;
	sim_dirty = sim_in_pass = false;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1024, memmap_desc_bytes(256), 3, 0, 1, NULL, sim_ticks,
			   sim_flush, &pr);
	assert_int_equal(sim_reads, 12);
	assert_int_equal(sim_timed_flushes, 0);
	assert_int_equal(pr.warm_bytes, memmap_desc_bytes(256));
	assert_int_equal(pr.bytes, memmap_desc_bytes(128));   /* (1024 - 256) / 6 */
	assert_int_equal(pr.plain_ticks, 30);
	assert_int_equal(pr.nt_ticks, 40);
	assert_int_equal(pr.choice, MEMMAP_STORE_PLAIN);

	/* And the other way round: non-temporal wins when it is faster. */
	sim_plain = 45, sim_nt = 40;
	sim_reads = sim_timed_flushes = 0;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1024, memmap_desc_bytes(256), 3, 0, 1, NULL, sim_ticks,
			   sim_flush, &pr);
	assert_int_equal(pr.plain_ticks, 45);
	assert_int_equal(pr.nt_ticks, 40);
	assert_int_equal(pr.choice, MEMMAP_STORE_NT);
	arena_free(&a);
}

/* The store kind is what this CPU does fastest: the probe keeps each
 * kind's fastest pass, picks the faster, and memmap_store_choose() then
 * uses it for arrays larger than the LLC (never for one that fits). */
static void test_store_choice_by_measurement(void **state)
{
	struct arch_caches amd = { 32u << 20, "leaf0x8000001d", 0 };
	struct memmap mm;
	/* Passes: plain 40, nt 50, plain 30, nt 45: plain wins at 30 vs 45. */
	static const uint64_t plain_wins[] = { 0, 40, 100, 150, 200, 230, 300, 345 };
	/* plain 40, nt 20, plain 35, nt 25: nt wins at 20 vs 35. */
	static const uint64_t nt_wins[] = { 0, 40, 100, 120, 200, 235, 300, 325 };
	struct memmap_store_probe pr;
	struct arena a;

	memmap_init(&mm, NULL, 0);
	arena_make(&a, 0, 0x1000, 4096);
	probe_script = plain_wins;
	probe_reads = probe_flushes = 0;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1024, memmap_desc_bytes(512), 2, 0, 1, NULL, probe_ticks,
			   probe_flush, &pr);
	assert_int_equal(probe_reads, 8);
	assert_int_equal(probe_flushes, 1);     /* the whole range first, untimed */
	assert_ptr_equal(probe_flushed_at, &a.node.pages[0]);
	assert_int_equal(probe_flushed_bytes, memmap_desc_bytes(1024));
	/* 512 pages of warm-up, then four passes of their own descriptors. */
	assert_int_equal(pr.warm_bytes, memmap_desc_bytes(512));
	assert_int_equal(pr.bytes, memmap_desc_bytes(128));
	assert_int_equal(pr.plain_ticks, 30);
	assert_int_equal(pr.nt_ticks, 45);
	assert_int_equal(pr.choice, MEMMAP_STORE_PLAIN);
	/* It wrote the descriptors (memory init overwrites them), no more. */
	assert_int_equal(a.node.pages[0].type, PAGE_RESERVED);
	assert_int_equal(a.node.pages[1023].type, PAGE_RESERVED);
	assert_true(is_guard(&a.node.pages[1024]) || a.node.pages[1024].type != PAGE_RESERVED);

	memmap_store_set(&mm, pr.choice);
	assert_int_equal(memmap_store_choose(&mm, 1ull << 30, &amd), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_choose(&mm, 8u << 20, &amd), MEMMAP_STORE_PLAIN);

	probe_script = nt_wins;
	probe_reads = 0;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1024, memmap_desc_bytes(512), 2, 0, 1, NULL, probe_ticks,
			   probe_flush, &pr);
	assert_int_equal(pr.plain_ticks, 35);
	assert_int_equal(pr.nt_ticks, 20);
	assert_int_equal(pr.choice, MEMMAP_STORE_NT);
	memmap_store_set(&mm, pr.choice);
	assert_int_equal(memmap_store_choose(&mm, 1ull << 30, &amd), MEMMAP_STORE_NT);
	/* Fits the LLC: plain whatever was measured (the buddy pass reads the
	 * lines right after). */
	assert_int_equal(memmap_store_choose(&mm, 8u << 20, &amd), MEMMAP_STORE_PLAIN);

	/* Plain must win by more than 15 %: a tie or a near miss is the other kind. */
	assert_int_equal(memmap_store_pick(10, 10, MEMMAP_STORE_NT), MEMMAP_STORE_NT);
	assert_int_equal(memmap_store_pick(84, 100, MEMMAP_STORE_NT), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_pick(86, 100, MEMMAP_STORE_NT), MEMMAP_STORE_NT);
	assert_int_equal(memmap_store_pick(86, 100, MEMMAP_STORE_ZERO), MEMMAP_STORE_ZERO);
	assert_int_equal(memmap_store_pick(UINT64_MAX / 2, UINT64_MAX, MEMMAP_STORE_NT),
			 MEMMAP_STORE_PLAIN);
	memmap_store_set(&mm, MEMMAP_STORE_AUTO);   /* back to the size rule */
	assert_int_equal(memmap_store_for_cold(&mm), MEMMAP_STORE_NT);
	arena_free(&a);
}

/* The probe's extent: an LLC of warm-up and a pass of each kind of half an
 * LLC (at least 1 MiB); a range too short for that gets half of it as
 * warm-up, and every descriptor of the range is written, none beyond. */
static void test_store_probe_extent(void **state)
{
	static const uint64_t clock[] = { 0, 10, 20, 30 };
	struct memmap_store_probe pr;
	uint64_t warm = 0;
	struct arena a;

	assert_int_equal(memmap_store_probe_bytes(32u << 20, &warm), 64u << 20);
	assert_int_equal(warm, 32u << 20);
	assert_int_equal(memmap_store_probe_bytes(0, &warm), 2 * MEMMAP_PROBE_LLC_GUESS_BYTES);
	assert_int_equal(warm, MEMMAP_PROBE_LLC_GUESS_BYTES);
	assert_int_equal(memmap_store_probe_bytes(1u << 20, &warm), 3u << 20);
	assert_int_equal(warm, 1u << 20);

	arena_make(&a, 0, 0x1000, 4096);
	/* Warm-up larger than the range: half of it. */
	probe_script = clock;
	probe_reads = probe_flushes = 0;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1000, memmap_desc_bytes(4096), 1, 0, 1, NULL, probe_ticks,
			   probe_flush, &pr);
	assert_int_equal(pr.warm_bytes, memmap_desc_bytes(500));
	assert_int_equal(pr.bytes, memmap_desc_bytes(250));
	assert_int_equal(probe_reads, 4);
	/* Passes under an eighth of the range: the same. */
	probe_reads = 0;
	memmap_store_probe(&a.node, 0x1000, 0x1000 + 1000, memmap_desc_bytes(900), 1, 0, 1, NULL, probe_ticks,
			   probe_flush, &pr);
	assert_int_equal(pr.warm_bytes, memmap_desc_bytes(500));
	assert_int_equal(a.node.pages[0].type, PAGE_RESERVED);
	assert_int_equal(a.node.pages[999].type, PAGE_RESERVED);
	assert_true(is_guard(&a.node.pages[1000]) || a.node.pages[1000].type != PAGE_RESERVED);
	arena_free(&a);
}

/* On several CPUs at once: each writes its own slice of the warm-up and of
 * every pass, waits before each pass, and the combined figure is the
 * slowest CPU's of each kind. */
static unsigned probe_waits;

static void count_wait(void *arg)
{
	(*(unsigned *)arg)++;
}

static void test_store_probe_on_several_cpus(void **state)
{
	/* CPU 0: plain 30, nt 40; CPU 1: plain 50, nt 20. */
	static const uint64_t clock[] = { 0, 30, 100, 140, 200, 250, 300, 320 };
	const struct memmap_probe_sync sync = { count_wait, &probe_waits };
	struct memmap_store_probe parts[2], pr;
	struct arena a;

	arena_make(&a, 0, 0x1000, 4096);
	probe_script = clock;
	probe_reads = probe_flushes = probe_waits = 0;
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		memmap_store_probe(&a.node, 0x1000, 0x1000 + 1024, memmap_desc_bytes(512), 1, cpu, 2,
				   &sync, probe_ticks, probe_flush, &parts[cpu]);
		/* Its flush is its half of the range. */
		assert_ptr_equal(probe_flushed_at, &a.node.pages[cpu * 512]);
		assert_int_equal(probe_flushed_bytes, memmap_desc_bytes(512));
	}
	assert_int_equal(probe_flushes, 2);
	assert_int_equal(probe_waits, 4);        /* each CPU before each pass */
	assert_int_equal(parts[0].plain_ticks, 30);
	assert_int_equal(parts[1].nt_ticks, 20);
	/* All 1024 descriptors written between them, none beyond. */
	for (unsigned i = 0; i < 1024; i++)
		assert_int_equal(a.node.pages[i].type, PAGE_RESERVED);
	assert_true(is_guard(&a.node.pages[1024]) || a.node.pages[1024].type != PAGE_RESERVED);
	memmap_store_probe_combine(parts, 2, &pr);
	assert_int_equal(pr.cpus, 2);
	assert_int_equal(pr.plain_ticks, 50);
	assert_int_equal(pr.nt_ticks, 40);
	assert_int_equal(pr.choice, MEMMAP_STORE_NT);
	assert_int_equal(pr.bytes, memmap_desc_bytes(256));
	arena_free(&a);
}

/* The measured store is each memmap's own (struct memmap, not a global of
 * mm/memmap.c): two sets of arrays, a boot's and a host test's or two
 * tests', never see each other's measurement. */
static void test_cold_store_is_per_memmap(void **state)
{
	const struct arch_caches small = { 1u << 20, "leaf4", 0 };
	const enum memmap_store dflt = memmap_store_default_cold();
	struct memmap a, b;

	assert_true(memmap_store_offered(dflt) && memmap_store_offered(MEMMAP_STORE_PLAIN));
	memmap_init(&a, NULL, 0);
	memmap_init(&b, NULL, 0);
	assert_int_equal(memmap_store_for_cold(&a), dflt);
	memmap_store_set(&a, MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_for_cold(&a), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_for_cold(&b), dflt);
	assert_int_equal(memmap_store_for_cold(NULL), dflt);
	assert_int_equal(memmap_store_choose(&a, 1ull << 30, &small), MEMMAP_STORE_PLAIN);
	assert_int_equal(memmap_store_choose(&b, 1ull << 30, &small), dflt);
	/* A fresh memmap forgets: nothing measured. */
	memmap_init(&a, NULL, 0);
	assert_int_equal(memmap_store_for_cold(&a), dflt);
	/* The records' names are the architecture's. */
	assert_string_equal(memmap_store_name(MEMMAP_STORE_PLAIN), "plain");
	assert_string_equal(memmap_store_name(dflt), arch_store_kind_name((enum arch_store_kind)dflt));
}

/* The node keeps the store chosen for its present pages; AUTO writes with it. */
static void test_node_store_is_chosen_once(void **state)
{
	struct arch_caches small = { 1u << 20, "leaf0x8000001d", 0 };
	struct arch_caches big = { 1u << 30, "leaf0x8000001d", 0 };
	uint64_t nr = 1u << 16;   /* 64 Ki pages: 1 MiB of 16-byte descriptors or more */
	struct arena a;

	arena_make(&a, 1, 0x100000, nr);
	assert_int_equal(a.node.store, MEMMAP_STORE_NT);      /* unknown CPU */
	assert_int_equal(memmap_node_choose_store(NULL, &a.node, &big), MEMMAP_STORE_PLAIN);
	assert_int_equal(a.node.store, MEMMAP_STORE_PLAIN);
	small.llc_bytes = memmap_desc_bytes(nr) - 1;
	assert_int_equal(memmap_node_choose_store(NULL, &a.node, &small), MEMMAP_STORE_NT);
	init_reserved_and_check(&a.node, nr);
	arena_free(&a);
}

/* ---- blocks, heads, lazy fill ---- */

static void test_block_order(void **state)
{
	assert_int_equal(memmap_block_order(0, 1, 10), 0);
	assert_int_equal(memmap_block_order(0, 2048, 10), 10);
	assert_int_equal(memmap_block_order(0, 1023, 10), 9);
	assert_int_equal(memmap_block_order(3, 100, 10), 0);
	assert_int_equal(memmap_block_order(4, 100, 10), 2);
	assert_int_equal(memmap_block_order(4, 7, 10), 1);
	assert_int_equal(memmap_block_order(1ULL << 40, (1ULL << 40) + (1 << 20), 10), 10);
	assert_int_equal(memmap_block_order(1ULL << 40, (1ULL << 40) + (1 << 20), 20), 20);
	assert_int_equal(memmap_block_order(512, 1 << 20, 20), 9);
}

static void test_init_heads_writes_only_heads(void **state)
{
	/* [3, 2053), max order 10: 3/0 4/2 8/3 16/4 32/5 64/6 128/7 256/8 512/9
	 * 1024/10 2048/2 2052/0. */
	static const struct { uint64_t pfn; unsigned order; } heads[] = {
		{ 3, 0 }, { 4, 2 }, { 8, 3 }, { 16, 4 }, { 32, 5 }, { 64, 6 }, { 128, 7 },
		{ 256, 8 }, { 512, 9 }, { 1024, 10 }, { 2048, 2 }, { 2052, 0 },
	};
	struct arena a;
	uint8_t want[2100] = { 0 };   /* order + 1 for heads */

	arena_make(&a, 0, 0, 2100);
	assert_int_equal(memmap_init_heads(&a.node, 3, 2053, PAGE_RESERVED, PAGE_ZONE_DMA32, 10), 12);
	for (size_t i = 0; i < 12; i++)
		want[heads[i].pfn] = (uint8_t)(heads[i].order + 1);
	for (uint64_t pfn = 0; pfn < 2100; pfn++) {
		const struct page *p = memmap_page(&a.node, pfn);
		if (!want[pfn]) {
			assert_true(is_guard(p));
			continue;
		}
		unsigned order = want[pfn] - 1u;
		assert_desc(p, PAGE_RESERVED, order, PAGE_ZONE_DMA32,
			    order ? PAGE_F_LAZY_UNINIT : 0, 0, MEMMAP_NONE, MEMMAP_NONE);
	}
	/* A lower max order cuts the same range into more heads. */
	memset(a.node.pages, GUARD, 2100 * sizeof(struct page));
	assert_int_equal(memmap_init_heads(&a.node, 0, 2048, PAGE_FREE, PAGE_ZONE_DMA32, 9), 4);
	assert_int_equal(memmap_init_heads(&a.node, 5, 5, PAGE_FREE, PAGE_ZONE_DMA32, 9), 0);
	for (uint64_t pfn = 0; pfn < 2100; pfn++)
		assert_int_equal(is_guard(memmap_page(&a.node, pfn)), !(pfn < 2048 && pfn % 512 == 0));
	assert_guards_intact(&a);
	arena_free(&a);
}

static void test_lazy_fill(void **state)
{
	struct arena a;

	arena_make(&a, 0, 0x100000, 4096);
	memmap_init_heads(&a.node, 0x100000, 0x101000, PAGE_RESERVED, PAGE_ZONE_NORMAL, 10);
	assert_int_equal(memmap_lazy_fill(&a.node, 0x100400, 10), 1023);
	assert_desc(memmap_page(&a.node, 0x100400), PAGE_RESERVED, 10, PAGE_ZONE_NORMAL, 0, 0,
		    MEMMAP_NONE, MEMMAP_NONE);
	for (uint64_t pfn = 0x100401; pfn < 0x100800; pfn++)
		assert_desc(memmap_page(&a.node, pfn), PAGE_TAIL, 0, PAGE_ZONE_NORMAL, 0,
			    PAGE_POISON_TAIL, MEMMAP_NONE, MEMMAP_NONE);
	/* Neighbouring blocks untouched. */
	assert_int_equal(memmap_page(&a.node, 0x100000)->flags, PAGE_F_LAZY_UNINIT);
	assert_true(is_guard(memmap_page(&a.node, 0x1003ff)));
	assert_true(is_guard(memmap_page(&a.node, 0x100801)));
	assert_int_equal(memmap_page(&a.node, 0x100800)->flags, PAGE_F_LAZY_UNINIT);
	/* Order 0: nothing to write. */
	assert_int_equal(memmap_lazy_fill(&a.node, 0x100000, 0), 0);
	assert_true(is_guard(memmap_page(&a.node, 0x100001)));
	assert_guards_intact(&a);
	arena_free(&a);
}

/* ---- holes ---- */

static void test_mark_hole_exact(void **state)
{
	/* The legacy hole [0x9f, 0x100): written at 0x9f and at the last
	 * multiple of 1, 2, 4, ... 64 below 0x100. */
	static const uint64_t want[] = { 0x9f, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff };
	struct arena a;
	size_t w = 0;

	arena_make(&a, 0, 0, 0x200);
	assert_int_equal(memmap_mark_hole(&a.node, 0x9f, 0x100, 10), 8);
	for (uint64_t pfn = 0; pfn < 0x200; pfn++) {
		const struct page *p = memmap_page(&a.node, pfn);
		if (w < 8 && pfn == want[w]) {
			assert_desc(p, PAGE_HOLE, 0, PAGE_ZONE_DMA32, 0, 0, MEMMAP_NONE, MEMMAP_NONE);
			w++;
		} else {
			assert_true(is_guard(p));
		}
	}
	assert_int_equal(w, 8);
	/* A one-page hole: one descriptor. An empty one: none. */
	assert_int_equal(memmap_mark_hole(&a.node, 0x150, 0x151, 10), 1);
	assert_int_equal(memmap_mark_hole(&a.node, 0x160, 0x160, 10), 0);
	assert_guards_intact(&a);
	arena_free(&a);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Any pfn b inside [s, e) that a buddy merge of a block X outside [s, e) can
 * read: b aligned to 2^k, k < max_order, X = [b ^ 2^k, + 2^k) disjoint from
 * [s, e). memmap_mark_hole() must write each of them, and memmap_init_heads()
 * over [s, e) must have a head at each (so a region written heads-only is as
 * safe next to free memory as one written in full).
 */
static void test_hole_and_heads_cover_every_buddy_read(void **state)
{
	const unsigned max_order = 6;
	const uint64_t span = 600;
	struct arena a;

	arena_make(&a, 0, 0, span);
	for (int iter = 0; iter < 400; iter++) {
		uint64_t s = 1 + rnd() % (span - 2);
		uint64_t e = s + 1 + rnd() % (span - 1 - s);
		bool need[600] = { false };

		for (unsigned k = 0; k < max_order; k++)
			for (uint64_t b = s; b < e; b++) {
				uint64_t x = b ^ (1ULL << k);
				if (b & ((1ULL << k) - 1))
					continue;
				if (x + (1ULL << k) <= s || x >= e)
					need[b] = true;
			}

		memset(a.node.pages, GUARD, span * sizeof(struct page));
		memmap_mark_hole(&a.node, s, e, max_order);
		for (uint64_t b = 0; b < span; b++) {
			bool written = !is_guard(&a.node.pages[b]);
			if (need[b])
				assert_true(written);
			if (written)
				assert_true(b >= s && b < e);
		}

		memset(a.node.pages, GUARD, span * sizeof(struct page));
		memmap_init_heads(&a.node, s, e, PAGE_RESERVED, PAGE_ZONE_DMA32, max_order);
		for (uint64_t b = s; b < e; b++)
			if (need[b])
				assert_false(is_guard(&a.node.pages[b]));
	}
	arena_free(&a);
}

/* ---- census ---- */

static void test_count_types(void **state)
{
	struct arena a;
	uint64_t counts[PAGE_NR_TYPES] = { 0 };
	/* [0, 16) kernel, [16, 32) hole (not in the census), [32, 512)
	 * lazy reserved, [512, 1024) a 2 MiB huge page (head only), [1024,
	 * 4096) lazy reserved, then three blocks turned free by hand. */
	const struct memmap_range ranges[] = { { 0, 16 }, { 32, 4096 } };

	arena_make(&a, 0, 0, 4096);
	memmap_init_range(&a.node, 0, 16, PAGE_RESERVED, PAGE_ZONE_DMA32);
	memmap_mark_hole(&a.node, 16, 32, 10);
	memmap_init_heads(&a.node, 32, 512, PAGE_RESERVED, PAGE_ZONE_DMA32, 10);
	memmap_write_head(memmap_page(&a.node, 512), PAGE_HUGE, 9, PAGE_ZONE_DMA32, 0, 0);
	memmap_init_heads(&a.node, 1024, 4096, PAGE_RESERVED, PAGE_ZONE_DMA32, 10);
	memmap_page(&a.node, 2048)->type = PAGE_FREE;
	memmap_page(&a.node, 3072)->type = PAGE_ALLOCATED;
	memmap_page(&a.node, 5)->type = PAGE_PAGETABLE;

	assert_int_equal(memmap_count_types(&a.node, ranges, 2, counts), 0);
	assert_int_equal(counts[PAGE_RESERVED], 15 + 480 + 1024);
	assert_int_equal(counts[PAGE_HUGE], 512);
	assert_int_equal(counts[PAGE_FREE], 1024);
	assert_int_equal(counts[PAGE_ALLOCATED], 1024);
	assert_int_equal(counts[PAGE_PAGETABLE], 1);
	assert_int_equal(counts[PAGE_UNINIT] + counts[PAGE_TAIL] + counts[PAGE_HOLE], 0);

	/* A block cut by the range end counts only its part. */
	const struct memmap_range part = { 2048, 2100 };
	memset(counts, 0, sizeof(counts));
	assert_int_equal(memmap_count_types(&a.node, &part, 1, counts), 0);
	assert_int_equal(counts[PAGE_FREE], 52);

	/* A bad descriptor is counted once as uninit, and logged. */
	host_log_reset();
	memmap_page(&a.node, 7)->type = 77;
	memset(counts, 0, sizeof(counts));
	assert_int_equal(memmap_count_types(&a.node, ranges, 1, counts), 1);
	assert_int_equal(counts[PAGE_UNINIT], 1);
	assert_int_equal(counts[PAGE_RESERVED], 14);
	assert_true(host_log_contains("pfn 0x7: bad descriptor type 77"));
	assert_guards_intact(&a);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_write_head_fills_every_byte),
		cmocka_unit_test(test_pfn_page_roundtrip),
		cmocka_unit_test(test_nid_table),
		cmocka_unit_test(test_init_range_writes_exactly_the_range),
		cmocka_unit_test(test_init_range_large),
		cmocka_unit_test(test_block_order),
		cmocka_unit_test(test_store_choice_follows_llc),
		cmocka_unit_test(test_store_choice_by_measurement),
		cmocka_unit_test(test_store_probe_extent),
		cmocka_unit_test(test_store_probe_on_several_cpus),
		cmocka_unit_test(test_store_probe_times_both_kinds_fairly),
		cmocka_unit_test(test_node_store_is_chosen_once),
		cmocka_unit_test(test_cold_store_is_per_memmap),
		cmocka_unit_test(test_init_heads_writes_only_heads),
		cmocka_unit_test(test_lazy_fill),
		cmocka_unit_test(test_mark_hole_exact),
		cmocka_unit_test(test_hole_and_heads_cover_every_buddy_read),
		cmocka_unit_test(test_count_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_pcp.c: per-CPU page lists (mm/alloc/pcp.c): sizing as Linux computes it,
 * refill and drain sizes, each step of the auto-tuning series on its own,
 * the lock counters, a randomized run of every step set checked against an
 * ownership model, and the real buddy allocator behind the lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mm/alloc/buddy.h"
#include "mm/memmap.h"
#include "mm/alloc/pcp.h"
#include "tests/host/host_support.h"
#include "tests/host/pcp_buddy_zone.h"

/* ---- a model zone: blocks of each order in a stack, every block's owner
 * known, so a block taken twice, given twice or lost is caught at once. ---- */

enum owner { IN_ZONE = 1, OUT };   /* OUT: on a list or with the user */

#define MZ_BLOCKS 16384            /* blocks per order */
struct model_zone {
	struct spinlock lock;
	uint64_t stack[PCP_NR_ORDERS + 1][MZ_BLOCKS];
	uint32_t nr[PCP_NR_ORDERS + 1];
	uint8_t owner[PCP_NR_ORDERS + 1][MZ_BLOCKS];
	uint64_t free_pages;
	uint64_t free_pages_override;  /* non-zero: what free_pages() reports */
	uint64_t takes, gives;         /* calls, each under the lock */
};

/* Order o's block i sits at pfn (o + 1) << 24 | i << o: disjoint ranges. */
static uint64_t mz_pfn(unsigned o, uint32_t i) { return ((uint64_t)(o + 1) << 24) | ((uint64_t)i << o); }
static uint32_t mz_index(uint64_t pfn, unsigned o)
{
	assert_int_equal(pfn >> 24, o + 1);
	return (uint32_t)((pfn & ((1u << 24) - 1)) >> o);
}

static unsigned mz_take(void *zone, unsigned order, unsigned n, uint64_t *out)
{
	struct model_zone *z = zone;
	unsigned got = 0;

	assert_int_equal(z->lock.locked, 1);
	z->takes++;
	while (got < n && z->nr[order]) {
		uint64_t pfn = z->stack[order][--z->nr[order]];
		uint32_t i = mz_index(pfn, order);

		assert_int_equal(z->owner[order][i], IN_ZONE);
		z->owner[order][i] = OUT;
		z->free_pages -= 1ULL << order;
		out[got++] = pfn;
	}
	return got;
}

static void mz_give(void *zone, unsigned order, const uint64_t *pfns, unsigned n)
{
	struct model_zone *z = zone;

	assert_int_equal(z->lock.locked, 1);
	z->gives++;
	for (unsigned k = 0; k < n; k++) {
		uint32_t i = mz_index(pfns[k], order);

		assert_int_equal(z->owner[order][i], OUT);
		z->owner[order][i] = IN_ZONE;
		z->stack[order][z->nr[order]++] = pfns[k];
		z->free_pages += 1ULL << order;
	}
}

static uint64_t mz_free_pages(void *zone)
{
	struct model_zone *z = zone;
	return z->free_pages_override ? z->free_pages_override : z->free_pages;
}

static const struct pcp_backend mz_backend = { mz_take, mz_give, mz_free_pages };

static struct model_zone *mz_new(uint32_t blocks_per_order)
{
	struct model_zone *z = calloc(1, sizeof(*z));

	assert_non_null(z);
	for (unsigned o = 0; o <= PCP_NR_ORDERS; o++) {
		for (uint32_t i = 0; i < blocks_per_order; i++) {
			z->stack[o][z->nr[o]++] = mz_pfn(o, blocks_per_order - 1 - i);
			z->owner[o][blocks_per_order - 1 - i] = IN_ZONE;
			z->free_pages += 1ULL << o;
		}
	}
	return z;
}

/* A zone of 1 GiB out of 2 GiB, 2 CPUs on its node: Linux's numbers for
 * that are batch 63, watermarks 724/986/1248, high_min 986/2, high_max
 * 262144/8/2. */
#define MANAGED 262144
#define TOTAL 524288

struct fix {
	struct model_zone *z;
	struct pcp_zone pz;
	void *mem;
	struct pcp_list *l;
};

static void fix_make(struct fix *f, enum pcp_policy policy, uint32_t steps, uint64_t cache_bytes)
{
	struct pcp_config cfg = { .policy = policy, .steps = steps, .cache_bytes = cache_bytes };

	f->z = mz_new(MZ_BLOCKS);
	pcp_zone_init(&f->pz, &mz_backend, f->z, &f->z->lock, &cfg, MANAGED, TOTAL, 2);
	f->mem = aligned_alloc(64, pcp_list_bytes(&f->pz));
	assert_non_null(f->mem);
	f->l = pcp_list_init(&f->pz, f->mem, 0);
}

static void fix_free(struct fix *f)
{
	free(f->mem);
	free(f->z);
}

static uint64_t zone_total(void)
{
	uint64_t t = 0;
	for (unsigned o = 0; o <= PCP_NR_ORDERS; o++)
		t += (uint64_t)MZ_BLOCKS << o;
	return t;
}

/* ---- parsing ---- */

static void test_parse(void **state)
{
	char err[160];
	uint32_t s = 12345;
	enum pcp_policy p = PCP_OFF;

	assert_true(pcp_parse_policy("auto", &p, err, sizeof(err)));
	assert_int_equal(p, PCP_AUTO);
	assert_true(pcp_parse_policy("fixed", &p, err, sizeof(err)));
	assert_int_equal(p, PCP_FIXED);
	assert_false(pcp_parse_policy("on", &p, err, sizeof(err)));
	assert_int_equal(p, PCP_FIXED);
	assert_false(pcp_parse_policy(NULL, &p, err, sizeof(err)));

	assert_true(pcp_parse_steps("mainline", &s, err, sizeof(err)));
	assert_int_equal(s, PCP_STEP(1) | PCP_STEP(3) | PCP_STEP(4) | PCP_STEP(5) | PCP_STEP(7) |
			    PCP_STEP(8) | PCP_STEP(10));
	assert_true(pcp_parse_steps("+9", &s, err, sizeof(err)));
	assert_int_equal(s, PCP_STEPS_KNOWN);
	assert_true(pcp_parse_steps("-10,-8", &s, err, sizeof(err)));
	assert_int_equal(s, PCP_STEPS_MAINLINE & ~PCP_STEP(10) & ~PCP_STEP(8));
	assert_true(pcp_parse_steps("1,3", &s, err, sizeof(err)));
	assert_int_equal(s, PCP_STEP(1) | PCP_STEP(3));
	assert_true(pcp_parse_steps("none", &s, err, sizeof(err)));
	assert_int_equal(s, 0);
	s = 77;
	const char *bad[] = { "", "2", "6", "1,", "x", "1;3", "11", "1000000", "+", "3,,4" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(pcp_parse_steps(bad[i], &s, err, sizeof(err)));
		assert_int_equal(s, 77);
		assert_non_null(strstr(err, "mainline"));
	}

	char buf[64];
	pcp_format_steps(PCP_STEPS_MAINLINE, buf, sizeof(buf));
	assert_string_equal(buf, "1,3,4,5,7,8,10");
	pcp_format_steps(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
}

/* ---- sizing ---- */

static void test_sizing(void **state)
{
	struct fix f;

	assert_int_equal(pcp_batch_for(262144), 63);
	assert_int_equal(pcp_batch_for(1 << 24), 63);
	assert_int_equal(pcp_batch_for(32768), 7);   /* 32 / 4 = 8 -> 12 -> 8 - 1 */
	assert_int_equal(pcp_batch_for(100), 1);

	fix_make(&f, PCP_AUTO, PCP_STEPS_MAINLINE, 0);
	assert_int_equal(f.pz.batch, 63);
	assert_int_equal(f.pz.wmark_min, 724);
	assert_int_equal(f.pz.wmark_low, 986);
	assert_int_equal(f.pz.wmark_high, 1248);
	assert_int_equal(f.pz.high_min, 493);
	assert_int_equal(f.pz.high_max, 16384);
	assert_true(f.pz.auto_tune);
	assert_int_equal(f.l->high, 493);
	fix_free(&f);

	/* A fraction fixes high: managed / fraction / CPUs, tuning off. */
	struct pcp_config cfg = { .policy = PCP_FIXED, .steps = PCP_STEPS_MAINLINE,
				  .high_fraction = 100 };
	struct model_zone *z = mz_new(4);
	struct pcp_zone pz;
	pcp_zone_init(&pz, &mz_backend, z, &z->lock, &cfg, MANAGED, TOTAL, 2);
	assert_int_equal(pz.high_min, 1310);
	assert_int_equal(pz.high_max, 1310);
	assert_false(pz.auto_tune);
	/* auto without step 7 is the kernel before the series. */
	cfg.policy = PCP_AUTO;
	cfg.high_fraction = 0;
	cfg.steps = PCP_STEPS_MAINLINE & ~PCP_STEP(7);
	pcp_zone_init(&pz, &mz_backend, z, &z->lock, &cfg, MANAGED, TOTAL, 2);
	assert_int_equal(pz.high_min, 493);
	assert_int_equal(pz.high_max, 493);
	assert_false(pz.auto_tune);
	/* Never under 4 batches. */
	pcp_zone_init(&pz, &mz_backend, z, &z->lock, &cfg, MANAGED, TOTAL, 64);
	assert_int_equal(pz.high_min, 4 * 63);
	free(z);
}

/* ---- the base algorithm (no steps) ---- */

static void test_base_refill_and_drain(void **state)
{
	struct fix f;
	uint64_t got[600];

	fix_make(&f, PCP_AUTO, 0, 0);
	/* Each empty list takes one batch: 63 order-0 pages, 63 >> o blocks
	 * (at least 2) of higher orders. */
	got[0] = pcp_alloc(f.l, 0);
	assert_int_equal(f.l->count, 62);
	assert_int_equal(f.l->st.alloc_zone_pages, 63);
	got[1] = pcp_alloc(f.l, 3);
	assert_int_equal(f.l->nr[3], 6);   /* 63 >> 3 = 7 blocks, one handed out */
	assert_int_equal(f.l->st.alloc_zone_pages, 63 + 56);
	pcp_free(f.l, got[1], 3);
	pcp_free(f.l, got[0], 0);
	assert_int_equal(pcp_drain(f.l), 62 + 1 + 56);
	assert_int_equal(f.l->count, 0);

	for (int i = 0; i < 600; i++) {
		got[i] = pcp_alloc(f.l, 0);
		assert_true(got[i] != PCP_NO_PFN);
	}
	assert_int_equal(f.l->st.refills, 2 + 10);   /* 600 / 63 rounded up */
	/* Frees fill the list to high (493), then drain batch << free_factor,
	 * doubling on each drain without an allocation between, clamped to
	 * high - batch (430). */
	uint64_t drained_before = f.l->st.drained_pages;
	int drains = 0;
	int sizes[8];
	for (int i = 0; i < 600; i++) {
		uint64_t d = f.l->st.drains;
		uint64_t p = f.l->st.drained_pages;
		pcp_free(f.l, got[i], 0);
		if (f.l->st.drains != d && drains < 8)
			sizes[drains++] = (int)(f.l->st.drained_pages - p);
		assert_true(f.l->count < f.l->high);
		assert_true(pcp_check(f.l));
	}
	assert_true(drains >= 2);
	assert_int_equal(sizes[0], 63 + 1 - 1);  /* the list held 62 left from the last refill */
	assert_int_equal(sizes[1], 126);
	assert_true(f.l->st.drained_pages > drained_before);
	/* An allocation halves free_factor. */
	uint8_t ff = f.l->free_factor;
	pcp_free(f.l, pcp_alloc(f.l, 0), 0);
	assert_int_equal(f.l->free_factor, ff >> 1);
	pcp_drain(f.l);
	assert_int_equal(f.z->free_pages, zone_total());
	fix_free(&f);
}

static void test_off_goes_to_zone(void **state)
{
	struct fix f;

	fix_make(&f, PCP_OFF, PCP_STEPS_MAINLINE, 0);
	uint64_t a = pcp_alloc(f.l, 0), b = pcp_alloc(f.l, 2);
	assert_int_equal(f.l->count, 0);
	assert_int_equal(f.l->st.lock_acquired, 2);
	assert_int_equal(f.l->st.alloc_zone, 2);
	assert_int_equal(f.l->st.alloc_zone_pages, 5);
	pcp_free(f.l, a, 0);
	pcp_free(f.l, b, 2);
	assert_int_equal(f.l->st.lock_acquired, 4);
	assert_int_equal(f.z->free_pages, zone_total());
	assert_int_equal(pcp_drain(f.l), 0);
	fix_free(&f);
}

/* Orders above PCP_MAX_ORDER never sit on a list. */
static void test_order4_bypasses(void **state)
{
	struct fix f;

	fix_make(&f, PCP_AUTO, PCP_STEPS_MAINLINE, 0);
	uint64_t a = pcp_alloc(f.l, 4);
	assert_true(a != PCP_NO_PFN);
	assert_int_equal(f.l->count, 0);
	pcp_free(f.l, a, 4);
	assert_int_equal(f.l->count, 0);
	assert_int_equal(f.z->free_pages, zone_total());
	fix_free(&f);
}

/* ---- free_high: base, step 1, step 3, step 10 ---- */

/* Free order-0 pages until a drain (free_factor > 0, as at a process exit),
 * then free one order-1 block: the old rule drains the whole list on it. */
static uint64_t exit_then_pgd(uint32_t steps, uint64_t cache)
{
	struct fix f;
	uint64_t got[700], pgd, n;

	fix_make(&f, PCP_AUTO, steps, cache);
	pgd = pcp_alloc(f.l, 1);
	for (int i = 0; i < 700; i++)
		got[i] = pcp_alloc(f.l, 0);
	for (int i = 0; i < 700; i++)
		pcp_free(f.l, got[i], 0);
	assert_true(f.l->st.drains > 0);
	pcp_free(f.l, pgd, 1);
	n = f.l->st.free_high;
	pcp_drain(f.l);
	assert_int_equal(f.z->free_pages, zone_total());
	fix_free(&f);
	return n;
}

static void test_free_high_steps(void **state)
{
	assert_int_equal(exit_then_pgd(0, 0), 1);
	/* Patch 1: one high-order free after order-0 frees is not a run. */
	assert_int_equal(exit_then_pgd(PCP_STEP(1), 0), 0);

	/* Two order-1 frees in a row after a drain: free_high with step 1. */
	struct fix f;
	uint64_t a[4];
	fix_make(&f, PCP_AUTO, PCP_STEP(1), 0);
	for (int i = 0; i < 4; i++)
		a[i] = pcp_alloc(f.l, 1);
	f.l->free_factor = 1;               /* as after a drain */
	pcp_free(f.l, a[0], 1);
	assert_int_equal(f.l->st.free_high, 0);
	pcp_free(f.l, a[1], 1);
	assert_int_equal(f.l->st.free_high, 1);
	assert_int_equal(f.l->count, 0);    /* drained everything (no step 4 cap) */
	fix_free(&f);

	/* Patch 3: a big cache keeps a batch before draining. */
	fix_make(&f, PCP_AUTO, PCP_STEP(1) | PCP_STEP(3), 64ULL << 20);
	assert_true(f.l->flags & PCPF_FREE_HIGH_BATCH);
	for (int i = 0; i < 4; i++)
		a[i] = pcp_alloc(f.l, 1);
	pcp_drain(f.l);
	f.l->free_factor = 1;
	pcp_free(f.l, a[0], 1);
	pcp_free(f.l, a[1], 1);
	assert_int_equal(f.l->st.free_high, 0);   /* 4 pages < batch 63 */
	fix_free(&f);
	/* A small cache leaves the flag off. */
	fix_make(&f, PCP_AUTO, PCP_STEP(3), 512 * 1024);
	assert_false(f.l->flags & PCPF_FREE_HIGH_BATCH);
	fix_free(&f);

	/* Patch 10: free_count counts freed pages; free_high once a batch of
	 * them went by with no allocation, whatever drained before. */
	fix_make(&f, PCP_AUTO, PCP_STEP(1) | PCP_STEP(10), 0);
	uint64_t b[40];
	for (int i = 0; i < 40; i++)
		b[i] = pcp_alloc(f.l, 1);
	assert_int_equal(f.l->free_count, 0);
	int i = 0;
	while (f.l->st.free_high == 0 && i < 40)
		pcp_free(f.l, b[i++], 1);
	/* 2 pages a free: the 33rd free sees free_count 64 >= 63. */
	assert_int_equal(i, 33);
	assert_int_equal(f.l->st.free_high, 1);
	pcp_alloc(f.l, 0);
	assert_int_equal(f.l->free_count, 66 >> 1);
	fix_free(&f);
}

/* ---- batch scaling: steps 4 and 5 ---- */

static void test_alloc_batch_scaling(void **state)
{
	struct fix f;
	uint64_t last = 0, sizes[8];
	int n = 0;

	fix_make(&f, PCP_AUTO, PCP_STEP(5) | PCP_STEP(7), 0);
	for (int i = 0; i < 4000 && n < 8; i++) {
		uint64_t before = f.l->st.alloc_zone_pages;
		assert_true(pcp_alloc(f.l, 0) != PCP_NO_PFN);
		if (f.l->st.alloc_zone_pages != before)
			sizes[n++] = f.l->st.alloc_zone_pages - before;
		(void)last;
	}
	/* 63, then doubling while it fits under the (rising) high. */
	assert_int_equal(sizes[0], 63);
	assert_int_equal(sizes[1], 126);
	assert_int_equal(sizes[2], 252);
	for (int i = 3; i < n; i++)
		assert_true(sizes[i] <= 63 << PCP_BATCH_SCALE_MAX);
	assert_true(f.l->alloc_factor <= PCP_BATCH_SCALE_MAX);
	/* A free halves alloc_factor. */
	uint8_t af = f.l->alloc_factor;
	pcp_free(f.l, pcp_alloc(f.l, 0), 0);
	assert_int_equal(f.l->alloc_factor, af >> 1);
	fix_free(&f);

	/* Without step 5 every refill is one batch. */
	fix_make(&f, PCP_AUTO, PCP_STEP(7), 0);
	for (int i = 0; i < 1000; i++)
		pcp_alloc(f.l, 0);
	assert_int_equal(f.l->st.alloc_zone_pages, f.l->st.refills * 63);
	fix_free(&f);
}

static int free_factor_after_frees(uint32_t steps)
{
	struct fix f;
	/* A fixed high of 262144 / 48 / 2 = 2730: room under it (high -
	 * batch) for batch << 5 but not << 6. */
	struct pcp_config cfg = { .policy = PCP_FIXED, .steps = steps, .high_fraction = 48 };
	uint64_t *p = malloc(sizeof(uint64_t) * 8000);
	int ff;

	f.z = mz_new(MZ_BLOCKS);
	pcp_zone_init(&f.pz, &mz_backend, f.z, &f.z->lock, &cfg, MANAGED, TOTAL, 2);
	assert_int_equal(f.pz.high_max, 2730);
	f.mem = aligned_alloc(64, pcp_list_bytes(&f.pz));
	f.l = pcp_list_init(&f.pz, f.mem, 0);
	for (int i = 0; i < 8000; i++)
		p[i] = pcp_alloc(f.l, 0);
	for (int i = 0; i < 8000; i++)
		pcp_free(f.l, p[i], 0);
	ff = f.l->free_factor;
	pcp_drain(f.l);
	assert_int_equal(f.z->free_pages, zone_total());
	free(p);
	fix_free(&f);
	return ff;
}

/* Step 4 stops the free batch doubling at 2^PCP_BATCH_SCALE_MAX. */
static void test_free_factor_cap(void **state)
{
	assert_int_equal(free_factor_after_frees(PCP_STEP(4)), PCP_BATCH_SCALE_MAX);
	assert_int_equal(free_factor_after_frees(0), PCP_BATCH_SCALE_MAX + 1);
}

/* ---- auto-tuning: steps 7, 8, 9 ---- */

static void test_auto_raise_and_decay(void **state)
{
	struct fix f;

	fix_make(&f, PCP_AUTO, PCP_STEP(7), 0);
	uint64_t first[64];
	/* Each refill raises high by a batch. */
	first[0] = pcp_alloc(f.l, 0);
	assert_int_equal(f.l->high, 493 + 63);
	for (int i = 1; i < 64; i++)
		first[i] = pcp_alloc(f.l, 0);
	assert_int_equal(f.l->high, 493 + 126);
	/* Ticks decay it by 1/8 down to high_min, never under it. */
	int prev = f.l->high;
	pcp_tick(f.l);
	assert_int_equal(f.l->high, prev - (prev >> 3));
	for (int i = 0; i < 50; i++)
		pcp_tick(f.l);
	assert_int_equal(f.l->high, 493);
	assert_int_equal(f.l->st.high_max_seen, 493 + 126);
	assert_int_equal(f.l->st.high_min_seen, 493);
	/* The decay drains what is above high. */
	f.l->high = 2000;
	uint64_t *p = malloc(sizeof(uint64_t) * 1500);
	for (int i = 0; i < 1500; i++)
		p[i] = pcp_alloc(f.l, 0);
	for (int i = 0; i < 1500; i++)
		pcp_free(f.l, p[i], 0);
	int c = f.l->count;
	assert_true(c > 1000);
	pcp_tick(f.l);
	assert_true(f.l->count <= f.l->high);
	assert_true(c - f.l->count <= 63 << PCP_BATCH_SCALE_MAX);
	free(p);
	for (int i = 0; i < 64; i++)
		pcp_free(f.l, first[i], 0);
	pcp_drain(f.l);
	assert_int_equal(f.z->free_pages, zone_total());
	fix_free(&f);
}

static void test_below_high(void **state)
{
	struct fix f;
	uint64_t p[600];

	fix_make(&f, PCP_AUTO, PCP_STEP(7) | PCP_STEP(8), 0);
	f.l->high = 3000;
	f.z->free_pages_override = 1000;   /* under the high watermark 1248 */
	for (int i = 0; i < 300; i++)
		p[i] = pcp_alloc(f.l, 0);
	assert_true(f.pz.below_high);
	/* No raise on refill while short: the first refill raised it once
	 * (before it saw the shortage), the others did not. */
	assert_int_equal(f.l->high, 3063);
	/* A free shrinks high and drains down to high_min. */
	for (int i = 0; i < 300; i++)
		pcp_free(f.l, p[i], 0);
	assert_true(f.l->high < 3063);
	assert_true(f.l->count <= 493);
	/* Memory back above the high watermark ends the shortage at the next
	 * drain. */
	f.z->free_pages_override = 0;
	for (int i = 0; i < 600; i++)
		p[i] = pcp_alloc(f.l, 0);
	for (int i = 0; i < 600; i++)
		pcp_free(f.l, p[i], 0);
	assert_int_equal(f.pz.below_high, 0);
	fix_free(&f);
}

static void test_count_min(void **state)
{
	struct fix f;
	uint64_t p[6000];

	/* Without step 9 a tick decays high by 1/8 even when every page on
	 * the list was in use during the tick. */
	for (int with9 = 0; with9 < 2; with9++) {
		fix_make(&f, PCP_AUTO, PCP_STEP(7) | (with9 ? PCP_STEP(9) : 0), 0);
		f.l->high = 4000;
		for (int i = 0; i < 1000; i++)
			p[i] = pcp_alloc(f.l, 0);
		for (int i = 0; i < 1000; i++)
			pcp_free(f.l, p[i], 0);
		pcp_tick(f.l);                 /* starts a tick: count_min = count */
		int high = f.l->high;
		/* Use every page of the list, then give them back. */
		int c = f.l->count;
		for (int i = 0; i < c; i++)
			p[i] = pcp_alloc(f.l, 0);
		if (with9)
			assert_int_equal(f.l->count_min, 0);
		for (int i = 0; i < c; i++)
			pcp_free(f.l, p[i], 0);
		pcp_tick(f.l);
		if (with9)
			assert_int_equal(f.l->high, high);
		else
			assert_int_equal(f.l->high, high - (high >> 3));
		/* Idle pages: 100 allocated and returned, the rest idle. */
		high = f.l->high;
		c = f.l->count;
		for (int i = 0; i < 100; i++)
			p[i] = pcp_alloc(f.l, 0);
		for (int i = 0; i < 100; i++)
			pcp_free(f.l, p[i], 0);
		pcp_tick(f.l);
		int dec = high >> 3;
		if (with9 && c - 100 < dec)
			dec = c - 100;
		assert_int_equal(f.l->high, high - dec);
		assert_true(pcp_check(f.l));
		pcp_drain(f.l);
		fix_free(&f);
	}
}

/* ---- lock counters ---- */

struct contend_arg {
	struct pcp_list *l;
	uint64_t pfn;
};

static void *contend_thread(void *p)
{
	struct contend_arg *a = p;
	a->pfn = pcp_alloc(a->l, 0);
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_lock_counters(void **state)
{
	struct fix f;
	pthread_t t;
	struct contend_arg a;

	fix_make(&f, PCP_AUTO, PCP_STEPS_MAINLINE, 0);
	f.pz.now_ns = now_ns;
	/* Uncontended: one acquisition a refill, none for a list hit. */
	pcp_free(f.l, pcp_alloc(f.l, 0), 0);
	assert_int_equal(f.l->st.lock_acquired, 1);
	assert_int_equal(f.l->st.lock_contended, 0);
	pcp_drain(f.l);
	assert_int_equal(f.l->st.lock_acquired, 2);

	/* Held by someone else for 20 ms: one contended acquisition. */
	spin_lock(&f.z->lock);
	a.l = f.l;
	assert_int_equal(pthread_create(&t, NULL, contend_thread, &a), 0);
	usleep(20000);
	spin_unlock(&f.z->lock);
	pthread_join(t, NULL);
	assert_true(a.pfn != PCP_NO_PFN);
	assert_int_equal(f.l->st.lock_acquired, 3);
	assert_int_equal(f.l->st.lock_contended, 1);
	assert_true(f.l->st.spin_ns >= 10000000ULL);
	pcp_free(f.l, a.pfn, 0);
	pcp_drain(f.l);
	fix_free(&f);
}

/* ---- randomized run against the ownership model ---- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void random_run(uint32_t steps, enum pcp_policy policy, uint64_t seed, bool below)
{
	struct fix f;
	struct held { uint64_t pfn; unsigned order; } *held = malloc(sizeof(*held) * 20000);
	size_t nh = 0;
	uint64_t s = seed, user_pages = 0;

	fix_make(&f, policy, steps, (seed & 1) ? 64ULL << 20 : 0);
	for (int op = 0; op < 60000; op++) {
		uint64_t r = rng_next(&s) % 100;
		if (below && op == 20000)
			f.z->free_pages_override = 100;
		if (below && op == 40000)
			f.z->free_pages_override = 0;
		if (r < 50 && nh < 20000) {
			unsigned order = (unsigned)(rng_next(&s) % 10);
			order = order < 6 ? 0 : order - 5;   /* mostly order 0, up to 4 */
			uint64_t pfn = pcp_alloc(f.l, order);
			if (pfn != PCP_NO_PFN) {
				held[nh].pfn = pfn;
				held[nh++].order = order;
				user_pages += 1ULL << order;
			}
		} else if (r < 99 && nh) {
			/* Bursts: free several in a row sometimes. */
			int k = (rng_next(&s) % 8) == 0 ? 40 : 1;
			while (k-- && nh) {
				size_t i = rng_next(&s) % nh;
				pcp_free(f.l, held[i].pfn, held[i].order);
				user_pages -= 1ULL << held[i].order;
				held[i] = held[--nh];
			}
		} else {
			pcp_tick(f.l);
		}
		assert_true(pcp_check(f.l));
		/* Every page is in the zone, on the list, or with the user. */
		assert_int_equal(f.z->free_pages + (uint64_t)f.l->count + user_pages, zone_total());
		assert_true(f.l->count <= f.l->high + (63 << PCP_BATCH_SCALE_MAX) + 64);
	}
	while (nh) {
		nh--;
		pcp_free(f.l, held[nh].pfn, held[nh].order);
	}
	pcp_drain(f.l);
	assert_int_equal(f.l->count, 0);
	assert_int_equal(f.z->free_pages, zone_total());
	for (unsigned o = 0; o <= PCP_NR_ORDERS; o++)
		for (uint32_t i = 0; i < MZ_BLOCKS; i++)
			assert_int_equal(f.z->owner[o][i], IN_ZONE);
	free(held);
	fix_free(&f);
}

static void test_random_every_step_set(void **state)
{
	const uint32_t sets[] = {
		0, PCP_STEP(1), PCP_STEP(1) | PCP_STEP(3), PCP_STEP(1) | PCP_STEP(3) | PCP_STEP(4) | PCP_STEP(5),
		PCP_STEP(1) | PCP_STEP(3) | PCP_STEP(4) | PCP_STEP(5) | PCP_STEP(7),
		PCP_STEPS_MAINLINE & ~PCP_STEP(10), PCP_STEPS_MAINLINE, PCP_STEPS_KNOWN,
		PCP_STEP(9) | PCP_STEP(7), PCP_STEP(10), PCP_STEP(5),
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		random_run(sets[i], PCP_AUTO, 0x1234567 + i, false);
		random_run(sets[i], PCP_AUTO, 0x89abcde + i, true);
		random_run(sets[i], PCP_FIXED, 0x5555 + i, false);
	}
	random_run(PCP_STEPS_MAINLINE, PCP_OFF, 42, false);
}

/* ---- the real buddy allocator behind the lists ---- */

struct buddy_fix {
	struct page *buf;
	struct memmap_node node;
	struct buddy_zone z;
};


static void test_buddy_behind_lists(void **state)
{
	const uint64_t base = 0x100000, nr = 65536;   /* 256 MiB above 4 GiB */
	struct buddy_fix *b = calloc(1, sizeof(*b));
	size_t bytes = (nr * sizeof(struct page) + 63) & ~(size_t)63;
	struct pcp_config cfg = { .policy = PCP_AUTO, .steps = PCP_STEPS_KNOWN };
	struct pcp_zone pz;
	struct pcp_list *l[2];
	void *mem[2];
	uint64_t (*held)[2] = malloc(sizeof(uint64_t[2]) * 8000), s = 99;
	size_t nh = 0;

	b->buf = aligned_alloc(64, bytes);
	memmap_node_init(&b->node, 0, base, nr, b->buf);
	memmap_init_range(&b->node, base, base + nr, PAGE_RESERVED, PAGE_ZONE_NORMAL);
	buddy_zone_init(&b->z, &b->node, PAGE_ZONE_NORMAL, base, base + nr);
	buddy_free_range(&b->z, base, base + nr);
	pcp_zone_init(&pz, &pcp_buddy_zone_backend, &b->z, &b->z.lock, &cfg, nr, nr, 2);
	for (int c = 0; c < 2; c++) {
		mem[c] = aligned_alloc(64, pcp_list_bytes(&pz));
		l[c] = pcp_list_init(&pz, mem[c], (uint32_t)c);
	}
	/* Allocate on one CPU, free on either (remote frees land on the
	 * freeing CPU's list, as in Linux). */
	for (int op = 0; op < 40000; op++) {
		int c = (int)(rng_next(&s) & 1);
		if ((rng_next(&s) % 3) && nh < 8000) {
			unsigned order = (unsigned)(rng_next(&s) % 4);
			uint64_t pfn = pcp_alloc(l[c], order == 3 ? 3 : 0);
			if (pfn != PCP_NO_PFN) {
				held[nh][0] = pfn;
				held[nh++][1] = order == 3 ? 3 : 0;
			}
		} else if (nh) {
			size_t i = rng_next(&s) % nh;
			pcp_free(l[c], held[i][0], (unsigned)held[i][1]);
			held[i][0] = held[nh - 1][0];
			held[i][1] = held[--nh][1];
		}
		if (op % 1000 == 0)
			pcp_tick(l[c]);
	}
	while (nh--)
		pcp_free(l[0], held[nh][0], (unsigned)held[nh][1]);
	assert_true(buddy_free_pages(&b->z) < nr);
	pcp_drain(l[0]);
	pcp_drain(l[1]);
	assert_int_equal(buddy_free_pages(&b->z), nr);
	assert_int_equal(buddy_count_free(&b->z), nr);
	assert_true(buddy_check_zone(&b->z));
	/* Everything merged back into max-order blocks. */
	assert_int_equal(b->z.nr_free[BUDDY_MAX_ORDER], nr >> BUDDY_MAX_ORDER);
	free(mem[0]);
	free(mem[1]);
	free(held);
	free(b->buf);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_sizing),
		cmocka_unit_test(test_base_refill_and_drain),
		cmocka_unit_test(test_off_goes_to_zone),
		cmocka_unit_test(test_order4_bypasses),
		cmocka_unit_test(test_free_high_steps),
		cmocka_unit_test(test_alloc_batch_scaling),
		cmocka_unit_test(test_free_factor_cap),
		cmocka_unit_test(test_auto_raise_and_decay),
		cmocka_unit_test(test_below_high),
		cmocka_unit_test(test_count_min),
		cmocka_unit_test(test_lock_counters),
		cmocka_unit_test(test_random_every_step_set),
		cmocka_unit_test(test_buddy_behind_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_pt.c: the page-table layer (mm/pt/pt.c): map, unmap, protect and lookup
 * of each page size, argument checks, which lock guards which table, empty
 * tables unlinked and given back, TLB flush calls, the fault path, a
 * randomized run checked against a dictionary of mappings in both lock
 * modes, and threads mapping and unmapping neighbouring ranges at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <cmocka.h>

#include "arch/mmu.h"
#include "mm/page.h"
#include "mm/pt/pt.h"
#include "tests/host/host_support.h"
#include "tests/host/pt_arena.h"

#define WIN (1ULL << 39)             /* the window: [512 GiB, 1 TiB) */
#define WIN_END (2ULL << 39)
#define SZ_4K (1ULL << 12)
#define SZ_2M (1ULL << 21)
#define SZ_1G (1ULL << 30)

struct fix {
	struct pt_arena arena;
	struct pt_as as;
};

static void fix_make(struct fix *f, enum pt_lock_mode mode, uint32_t lists, uint64_t tables)
{
	assert_true(pt_arena_init(&f->arena, lists, tables, 0, 0));
	assert_int_equal(pt_create(&f->as, &pt_arena_ops, &f->arena, mode, WIN, WIN_END, NULL, 0),
			 PT_OK);
	assert_int_equal(f->as.nr_tables, 1);
}

static void fix_free(struct fix *f)
{
	pt_destroy(&f->as, NULL, NULL);
	/* Every table page back with the allocator. */
	assert_int_equal(pt_arena_tables_out(&f->arena), 0);
	pt_arena_fini(&f->arena);
}

/* A fake frame: leaves are never dereferenced by the layer. */
static uint64_t frame(uint64_t n, enum pt_size s)
{
	return ((1ULL << 20) + n) << (12 + 9 * s);
}

static void test_map_lookup_each_size(void **state)
{
	struct fix f;
	struct pt_mapping m;

	fix_make(&f, PT_LOCK_SPLIT, 1, 64);
	assert_int_equal(pt_map(&f.as, WIN + 5 * SZ_4K, frame(1, PT_SIZE_4K), PT_SIZE_4K,
				PT_PROT_WRITE, 0, NULL), PT_OK);
	assert_int_equal(pt_map(&f.as, WIN + 3 * SZ_2M, frame(2, PT_SIZE_2M), PT_SIZE_2M, 0, 0,
				NULL), PT_OK);
	assert_int_equal(pt_map(&f.as, WIN + 7 * SZ_1G, frame(3, PT_SIZE_1G), PT_SIZE_1G,
				PT_PROT_ALL, 0, NULL), PT_OK);
	/* root, one PDPT, one PD, one PTE table */
	assert_int_equal(f.as.nr_tables, 4);

	assert_true(pt_lookup(&f.as, WIN + 5 * SZ_4K + 123, &m));
	assert_int_equal(m.va, WIN + 5 * SZ_4K);
	assert_int_equal(m.phys, frame(1, PT_SIZE_4K));
	assert_int_equal(m.size, PT_SIZE_4K);
	assert_int_equal(m.prot, PT_PROT_WRITE);
	assert_true(pt_lookup(&f.as, WIN + 4 * SZ_2M - 1, &m));
	assert_int_equal(m.va, WIN + 3 * SZ_2M);
	assert_int_equal(m.phys, frame(2, PT_SIZE_2M));
	assert_int_equal(m.size, PT_SIZE_2M);
	assert_int_equal(m.prot, 0);
	assert_true(pt_lookup(&f.as, WIN + 7 * SZ_1G + SZ_1G / 2, &m));
	assert_int_equal(m.phys, frame(3, PT_SIZE_1G));
	assert_int_equal(m.size, PT_SIZE_1G);
	assert_int_equal(m.prot, PT_PROT_ALL);
	assert_false(pt_lookup(&f.as, WIN + 4 * SZ_4K, &m));
	assert_false(pt_lookup(&f.as, WIN + 4 * SZ_2M, &m));
	assert_false(pt_lookup(&f.as, WIN + 8 * SZ_1G, &m));

	/* The entries are what the SDM says they are (the host's format is
	 * x86_64's: asm/mmu.h). */
	const uint64_t *pml4 = f.as.root;
	uint64_t pdpt = pml4[1] & X86_PTE_ADDR;
	uint64_t e1g = ((uint64_t *)(uintptr_t)pdpt)[7];
	assert_int_equal(pml4[1] & ~X86_PTE_ADDR, X86_PTE_P | X86_PTE_W);
	assert_int_equal(e1g & ~X86_PTE_ADDR,
			 X86_PTE_P | X86_PTE_PS | X86_PTE_W | X86_PTE_A | X86_PTE_D);
	assert_int_equal(e1g & X86_PTE_ADDR, frame(3, PT_SIZE_1G));
	const uint64_t *pd = (const uint64_t *)(uintptr_t)(((uint64_t *)(uintptr_t)pdpt)[0] &
							 X86_PTE_ADDR);
	assert_int_equal(pd[3], frame(2, PT_SIZE_2M) | X86_PTE_P | X86_PTE_PS | X86_PTE_A |
					X86_PTE_D | X86_PTE_NX);
	const uint64_t *pte = (const uint64_t *)(uintptr_t)(pd[0] & X86_PTE_ADDR);
	assert_int_equal(pte[5], frame(1, PT_SIZE_4K) | X86_PTE_P | X86_PTE_W | X86_PTE_A |
					 X86_PTE_D | X86_PTE_NX);
	fix_free(&f);
}

static void test_bad_arguments(void **state)
{
	struct fix f;
	struct pt_as as2;

	fix_make(&f, PT_LOCK_SPLIT, 1, 16);
	assert_int_equal(pt_map(&f.as, WIN + 1, frame(0, 0), PT_SIZE_4K, 0, 0, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN + SZ_4K, frame(0, 0), PT_SIZE_2M, 0, 0, NULL),
			 PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN, frame(0, 0) + SZ_4K, PT_SIZE_2M, 0, 0, NULL),
			 PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN - SZ_4K, frame(0, 0), PT_SIZE_4K, 0, 0, NULL),
			 PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN_END, frame(0, 0), PT_SIZE_4K, 0, 0, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN, frame(0, 0), PT_NR_SIZES, 0, 0, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN, frame(0, 0), PT_SIZE_4K, 0x80, 0, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_map(&f.as, WIN, 1ULL << 52, PT_SIZE_4K, 0, 0, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_unmap(&f.as, 0, NULL, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_protect(&f.as, WIN, 0x80, NULL), PT_ERR_INVAL);
	assert_int_equal(pt_unmap(&f.as, WIN, NULL, NULL), PT_ERR_NOTMAPPED);
	assert_int_equal(pt_protect(&f.as, WIN, 0, NULL), PT_ERR_NOTMAPPED);
	/* Nothing was allocated by any of it. */
	assert_int_equal(f.as.nr_tables, 1);
	/* Windows must be 512 GiB aligned, ordered and in the lower half. */
	assert_int_equal(pt_create(&as2, &pt_arena_ops, &f.arena, PT_LOCK_SPLIT, WIN + SZ_1G,
				   WIN_END, NULL, 0), PT_ERR_INVAL);
	assert_int_equal(pt_create(&as2, &pt_arena_ops, &f.arena, PT_LOCK_SPLIT, WIN, WIN, NULL, 0),
			 PT_ERR_INVAL);
	assert_int_equal(pt_create(&as2, &pt_arena_ops, &f.arena, PT_LOCK_SPLIT, WIN,
				   PT_VA_LIMIT + WIN, NULL, 0), PT_ERR_INVAL);
	assert_int_equal(pt_create(&as2, &pt_arena_ops, &f.arena, 7, WIN, WIN_END, NULL, 0),
			 PT_ERR_INVAL);
	assert_string_equal(pt_strerror(PT_ERR_BUSY), "already mapped");
	fix_free(&f);
}

static void test_busy_overlaps(void **state)
{
	struct fix f;

	fix_make(&f, PT_LOCK_GLOBAL, 1, 16);
	assert_int_equal(pt_map(&f.as, WIN + SZ_2M + SZ_4K, frame(1, 0), PT_SIZE_4K, 0, 0, NULL),
			 PT_OK);
	/* A 2 MiB page over a 4 KiB one, a 1 GiB page over both. */
	assert_int_equal(pt_map(&f.as, WIN + SZ_2M, frame(1, 1), PT_SIZE_2M, 0, 0, NULL),
			 PT_ERR_BUSY);
	assert_int_equal(pt_map(&f.as, WIN, frame(1, 2), PT_SIZE_1G, 0, 0, NULL), PT_ERR_BUSY);
	assert_int_equal(pt_map(&f.as, WIN + SZ_2M + SZ_4K, frame(2, 0), PT_SIZE_4K, 0, 0, NULL),
			 PT_ERR_BUSY);
	/* 4 KiB and 2 MiB pages inside a 1 GiB one. */
	assert_int_equal(pt_map(&f.as, WIN + SZ_1G, frame(3, 2), PT_SIZE_1G, 0, 0, NULL), PT_OK);
	assert_int_equal(pt_map(&f.as, WIN + SZ_1G + SZ_4K, frame(3, 0), PT_SIZE_4K, 0, 0, NULL),
			 PT_ERR_BUSY);
	assert_int_equal(pt_map(&f.as, WIN + SZ_1G + SZ_2M, frame(3, 1), PT_SIZE_2M, 0, 0, NULL),
			 PT_ERR_BUSY);
	/* Once the small page is gone its tables go too, and the 2 MiB fits. */
	assert_int_equal(pt_unmap(&f.as, WIN + SZ_2M + SZ_4K, NULL, NULL), PT_OK);
	assert_int_equal(pt_map(&f.as, WIN + SZ_2M, frame(1, 1), PT_SIZE_2M, 0, 0, NULL), PT_OK);
	fix_free(&f);
}

static void test_empty_tables_go_back(void **state)
{
	struct fix f;
	struct pt_mapping old;

	fix_make(&f, PT_LOCK_SPLIT, 1, 16);
	assert_int_equal(pt_map(&f.as, WIN + 9 * SZ_4K, frame(9, 0), PT_SIZE_4K, 0, 0, NULL), PT_OK);
	assert_int_equal(pt_map(&f.as, WIN + 10 * SZ_4K, frame(10, 0), PT_SIZE_4K, 0, 0, NULL),
			 PT_OK);
	assert_int_equal(f.as.nr_tables, 4);
	assert_int_equal(pt_unmap(&f.as, WIN + 9 * SZ_4K + 7, &old, NULL), PT_OK);
	assert_int_equal(old.va, WIN + 9 * SZ_4K);
	assert_int_equal(old.phys, frame(9, 0));
	assert_int_equal(old.size, PT_SIZE_4K);
	/* The table still maps page 10: nothing unlinked. */
	assert_int_equal(f.as.nr_deferred, 0);
	assert_int_equal(pt_unmap(&f.as, WIN + 10 * SZ_4K, NULL, NULL), PT_OK);
	/* PTE table, PD and PDPT all went empty: unlinked, waiting. */
	assert_int_equal(f.as.nr_deferred, 3);
	assert_int_equal(f.as.root[1], 0);
	assert_int_equal(pt_arena_tables_out(&f.arena), 4);
	uint64_t flushes = f.arena.flushes;
	assert_int_equal(pt_reclaim(&f.as), 3);
	assert_int_equal(f.arena.flushes, flushes + 1);     /* one full flush first */
	assert_int_equal(f.arena.last_flush_bytes, 0);
	assert_int_equal(f.as.nr_tables, 1);
	assert_int_equal(pt_arena_tables_out(&f.arena), 1);
	assert_int_equal(pt_reclaim(&f.as), 0);
	fix_free(&f);
}

static void test_lock_pointers(void **state)
{
	struct fix s, g;

	fix_make(&s, PT_LOCK_SPLIT, 1, 16);
	fix_make(&g, PT_LOCK_GLOBAL, 1, 16);
	for (struct fix *f = &s; f; f = f == &s ? &g : NULL) {
		assert_int_equal(pt_map(&f->as, WIN + SZ_1G + 3 * SZ_4K, frame(1, 0), PT_SIZE_4K,
					0, 0, NULL), PT_OK);
		uint64_t pdpt = arch_pte_table_addr(f->as.root[1]);
		uint64_t pd = arch_pte_table_addr(((uint64_t *)(uintptr_t)pdpt)[1]);
		uint64_t ptt = arch_pte_table_addr(((uint64_t *)(uintptr_t)pd)[0]);
		struct page *pd_page = pt_arena_page_of(&f->arena, pd);
		struct page *pt_page = pt_arena_page_of(&f->arena, ptt);
		/* Every table page's descriptor says what it is. */
		assert_int_equal(pd_page->type, PAGE_PAGETABLE);
		assert_int_equal(pt_page->type, PAGE_PAGETABLE);
		assert_int_equal(pt_arena_page_of(&f->arena, pdpt)->type, PAGE_PAGETABLE);
		assert_ptr_equal(pt_lockptr(&f->as, f->as.root_phys, 3), &f->as.lock);
		assert_ptr_equal(pt_lockptr(&f->as, pdpt, 2), &f->as.lock);
		if (f == &s) {
			assert_ptr_equal(pt_lockptr(&f->as, pd, 1), &pd_page->ptlock);
			assert_ptr_equal(pt_lockptr(&f->as, ptt, 0), &pt_page->ptlock);
		} else {
			assert_ptr_equal(pt_lockptr(&f->as, pd, 1), &f->as.lock);
			assert_ptr_equal(pt_lockptr(&f->as, ptt, 0), &f->as.lock);
		}
		/* A held PD lock is really what a 2 MiB map in that PD waits on:
		 * with it held, a map elsewhere in another PD goes through. */
		if (f == &s) {
			spin_lock(&pd_page->ptlock);
			assert_int_equal(pt_map(&f->as, WIN + 2 * SZ_1G, frame(2, 1), PT_SIZE_2M, 0,
						0, NULL), PT_OK);
			spin_unlock(&pd_page->ptlock);
		}
	}
	fix_free(&s);
	fix_free(&g);
}

static void test_flush_on_unmap_and_protect(void **state)
{
	struct fix f;
	struct pt_mapping m;

	fix_make(&f, PT_LOCK_SPLIT, 1, 16);
	assert_int_equal(pt_map(&f.as, WIN + 4 * SZ_2M, frame(4, 1), PT_SIZE_2M, PT_PROT_WRITE, 0,
				NULL), PT_OK);
	assert_int_equal(f.arena.flushes, 0);     /* a new mapping needs no flush */
	assert_int_equal(pt_protect(&f.as, WIN + 4 * SZ_2M + 5 * SZ_4K, 0, NULL), PT_OK);
	assert_int_equal(f.arena.flushes, 1);
	assert_int_equal(f.arena.last_flush_va, WIN + 4 * SZ_2M);
	assert_int_equal(f.arena.last_flush_bytes, SZ_2M);
	assert_true(pt_lookup(&f.as, WIN + 4 * SZ_2M, &m));
	assert_int_equal(m.prot, 0);
	assert_int_equal(m.phys, frame(4, 1));
	assert_int_equal(pt_unmap(&f.as, WIN + 4 * SZ_2M + SZ_2M - 1, NULL, NULL), PT_OK);
	assert_int_equal(f.arena.flushes, 2);
	assert_int_equal(f.arena.last_flush_va, WIN + 4 * SZ_2M);
	assert_int_equal(f.arena.last_flush_bytes, SZ_2M);
	fix_free(&f);
}

static void test_out_of_memory(void **state)
{
	struct fix f;

	fix_make(&f, PT_LOCK_SPLIT, 1, 16);
	f.arena.fail_after = 1;       /* the PDPT, then nothing */
	assert_int_equal(pt_map(&f.as, WIN, frame(0, 0), PT_SIZE_4K, 0, 0, NULL), PT_ERR_NOMEM);
	f.arena.fail_after = UINT64_MAX;
	assert_int_equal(pt_map(&f.as, WIN, frame(0, 0), PT_SIZE_4K, 0, 0, NULL), PT_OK);
	fix_free(&f);
}

static uint64_t leaves_seen;
static void count_leaf(void *arg, const struct pt_mapping *m)
{
	leaves_seen += m->size == PT_SIZE_2M;
}

static void test_fault_path(void **state)
{
	struct pt_arena a;
	struct pt_as as;
	struct pt_stats st = { 0 };
	struct pt_mapping m;

	assert_true(pt_arena_init(&a, 1, 16, 8 * SZ_2M, 2));
	assert_int_equal(pt_create(&as, &pt_arena_ops, &a, PT_LOCK_SPLIT, WIN, WIN_END, NULL, 0),
			 PT_OK);
	struct pt_region r = { .start = WIN, .end = WIN + 4 * SZ_2M, .kind = PT_REGION_2M,
			       .prot = PT_PROT_WRITE, .zero = true,
			       .alloc_frame = pt_arena_alloc_frame,
			       .free_frame = pt_arena_free_frame, .ctx = &a };
	/* The frame it will get is dirty: zeroing must clear it. */
	memset((void *)(uintptr_t)a.lists[0].frame_base, 0x5a, SZ_2M);
	assert_int_equal(pt_fault(&as, &r, WIN + 12345, 0, &st), PT_OK);
	assert_true(pt_lookup(&as, WIN + 12345, &m));
	assert_int_equal(m.size, PT_SIZE_2M);
	assert_int_equal(m.phys, a.lists[0].frame_base);
	const uint8_t *p = (const uint8_t *)(uintptr_t)m.phys;
	for (uint64_t i = 0; i < SZ_2M; i += 4093)
		assert_int_equal(p[i], 0);
	/* The second fault on that page finds it mapped. */
	assert_int_equal(pt_fault(&as, &r, WIN + SZ_2M - 1, 0, &st), PT_OK);
	assert_int_equal(st.faults, 1);
	assert_int_equal(st.faults_raced, 1);
	assert_int_equal(pt_fault(&as, &r, WIN + 4 * SZ_2M, 0, &st), PT_ERR_INVAL);
	/* The hugetlb pool has 2 pages: the third fault has none. */
	r.kind = PT_REGION_HUGETLB;
	r.start = WIN + SZ_1G;
	r.end = WIN + SZ_1G + 4 * SZ_2M;
	assert_int_equal(pt_fault(&as, &r, r.start, 0, &st), PT_OK);
	assert_int_equal(pt_fault(&as, &r, r.start + SZ_2M, 0, &st), PT_OK);
	assert_int_equal(pt_fault(&as, &r, r.start + 2 * SZ_2M, 0, &st), PT_ERR_NOMEM);
	/* 4 KiB faults. */
	r.kind = PT_REGION_4K;
	r.start = WIN + 2 * SZ_1G;
	r.end = r.start + SZ_2M;
	assert_int_equal(pt_fault(&as, &r, r.start + 3 * SZ_4K + 1, 0, &st), PT_OK);
	assert_true(pt_lookup(&as, r.start + 3 * SZ_4K, &m));
	assert_int_equal(m.size, PT_SIZE_4K);
	assert_int_equal(st.faults, 4);
	leaves_seen = 0;
	pt_destroy(&as, count_leaf, NULL);
	assert_int_equal(leaves_seen, 3);
	assert_int_equal(pt_arena_tables_out(&a), 0);
	pt_arena_fini(&a);
}

/* ---- the model: a dictionary of mappings ---- */

#define MODEL_MAX 4096
struct model {
	struct pt_mapping m[MODEL_MAX];
	unsigned n;
};

static int model_find(const struct model *mo, uint64_t va)
{
	for (unsigned i = 0; i < mo->n; i++)
		if (va >= mo->m[i].va && va - mo->m[i].va < pt_size_bytes(mo->m[i].size))
			return (int)i;
	return -1;
}

static bool model_overlaps(const struct model *mo, uint64_t va, uint64_t bytes)
{
	for (unsigned i = 0; i < mo->n; i++) {
		uint64_t s = mo->m[i].va, e = s + pt_size_bytes(mo->m[i].size);
		if (s < va + bytes && va < e)
			return true;
	}
	return false;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
	/* xorshift64*: fixed seeds, reproducible runs */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Addresses are drawn from 4 GiB at the start of the window and a 4 GiB
 * stretch at its end, so sizes collide often and the top tables are used. */
static uint64_t random_va(enum pt_size s)
{
	uint64_t span = 4 * SZ_1G;
	uint64_t off = rnd() % span;
	uint64_t va = (rnd() & 1) ? WIN + off : WIN_END - span + off;
	/* Mostly small pages in a few 2 MiB blocks, so tables fill and empty. */
	if (s == PT_SIZE_4K && (rnd() & 3))
		va = WIN + (rnd() % 8) * SZ_2M + (rnd() % 32) * SZ_4K;
	return va & ~(pt_size_bytes(s) - 1);
}

static void model_check_all(struct fix *f, const struct model *mo)
{
	struct pt_mapping m;

	for (unsigned i = 0; i < mo->n; i++) {
		const struct pt_mapping *w = &mo->m[i];
		uint64_t probe = w->va + rnd() % pt_size_bytes(w->size);
		assert_true(pt_lookup(&f->as, probe, &m));
		assert_int_equal(m.va, w->va);
		assert_int_equal(m.phys, w->phys);
		assert_int_equal(m.size, w->size);
		assert_int_equal(m.prot, w->prot);
	}
	for (int k = 0; k < 64; k++) {
		uint64_t va = random_va((enum pt_size)(rnd() % 3)) + rnd() % SZ_4K;
		assert_int_equal(pt_lookup(&f->as, va, &m), model_find(mo, va) >= 0);
	}
}

static void run_model(enum pt_lock_mode mode, uint64_t seed, unsigned steps)
{
	static struct model mo;
	struct fix f;
	uint64_t serial = 0;

	rng_state = seed;
	mo.n = 0;
	fix_make(&f, mode, 1, 2048);
	for (unsigned step = 0; step < steps; step++) {
		unsigned op = (unsigned)(rnd() % 10);
		enum pt_size s = (enum pt_size)(rnd() % 16 == 0 ? 2 : rnd() % 4 == 0 ? 1 : 0);
		uint64_t va = random_va(s);
		struct pt_mapping old;
		int idx, want, got;

		if (op < 5) {          /* map */
			unsigned prot = (unsigned)(rnd() % 4);
			uint64_t phys = frame(++serial, s);
			want = model_overlaps(&mo, va, pt_size_bytes(s)) ? PT_ERR_BUSY : PT_OK;
			if (want == PT_OK && mo.n == MODEL_MAX)
				continue;
			got = pt_map(&f.as, va, phys, s, prot, 0, NULL);
			assert_int_equal(got, want);
			if (got == PT_OK)
				mo.m[mo.n++] = (struct pt_mapping){ va, phys, s, prot };
		} else if (op < 8) {   /* unmap, usually something that is there */
			if (mo.n && (rnd() & 3))
				va = mo.m[rnd() % mo.n].va + rnd() % SZ_4K;
			idx = model_find(&mo, va);
			got = pt_unmap(&f.as, va, &old, NULL);
			assert_int_equal(got, idx >= 0 ? PT_OK : PT_ERR_NOTMAPPED);
			if (idx >= 0) {
				assert_int_equal(old.va, mo.m[idx].va);
				assert_int_equal(old.phys, mo.m[idx].phys);
				assert_int_equal(old.size, mo.m[idx].size);
				assert_int_equal(old.prot, mo.m[idx].prot);
				mo.m[idx] = mo.m[--mo.n];
			}
		} else if (op < 9) {   /* protect */
			unsigned prot = (unsigned)(rnd() % 4);
			if (mo.n && (rnd() & 1))
				va = mo.m[rnd() % mo.n].va;
			idx = model_find(&mo, va);
			got = pt_protect(&f.as, va, prot, NULL);
			assert_int_equal(got, idx >= 0 ? PT_OK : PT_ERR_NOTMAPPED);
			if (idx >= 0)
				mo.m[idx].prot = prot;
		} else {               /* reclaim now and then */
			pt_reclaim(&f.as);
			/* Only the live tables are held: each one maps something. */
			assert_int_equal(f.as.nr_tables, pt_arena_tables_out(&f.arena));
		}
		if (step % 512 == 0)
			model_check_all(&f, &mo);
	}
	model_check_all(&f, &mo);
	/* Unmap everything: every table but the root goes back. */
	while (mo.n) {
		assert_int_equal(pt_unmap(&f.as, mo.m[0].va, NULL, NULL), PT_OK);
		mo.m[0] = mo.m[--mo.n];
	}
	pt_reclaim(&f.as);
	assert_int_equal(f.as.nr_tables, 1);
	assert_int_equal(pt_arena_tables_out(&f.arena), 1);
	fix_free(&f);
}

static void test_model_split(void **state)
{
	run_model(PT_LOCK_SPLIT, 0x9e3779b97f4a7c15ULL, 40000);
	run_model(PT_LOCK_SPLIT, 12345, 40000);
}

static void test_model_global(void **state)
{
	run_model(PT_LOCK_GLOBAL, 0xdeadbeefULL, 40000);
}

/* ---- threads on neighbouring ranges ---- */

#define THREADS 4
#define ROUNDS 300

struct worker {
	struct fix *f;
	uint32_t id;
	uint64_t errors;
	struct pt_stats st;
};

/*
 * Thread i owns 4 KiB pages i, i + THREADS, i + 2 * THREADS ... of one
 * 2 MiB block (all threads share its PTE table and PD) and 2 MiB block
 * i + 1 of the same PD; it maps, checks, protects, unmaps, checks again.
 */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct pt_as *as = &w->f->as;
	struct pt_mapping m;
	uint64_t small = WIN + SZ_1G, big = WIN + SZ_1G + (1 + w->id) * SZ_2M;

	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned k = 0; k < 8; k++) {
			uint64_t va = small + (w->id + k * THREADS) * SZ_4K;
			uint64_t phys = frame((uint64_t)w->id << 32 | round << 8 | k, 0);
			if (pt_map(as, va, phys, PT_SIZE_4K, PT_PROT_WRITE, w->id, &w->st) != PT_OK)
				w->errors++;
		}
		if (pt_map(as, big, frame(w->id, 1), PT_SIZE_2M, 0, w->id, &w->st) != PT_OK)
			w->errors++;
		for (unsigned k = 0; k < 8; k++) {
			uint64_t va = small + (w->id + k * THREADS) * SZ_4K;
			uint64_t phys = frame((uint64_t)w->id << 32 | round << 8 | k, 0);
			if (!pt_lookup(as, va, &m) || m.phys != phys)
				w->errors++;
			if (pt_protect(as, va, 0, &w->st) != PT_OK)
				w->errors++;
		}
		if (!pt_lookup(as, big + 77, &m) || m.phys != frame(w->id, 1))
			w->errors++;
		for (unsigned k = 0; k < 8; k++) {
			uint64_t va = small + (w->id + k * THREADS) * SZ_4K;
			if (pt_unmap(as, va, NULL, &w->st) != PT_OK || pt_lookup(as, va, &m))
				w->errors++;
		}
		if (pt_unmap(as, big, NULL, &w->st) != PT_OK || pt_lookup(as, big, &m))
			w->errors++;
	}
	return NULL;
}

static void run_threads(enum pt_lock_mode mode)
{
	struct fix f;
	pthread_t t[THREADS];
	struct worker w[THREADS];
	struct pt_stats sum = { 0 };

	fix_make(&f, mode, THREADS, 4096);
	for (uint32_t i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .f = &f, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
	}
	for (uint32_t i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].errors, 0);
		pt_stats_add(&sum, &w[i].st);
	}
	assert_true(sum.acquisitions > 0);
	/* All unmapped: after a reclaim only the root is left. */
	pt_reclaim(&f.as);
	assert_int_equal(f.as.nr_tables, 1);
	assert_int_equal(pt_arena_tables_out(&f.arena), 1);
	fix_free(&f);
}

static void test_threads_split(void **state)
{
	run_threads(PT_LOCK_SPLIT);
}

static void test_threads_global(void **state)
{
	run_threads(PT_LOCK_GLOBAL);
}

static void test_descriptor_size(void **state)
{
	/* The lock lives in the 16-byte descriptor without growing it. */
	assert_int_equal(sizeof(struct page), MEMMAP_DESC_BYTES);
	assert_int_equal(offsetof(struct page, ptlock), 4);
	assert_int_equal(sizeof(struct spinlock), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_lookup_each_size),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_busy_overlaps),
		cmocka_unit_test(test_empty_tables_go_back),
		cmocka_unit_test(test_lock_pointers),
		cmocka_unit_test(test_flush_on_unmap_and_protect),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_fault_path),
		cmocka_unit_test(test_model_split),
		cmocka_unit_test(test_model_global),
		cmocka_unit_test(test_threads_split),
		cmocka_unit_test(test_threads_global),
		cmocka_unit_test(test_descriptor_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

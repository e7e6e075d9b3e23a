/*
 * pt_arena.h: page-table pages and frames for mm/pt/pt.c on the host.
 *
 * An arena of real 4 KiB pages with a struct page descriptor for each (so a
 * table's lock lives in its descriptor, as in the kernel), cut into
 * nr_lists parts: each part hands out table pages from its own stack (a
 * "node" of the allocator, one per thread in the benchmark) and frames from
 * its own bump pointer (4 KiB or 2 MiB aligned) or its own pool of 2 MiB
 * pages (the hugetlb pool). "Physical" addresses are the pages' host
 * addresses. Header-only: the unit tests (sanitizers) and the benchmark
 * (-O2) include it.
 */
#ifndef MEMBOOT_TESTS_HOST_PT_ARENA_H
#define MEMBOOT_TESTS_HOST_PT_ARENA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/services/spinlock.h"
#include "mm/page.h"
#include "mm/pt/pt.h"

#define PT_ARENA_MAX_LISTS 64
#define PT_ARENA_2M (2ULL << 20)

struct pt_arena_list {
	struct spinlock lock;
	uint64_t *stack;           /* free table pages (indices into the arena) */
	uint64_t nr_free, cap;
	uint64_t frame_base, frame_next, frame_end;   /* bump range for frames */
	uint64_t *pool;            /* free 2 MiB pool pages (phys) */
	uint64_t pool_free, pool_cap;
	uint64_t tables_out;       /* table pages handed out and not back */
} __attribute__((aligned(64)));

struct pt_arena {
	uint8_t *mem;
	struct page *descs;
	uint64_t nr_pages;
	uint64_t base;             /* phys of page 0 (2 MiB aligned) */
	uint32_t nr_lists;
	struct pt_arena_list lists[PT_ARENA_MAX_LISTS];
	uint64_t fail_after;       /* table allocations left before they fail (UINT64_MAX: never) */
	/* tlb_flush calls, for tests */
	uint64_t flushes, last_flush_va, last_flush_bytes;
};

/*
 * @tables_per_list table pages and @frame_bytes of frames (plus @pool_pages
 * 2 MiB pool pages) per list. Returns false if the host has no memory.
 */
static inline bool pt_arena_init(struct pt_arena *a, uint32_t nr_lists, uint64_t tables_per_list,
				 uint64_t frame_bytes, uint64_t pool_pages)
{
	frame_bytes = (frame_bytes + PT_ARENA_2M - 1) & ~(PT_ARENA_2M - 1);
	uint64_t tables_bytes = (tables_per_list * 4096 + PT_ARENA_2M - 1) & ~(PT_ARENA_2M - 1);
	uint64_t per_list = tables_bytes + frame_bytes + pool_pages * PT_ARENA_2M;
	uint64_t bytes = per_list * nr_lists;

	if (nr_lists == 0 || nr_lists > PT_ARENA_MAX_LISTS)
		return false;
	memset(a, 0, sizeof(*a));
	a->mem = aligned_alloc(PT_ARENA_2M, bytes);
	if (!a->mem)
		return false;
	a->nr_pages = bytes / 4096;
	a->descs = calloc(a->nr_pages, sizeof(struct page));
	if (!a->descs) {
		free(a->mem);
		return false;
	}
	a->base = (uint64_t)(uintptr_t)a->mem;
	a->nr_lists = nr_lists;
	a->fail_after = UINT64_MAX;
	for (uint32_t l = 0; l < nr_lists; l++) {
		struct pt_arena_list *L = &a->lists[l];
		uint64_t first = l * per_list / 4096;
		L->cap = tables_bytes / 4096;
		L->stack = malloc(L->cap * sizeof(uint64_t));
		L->pool_cap = pool_pages;
		L->pool = malloc((pool_pages ? pool_pages : 1) * sizeof(uint64_t));
		if (!L->stack || !L->pool)
			return false;
		for (uint64_t i = 0; i < L->cap; i++)
			L->stack[L->nr_free++] = first + L->cap - 1 - i;
		L->frame_base = a->base + l * per_list + tables_bytes;
		L->frame_next = L->frame_base;
		L->frame_end = L->frame_base + frame_bytes;
		for (uint64_t i = 0; i < pool_pages; i++)
			L->pool[L->pool_free++] = L->frame_end + i * PT_ARENA_2M;
	}
	for (uint64_t i = 0; i < a->nr_pages; i++)
		a->descs[i] = (struct page){ .type = PAGE_ALLOCATED, .refcount = 1,
					     .next = MEMMAP_NONE, .prev = MEMMAP_NONE };
	return true;
}

static inline void pt_arena_fini(struct pt_arena *a)
{
	for (uint32_t l = 0; l < a->nr_lists; l++) {
		free(a->lists[l].stack);
		free(a->lists[l].pool);
	}
	free(a->descs);
	free(a->mem);
}

static inline uint64_t pt_arena_tables_out(struct pt_arena *a)
{
	uint64_t n = 0;
	for (uint32_t l = 0; l < a->nr_lists; l++)
		n += __atomic_load_n(&a->lists[l].tables_out, __ATOMIC_RELAXED);
	return n;
}

/* Frames handed out by the bump pointers go back all at once. */
static inline void pt_arena_reset_frames(struct pt_arena *a)
{
	for (uint32_t l = 0; l < a->nr_lists; l++)
		a->lists[l].frame_next = a->lists[l].frame_base;
}

static inline uint64_t pt_arena_alloc_table(void *ctx, uint32_t node)
{
	struct pt_arena *a = ctx;
	struct pt_arena_list *L = &a->lists[node % a->nr_lists];
	uint64_t phys = PT_NO_PHYS;

	if (__atomic_load_n(&a->fail_after, __ATOMIC_RELAXED) != UINT64_MAX &&
	    __atomic_fetch_sub(&a->fail_after, 1, __ATOMIC_RELAXED) == 0) {
		a->fail_after = 0;
		return PT_NO_PHYS;
	}
	spin_lock(&L->lock);
	if (L->nr_free) {
		uint64_t idx = L->stack[--L->nr_free];
		phys = a->base + idx * 4096;
		L->tables_out++;
	}
	spin_unlock(&L->lock);
	if (phys != PT_NO_PHYS)
		memset((void *)(uintptr_t)phys, 0x6b, 4096);   /* garbage, as a fresh page has */
	return phys;
}

static inline struct page *pt_arena_page_of(void *ctx, uint64_t phys)
{
	struct pt_arena *a = ctx;
	uint64_t idx = (phys - a->base) / 4096;

	if (phys < a->base || idx >= a->nr_pages || (phys & 4095))
		abort();
	return &a->descs[idx];
}

static inline void pt_arena_free_table(void *ctx, uint64_t phys)
{
	struct pt_arena *a = ctx;
	uint64_t idx = (phys - a->base) / 4096;
	const struct page *pg = pt_arena_page_of(ctx, phys);

	/* mm/pt/pt.h: a table comes back as the allocator handed it out. */
	if (pg->type != PAGE_ALLOCATED || pg->refcount != 1 || pg->next != MEMMAP_NONE)
		abort();
	/* Give it back to the list whose part it lies in. */
	for (uint32_t l = 0; l < a->nr_lists; l++) {
		struct pt_arena_list *L = &a->lists[l];
		uint64_t first = (L->frame_base - a->base) / 4096 - L->cap;
		if (idx < first || idx >= first + L->cap)
			continue;
		spin_lock(&L->lock);
		if (L->nr_free >= L->cap)
			abort();
		L->stack[L->nr_free++] = idx;
		L->tables_out--;
		spin_unlock(&L->lock);
		return;
	}
	abort();
}

static inline uint64_t pt_arena_alloc_frame(void *ctx, enum pt_region_kind kind, uint32_t node)
{
	struct pt_arena *a = ctx;
	struct pt_arena_list *L = &a->lists[node % a->nr_lists];
	uint64_t phys = PT_NO_PHYS;

	spin_lock(&L->lock);
	if (kind == PT_REGION_HUGETLB) {
		if (L->pool_free)
			phys = L->pool[--L->pool_free];
	} else {
		uint64_t bytes = kind == PT_REGION_4K ? 4096 : PT_ARENA_2M;
		uint64_t at = (L->frame_next + bytes - 1) & ~(bytes - 1);
		if (at + bytes <= L->frame_end) {
			phys = at;
			L->frame_next = at + bytes;
		}
	}
	spin_unlock(&L->lock);
	return phys;
}

static inline void pt_arena_free_frame(void *ctx, enum pt_region_kind kind, uint64_t phys)
{
	struct pt_arena *a = ctx;

	if (kind != PT_REGION_HUGETLB)
		return;          /* bump frames come back at pt_arena_reset_frames() */
	for (uint32_t l = 0; l < a->nr_lists; l++) {
		struct pt_arena_list *L = &a->lists[l];
		if (phys < L->frame_end || phys >= L->frame_end + L->pool_cap * PT_ARENA_2M)
			continue;
		spin_lock(&L->lock);
		L->pool[L->pool_free++] = phys;
		spin_unlock(&L->lock);
		return;
	}
	abort();
}

static inline void pt_arena_tlb_flush(void *ctx, struct pt_as *as, uint64_t va, uint64_t bytes)
{
	struct pt_arena *a = ctx;

	__atomic_fetch_add(&a->flushes, 1, __ATOMIC_RELAXED);
	a->last_flush_va = va;
	a->last_flush_bytes = bytes;
}

static const struct pt_ops pt_arena_ops = {
	.alloc_table = pt_arena_alloc_table,
	.free_table = pt_arena_free_table,
	.page_of = pt_arena_page_of,
	.tlb_flush = pt_arena_tlb_flush,
};

#endif

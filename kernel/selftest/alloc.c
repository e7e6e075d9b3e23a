/*
 * alloc.c: memboot.selftest=alloc, every CPU allocating blocks of mixed
 * orders at once through the allocator seam (mm/alloc/alloc.h), other CPUs
 * checking and freeing them.
 */
#include <stdint.h>

#include "arch/percpu.h"
#include "kernel/job.h"
#include "kernel/percpu.h"
#include "kernel/record.h"
#include "kernel/selftest/tests.h"
#include "mm/alloc/alloc.h"
#include "mm/page.h"

#define ALLOC_SLOTS 4096

struct alloc_slot {
	uint64_t pfn;
	uint32_t order;
	uint32_t cpu;          /* allocated by */
	uint32_t freed_by;
};
static struct alloc_slot slots[ALLOC_SLOTS];
static volatile uint64_t alloc_failures, alloc_no_memory;
/* The test takes at most 1/ALLOC_SHARE of the free pages, at the largest
 * order it asks for (8 pages a block): it tests the allocator, not how it
 * runs out. Below ALLOC_MIN_SLOTS blocks it is skipped, not failed. */
#define ALLOC_SHARE 2
#define ALLOC_MAX_BLOCK_PAGES 8
#define ALLOC_MIN_SLOTS 64
static uint64_t alloc_nr_slots;

/* Allocate mixed orders into slots [s, e), filling each block with a
 * pattern the freeing CPU checks. */
static void alloc_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t cpu = this_cpu()->cpu, node = this_cpu_state()->mem_node;
	uint64_t seed = s * 2654435761u + cpu;

	for (uint64_t i = s; i < e; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned order = (unsigned)(seed >> 60) % 4;     /* 0..3 */
		uint64_t pfn = alloc_pages(node, order, 0);
		slots[i] = (struct alloc_slot){ .pfn = pfn, .order = order, .cpu = cpu };
		if (pfn == ALLOC_NO_PFN) {
			/* Out of memory (or of blocks that large) is an allowed
			 * answer of an allocator, counted, not a failure. */
			__atomic_fetch_add(&alloc_no_memory, 1, __ATOMIC_RELAXED);
			continue;
		}
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = i;
	}
}

/* Free slots [s, e) in reverse, most of them on another CPU than the one
 * that allocated them (the job hands chunks out in a different order). */
static void free_chunk(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t i = e; i-- > s;) {
		uint64_t j = alloc_nr_slots - 1 - i;
		if (slots[j].pfn == ALLOC_NO_PFN)
			continue;
		if (*(uint64_t *)(uintptr_t)(slots[j].pfn << PAGE_SHIFT) != j)
			__atomic_fetch_add(&alloc_failures, 1, __ATOMIC_RELAXED);
		slots[j].freed_by = this_cpu()->cpu;
		alloc_free(slots[j].pfn, slots[j].order);
	}
}

bool selftest_alloc(const struct selftest_ctx *ctx, const char **skipped)
{
	alloc_drain();   /* per-CPU lists back, so the free counts compare */
	uint64_t free_before = alloc_free_count(), cross = 0;
	uint64_t budget = free_before / ALLOC_SHARE / ALLOC_MAX_BLOCK_PAGES;
	uint64_t n = budget < ALLOC_SLOTS ? budget : ALLOC_SLOTS;
	struct job a = { .name = "alloc", .start = 0, .size = n, .min_chunk = 64,
			 .node = JOB_ALL_NODES, .fn = alloc_chunk };
	struct job f = { .name = "free", .start = 0, .size = n, .min_chunk = 64,
			 .node = JOB_ALL_NODES, .fn = free_chunk };
	struct job_state st;
	struct record r;

	if (n < ALLOC_MIN_SLOTS) {
		*skipped = "not enough memory";
		return true;
	}
	alloc_nr_slots = n;
	alloc_failures = 0;
	alloc_no_memory = 0;
	job_run(&a, &st);
	uint32_t threads = st.threads;
	uint64_t allocated = free_before - alloc_free_count();
	job_run(&f, &st);
	alloc_drain();   /* per-CPU lists back, so the free counts compare */
	for (uint32_t i = 0; i < n; i++)
		cross += slots[i].pfn != ALLOC_NO_PFN && slots[i].cpu != slots[i].freed_by;
	bool ok = alloc_failures == 0 && alloc_free_count() == free_before;
	rec_begin(&r, "alloc_test");
	rec_u64(&r, "blocks", n);
	rec_u64(&r, "no_memory", alloc_no_memory);
	rec_u64(&r, "pages", allocated);
	rec_u64(&r, "threads", threads);
	rec_u64(&r, "failures", alloc_failures);
	rec_u64(&r, "cross_cpu_frees", cross);
	rec_u64(&r, "free_before", free_before);
	rec_u64(&r, "free_after", alloc_free_count());
	record_emit(&r);
	return ok;
}

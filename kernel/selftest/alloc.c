/*
 * alloc.c: memboot.selftest=alloc, every CPU allocating blocks of orders
 * 0..10 at once through the allocator seam (mm/alloc/alloc.h), some with
 * flags that bypass the per-CPU lists, a census while they are all held,
 * then other CPUs checking and freeing them.
 */
#include <stdint.h>

#include "arch/cpu.h"
#include "kernel/selftest/select.h"
#include "kernel/services/jobs/job.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/tests.h"
#include "mm/alloc/alloc.h"
#include "mm/page.h"

#define ALLOC_SLOTS 4096

struct alloc_slot {
	uint64_t pfn;
	uint16_t order;
	uint16_t flags;
	uint32_t cpu;          /* allocated by */
	uint32_t freed_by;
};
static struct alloc_slot slots[ALLOC_SLOTS];
static volatile uint64_t alloc_failures, alloc_no_memory, alloc_flagged, alloc_big;
static volatile uint32_t alloc_max_order;
/* The test takes at most 1/ALLOC_SHARE of the free pages, at
 * ALLOC_AVG_BLOCK_PAGES a block (orders 0..3 mostly, 4..10 one slot in 32:
 * about 10 pages on average): it tests the allocator, not how it runs out.
 * Below ALLOC_MIN_SLOTS blocks it is skipped, not failed. */
#define ALLOC_SHARE 2
#define ALLOC_AVG_BLOCK_PAGES 32
#define ALLOC_MIN_SLOTS 64
static uint64_t alloc_nr_slots;

/* Slot @i's request: orders 0..3 (what the per-CPU lists serve) for most,
 * each of 4..10 in turn for one slot in 32, and one slot in 8 each flagged
 * ALLOC_DMA32 or ALLOC_NO_TAILS (a head the caller types, as the huge pools
 * do), which bypass the lists. */
static void alloc_request(uint64_t i, uint64_t seed, unsigned *order, unsigned *flags)
{
	*order = i % 32 == 31 ? 4 + (unsigned)(i / 32 % 7) : (unsigned)(seed >> 60) % 4;
	*flags = i % 8 == 3 ? ALLOC_DMA32 : i % 8 == 5 ? ALLOC_NO_TAILS : 0;
}

/* Allocate mixed orders into slots [s, e), filling each block with a
 * pattern the freeing CPU checks. */
static void alloc_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t cpu = this_cpu_id(), node = this_cpu_state()->mem_node;
	uint64_t seed = s * 2654435761u + cpu;

	for (uint64_t i = s; i < e; i++) {
		unsigned order, flags;
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		alloc_request(i, seed, &order, &flags);
		/* memboot.fault=alloc-loop: an allocator whose order-10
		 * allocation never returns, on every CPU. */
		while (order == 10 && selftest_settings.fault == FAULT_ALLOC_LOOP)
			arch_cpu_relax();
		uint64_t pfn = alloc_pages(node, order, flags);
		slots[i] = (struct alloc_slot){ .pfn = pfn, .order = (uint16_t)order,
						.flags = (uint16_t)flags, .cpu = cpu };
		if (flags)
			__atomic_fetch_add(&alloc_flagged, 1, __ATOMIC_RELAXED);
		if (pfn == ALLOC_NO_PFN) {
			/* Out of memory (or of blocks that large) is an allowed
			 * answer of an allocator, counted, not a failure. */
			__atomic_fetch_add(&alloc_no_memory, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (order > 3)
			__atomic_fetch_add(&alloc_big, 1, __ATOMIC_RELAXED);
		uint32_t seen = __atomic_load_n(&alloc_max_order, __ATOMIC_RELAXED);
		while (order > seen &&
		       !__atomic_compare_exchange_n(&alloc_max_order, &seen, order, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		/* The first and the last page of the block carry its slot. */
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = i;
		*(uint64_t *)(uintptr_t)((pfn + (1ULL << order) - 1) << PAGE_SHIFT) = i;
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
		uint64_t last = slots[j].pfn + (1ULL << slots[j].order) - 1;
		if (*(uint64_t *)(uintptr_t)(slots[j].pfn << PAGE_SHIFT) != j ||
		    *(uint64_t *)(uintptr_t)(last << PAGE_SHIFT) != j)
			__atomic_fetch_add(&alloc_failures, 1, __ATOMIC_RELAXED);
		slots[j].freed_by = this_cpu_id();
		alloc_free(slots[j].pfn, slots[j].order);
	}
}

bool selftest_alloc(const struct selftest_ctx *ctx, const char **skipped)
{
	alloc_drain();   /* per-CPU lists back, so the free counts compare */
	uint64_t free_before = alloc_free_count(), cross = 0;
	uint64_t budget = free_before / ALLOC_SHARE / ALLOC_AVG_BLOCK_PAGES;
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
	alloc_flagged = 0;
	alloc_big = 0;
	alloc_max_order = 0;
	job_run(&a, &st);
	uint32_t threads = st.threads;
	uint64_t allocated = free_before - alloc_free_count();
	/* Every page accounted for while the blocks are held, too: the
	 * allocator's check() and its free blocks by order with most of the
	 * test's memory out. */
	bool held_ok = ctx->census(ctx->census_arg, "alloc-held");
	job_run(&f, &st);
	alloc_drain();   /* per-CPU lists back, so the free counts compare */
	for (uint32_t i = 0; i < n; i++)
		cross += slots[i].pfn != ALLOC_NO_PFN && slots[i].cpu != slots[i].freed_by;
	bool ok = alloc_failures == 0 && alloc_free_count() == free_before && held_ok;
	rec_begin(&r, "alloc_test");
	rec_u64(&r, "blocks", n);
	rec_u64(&r, "no_memory", alloc_no_memory);
	rec_u64(&r, "pages", allocated);
	rec_u64(&r, "threads", threads);
	rec_u64(&r, "failures", alloc_failures);
	rec_u64(&r, "flagged", alloc_flagged);
	rec_u64(&r, "big", alloc_big);
	rec_u64(&r, "max_order", alloc_max_order);
	rec_bool(&r, "held_census", held_ok);
	rec_u64(&r, "cross_cpu_frees", cross);
	rec_u64(&r, "free_before", free_before);
	rec_u64(&r, "free_after", alloc_free_count());
	record_emit(&r);
	return ok;
}

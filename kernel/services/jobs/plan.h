/*
 * plan.h: how the job runner splits a range into chunks (pure C).
 *
 * A range [start, start + size) is cut on a grid of chunk_units that starts at
 * start rounded down to align, so every inner chunk boundary is a multiple of
 * align (a chunk never splits an aligned block, e.g. a max-order buddy block).
 * The chunk is about size / (4 * threads), for balance, but never below
 * min_chunk. Units are the caller's (pages, bytes, descriptors).
 */
#ifndef MEMBOOT_KERNEL_JOB_PLAN_H
#define MEMBOOT_KERNEL_JOB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define JOB_CHUNKS_PER_THREAD 4

struct job_plan {
	uint64_t start, end;       /* [start, end) */
	uint64_t grid_start;       /* start rounded down to align */
	uint64_t chunk_units;      /* a multiple of align */
	uint32_t nr_chunks;
	uint32_t threads;          /* at most nr_chunks */
};

/*
 * Plan the split. @align must be a power of two (1 for none); @min_chunk 0
 * means 1; @max_threads 0 means no limit besides @threads_available (>= 1).
 * Returns false (and plans nothing) for an empty or overflowing range.
 */
bool job_plan_make(struct job_plan *p, uint64_t start, uint64_t size, uint64_t align,
		   uint64_t min_chunk, uint32_t threads_available, uint32_t max_threads);

/* Bounds of chunk @i < p->nr_chunks. */
void job_plan_chunk(const struct job_plan *p, uint32_t i, uint64_t *start, uint64_t *end);

#endif

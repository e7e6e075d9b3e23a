/*
 * plan.c: chunking for the parallel job runner (pure C, host-tested).
 */
#include "kernel/services/jobs/plan.h"

#include "kernel/services/panic.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

bool job_plan_make(struct job_plan *p, uint64_t start, uint64_t size, uint64_t align,
		   uint64_t min_chunk, uint32_t threads_available, uint32_t max_threads)
{
	uint64_t threads, chunk, span, chunks;

	ASSERT(align != 0 && (align & (align - 1)) == 0, "align %llu is not a power of two",
	       (unsigned long long)align);
	ASSERT(threads_available >= 1, "no threads");
	if (size == 0 || size > UINT64_MAX - start)
		return false;
	if (min_chunk == 0)
		min_chunk = 1;

	threads = threads_available;
	if (max_threads && max_threads < threads)
		threads = max_threads;
	/* No more threads than min_chunk-sized pieces. */
	if (threads > div_up(size, min_chunk))
		threads = div_up(size, min_chunk);

	chunk = div_up(size, threads * JOB_CHUNKS_PER_THREAD);
	if (chunk < min_chunk)
		chunk = min_chunk;
	if (chunk > UINT64_MAX - align)
		chunk = UINT64_MAX & ~(align - 1);
	else
		chunk = (chunk + align - 1) & ~(align - 1);

	p->start = start;
	p->end = start + size;
	p->grid_start = start & ~(align - 1);
	p->chunk_units = chunk;
	span = p->end - p->grid_start;
	chunks = div_up(span, chunk);
	/* A chunk count beyond 32 bits means chunks far too small to matter;
	 * grow them instead. */
	while (chunks > UINT32_MAX) {
		chunk *= 2;
		chunks = div_up(span, chunk);
	}
	p->chunk_units = chunk;
	p->nr_chunks = (uint32_t)chunks;
	p->threads = (uint32_t)(threads < chunks ? threads : chunks);
	return true;
}

void job_plan_chunk(const struct job_plan *p, uint32_t i, uint64_t *start, uint64_t *end)
{
	uint64_t s, e;

	DEBUG_ASSERT(i < p->nr_chunks, "chunk %u of %u", i, p->nr_chunks);
	s = p->grid_start + (uint64_t)i * p->chunk_units;
	e = (p->end - s > p->chunk_units) ? s + p->chunk_units : p->end;
	*start = s < p->start ? p->start : s;
	*end = e;
}

/*
 * job.h: the parallel job runner, in the spirit of Linux's
 * padata_do_multithreaded.
 *
 * A job is a range [start, start + size) of units, cut into aligned chunks
 * (kernel/job_plan.h), run by fn(arg, chunk_start, chunk_end) on the online
 * CPUs of one node (or all), the calling CPU taking part when it is one of
 * them (or when the node has no CPU of its own). Chunks are claimed from a
 * shared counter, so a slow CPU simply takes fewer.
 *
 * job_start() hands the job to idle CPUs and returns; job_wait() makes the
 * caller work on it too until every chunk is done. Several jobs (one per
 * node, say) can be started before waiting on any. job_run() is both.
 */
#ifndef MEMBOOT_KERNEL_JOB_H
#define MEMBOOT_KERNEL_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/job_plan.h"

#define JOB_ALL_NODES 0xffffffffu

struct job_chunk_time {
	uint32_t cpu;
	uint64_t start, end;     /* units */
	uint64_t ns;
};

struct job {
	const char *name;
	uint64_t start, size;    /* [start, start + size) in the caller's units */
	uint64_t align;          /* chunk boundaries at multiples of align (power of 2) */
	uint64_t min_chunk;      /* smallest chunk worth a thread */
	uint32_t max_threads;    /* 0: every online CPU of the node(s) */
	uint32_t node;           /* a node id, or JOB_ALL_NODES */
	void (*fn)(void *arg, uint64_t start, uint64_t end);
	void *arg;
	/* Optional: per-chunk timing, one entry per chunk up to times_cap. */
	struct job_chunk_time *times;
	uint32_t times_cap;
};

struct job_state {
	struct job *job;
	struct job_plan plan;
	volatile uint32_t next_chunk;
	volatile uint32_t workers_done;
	uint32_t workers;        /* CPUs other than the caller */
	uint32_t threads;        /* workers, + the caller if it helps */
	bool caller_helps;
	uint64_t start_tsc;
	volatile uint64_t end_tsc;   /* when the last chunk finished */
	uint64_t ns;             /* start to last chunk, set by job_wait */
	bool empty;
};

void job_start(struct job *job, struct job_state *st);
void job_wait(struct job_state *st);
/* Start and wait. Returns the number of threads that took part. */
uint32_t job_run(struct job *job, struct job_state *st);

/* Online CPUs of @node (JOB_ALL_NODES: all). */
uint32_t job_cpus_of_node(uint32_t node);

/* Self-test: jobs of odd sizes and alignments on every node; each unit must
 * be done exactly once. Needs scratch memory of @units bytes at @scratch. */
bool job_selftest(uint8_t *scratch, uint64_t units, uint32_t nr_nodes);

#endif

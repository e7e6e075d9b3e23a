/*
 * job.h: the parallel job runner, in the spirit of Linux's
 * padata_do_multithreaded.
 *
 * A job is a range [start, start + size) of units, cut into aligned chunks
 * (kernel/services/jobs/plan.h), run by fn(arg, chunk_start, chunk_end) on the online
 * CPUs of one node (or all), the calling CPU taking part when it is one of
 * them (or when the node has no CPU of its own). Chunks are claimed from a
 * shared counter, so a slow CPU simply takes fewer.
 *
 * A job for one node goes on that node's queue: the node's CPUs take its
 * chunks as soon as they finish earlier work, in queue order, so a node's
 * work is never done remotely while its own CPUs are busy elsewhere (a
 * CPU-less node's jobs are the caller's). A job for all nodes goes to the
 * CPUs idle when it starts. job_start() queues the job and wakes the node's
 * idle CPUs, as a tree: the caller wakes one CPU in each half of the CPU
 * ids, and each CPU woken wakes one in each half of its own part before it
 * works, so 256 CPUs are woken in 8 steps, not 255 one after another; job_wait() makes the caller work on it too (own node only)
 * until every chunk is done. Several jobs (one per node, say, or two on one
 * node) can be started before waiting on any. job_run() is both. Jobs are
 * started and waited for by one CPU at a time.
 *
 * A CPU lost mid-job (one that stops answering: a hardware fault, a hung
 * SMI, memboot.fault=ap-park) must not stop the boot, and its work must
 * still be done exactly once, though the work may not be repeatable (memory
 * init frees pages to the allocator: freeing a block twice corrupts it). A
 * job that gives chunk_states and a deadline_ns gets that: each chunk is cut
 * into steps of @step units, and every step is claimed by a compare-and-swap
 * on its chunk's next-unit word before it runs, by the chunk's owner and by
 * anyone who takes over alike, so no step runs twice whoever claims it. The
 * owner stamps the chunk after each step; the waiter (job_wait) looks at the
 * chunks now and then, and one whose owner has made no progress for
 * deadline_ns is orphaned: a warning names the CPU and who finishes its
 * work, the CPU is marked lost (job_platform_lost(): nothing waits for it
 * any more, nothing is posted to it), the job goes back on its node's queue
 * and the node's other CPUs finish the orphaned chunks' unclaimed steps; if
 * none does within another deadline (the node has no other CPU, or they are
 * busy), the waiter does. The one thing no one can redo is a step the lost
 * CPU was inside: it is counted as units left undone (memory init's census
 * then names the pages), never run twice.
 *
 * The deadline measures silence, not a slow CPU: progress is a step begun
 * or ended, or a sign of life from inside a long step (job_progress(),
 * which memtest gives after each pass). A CPU counted lost that was only
 * slow comes back: it finishes the step it was inside (those units are not
 * left undone after all), finds every other step claimed, and leaves; it is
 * then not lost (job_lost_cpus() no longer counts it), though it takes no
 * more work in this boot. job_wait() gives each CPU counted lost one more
 * deadline from its orphaning to come back before it returns, and
 * job_report_lost() tells each lost CPU's story as it stands when the
 * caller reports. Such a job's struct job and struct
 * job_state must outlive the wait (static), since the CPU may touch them
 * after job_wait() returned.
 */
#ifndef MEMBOOT_KERNEL_JOB_H
#define MEMBOOT_KERNEL_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/jobs/plan.h"
#include "kernel/services/limits.h"

#define JOB_ALL_NODES 0xffffffffu

#define JOB_MAX_NODES MEMBOOT_MAX_NODES   /* node queues */

struct job_chunk_time {
	uint32_t cpu;            /* the CPU that claimed it */
	uint64_t start, end;     /* units */
	uint64_t start_ticks;    /* platform clock when the chunk began */
	uint64_t end_ticks;      /* and when it ended */
	uint64_t ns;
	/* Time running its steps: the claiming CPU's, and the others' who
	 * finished it for a lost one (@helper: the last of them; JOB_NO_OWNER
	 * if none). Durations on each CPU's own clock. */
	uint64_t own_ticks;
	uint32_t helper;
	uint64_t help_ticks;
};

/* A chunk's progress, for a job that can outlive a lost CPU (above). */
struct job_chunk_state {
	volatile uint64_t next;           /* the next unit to claim; the chunk's end: all claimed */
	volatile uint64_t done_units;     /* units of steps that returned, and abandoned ones */
	volatile uint64_t start_ticks;    /* its first step's start */
	volatile uint64_t progress_ticks; /* when a step of it was last claimed or finished */
	volatile uint32_t owner;          /* the CPU that claimed it; JOB_NO_OWNER, JOB_ORPHANED */
	uint32_t claimed_by;              /* the CPU that claimed it, kept once orphaned */
	/* Taken by the owner for each step's end and by the waiter to orphan
	 * the chunk, so the two never count the same step. */
	volatile uint32_t lock;
	uint64_t inside;                  /* units of the step the owner was inside when lost */
	uint64_t abandoned;               /* of those, not done (0 once it came back and did them) */
	uint64_t lost_ticks;              /* when it was orphaned (0: never) */
	volatile uint64_t back_ticks;     /* when its lost owner came back (0: not yet) */
	uint64_t own_ticks, help_ticks;   /* time in steps: the owner's, the others' */
	volatile uint32_t helper;         /* the last other CPU that ran a step */
};
#define JOB_NO_OWNER 0xffffffffu
#define JOB_ORPHANED 0xfffffffeu

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
	/* Optional: outliving a lost CPU (above). One state per chunk: a plan
	 * of more chunks than chunk_states_cap runs without it. @step: units
	 * per step, a multiple of align (0: align). */
	struct job_chunk_state *chunk_states;
	uint32_t chunk_states_cap;
	uint64_t step;
	uint64_t deadline_ns;
};

struct job_state {
	struct job *job;
	struct job_plan plan;
	volatile uint32_t next_chunk;
	volatile uint32_t chunks_done;
	volatile uint32_t joined;    /* CPUs that took part, at most plan.threads */
	volatile uint32_t active;    /* CPUs holding a pointer to this state */
	uint32_t cpus;           /* CPUs offered: the node's (+ the caller if it helps) */
	uint32_t threads;        /* CPUs that ran at least one chunk (after job_wait) */
	bool caller_helps;
	bool queued;             /* on its node's queue (under the queue's lock) */
	struct job_state *next;  /* queue link */
	volatile uint32_t ran_cpus;  /* CPUs that ran a chunk: the state is the same
				  * size for 4 CPUs or 8192 */
	uint16_t gen;                /* this job's number since boot, modulo 2^16 (never 0) */
	uint64_t start_counter;          /* job_start() */
	volatile uint64_t first_counter; /* when the first chunk began */
	volatile uint64_t end_counter;   /* when the last chunk finished */
	uint64_t ns;             /* first chunk's start to last chunk's end: this job's own
				  * time, not the time it queued behind others */
	bool empty;
	bool rescue;                 /* chunk_states in use */
	volatile int32_t orphans;    /* orphaned chunks not yet finished */
	uint32_t lost;               /* CPUs of this job found lost (their active places) */
	volatile uint32_t came_back; /* of those, CPUs that answered again after all */
	uint64_t orphaned_ticks;     /* the last orphaning */
	/* Inside a lost CPU's step: not done, never redone (less what a CPU
	 * that came back finished). */
	volatile uint64_t abandoned_units;
};

void job_start(struct job *job, struct job_state *st);
void job_wait(struct job_state *st);
/* Start and wait. Returns the number of CPUs that ran chunks. */
uint32_t job_run(struct job *job, struct job_state *st);

/* CPUs found lost in jobs since boot (each once), less those that came back. */
uint32_t job_lost_cpus(void);
/* A sign of life from inside a long step (a job's fn calls it now and then):
 * the deadline measures silence, so a step that takes long but says so is
 * not taken for a lost CPU. */
void job_progress(void);
/* Tell the story of @st's lost CPUs as it stands now (job.h, above): each
 * one that came back, and each step left undone. Returns the CPUs of @st
 * still lost. */
uint32_t job_report_lost(const struct job_state *st);
/* Test hook: called by a CPU between two steps of a chunk it owns (in the
 * middle of the chunk, no step claimed), with the job; NULL: none. */
extern void (*job_step_hook)(const struct job *j, uint32_t cpu);

/* Online CPUs of @node (JOB_ALL_NODES: all). */
uint32_t job_cpus_of_node(uint32_t node);
/* Self-test: jobs of odd sizes and alignments on every node; each unit must
 * be done exactly once. Needs scratch memory of @units bytes at @scratch. */
bool job_selftest(uint8_t *scratch, uint64_t units, uint32_t nr_nodes);

/* Lower *@v to @t unless it is set (0: unset) and already lower; raise it
 * to @t unless already higher. Chunks end on many CPUs at once: a
 * compare-and-swap loop, never a lock. */
static inline void job_ticks_min(volatile uint64_t *v, uint64_t t)
{
	uint64_t seen = __atomic_load_n(v, __ATOMIC_RELAXED);

	while ((seen == 0 || t < seen) &&
	       !__atomic_compare_exchange_n(v, &seen, t, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static inline void job_ticks_max(volatile uint64_t *v, uint64_t t)
{
	uint64_t seen = __atomic_load_n(v, __ATOMIC_RELAXED);

	while (seen < t &&
	       !__atomic_compare_exchange_n(v, &seen, t, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

#endif

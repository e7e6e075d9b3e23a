/*
 * job.c: running a job's chunks on several CPUs. Portable C: the CPUs, their
 * mailboxes and the clock come from kernel/services/jobs/platform.h (the kernel's
 * kernel/services/jobs/platform.c, or the host's pthreads in tests/host/job_host.c).
 */
#include "kernel/services/jobs/job.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"

static bool cpu_in(uint32_t cpu, uint32_t node)
{
	return job_platform_online(cpu) &&
	       (node == JOB_ALL_NODES || job_platform_node(cpu) == node);
}

uint32_t job_cpus_of_node(uint32_t node)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < job_platform_max_cpus(); i++)
		n += cpu_in(i, node);
	return n;
}

/* Per-node queues of started jobs. The lock is a plain test-and-set: held
 * for a few loads and stores, by the starter and by the node's CPUs. */
static struct node_queue {
	volatile uint32_t lock;
	struct job_state *head;
} queues[JOB_MAX_NODES];

static void queue_lock(struct node_queue *q)
{
	while (__atomic_exchange_n(&q->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&q->lock, __ATOMIC_RELAXED))
			job_platform_relax();
}

static void queue_unlock(struct node_queue *q)
{
	__atomic_store_n(&q->lock, 0, __ATOMIC_RELEASE);
}

/* Unlink @st (queue locked). */
static void queue_remove_locked(struct node_queue *q, struct job_state *st)
{
	for (struct job_state **pp = &q->head; *pp; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			st->queued = false;
			return;
		}
	}
}

void (*job_step_hook)(const struct job *j, uint32_t cpu);
static volatile uint32_t lost_cpus;

uint32_t job_lost_cpus(void)
{
	return __atomic_load_n(&lost_cpus, __ATOMIC_RELAXED);
}

/*
 * Each CPU's last sign of life from inside a step (job_progress()), in
 * units of 2^HEARTBEAT_SHIFT ticks (under a microsecond at 1 GHz and up;
 * 32 bits wrap after more than an hour, and a chunk's silence is measured
 * within that), and the last job each CPU was counted in (job_state.gen,
 * 16 bits): a CPU that comes back to a job (the waiter finishing orphans
 * after its own chunks, a node CPU taking a requeued job) is one CPU,
 * counted once. Each CPU writes only its own entries; small entries keep
 * the kernel's image within its limit for 8192 CPUs.
 */
#define HEARTBEAT_SHIFT 10
static volatile uint32_t heartbeat[MEMBOOT_MAX_CPUS];
static uint16_t counted_in[MEMBOOT_MAX_CPUS];
static volatile uint32_t job_gen;

void job_progress(void)
{
	uint32_t cpu = job_platform_this_cpu();

	if (cpu < MEMBOOT_MAX_CPUS)
		__atomic_store_n(&heartbeat[cpu], (uint32_t)(job_platform_ticks() >> HEARTBEAT_SHIFT),
				 __ATOMIC_RELEASE);
}

/* A heartbeat this far (in its units: about a second at 1 GHz) ahead of
 * the caller's clock reading was stamped after the reading, not an hour
 * of wrap-around before it. */
#define HEARTBEAT_AHEAD_MAX (1u << 20)

/* @cpu's last sign of life from inside a step, if after @seen (ticks). */
static uint64_t last_heard(uint32_t cpu, uint64_t seen, uint64_t now)
{
	if (cpu >= MEMBOOT_MAX_CPUS)
		return seen;
	uint32_t ago = (uint32_t)(now >> HEARTBEAT_SHIFT) -
		       __atomic_load_n(&heartbeat[cpu], __ATOMIC_ACQUIRE);
	/* The CPU gave a sign of life between the caller's reading of @now
	 * and this load (the caller was slow, or descheduled, in between):
	 * heard now. Taken as an hour-old heartbeat, it turned a CPU alive
	 * and working into a lost one. */
	if (ago != 0 && -ago < HEARTBEAT_AHEAD_MAX)
		return now > seen ? now : seen;
	uint64_t at = ((now >> HEARTBEAT_SHIFT) - ago) << HEARTBEAT_SHIFT;

	return at > seen && at <= now ? at : seen;
}

/* A chunk's lock: a few loads and stores, by its owner at each step's end
 * and by the waiter orphaning it (which only tries: a busy lock means the
 * owner is alive). */
static void chunk_lock(struct job_chunk_state *cs)
{
	while (__atomic_exchange_n(&cs->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&cs->lock, __ATOMIC_RELAXED))
			job_platform_relax();
}

static bool chunk_trylock(struct job_chunk_state *cs)
{
	return !__atomic_exchange_n(&cs->lock, 1, __ATOMIC_ACQUIRE);
}

static void chunk_unlock(struct job_chunk_state *cs)
{
	__atomic_store_n(&cs->lock, 0, __ATOMIC_RELEASE);
}

/* The lost owner of @cs answers again (once): it was slow, not lost. */
static void came_back(struct job_state *st, struct job_chunk_state *cs, uint64_t now)
{
	uint64_t none = 0;

	if (__atomic_compare_exchange_n(&cs->back_ticks, &none, now ? now : 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&st->came_back, 1, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&lost_cpus, 1, __ATOMIC_RELAXED);
	}
}

static void count_ran(struct job_state *st, uint32_t cpu)
{
	if (cpu < MEMBOOT_MAX_CPUS && counted_in[cpu] != st->gen) {
		counted_in[cpu] = st->gen;
		__atomic_fetch_add(&st->ran_cpus, 1, __ATOMIC_RELAXED);
	}
}

/* Chunk @i ([s, e)) is complete, at @t1: its timing, the job's counts
 * (@orphan: one of the orphans the job waits for). */
static void chunk_complete(struct job_state *st, uint32_t i, uint64_t s, uint64_t e, uint64_t t1,
			   bool orphan)
{
	struct job *j = st->job;
	struct job_chunk_state *cs = &j->chunk_states[i];

	if (j->times && i < j->times_cap)
		j->times[i] = (struct job_chunk_time){
			.cpu = cs->claimed_by, .start = s, .end = e, .start_ticks = cs->start_ticks,
			.end_ticks = t1, .ns = job_platform_ticks_to_ns(t1 - cs->start_ticks),
			.own_ticks = cs->own_ticks, .helper = cs->helper, .help_ticks = cs->help_ticks };
	job_ticks_max(&st->end_counter, t1);
	if (orphan)
		__atomic_fetch_sub(&st->orphans, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&st->chunks_done, 1, __ATOMIC_RELEASE);
}

/*
 * Run the unclaimed steps of chunk @i ([s, e)), claiming each with a
 * compare-and-swap on the chunk's next-unit word: the owner and anyone
 * taking over an orphaned chunk use the same claim, so each step runs once.
 * Whoever finishes the chunk's last units completes the chunk. The owner
 * counts its steps under the chunk's lock: a step the waiter counted as
 * abandoned (the owner was taken for lost inside it) is not counted again
 * when the owner, only slow, finishes it after all.
 */
static void run_steps(struct job_state *st, uint32_t i, uint64_t s, uint64_t e, uint32_t cpu)
{
	struct job *j = st->job;
	struct job_chunk_state *cs = &j->chunk_states[i];
	uint64_t step = j->step ? j->step : (j->align ? j->align : 1);
	const bool owner = cs->claimed_by == cpu;

	for (;;) {
		uint64_t a = __atomic_load_n(&cs->next, __ATOMIC_ACQUIRE), b, t0, t1, done;
		bool counted = true;

		/* Orphaned while this CPU was away: it answers again. */
		if (owner && __atomic_load_n(&cs->owner, __ATOMIC_ACQUIRE) == JOB_ORPHANED)
			came_back(st, cs, job_platform_ticks());
		if (a >= e)
			return;
		/* Steps end on the chunk's grid of @step from its start. */
		b = a + step - (a - s) % step;
		if (b > e)
			b = e;
		if (!__atomic_compare_exchange_n(&cs->next, &a, b, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		t0 = job_platform_ticks();
		__atomic_store_n(&cs->progress_ticks, t0, __ATOMIC_RELEASE);
		j->fn(j->arg, a, b);
		t1 = job_platform_ticks();
		__atomic_store_n(&cs->progress_ticks, t1, __ATOMIC_RELEASE);
		count_ran(st, cpu);
		if (owner) {
			chunk_lock(cs);
			cs->own_ticks += t1 - t0;
			if (cs->abandoned == b - a && cs->lost_ticks) {
				/* The waiter took this step for abandoned and counted
				 * it done: it is done, and not abandoned after all. */
				cs->abandoned = 0;
				__atomic_fetch_sub(&st->abandoned_units, b - a, __ATOMIC_RELAXED);
				came_back(st, cs, t1);
				counted = false;
			}
			done = counted ? __atomic_add_fetch(&cs->done_units, b - a, __ATOMIC_ACQ_REL) : 0;
			chunk_unlock(cs);
		} else {
			__atomic_fetch_add(&cs->help_ticks, t1 - t0, __ATOMIC_RELAXED);
			__atomic_store_n(&cs->helper, cpu, __ATOMIC_RELAXED);
			done = __atomic_add_fetch(&cs->done_units, b - a, __ATOMIC_ACQ_REL);
		}
		if (done == e - s) {
			/* The waiter completes a chunk it orphaned with nothing
			 * left to claim; any other orphaned one ends here. */
			chunk_complete(st, i, s, e, t1,
				       __atomic_load_n(&cs->owner, __ATOMIC_ACQUIRE) == JOB_ORPHANED);
			return;
		}
		/* In the middle of the chunk, holding no step: where a test
		 * makes a CPU vanish. */
		if (b < e && job_step_hook)
			job_step_hook(j, cpu);
	}
}

/* Finish the unclaimed steps of orphaned chunks. */
static void help_orphans(struct job_state *st, uint32_t cpu)
{
	uint32_t n = __atomic_load_n(&st->next_chunk, __ATOMIC_ACQUIRE);

	if (n > st->plan.nr_chunks)
		n = st->plan.nr_chunks;
	for (uint32_t i = 0; i < n && __atomic_load_n(&st->orphans, __ATOMIC_ACQUIRE) > 0; i++) {
		struct job_chunk_state *cs = &st->job->chunk_states[i];
		uint64_t s, e;
		if (__atomic_load_n(&cs->owner, __ATOMIC_ACQUIRE) != JOB_ORPHANED)
			continue;
		job_plan_chunk(&st->plan, i, &s, &e);
		run_steps(st, i, s, e, cpu);
	}
}

/* Claim and run chunks until none are left. */
static void work_on(struct job_state *st)
{
	struct job *j = st->job;
	uint32_t cpu = job_platform_this_cpu();

	for (;;) {
		uint32_t i = __atomic_fetch_add(&st->next_chunk, 1, __ATOMIC_RELAXED);
		uint64_t s, e, t0, t1;

		if (i >= st->plan.nr_chunks)
			break;
		job_plan_chunk(&st->plan, i, &s, &e);
		if (st->rescue) {
			struct job_chunk_state *cs = &j->chunk_states[i];
			t0 = job_platform_ticks();
			job_ticks_min(&st->first_counter, t0);
			cs->start_ticks = t0;
			cs->claimed_by = cpu;
			__atomic_store_n(&cs->progress_ticks, t0, __ATOMIC_RELEASE);
			__atomic_store_n(&cs->owner, cpu, __ATOMIC_RELEASE);
			run_steps(st, i, s, e, cpu);
			continue;
		}
		t0 = job_platform_ticks();
		job_ticks_min(&st->first_counter, t0);
		j->fn(j->arg, s, e);
		t1 = job_platform_ticks();
		if (j->times && i < j->times_cap)
			j->times[i] = (struct job_chunk_time){
				.cpu = cpu, .start = s, .end = e, .start_ticks = t0,
				.end_ticks = t1, .ns = job_platform_ticks_to_ns(t1 - t0),
				.own_ticks = t1 - t0, .helper = JOB_NO_OWNER };
		count_ran(st, cpu);
		job_ticks_max(&st->end_counter, t1);
		__atomic_fetch_add(&st->chunks_done, 1, __ATOMIC_RELEASE);
	}
	if (st->rescue && __atomic_load_n(&st->orphans, __ATOMIC_ACQUIRE) > 0)
		help_orphans(st, cpu);
}

/* A job for all nodes, posted to an idle CPU. */
static void job_worker(void *arg)
{
	struct job_state *st = arg;

	work_on(st);
	__atomic_fetch_sub(&st->active, 1, __ATOMIC_RELEASE);
}

/*
 * Waking a node's idle CPUs as a tree. A woken CPU's mailbox argument
 * carries the node and the part [lo, hi) of the CPU ids it is to wake in
 * turn: it splits the part in halves and wakes the first idle CPU of the
 * node in each, handing it the rest of that half. Every idle CPU of the node
 * is reached once, in about log2(CPUs) rounds of wake-ups spread over the
 * CPUs, instead of the caller sending every IPI itself. The mailboxes are
 * claimed atomically (job_platform_try_post()): two wakers never overwrite
 * each other, and a CPU that got busy meanwhile is simply not woken.
 */
#define WAKE_ID_BITS 24
#define WAKE_ID_MASK ((1ULL << WAKE_ID_BITS) - 1)
_Static_assert(MEMBOOT_MAX_CPUS < (1ULL << WAKE_ID_BITS), "CPU ids fit the wake argument");

static void *wake_arg(uint32_t node, uint32_t lo, uint32_t hi)
{
	return (void *)(uintptr_t)((uint64_t)node << (2 * WAKE_ID_BITS) |
				   (uint64_t)lo << WAKE_ID_BITS | hi);
}

static void node_worker(void *arg);

static void wake_part(uint32_t node, uint32_t lo, uint32_t hi, uint32_t self)
{
	uint32_t mid = lo + (hi - lo) / 2;
	const uint32_t halves[2][2] = { { lo, mid }, { mid, hi } };

	for (int h = 0; h < 2; h++) {
		for (uint32_t c = halves[h][0]; c < halves[h][1]; c++) {
			if (c == self || !cpu_in(c, node) || job_platform_busy(c))
				continue;
			if (job_platform_try_post(c, node_worker, wake_arg(node, c + 1, halves[h][1])))
				break;
		}
	}
}

/* Wake the idle CPUs of @node (not the caller) to look at its queue. */
static void kick_node(uint32_t node, uint32_t self)
{
	wake_part(node, 0, job_platform_max_cpus(), self);
}

/*
 * What a node's CPU runs when woken: take the first queued job with chunks
 * left and room for one more CPU, work on it, and look again, until the
 * node's queue has nothing left to claim.
 */
static void node_worker(void *arg)
{
	uint64_t w = (uint64_t)(uintptr_t)arg;
	uint32_t node = (uint32_t)(w >> (2 * WAKE_ID_BITS));
	struct node_queue *q = &queues[node];

	/* Wake this CPU's part of the node first: the tree goes on in parallel. */
	wake_part(node, (uint32_t)(w >> WAKE_ID_BITS & WAKE_ID_MASK), (uint32_t)(w & WAKE_ID_MASK),
		  job_platform_this_cpu());
	for (;;) {
		struct job_state *st = NULL, **pp;

		queue_lock(q);
		for (pp = &q->head; *pp;) {
			struct job_state *c = *pp;
			bool orphans = __atomic_load_n(&c->orphans, __ATOMIC_ACQUIRE) > 0;
			if (c->next_chunk >= c->plan.nr_chunks && !orphans) {
				/* Every chunk claimed: nothing here for anyone. */
				*pp = c->next;
				c->queued = false;
				continue;
			}
			/* Orphaned chunks take any CPU that comes (the lost one
			 * keeps its place among the joined). */
			if (c->joined < c->plan.threads || orphans) {
				st = c;
				break;
			}
			pp = &c->next;
		}
		if (st) {
			st->joined++;
			__atomic_fetch_add(&st->active, 1, __ATOMIC_ACQUIRE);
		}
		queue_unlock(q);
		if (!st)
			return;
		work_on(st);
		__atomic_fetch_sub(&st->active, 1, __ATOMIC_RELEASE);
	}
}

static void start_all_nodes(struct job *job, struct job_state *st, uint32_t self)
{
	uint32_t max = job_platform_max_cpus(), avail = 0;

	/* Idle CPUs, the caller not counted; the caller always helps. */
	for (uint32_t i = 0; i < max; i++)
		avail += i != self && cpu_in(i, job->node) && !job_platform_busy(i);
	st->caller_helps = true;
	st->cpus = avail + 1;
	if (!job_plan_make(&st->plan, job->start, job->size, job->align ? job->align : 1,
			   job->min_chunk, st->cpus, job->max_threads)) {
		st->empty = true;
		return;
	}
	st->joined = 1;
	for (uint32_t i = 0; i < max && st->joined < st->plan.threads; i++) {
		if (i == self || !cpu_in(i, job->node) || job_platform_busy(i))
			continue;   /* busy with another job: leave it */
		__atomic_fetch_add(&st->active, 1, __ATOMIC_ACQUIRE);
		if (!job_platform_try_post(i, job_worker, st)) {
			/* Taken by a node's wake-up just now: leave it too. */
			__atomic_fetch_sub(&st->active, 1, __ATOMIC_RELEASE);
			continue;
		}
		st->joined++;
	}
}

void job_start(struct job *job, struct job_state *st)
{
	uint32_t self = job_platform_this_cpu();
	uint32_t node_cpus;
	struct node_queue *q;

	memset(st, 0, sizeof(*st));
	st->job = job;
	do
		st->gen = (uint16_t)__atomic_add_fetch(&job_gen, 1, __ATOMIC_RELAXED);
	while (!st->gen);
	st->start_counter = job_platform_ticks();
	if (job->node == JOB_ALL_NODES || job->node >= JOB_MAX_NODES) {
		start_all_nodes(job, st, self);
		return;
	}
	/* Before any CPU can claim a chunk: each chunk's claim word at its
	 * start, no owner. */
	st->rescue = job->chunk_states && job->deadline_ns;
	/* The node's CPUs, busy or not: a busy one comes to the queue when it
	 * finishes. The caller helps a job of its own node, and a job no CPU of
	 * its node can run (a CPU-less node's memory still gets one thread). */
	node_cpus = job_cpus_of_node(job->node) - cpu_in(self, job->node);
	st->caller_helps = cpu_in(self, job->node) || node_cpus == 0;
	st->cpus = node_cpus + st->caller_helps;
	if (!job_plan_make(&st->plan, job->start, job->size, job->align ? job->align : 1,
			   job->min_chunk, st->cpus, job->max_threads)) {
		st->empty = true;
		return;
	}
	if (st->plan.nr_chunks > job->chunk_states_cap)
		st->rescue = false;
	for (uint32_t i = 0; st->rescue && i < st->plan.nr_chunks; i++) {
		uint64_t s, e;
		job_plan_chunk(&st->plan, i, &s, &e);
		job->chunk_states[i] = (struct job_chunk_state){
			.next = s, .owner = JOB_NO_OWNER, .claimed_by = JOB_NO_OWNER,
			.helper = JOB_NO_OWNER };
	}
	st->joined = st->caller_helps;   /* the caller's place is kept */
	if (node_cpus == 0)
		return;
	q = &queues[job->node];
	queue_lock(q);
	{
		struct job_state **pp = &q->head;
		while (*pp)
			pp = &(*pp)->next;
		*pp = st;
		st->queued = true;
	}
	queue_unlock(q);
	kick_node(job->node, self);
}

/* Put @st back on its node's queue (orphaned chunks to finish). */
static void requeue(struct job_state *st)
{
	struct node_queue *q = &queues[st->job->node];

	queue_lock(q);
	if (!st->queued) {
		struct job_state **pp = &q->head;
		while (*pp)
			pp = &(*pp)->next;
		*pp = st;
		st->queued = true;
	}
	queue_unlock(q);
}

/*
 * The waiter's look at the chunks (a job with chunk states): a chunk with
 * an owner and unclaimed steps whose last progress is older than the
 * deadline is orphaned (once: the owner word goes from the CPU to
 * JOB_ORPHANED by compare-and-swap) and its CPU reported lost. A chunk
 * whose steps are all claimed but not all done past the deadline was left
 * inside a step: those units are abandoned, reported, never redone.
 */
static void rescue_check(struct job_state *st, uint32_t self)
{
	struct job *j = st->job;
	uint64_t now = job_platform_ticks();
	uint32_t n = __atomic_load_n(&st->next_chunk, __ATOMIC_ACQUIRE);
	bool orphaned = false;

	if (n > st->plan.nr_chunks)
		n = st->plan.nr_chunks;
	for (uint32_t i = 0; i < n; i++) {
		struct job_chunk_state *cs = &j->chunk_states[i];
		uint32_t owner = __atomic_load_n(&cs->owner, __ATOMIC_ACQUIRE);
		uint64_t s, e, seen = __atomic_load_n(&cs->progress_ticks, __ATOMIC_ACQUIRE);

		job_plan_chunk(&st->plan, i, &s, &e);
		if (owner >= JOB_ORPHANED || __atomic_load_n(&cs->done_units, __ATOMIC_ACQUIRE) == e - s)
			continue;
		/* Silence: no step begun or ended, no sign of life from inside one. */
		seen = last_heard(owner, seen, now);
		if (now < seen || job_platform_ticks_to_ns(now - seen) < j->deadline_ns)
			continue;
		/* A busy lock is an owner ending a step: alive. */
		if (!chunk_trylock(cs))
			continue;
		if (__atomic_load_n(&cs->done_units, __ATOMIC_ACQUIRE) == e - s ||
		    !__atomic_compare_exchange_n(&cs->owner, &owner, JOB_ORPHANED, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			chunk_unlock(cs);
			continue;
		}
		uint64_t next = __atomic_load_n(&cs->next, __ATOMIC_ACQUIRE);
		uint64_t left = e - next;
		/* Claimed and not done: the step it is inside (only the owner
		 * runs a chunk's steps until it is orphaned). Counted done so
		 * the chunk can end; undone unless the owner comes back. */
		uint64_t inside = next - s - __atomic_load_n(&cs->done_units, __ATOMIC_ACQUIRE);
		cs->inside = cs->abandoned = inside;
		cs->lost_ticks = now;
		__atomic_fetch_add(&st->abandoned_units, inside, __ATOMIC_RELAXED);
		uint64_t done = __atomic_add_fetch(&cs->done_units, inside, __ATOMIC_ACQ_REL);
		chunk_unlock(cs);

		job_platform_lost(owner);
		__atomic_fetch_add(&lost_cpus, 1, __ATOMIC_RELAXED);
		st->lost++;   /* it holds its place in active until it comes back, if ever */
		/* Who finishes its unclaimed steps: the node's CPUs still online
		 * (the waiter among them, if it is one), else the waiter. */
		uint32_t others = job_cpus_of_node(j->node) - cpu_in(self, j->node);
		char who[160];
		if (!left)
			snprintf(who, sizeof(who), "no unclaimed units left");
		else if (others)
			snprintf(who, sizeof(who), "node %u's %u other CPU%s take its %llu unclaimed units",
				 j->node, others, others == 1 ? "" : "s", (unsigned long long)left);
		else
			snprintf(who, sizeof(who), "CPU %u, the waiting one, takes its %llu unclaimed units "
				 "(node %u has no other CPU)", self, (unsigned long long)left, j->node);
		pr_warn("job %s: CPU %u made no progress for %llu ms in the middle of its chunk %u "
			"(units [%#llx, %#llx)): counted lost; %s%s", j->name, owner,
			(unsigned long long)(j->deadline_ns / 1000000), i, (unsigned long long)s,
			(unsigned long long)e, who,
			inside ? "; it is inside a step, which no one can redo" : "");
		if (left) {
			__atomic_fetch_add(&st->orphans, 1, __ATOMIC_RELEASE);
			orphaned = true;
		} else if (done == e - s) {
			chunk_complete(st, i, s, e, now, false);
		}
	}
	if (orphaned) {
		st->orphaned_ticks = now;
		requeue(st);
		kick_node(j->node, self);
	}
}

/*
 * Before the job's story is told: each CPU counted lost gets time to answer
 * again, as long as it keeps giving signs of life (job_progress() from
 * inside a long step: a memory test's pass over a step's range), so one
 * that was only slow is told so, and the step it was inside is not named
 * undone. The deadline measures silence, not a slow CPU: a CPU silent for
 * a whole deadline (from its orphaning or its last sign of life, whichever
 * is later) stays lost.
 */
static void wait_for_lost(struct job_state *st)
{
	const struct job *j = st->job;

	for (uint32_t i = 0; i < st->plan.nr_chunks && i < j->chunk_states_cap; i++) {
		const struct job_chunk_state *cs = &j->chunk_states[i];

		if (!cs->lost_ticks)
			continue;
		while (!__atomic_load_n(&cs->back_ticks, __ATOMIC_ACQUIRE)) {
			uint64_t now = job_platform_ticks();
			uint64_t seen = last_heard(cs->claimed_by, cs->lost_ticks, now);
			if (now >= seen && job_platform_ticks_to_ns(now - seen) >= j->deadline_ns)
				break;
			job_platform_relax();
		}
	}
}

void job_wait(struct job_state *st)
{
	uint32_t self = job_platform_this_cpu(), spins = 0, looks = 0, node = st->job->node;

	if (st->empty)
		return;
	if (st->caller_helps)
		work_on(st);
	while (__atomic_load_n(&st->chunks_done, __ATOMIC_ACQUIRE) < st->plan.nr_chunks ||
	       __atomic_load_n(&st->active, __ATOMIC_ACQUIRE) > st->lost) {
		/* A CPU that went idle just as the job was queued missed it:
		 * wake the node's idle CPUs again now and then. */
		if (__atomic_load_n(&st->queued, __ATOMIC_RELAXED) && ++spins % 4096 == 0 &&
		    (st->next_chunk < st->plan.nr_chunks || st->orphans > 0))
			kick_node(node, self);
		if (st->rescue && ++looks % 1024 == 0) {
			rescue_check(st, self);
			/* Orphans no CPU of the node took within another deadline
			 * (none left, or all busy): the waiter finishes them, and
			 * the chunks no one claimed yet. */
			if (__atomic_load_n(&st->orphans, __ATOMIC_ACQUIRE) > 0 &&
			    (job_cpus_of_node(node) == 0 ||
			     job_platform_ticks_to_ns(job_platform_ticks() - st->orphaned_ticks) >=
				     st->job->deadline_ns))
				work_on(st);
		}
		job_platform_relax();
	}
	if (st->rescue && st->lost)
		wait_for_lost(st);
	if (node < JOB_MAX_NODES && st->queued) {
		queue_lock(&queues[node]);
		if (st->queued)
			queue_remove_locked(&queues[node], st);
		queue_unlock(&queues[node]);
	}
	st->threads = __atomic_load_n(&st->ran_cpus, __ATOMIC_ACQUIRE);
	st->ns = st->first_counter && st->end_counter > st->first_counter
		 ? job_platform_ticks_to_ns(st->end_counter - st->first_counter) : 0;
}

uint32_t job_report_lost(const struct job_state *st)
{
	const struct job *j = st->job;
	uint32_t still = 0, n = st->plan.nr_chunks;

	if (st->empty || !st->rescue || !st->lost)
		return 0;
	for (uint32_t i = 0; i < n && i < j->chunk_states_cap; i++) {
		const struct job_chunk_state *cs = &j->chunk_states[i];
		uint64_t back = __atomic_load_n(&cs->back_ticks, __ATOMIC_ACQUIRE);

		if (!cs->lost_ticks)
			continue;
		if (back) {
			pr_warn("job %s: CPU %u came back %llu ms after it was counted lost%s: it was "
				"slow, not lost (silent longer than the deadline, %llu ms); it takes no "
				"more work in this boot", j->name, cs->claimed_by,
				(unsigned long long)(back > cs->lost_ticks ?
						     job_platform_ticks_to_ns(back - cs->lost_ticks) / 1000000 : 0),
				cs->inside && !cs->abandoned ? " and finished the step it was inside" : "",
				(unsigned long long)(j->deadline_ns / 1000000));
			continue;
		}
		still++;
		/* Non-repeatable work half done: say so, never redo it. */
		if (cs->abandoned)
			pr_err("job %s: CPU %u was lost inside a step: %llu units of chunk %u left undone",
			       j->name, cs->claimed_by, (unsigned long long)cs->abandoned, i);
	}
	return still;
}

uint32_t job_run(struct job *job, struct job_state *st)
{
	job_start(job, st);
	job_wait(st);
	return st->threads;
}

/* --- self-test --------------------------------------------------------- */

struct count_arg {
	uint8_t *counts;
	uint64_t base;
};

static void count_units(void *arg, uint64_t start, uint64_t end)
{
	struct count_arg *c = arg;
	for (uint64_t u = start; u < end; u++)
		__atomic_fetch_add(&c->counts[u - c->base], 1, __ATOMIC_RELAXED);
}

bool job_selftest(uint8_t *scratch, uint64_t units, uint32_t nr_nodes)
{
	static const struct { uint64_t start, size, align, min_chunk; } shapes[] = {
		{ 0, 1, 1, 1 },
		{ 3, 7, 1, 1 },
		{ 1000, 4097, 8, 16 },
		{ 511, 100003, 512, 64 },
		{ 12345, 262144, 4096, 1 },
		{ 7, 999999, 64, 1000 },
	};
	bool ok = true;

	for (uint32_t node = 0; node <= nr_nodes; node++) {
		uint32_t which = node == nr_nodes ? JOB_ALL_NODES : node;
		for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
			struct count_arg arg = { .counts = scratch, .base = shapes[k].start };
			struct job j = {
				.name = "selftest", .start = shapes[k].start, .size = shapes[k].size,
				.align = shapes[k].align, .min_chunk = shapes[k].min_chunk,
				.node = which, .fn = count_units, .arg = &arg,
			};
			struct job_state st;
			struct record r;
			uint64_t bad = 0;

			if (shapes[k].size > units)
				continue;
			memset(scratch, 0, shapes[k].size);
			job_run(&j, &st);
			for (uint64_t u = 0; u < shapes[k].size; u++)
				bad += scratch[u] != 1;
			rec_begin(&r, "job");
			rec_str(&r, "name", "selftest");
			rec_i64(&r, "node", which == JOB_ALL_NODES ? -1 : (int64_t)which);
			rec_u64(&r, "start", shapes[k].start);
			rec_u64(&r, "size", shapes[k].size);
			rec_u64(&r, "align", shapes[k].align);
			rec_u64(&r, "threads", st.threads);
			rec_u64(&r, "chunks", st.plan.nr_chunks);
			rec_u64(&r, "bad_units", bad);
			rec_u64(&r, "ns", st.ns);
			record_emit(&r);
			if (bad) {
				pr_err("job: selftest node %d shape %u: %llu of %llu units not done exactly once",
				       (int)which, k, (unsigned long long)bad,
				       (unsigned long long)shapes[k].size);
				ok = false;
			}
		}
	}
	return ok;
}

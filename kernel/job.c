/*
 * job.c: running a job's chunks on several CPUs. Portable C: the CPUs, their
 * mailboxes and the clock come from kernel/job_platform.h (the kernel's
 * kernel/job_cpu.c, or the host's pthreads in tests/host/job_host.c).
 */
#include "kernel/job.h"

#include <string.h>

#include "kernel/job_platform.h"
#include "kernel/log.h"
#include "kernel/panic.h"
#include "kernel/record.h"

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

/* Claim and run chunks until none are left. */
static void work_on(struct job_state *st)
{
	struct job *j = st->job;
	uint32_t cpu = job_platform_this_cpu();

	for (;;) {
		uint32_t i = __atomic_fetch_add(&st->next_chunk, 1, __ATOMIC_RELAXED);
		uint64_t s, e, t0;

		if (i >= st->plan.nr_chunks)
			break;
		job_plan_chunk(&st->plan, i, &s, &e);
		t0 = job_platform_ticks();
		j->fn(j->arg, s, e);
		uint64_t t1 = job_platform_ticks(), seen = st->end_tsc;
		if (j->times && i < j->times_cap)
			j->times[i] = (struct job_chunk_time){
				.cpu = cpu, .start = s, .end = e,
				.ns = job_platform_ticks_to_ns(t1 - t0) };
		while (seen < t1 && !__atomic_compare_exchange_n(&st->end_tsc, &seen, t1, false,
								 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
}

static void job_worker(void *arg)
{
	struct job_state *st = arg;

	work_on(st);
	__atomic_fetch_add(&st->workers_done, 1, __ATOMIC_RELEASE);
}

void job_start(struct job *job, struct job_state *st)
{
	uint32_t self = job_platform_this_cpu(), max = job_platform_max_cpus();
	uint32_t avail = 0;

	memset(st, 0, sizeof(*st));
	st->job = job;
	st->start_tsc = job_platform_ticks();
	/* Idle CPUs of the node, the caller not counted. */
	for (uint32_t i = 0; i < max; i++)
		avail += i != self && cpu_in(i, job->node) && !job_platform_busy(i);
	/* The caller helps a job of its own node, and any job nobody else can
	 * run (a CPU-less node's memory still gets one thread). */
	st->caller_helps = cpu_in(self, job->node) || avail == 0;
	if (!job_plan_make(&st->plan, job->start, job->size, job->align ? job->align : 1,
			   job->min_chunk, avail + st->caller_helps, job->max_threads)) {
		st->empty = true;
		return;
	}
	st->threads = st->caller_helps;
	for (uint32_t i = 0; i < max && st->threads < st->plan.threads; i++) {
		if (i == self || !cpu_in(i, job->node) || job_platform_busy(i))
			continue;   /* busy with another job: leave it */
		job_platform_post(i, job_worker, st);
		st->workers++;
		st->threads++;
	}
}

void job_wait(struct job_state *st)
{
	if (st->empty)
		return;
	if (st->caller_helps)
		work_on(st);
	while (__atomic_load_n(&st->workers_done, __ATOMIC_ACQUIRE) < st->workers)
		job_platform_relax();
	st->ns = job_platform_ticks_to_ns((st->end_tsc ? st->end_tsc : job_platform_ticks()) -
					  st->start_tsc);
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

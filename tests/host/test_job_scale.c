/*
 * test_job_scale.c: the job runner at 256 simulated CPUs (pthreads,
 * tests/host/job_host.c), 64 a node in 4 nodes: every unit done exactly
 * once for node jobs (several started before any is waited for, as memory
 * init does) and all-node jobs; every idle CPU of a node reached by the
 * tree of wake-ups and no CPU of another node; the plan gives every CPU
 * work when there is enough. No assertion about time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/jobs/platform.h"
#include "tests/host/host_support.h"
#include "tests/host/job_host.h"

#define CPUS 256
#define NODES 4
#define UNITS (1u << 20)

static uint32_t nodes_of[CPUS];
static uint8_t *counts;

static int up(void **state)
{
	for (uint32_t i = 0; i < CPUS; i++)
		nodes_of[i] = i / (CPUS / NODES);
	job_host_start(CPUS, nodes_of);
	counts = calloc(UNITS, 1);
	return counts ? 0 : -1;
}

static int down(void **state)
{
	job_host_stop();
	free(counts);
	return 0;
}

static void count(void *arg, uint64_t s, uint64_t e)
{
	(void)arg;
	for (uint64_t u = s; u < e; u++)
		__atomic_fetch_add(&counts[u], 1, __ATOMIC_RELAXED);
}

/* Until every simulated CPU's mailbox is empty (no clock involved). */
static void quiesce(void)
{
	for (uint32_t i = 1; i < CPUS; i++)
		while (job_platform_busy(i))
			job_platform_relax();
}

static void expect_each_once(uint64_t start, uint64_t size)
{
	for (uint64_t u = start; u < start + size; u++)
		if (counts[u] != 1)
			fail_msg("unit %llu done %u times", (unsigned long long)u, counts[u]);
}

/* A job on each node, one after another: all of it done once, on the
 * node's CPUs; every CPU of the node was woken, no CPU of another. */
static void test_node_jobs_wake_every_cpu_of_the_node(void **state)
{
	(void)state;
	for (uint32_t node = 0; node < NODES; node++) {
		static uint64_t before[CPUS];
		struct job j = { .name = "scale", .start = 0, .size = UNITS, .align = 64,
				 .min_chunk = 64, .node = node, .fn = count };
		struct job_state st;

		quiesce();
		for (uint32_t i = 0; i < CPUS; i++)
			before[i] = job_host_works_done(i);
		memset(counts, 0, UNITS);
		job_run(&j, &st);
		expect_each_once(0, UNITS);
		/* Every CPU of the node offered, enough chunks for all. */
		assert_int_equal(st.cpus, CPUS / NODES);
		assert_int_equal(st.plan.threads, CPUS / NODES);
		assert_true(st.plan.nr_chunks >= st.plan.threads * JOB_CHUNKS_PER_THREAD);
		assert_true(st.threads >= 1 && st.threads <= CPUS / NODES);
		quiesce();
		for (uint32_t i = 1; i < CPUS; i++) {
			uint64_t woken = job_host_works_done(i) - before[i];

			if (nodes_of[i] == node && !woken)
				fail_msg("node %u: CPU %u was never woken", node, i);
			if (nodes_of[i] != node && woken)
				fail_msg("node %u: CPU %u of node %u was woken", node, i, nodes_of[i]);
		}
	}
}

/* Four node jobs started before any is waited for, then an all-node job:
 * every unit once, each node's range on its own CPUs. */
static void test_concurrent_node_jobs_and_all_nodes(void **state)
{
	static struct job_chunk_time times[NODES][4096];
	struct job j[NODES];
	struct job_state st[NODES];
	const uint64_t part = UNITS / NODES;

	(void)state;
	quiesce();
	memset(counts, 0, UNITS);
	for (uint32_t n = 0; n < NODES; n++) {
		j[n] = (struct job){ .name = "part", .start = n * part, .size = part, .align = 16,
				     .min_chunk = 16, .node = n, .fn = count,
				     .times = times[n], .times_cap = 4096 };
		job_start(&j[n], &st[n]);
	}
	for (uint32_t n = 0; n < NODES; n++)
		job_wait(&st[n]);
	expect_each_once(0, UNITS);
	for (uint32_t n = 0; n < NODES; n++)
		for (uint32_t i = 0; i < st[n].plan.nr_chunks && i < 4096; i++) {
			uint32_t cpu = times[n][i].cpu;
			/* Node 0's job may run on the caller, CPU 0 (node 0). */
			if (nodes_of[cpu] != n)
				fail_msg("node %u's chunk %u ran on CPU %u of node %u", n, i, cpu,
					 nodes_of[cpu]);
		}

	struct job all = { .name = "all", .start = 0, .size = UNITS, .align = 1, .min_chunk = 1,
			   .node = JOB_ALL_NODES, .fn = count };
	struct job_state sa;

	quiesce();
	memset(counts, 0, UNITS);
	job_run(&all, &sa);
	expect_each_once(0, UNITS);
	assert_int_equal(sa.cpus, CPUS);
	assert_true(sa.threads >= 1 && sa.threads <= CPUS);
}

/* The job runner's own self-test shapes, on every node and all. */
static void test_selftest_at_256(void **state)
{
	(void)state;
	quiesce();
	assert_int_equal(job_cpus_of_node(0), CPUS / NODES);
	assert_int_equal(job_cpus_of_node(JOB_ALL_NODES), CPUS);
	assert_true(job_selftest(counts, UNITS, NODES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_jobs_wake_every_cpu_of_the_node),
		cmocka_unit_test(test_concurrent_node_jobs_and_all_nodes),
		cmocka_unit_test(test_selftest_at_256),
	};
	return cmocka_run_group_tests(tests, up, down);
}

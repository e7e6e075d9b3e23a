/*
 * test_job.c: the job runner (kernel/job.c) on simulated CPUs (pthreads,
 * tests/host/job_host.c): every unit done exactly once for odd shapes on
 * every node, chunks run only on the job's node's CPUs, the caller helping
 * only its own node or a node without CPUs, max_threads, and two jobs at
 * once on different nodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/job.h"
#include "kernel/job_platform.h"
#include "tests/host/host_support.h"
#include "tests/host/job_host.h"

/* 6 CPUs: 0-2 on node 0, 3-5 on node 1; node 2 has none. */
static const uint32_t nodes_of[6] = { 0, 0, 0, 1, 1, 1 };

static int up(void **state)
{
	job_host_start(6, nodes_of);
	return 0;
}

static int down(void **state)
{
	job_host_stop();
	return 0;
}

static void test_selftest_shapes(void **state)
{
	uint8_t *scratch = malloc(1000000);

	assert_int_equal(job_cpus_of_node(0), 3);
	assert_int_equal(job_cpus_of_node(1), 3);
	assert_int_equal(job_cpus_of_node(2), 0);
	assert_int_equal(job_cpus_of_node(JOB_ALL_NODES), 6);
	assert_true(job_selftest(scratch, 1000000, 3));
	free(scratch);
}

static uint8_t counts[1 << 16];

static void count(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t u = s; u < e; u++)
		__atomic_fetch_add(&counts[u], 1, __ATOMIC_RELAXED);
}

/* Run a job of 2^16 units on @node; check every unit once and return the
 * set of CPUs (a bit each) that ran chunks. */
static uint64_t run_on(uint32_t node, uint32_t max_threads, uint32_t *threads)
{
	static struct job_chunk_time times[256];
	struct job j = { .name = "t", .start = 0, .size = 1 << 16, .align = 64, .min_chunk = 256,
			 .max_threads = max_threads, .node = node, .fn = count,
			 .times = times, .times_cap = 256 };
	struct job_state st;
	uint64_t cpus = 0;

	memset(counts, 0, sizeof(counts));
	*threads = job_run(&j, &st);
	for (uint32_t u = 0; u < (1 << 16); u++)
		assert_int_equal(counts[u], 1);
	for (uint32_t i = 0; i < st.plan.nr_chunks && i < 256; i++)
		cpus |= 1ULL << times[i].cpu;
	return cpus;
}

static void test_caller_helps_only_its_node(void **state)
{
	uint32_t threads;
	uint64_t cpus;

	cpus = run_on(0, 0, &threads);          /* the caller is CPU 0, node 0 */
	assert_int_equal(threads, 3);
	assert_int_equal(cpus & ~0x7ULL, 0);
	cpus = run_on(1, 0, &threads);          /* node 1: its CPUs, not the caller */
	assert_int_equal(threads, 3);
	assert_int_equal(cpus & ~0x38ULL, 0);
	cpus = run_on(2, 0, &threads);          /* no CPUs: the caller alone */
	assert_int_equal(threads, 1);
	assert_int_equal(cpus, 1);
	cpus = run_on(JOB_ALL_NODES, 0, &threads);
	assert_int_equal(threads, 6);
	cpus = run_on(1, 2, &threads);          /* max_threads */
	assert_int_equal(threads, 2);
	assert_int_equal(cpus & ~0x38ULL, 0);
}

static uint8_t counts2[1 << 16];

static void count2(void *arg, uint64_t s, uint64_t e)
{
	for (uint64_t u = s; u < e; u++)
		__atomic_fetch_add(&counts2[u], 1, __ATOMIC_RELAXED);
}

/* One job per node started before either is waited on, as memory init does. */
static void test_two_nodes_at_once(void **state)
{
	struct job a = { .name = "a", .start = 0, .size = 1 << 16, .align = 1, .min_chunk = 64,
			 .node = 1, .fn = count };
	struct job b = { .name = "b", .start = 0, .size = 1 << 16, .align = 1, .min_chunk = 64,
			 .node = 0, .fn = count2 };
	struct job_state sa, sb;

	memset(counts, 0, sizeof(counts));
	memset(counts2, 0, sizeof(counts2));
	job_start(&a, &sa);
	job_start(&b, &sb);
	job_wait(&sb);
	job_wait(&sa);
	assert_int_equal(sa.threads, 3);
	assert_false(sa.caller_helps);
	assert_int_equal(sb.threads, 3);
	assert_true(sb.caller_helps);
	for (uint32_t u = 0; u < (1 << 16); u++) {
		assert_int_equal(counts[u], 1);
		assert_int_equal(counts2[u], 1);
	}
	assert_true(sa.ns > 0 && sb.ns > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_selftest_shapes, up, down),
		cmocka_unit_test_setup_teardown(test_caller_helps_only_its_node, up, down),
		cmocka_unit_test_setup_teardown(test_two_nodes_at_once, up, down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_job.c: the job runner (kernel/services/jobs/job.c) on simulated CPUs (pthreads,
 * tests/host/job_host.c): every unit done exactly once for odd shapes on
 * every node, chunks run only on the job's node's CPUs, the caller helping
 * only its own node or a node without CPUs, max_threads, and two jobs at
 * once on different nodes; and a CPU that vanishes in the middle of its
 * chunk: its unclaimed steps redone by its node's other CPUs, or by the
 * waiter when it was the node's only CPU, each unit exactly once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cmocka.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/jobs/platform.h"
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

/* A chunk that takes a while, so every CPU offered has time to join. */
static void count_slowly(void *arg, uint64_t s, uint64_t e)
{
	struct timespec ts = { 0, 2000000 };   /* 2 ms */

	count(arg, s, e);
	nanosleep(&ts, NULL);
}

/* Run a job of 2^16 units on @node; check every unit once and return the
 * set of CPUs (a bit each) that ran chunks. */
static uint64_t run_on(uint32_t node, uint32_t max_threads, struct job_state *st)
{
	static struct job_chunk_time times[256];
	struct job j = { .name = "t", .start = 0, .size = 1 << 16, .align = 64, .min_chunk = 256,
			 .max_threads = max_threads, .node = node, .fn = count_slowly,
			 .times = times, .times_cap = 256 };
	uint64_t cpus = 0;
	uint32_t ran;

	memset(counts, 0, sizeof(counts));
	ran = job_run(&j, st);
	assert_int_equal(ran, st->threads);
	for (uint32_t u = 0; u < (1 << 16); u++)
		assert_int_equal(counts[u], 1);
	for (uint32_t i = 0; i < st->plan.nr_chunks && i < 256; i++) {
		cpus |= 1ULL << times[i].cpu;
	}
	/* threads is the CPUs that ran chunks, no more, no less. */
	assert_int_equal((uint32_t)__builtin_popcountll(cpus), st->threads);
	return cpus;
}

static void test_caller_helps_only_its_node(void **state)
{
	struct job_state st;
	uint64_t cpus;

	cpus = run_on(0, 0, &st);               /* the caller is CPU 0, node 0 */
	assert_int_equal(st.cpus, 3);
	assert_true(st.caller_helps);
	assert_int_equal(cpus & ~0x7ULL, 0);
	cpus = run_on(1, 0, &st);               /* node 1: its CPUs, not the caller */
	assert_int_equal(st.cpus, 3);
	assert_false(st.caller_helps);
	assert_int_equal(cpus & ~0x38ULL, 0);
	assert_true(st.threads >= 2);
	cpus = run_on(2, 0, &st);               /* no CPUs: the caller alone */
	assert_int_equal(st.cpus, 1);
	assert_int_equal(st.threads, 1);
	assert_int_equal(cpus, 1);
	cpus = run_on(JOB_ALL_NODES, 0, &st);
	assert_int_equal(st.cpus, 6);
	assert_true(st.threads >= 2);
	cpus = run_on(1, 2, &st);               /* max_threads */
	assert_true(st.threads >= 1 && st.threads <= 2);
	assert_int_equal(cpus & ~0x38ULL, 0);
}

/* One chunk: three CPUs offered, one ran it. */
static void test_threads_are_cpus_that_ran(void **state)
{
	static struct job_chunk_time times[4];
	struct job j = { .name = "one", .start = 0, .size = 100, .align = 1, .min_chunk = 1000,
			 .node = 1, .fn = count, .times = times, .times_cap = 4 };
	struct job_state st;

	memset(counts, 0, sizeof(counts));
	job_run(&j, &st);
	assert_int_equal(st.plan.nr_chunks, 1);
	assert_int_equal(st.cpus, 3);
	assert_int_equal(st.threads, 1);
	assert_true(times[0].cpu >= 3 && times[0].cpu <= 5);   /* node 1's, not the caller */
}

/*
 * Two jobs on node 1, the second started while the first keeps all of node
 * 1's CPUs busy: the second waits on node 1's queue and runs on node 1's
 * CPUs once they are free, never on the caller (node 0); its time counts
 * only its own chunks, not the wait.
 */
static void test_second_job_queues_on_its_node(void **state)
{
	static struct job_chunk_time ta[64], tb[64];
	struct job a = { .name = "slow", .start = 0, .size = 1 << 12, .align = 1, .min_chunk = 1,
			 .max_threads = 0, .node = 1, .fn = count_slowly, .times = ta, .times_cap = 64 };
	struct job b = { .name = "next", .start = 1 << 12, .size = 1 << 12, .align = 1,
			 .min_chunk = 1, .node = 1, .fn = count, .times = tb, .times_cap = 64 };
	struct job_state sa, sb;
	uint64_t a_first_end = UINT64_MAX;

	memset(counts, 0, sizeof(counts));
	job_start(&a, &sa);
	job_start(&b, &sb);
	assert_false(sb.caller_helps);
	job_wait(&sb);
	job_wait(&sa);
	for (uint32_t u = 0; u < (1 << 13); u++)
		assert_int_equal(counts[u], 1);
	for (uint32_t i = 0; i < sb.plan.nr_chunks; i++)
		assert_true(tb[i].cpu >= 3 && tb[i].cpu <= 5);
	for (uint32_t i = 0; i < sa.plan.nr_chunks; i++) {
		assert_true(ta[i].cpu >= 3 && ta[i].cpu <= 5);
		uint64_t end = ta[i].start_ticks + ta[i].ns;
		if (end < a_first_end)
			a_first_end = end;
	}
	/* b began only once a CPU of node 1 was through with a's chunks. */
	assert_true(sb.first_counter >= a_first_end);
	assert_true(sb.first_counter > sb.start_counter);
	assert_int_equal(sb.ns, sb.end_counter - sb.first_counter);
	assert_true(sb.ns < sb.end_counter - sb.start_counter);
	assert_true(sb.threads >= 1 && sb.threads <= 3);
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
	assert_int_equal(sa.cpus, 3);
	assert_false(sa.caller_helps);
	assert_int_equal(sb.cpus, 3);
	assert_true(sb.caller_helps);
	for (uint32_t u = 0; u < (1 << 16); u++) {
		assert_int_equal(counts[u], 1);
		assert_int_equal(counts2[u], 1);
	}
	assert_true(sa.ns > 0 && sb.ns > 0);
}

/* --- a CPU that vanishes mid-chunk --- */

static volatile uint32_t parked_cpu = JOB_NO_OWNER;   /* who parked */
static volatile uint32_t park_on_node;                /* whose CPU to park */
static volatile bool park_release;
static volatile uint32_t units_twice;

static void count_once(void *arg, uint64_t s, uint64_t e)
{
	/* Work that must not be repeated: a second run of a unit is caught. */
	for (uint64_t u = s; u < e; u++)
		if (__atomic_fetch_add(&counts[u], 1, __ATOMIC_RELAXED) != 0)
			__atomic_fetch_add(&units_twice, 1, __ATOMIC_RELAXED);
	struct timespec ts = { 0, 200000 };   /* 0.2 ms a step */
	nanosleep(&ts, NULL);
}

/* The first CPU (not the caller) of the chosen node to reach the middle of
 * a chunk stops there, as a CPU that stopped answering: until released. */
static void park_hook(const struct job *j, uint32_t cpu)
{
	uint32_t none = JOB_NO_OWNER;

	(void)j;
	if (cpu == 0 || job_platform_node(cpu) != park_on_node ||
	    !__atomic_compare_exchange_n(&parked_cpu, &none, cpu, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	while (!__atomic_load_n(&park_release, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

static struct job_chunk_state chunk_states[64];

static void run_with_a_vanishing_cpu(uint32_t node, uint32_t other_cpus_of_node)
{
	static struct job j;
	static struct job_state st;
	const uint64_t size = 40000;
	uint32_t lost_before = job_lost_cpus();

	memset(counts, 0, sizeof(counts));
	units_twice = 0;
	parked_cpu = JOB_NO_OWNER;
	park_on_node = node;
	park_release = false;
	job_step_hook = park_hook;
	j = (struct job){ .name = "vanish", .start = 0, .size = size, .align = 16,
			  .min_chunk = 2000, .node = node, .fn = count_once,
			  .chunk_states = chunk_states, .chunk_states_cap = 64, .step = 64,
			  .deadline_ns = 50 * 1000000ULL };
	job_start(&j, &st);
	job_wait(&st);
	job_step_hook = NULL;
	/* Someone parked, was found lost, and the job still did every unit
	 * exactly once. */
	assert_true(parked_cpu != JOB_NO_OWNER);
	assert_int_equal(job_platform_node(parked_cpu), node);
	assert_false(job_platform_online(parked_cpu));
	assert_int_equal(job_lost_cpus(), lost_before + 1);
	assert_int_equal(st.lost, 1);
	assert_int_equal(st.orphans, 0);
	assert_int_equal(st.abandoned_units, 0);
	assert_int_equal(st.chunks_done, st.plan.nr_chunks);
	assert_int_equal(units_twice, 0);
	for (uint64_t u = 0; u < size; u++)
		assert_int_equal(counts[u], 1);
	assert_true(host_log_contains("counted lost"));
	assert_int_equal(job_cpus_of_node(node), other_cpus_of_node);
	/* Released, the CPU finds nothing left to claim: still once each. */
	park_release = true;
	while (job_platform_busy(parked_cpu))
		sched_yield();
	assert_int_equal(units_twice, 0);
}

/* Node 1's other two CPUs finish what the lost one left. */
static void test_vanished_cpu_its_node_finishes(void **state)
{
	host_log_reset();
	run_with_a_vanishing_cpu(1, 2);
}

/* A node whose only CPU vanishes: the waiter (another node's) finishes. */
static const uint32_t lonely_nodes[3] = { 0, 0, 1 };

static int up_lonely(void **state)
{
	job_host_start(3, lonely_nodes);
	return 0;
}

static void test_vanished_cpu_alone_on_its_node(void **state)
{
	host_log_reset();
	run_with_a_vanishing_cpu(1, 0);
}

/* A CPU slow for less than the deadline is not lost: the job waits for
 * it, it comes back and finishes its chunk. */
static void *release_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000000 };
	(void)arg;
	nanosleep(&ts, NULL);
	park_release = true;
	return NULL;
}

static void test_slow_cpu_is_not_lost(void **state)
{
	static struct job j;
	static struct job_state st;
	pthread_t t;

	memset(counts, 0, sizeof(counts));
	units_twice = 0;
	parked_cpu = JOB_NO_OWNER;
	park_on_node = 1;
	park_release = false;
	job_step_hook = park_hook;
	j = (struct job){ .name = "wait", .start = 0, .size = 20000, .align = 16, .min_chunk = 2000,
			  .node = 1, .fn = count_once, .chunk_states = chunk_states,
			  .chunk_states_cap = 64, .step = 64, .deadline_ns = 10000 * 1000000ULL };
	assert_int_equal(pthread_create(&t, NULL, release_later, NULL), 0);
	job_start(&j, &st);
	job_wait(&st);
	pthread_join(t, NULL);
	job_step_hook = NULL;
	assert_true(parked_cpu != JOB_NO_OWNER);
	assert_true(job_platform_online(parked_cpu));
	assert_int_equal(st.lost, 0);
	for (uint64_t u = 0; u < 20000; u++)
		assert_int_equal(counts[u], 1);
}

/* A CPU silent past the deadline inside a step (counted lost), which then
 * works on, with signs of life, for several deadlines before it ends the
 * step: the deadline measures silence, so the job waits for it and tells
 * it slow, not lost; nothing is named undone. The condition is forced, not
 * timed: the slow CPU stays silent until it sees its chunk orphaned, then
 * gives a sign of life every 2 ms for 1.5 deadlines, so only a host that
 * leaves a runnable thread unscheduled for a whole deadline could turn it
 * lost: the deadline is 1 s (a loaded 2-core host left it 200 ms once). */
static const uint64_t slow_deadline_ns = 1000 * 1000000ULL;
static volatile uint32_t slow_cpu = JOB_NO_OWNER;

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
	nanosleep(&ts, NULL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool my_chunk_orphaned(uint32_t cpu)
{
	for (uint32_t i = 0; i < 64; i++)
		if (chunk_states[i].claimed_by == cpu &&
		    __atomic_load_n(&chunk_states[i].owner, __ATOMIC_ACQUIRE) == JOB_ORPHANED)
			return true;
	return false;
}

static void count_with_one_long_step(void *arg, uint64_t s, uint64_t e)
{
	uint32_t none = JOB_NO_OWNER, cpu = job_platform_this_cpu();

	(void)arg;
	if (cpu != 3 && job_platform_node(cpu) == 1 &&
	    __atomic_compare_exchange_n(&slow_cpu, &none, cpu, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		/* Silent until counted lost (bounded: 10 deadlines), then 1.5
		 * deadlines of slow work with signs of life: the job waits past
		 * a deadline from the orphaning for it. */
		uint64_t t0 = mono_ns();
		while (!my_chunk_orphaned(cpu) && mono_ns() - t0 < 10 * slow_deadline_ns)
			sleep_ns(1000000);
		t0 = mono_ns();
		while (mono_ns() - t0 < 3 * slow_deadline_ns / 2) {
			job_progress();
			sleep_ns(2000000);
		}
		job_progress();
	}
	count_once(arg, s, e);
}

static void test_slow_cpu_inside_a_long_step_is_told_slow(void **state)
{
	static struct job j;
	static struct job_state st;
	uint32_t lost_before = job_lost_cpus();

	(void)state;
	host_log_reset();
	memset(counts, 0, sizeof(counts));
	units_twice = 0;
	slow_cpu = JOB_NO_OWNER;
	j = (struct job){ .name = "longstep", .start = 0, .size = 20000, .align = 16,
			  .min_chunk = 2000, .node = 1, .fn = count_with_one_long_step,
			  .chunk_states = chunk_states, .chunk_states_cap = 64, .step = 64,
			  .deadline_ns = slow_deadline_ns };
	job_start(&j, &st);
	job_wait(&st);
	assert_true(slow_cpu != JOB_NO_OWNER);
	assert_true(host_log_contains("counted lost"));
	/* It answered before the story was told: back, not lost, nothing undone. */
	assert_int_equal(job_report_lost(&st), 0);
	assert_int_equal(st.came_back, 1);
	assert_int_equal(st.abandoned_units, 0);
	assert_int_equal(job_lost_cpus(), lost_before);
	assert_true(host_log_contains("slow, not lost"));
	assert_false(host_log_contains("left undone"));
	assert_int_equal(units_twice, 0);
	for (uint64_t u = 0; u < 20000; u++)
		assert_int_equal(counts[u], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_selftest_shapes, up, down),
		cmocka_unit_test_setup_teardown(test_caller_helps_only_its_node, up, down),
		cmocka_unit_test_setup_teardown(test_two_nodes_at_once, up, down),
		cmocka_unit_test_setup_teardown(test_threads_are_cpus_that_ran, up, down),
		cmocka_unit_test_setup_teardown(test_second_job_queues_on_its_node, up, down),
		cmocka_unit_test_setup_teardown(test_vanished_cpu_its_node_finishes, up, down),
		cmocka_unit_test_setup_teardown(test_vanished_cpu_alone_on_its_node, up_lonely, down),
		cmocka_unit_test_setup_teardown(test_slow_cpu_is_not_lost, up, down),
		cmocka_unit_test_setup_teardown(test_slow_cpu_inside_a_long_step_is_told_slow, up,
						down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

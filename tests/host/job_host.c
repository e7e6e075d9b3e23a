/*
 * job_host.c: simulated CPUs on pthreads for the job runner (job_host.h).
 * Each CPU but 0 is a thread that sleeps on a condition variable until its
 * mailbox holds work, runs it, clears the mailbox and sleeps again: no
 * spinning, so host tests stay cheap on a shared machine.
 */
#include "tests/host/job_host.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "kernel/services/jobs/platform.h"

struct host_cpu {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint32_t node;
	bool online, stop;
	void (*fn)(void *arg);   /* the mailbox; read with atomics */
	void *arg;
	uint64_t works_done;
};

static struct host_cpu cpus[JOB_HOST_MAX_CPUS];
static uint32_t nr_host_cpus = 1;
static __thread uint32_t this_cpu_id;   /* 0 for any thread that is not a CPU */

static void *cpu_main(void *p)
{
	struct host_cpu *c = p;

	this_cpu_id = (uint32_t)(c - cpus);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->stop && !__atomic_load_n(&c->fn, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		pthread_mutex_unlock(&c->lock);
		c->fn(c->arg);
		c->works_done++;
		__atomic_store_n(&c->fn, NULL, __ATOMIC_RELEASE);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void job_host_start(uint32_t nr_cpus, const uint32_t *node_of_cpu)
{
	if (nr_cpus < 1 || nr_cpus > JOB_HOST_MAX_CPUS)
		abort();
	nr_host_cpus = nr_cpus;
	for (uint32_t i = 0; i < nr_cpus; i++) {
		struct host_cpu *c = &cpus[i];
		*c = (struct host_cpu){ .node = node_of_cpu[i], .online = true };
		pthread_mutex_init(&c->lock, NULL);
		pthread_cond_init(&c->wake, NULL);
		if (i && pthread_create(&c->thread, NULL, cpu_main, c))
			abort();
	}
}

void job_host_stop(void)
{
	for (uint32_t i = 1; i < nr_host_cpus; i++) {
		struct host_cpu *c = &cpus[i];
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_signal(&c->wake);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
	}
	for (uint32_t i = 0; i < nr_host_cpus; i++) {
		pthread_mutex_destroy(&cpus[i].lock);
		pthread_cond_destroy(&cpus[i].wake);
		cpus[i].online = false;
	}
	nr_host_cpus = 1;
}

uint64_t job_host_works_done(uint32_t cpu)
{
	return cpus[cpu].works_done;
}

/* ---- kernel/services/jobs/platform.h ---- */

uint32_t job_platform_max_cpus(void)
{
	return nr_host_cpus;
}

uint32_t job_platform_this_cpu(void)
{
	return this_cpu_id;
}

bool job_platform_online(uint32_t cpu)
{
	/* Before job_host_start, CPU 0 alone: jobs run on the caller. */
	return cpu == 0 || (cpu < nr_host_cpus && __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE));
}

uint32_t job_platform_node(uint32_t cpu)
{
	return cpus[cpu].node;
}

bool job_platform_busy(uint32_t cpu)
{
	return __atomic_load_n(&cpus[cpu].fn, __ATOMIC_ACQUIRE) != NULL;
}

void job_platform_post(uint32_t cpu, void (*fn)(void *arg), void *arg)
{
	struct host_cpu *c = &cpus[cpu];

	pthread_mutex_lock(&c->lock);
	c->arg = arg;
	__atomic_store_n(&c->fn, fn, __ATOMIC_RELEASE);
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

bool job_platform_try_post(uint32_t cpu, void (*fn)(void *arg), void *arg)
{
	struct host_cpu *c = &cpus[cpu];
	bool posted = false;

	pthread_mutex_lock(&c->lock);
	if (!__atomic_load_n(&c->fn, __ATOMIC_ACQUIRE)) {
		c->arg = arg;
		__atomic_store_n(&c->fn, fn, __ATOMIC_RELEASE);
		pthread_cond_signal(&c->wake);
		posted = true;
	}
	pthread_mutex_unlock(&c->lock);
	return posted;
}

uint64_t job_platform_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t job_platform_ticks_to_ns(uint64_t ticks)
{
	return ticks;
}

void job_platform_lost(uint32_t cpu)
{
	__atomic_store_n(&cpus[cpu].online, false, __ATOMIC_RELEASE);
}

void job_platform_relax(void)
{
	sched_yield();
}

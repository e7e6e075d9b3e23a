/*
 * job_host.h: the job runner's platform on the host (kernel/services/jobs/platform.h):
 * simulated CPUs, one pthread each, with a NUMA node each, so the kernel's
 * job runner and everything built on it (the init engine) run in host tests
 * under the sanitizers. The calling thread is CPU 0.
 */
#ifndef MEMBOOT_TESTS_HOST_JOB_HOST_H
#define MEMBOOT_TESTS_HOST_JOB_HOST_H

#include <stdint.h>

#define JOB_HOST_MAX_CPUS 256

/* Bring up @nr_cpus CPUs (1..JOB_HOST_MAX_CPUS), CPU i on node_of_cpu[i]. */
void job_host_start(uint32_t nr_cpus, const uint32_t *node_of_cpu);
/* Stop and join them (every mailbox must be idle). */
void job_host_stop(void);
/* Functions each CPU ran since job_host_start. */
uint64_t job_host_works_done(uint32_t cpu);

#endif

/*
 * platform.h: what the job runner (kernel/services/jobs/job.c) needs from the machine
 * it runs on, so that its logic (chunking, claiming, helping, waiting,
 * timing) is one portable C file. Two platforms implement it:
 *   kernel/services/jobs/platform.c  the kernel: logical CPUs and their per-CPU
 *                           mailboxes, woken by IPI, timed by the cycle counter;
 *   tests/host/job_host.c   the host: one pthread per simulated CPU, each
 *                           with a node, for host tests and benchmarks.
 *
 * CPUs are logical ids [0, job_platform_max_cpus()); a mailbox holds at most
 * one function at a time, which the CPU runs once and then clears.
 */
#ifndef MEMBOOT_KERNEL_JOB_PLATFORM_H
#define MEMBOOT_KERNEL_JOB_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

/* One past the highest logical CPU id that may be online. */
uint32_t job_platform_max_cpus(void);
/* The calling CPU's logical id. */
uint32_t job_platform_this_cpu(void);
/* Whether @cpu is online, and its node (valid when online). */
bool job_platform_online(uint32_t cpu);
uint32_t job_platform_node(uint32_t cpu);
/* True while @cpu's mailbox holds work (it is running or about to). */
bool job_platform_busy(uint32_t cpu);
/* Put fn(arg) in @cpu's idle mailbox and wake it (one poster at a time). */
void job_platform_post(uint32_t cpu, void (*fn)(void *arg), void *arg);
/* The same when several CPUs may post at once (the job runner's tree of
 * wake-ups): the mailbox is claimed atomically; false, and nothing posted,
 * if it was not idle. */
bool job_platform_try_post(uint32_t cpu, void (*fn)(void *arg), void *arg);
/* A clock: ticks now, and ticks as nanoseconds. */
uint64_t job_platform_ticks(void);
uint64_t job_platform_ticks_to_ns(uint64_t ticks);
/* @cpu stopped answering (kernel/services/jobs/job.h, a CPU lost mid-job): count it
 * offline from now on, so that nothing waits for it or posts to it. */
void job_platform_lost(uint32_t cpu);
/* Spin-wait politely. */
void job_platform_relax(void);

#endif

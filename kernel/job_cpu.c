/*
 * job_cpu.c: the job runner's platform in the kernel (kernel/job_platform.h):
 * logical CPUs from the per-CPU areas, the per-CPU mailbox the idle loop
 * polls (arch/x86_64/smp.c), a wake-up IPI, and the TSC.
 */
#include "kernel/job_platform.h"

#include "arch/cpu.h"
#include "arch/io.h"
#include "arch/percpu.h"
#include "arch/smp.h"
#include "kernel/time.h"

uint32_t job_platform_max_cpus(void)
{
	return MAX_CPUS;
}

uint32_t job_platform_this_cpu(void)
{
	return this_cpu()->cpu;
}

bool job_platform_online(uint32_t cpu)
{
	const struct percpu *pc = cpu < MAX_CPUS ? percpu_of[cpu] : 0;
	return pc && pc->online;
}

uint32_t job_platform_node(uint32_t cpu)
{
	return percpu_of[cpu]->node;
}

bool job_platform_busy(uint32_t cpu)
{
	return __atomic_load_n(&percpu_of[cpu]->work_fn, __ATOMIC_ACQUIRE) != 0;
}

void job_platform_post(uint32_t cpu, void (*fn)(void *arg), void *arg)
{
	struct percpu *pc = percpu_of[cpu];

	pc->work_arg = arg;
	/* work_fn last: the CPU reads the argument after it sees the function. */
	__atomic_store_n(&pc->work_fn, fn, __ATOMIC_RELEASE);
	arch_wake_cpu(pc);
}

uint64_t job_platform_ticks(void)
{
	return rdtsc();
}

uint64_t job_platform_ticks_to_ns(uint64_t ticks)
{
	return tsc_cycles_to_ns(ticks);
}

void job_platform_relax(void)
{
	cpu_relax();
}

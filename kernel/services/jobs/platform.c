/*
 * platform.c: the job runner's platform in the kernel (kernel/services/jobs/platform.h):
 * logical CPUs from the per-CPU state, the per-CPU mailbox an AP's work
 * loop polls (kernel/services/percpu.c), a wake-up IPI, and the cycle
 * counter (arch/counter.h).
 */
#include "kernel/services/jobs/platform.h"

#include "arch/counter.h"
#include "arch/cpu.h"
#include "arch/smp.h"
#include "kernel/services/percpu.h"
#include "kernel/services/clock/time.h"

uint32_t job_platform_max_cpus(void)
{
	return nr_cpu_ids;
}

uint32_t job_platform_this_cpu(void)
{
	return this_cpu_id();
}

bool job_platform_online(uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);
	return cs && cs->online;
}

uint32_t job_platform_node(uint32_t cpu)
{
	return cpu_states[cpu]->node;
}

bool job_platform_busy(uint32_t cpu)
{
	return __atomic_load_n(&cpu_states[cpu]->work_fn, __ATOMIC_ACQUIRE) != 0;
}

void job_platform_post(uint32_t cpu, void (*fn)(void *arg), void *arg)
{
	struct cpu_state *cs = cpu_states[cpu];

	cs->work_arg = arg;
	/* work_fn last: the CPU reads the argument after it sees the function. */
	__atomic_store_n(&cs->work_fn, fn, __ATOMIC_RELEASE);
	arch_wake_cpu(cs->hwid);
}

bool job_platform_try_post(uint32_t cpu, void (*fn)(void *arg), void *arg)
{
	struct cpu_state *cs = cpu_states[cpu];
	void (*idle)(void *) = NULL;

	/* Claim first: a second poster fails here instead of replacing the
	 * argument the first one's function is about to read. */
	if (!__atomic_compare_exchange_n(&cs->work_fn, &idle, CPU_MAILBOX_CLAIMED, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	cs->work_arg = arg;
	__atomic_store_n(&cs->work_fn, fn, __ATOMIC_RELEASE);
	arch_wake_cpu(cs->hwid);
	return true;
}

uint64_t job_platform_ticks(void)
{
	/* In the boot CPU's time: a counter the check found off by a
	 * known offset is corrected (kernel/services/clock/tsc_sync.h). */
	const struct cpu_state *cs = this_cpu_state();

	return arch_counter() + cs->counter_skew - (uint64_t)cs->counter_offset;
}

uint64_t job_platform_ticks_to_ns(uint64_t ticks)
{
	return cycles_to_ns(ticks);
}

void job_platform_lost(uint32_t cpu)
{
	/* Offline from here on: the counter check, the per-CPU lists, shootdowns
	 * and later jobs pass it by (its mailbox stays busy, too). */
	__atomic_store_n(&cpu_states[cpu]->online, 0, __ATOMIC_RELEASE);
}

void job_platform_relax(void)
{
	arch_cpu_relax();
}

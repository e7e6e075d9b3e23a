/*
 * percpu.c: the kernel's per-CPU state and an AP's work loop.
 */
#include "kernel/services/percpu.h"

#include <stdbool.h>
#include <stddef.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "arch/smp.h"

struct cpu_state boot_cpu_state;
static struct cpu_state *boot_cpu_states[1] = { &boot_cpu_state };
struct cpu_state **cpu_states = boot_cpu_states;
uint32_t nr_cpu_ids = 1;
uint32_t nr_cpus_online;

void percpu_ap_main(void)
{
	struct cpu_state *cs = this_cpu_state();

	/* The handshake (kernel/init/smp.c, smp_boot()): if the boot CPU already
	 * gave up on this CPU, it must stay out for good. Everything it has
	 * touched up to here stays allocated for that case. */
	uint32_t waiting = SMP_AP_WAITING;
	/* As every reading here (memboot.tsc_skew). */
	cs->online_counter = arch_counter() + cs->counter_skew;
	if (!__atomic_compare_exchange_n(&cs->boot_state, &waiting, SMP_AP_ONLINE, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		arch_halt_forever();
	__atomic_store_n(&cs->online, 1, __ATOMIC_RELEASE);

	for (;;) {
		void (*fn)(void *);

		arch_irq_disable();
		fn = __atomic_load_n(&cs->work_fn, __ATOMIC_ACQUIRE);
		if (!fn || fn == CPU_MAILBOX_CLAIMED) {
			/* Interrupts go on and the CPU waits in one step
			 * (arch/cpu.h), so a wake-up IPI cannot slip in between
			 * and be lost. */
			arch_irq_enable_and_wait();
			continue;
		}
		/* Own counter at both ends: no other CPU's offset enters. */
		uint64_t t0 = arch_counter();
		fn(cs->work_arg);
		__atomic_store_n(&cs->busy_cycles, cs->busy_cycles + (arch_counter() - t0), __ATOMIC_RELAXED);
		__atomic_store_n(&cs->work_fn, NULL, __ATOMIC_RELEASE);
		cs->works_done++;
	}
}

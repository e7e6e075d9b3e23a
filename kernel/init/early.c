/*
 * early.c: phase `early`: takes the CPU as the loader left it; builds the
 * console on COM1, the CPU's identity, the boot CPU's descriptor tables and
 * per-CPU data, and the boot's first clock figure (the clock's story,
 * kernel/services/clock/clock.h).
 */
#include "kernel/init/early.h"

#include "x86/apic.h"
#include "x86/cpu.h"
#include "kernel/services/clock/clock.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"

/* The first lines; printed when the consoles drain, in this place, from
 * what CPU identification found (console_defer(): kernel/init/phase.c says
 * why). */
static void banner_now(void *arg)
{
	(void)arg;
	pr_info("memboot version %s (%s build) on %s", MEMBOOT_VERSION,
#ifdef NDEBUG
		"release",
#else
		"debug",
#endif
		cpu_features.brand[0] ? cpu_features.brand : cpu_features.vendor);
	if (cpu_features.has_hypervisor)
		pr_info("Hypervisor detected: %s", cpu_features.hypervisor);
}

extern char boot_stack_bottom[], boot_stack_top[];

/* The boot CPU's per-CPU data (@pc, in the boot state: there is no memory
 * to take it from yet) and its descriptor tables. */
static void boot_cpu_init(struct percpu *pc)
{
	pc->cpu = 0;
	pc->apic_id = cpuid_apic_id();
	pc->stack_bottom = (uint64_t)boot_stack_bottom;
	pc->stack_top = (uint64_t)boot_stack_top;
	pc->state = &boot_cpu_state;
	boot_cpu_state.online = 1;
	arch_cpu_init_tables(pc);
	percpu_of[0] = pc;
	cpu_states[0] = &boot_cpu_state;
	nr_cpus_online = 1;
}

void init_early(struct percpu *boot_pc, struct clock_state *clock)
{
	console_init();
	arch_cpu_identify();
	boot_cpu_init(boot_pc);
	console_defer(banner_now, NULL, 2 * CONSOLE_DEFER_ITEM_BYTES);
	clock_early(clock);
}

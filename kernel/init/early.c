/*
 * early.c: phase `early`: takes the CPU as the loader left it; builds the
 * console on the first UART, the CPU's identity (arch/cpu.h), the boot
 * CPU's per-CPU data and tables (arch/percpu.h), and the boot's first clock
 * figure (the clock's story, kernel/services/clock/clock.h).
 */
#include "kernel/init/early.h"

#include "arch/cpu.h"
#include "arch/percpu.h"
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
		arch_cpu_info.brand[0] ? arch_cpu_info.brand : arch_cpu_info.vendor);
	if (arch_cpu_info.has_hypervisor)
		pr_info("Hypervisor detected: %s", arch_cpu_info.hypervisor);
}

/* The boot CPU's per-CPU state (static: there is no memory to take it from
 * yet), its arch area and tables (arch/percpu.h). */
static void boot_cpu_init(void)
{
	boot_cpu_state.cpu = 0;
	boot_cpu_state.hwid = arch_cpu_hwid();
	boot_cpu_state.online = 1;
	arch_percpu_init_boot(&boot_cpu_state);
	cpu_states[0] = &boot_cpu_state;
	nr_cpus_online = 1;
}

void init_early(struct clock_state *clock)
{
	console_init();
	arch_cpu_identify();
	boot_cpu_init();
	console_defer(banner_now, NULL, 2 * CONSOLE_DEFER_ITEM_BYTES);
	clock_early(clock);
}

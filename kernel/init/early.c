/*
 * early.c: phase `early`: takes the CPU as the loader left it; builds the
 * console on the first UART, the CPU's identity (arch/cpu.h), the boot
 * CPU's per-CPU data and tables (arch/percpu.h), and the TSC calibration
 * (the boot's first clock figure).
 */
#include "kernel/init/early.h"

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/clock/tsc_report.h"
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

void init_early(struct tsc_calibration *first)
{
	console_init();
	arch_cpu_identify();
	boot_cpu_init();
	console_defer(banner_now, NULL, 2 * CONSOLE_DEFER_ITEM_BYTES);
	arch_tsc_calibrate(first);
	/* No CPUID figure and no PIT that counts: nothing is assumed; the
	 * first figure waits for the ACPI tables' HPET or PM timer
	 * (clockcal_first(), init_clock_first()). Until then tsc_hz is 0:
	 * nothing before phase acpi times anything but the consoles, whose
	 * timeouts take an upper bound meanwhile, and every stamp waits in the
	 * log ring as TSC cycles. */
	if (clockcal_first((first->cpuid_hz ? CLOCKCAL_HAVE_CPUID : 0) |
			   (first->pit.hz ? CLOCKCAL_HAVE_PIT : 0), false) == CLOCKCAL_FIRST_WAIT)
		return;
	/* A quick estimate: the precise figure comes from the HPET or the PM
	 * timer, measured on the APs (phase clockcheck); until then what is
	 * printed waits in the log ring. */
	time_init_provisional(first->hz, first->method, first->uncertainty_ppm);
	tsc_report(first);
}

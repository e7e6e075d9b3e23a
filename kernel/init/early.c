/*
 * early.c: phase `early`: takes the CPU as the loader left it; builds the
 * console on COM1, the CPU's identity, the boot CPU's descriptor tables and
 * per-CPU data, and the TSC calibration (the boot's first clock figure).
 */
#include "kernel/init/early.h"

#include "x86/apic.h"
#include "x86/cpu.h"
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

void init_early(struct percpu *boot_pc, struct tsc_calibration *first)
{
	console_init();
	arch_cpu_identify();
	boot_cpu_init(boot_pc);
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

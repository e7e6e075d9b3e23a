/*
 * clockcheck.c: phase `clockcheck`: takes `bs.clock_checks` (an AP measured
 * the HPET from the end of phase smp, init_clockcheck_start(); the boot CPU
 * measures the PM timer here); builds the precise TSC figure and the
 * `clock_check` records (docs/measuring.md), once memory is usable, since
 * nothing before needs it. The TSC's references are one subject, so phase
 * acpi's measurements are here too (init_clock_acpi()): the cross-checks
 * when phase early's figure is too poor for timeouts, and the boot's first
 * figure when early had none.
 */
#include "kernel/init/clockcheck.h"

#include <string.h>

#include "x86/cpu.h"
#include "arch/map.h"
#include "x86/tsc.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/clock/tsc_report.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"

/*
 * The PM timer is a second fixed-rate reference, independent of the PIT the
 * TSC was calibrated against (or of CPUID's figure): measure the TSC against
 * it and say whether the two agree (Linux cross-checks the same way in
 * pit_hpet_ptimer_calibrate_cpu()).
 */
static void report_pm_timer(const struct acpi_pm_timer *pm_timer, const struct clockcal_result *res)
{
	time_crosscheck("pm_timer", "port", pm_timer->port, res);
}

/* The HPET too, where the firmware lists one and its registers are mapped. */
static const volatile void *map_hpet(const struct acpi_hpet_info *h)
{
	const volatile void *regs = arch_map_phys(NULL, h->address, 1024);

	if (!regs)
		pr_warn("ACPI: HPET: registers at 0x%llx are not mapped; no HPET cross-check",
			(unsigned long long)h->address);
	return regs;
}

static void report_hpet(const struct acpi_hpet_info *h, bool ok, uint64_t hpet_hz,
			const struct clockcal_result *res)
{
	if (!ok && hpet_hz == 0) {
		pr_warn("ACPI: HPET: counter period out of range (above 100 ns or zero); "
			"no HPET cross-check");
		return;
	}
	time_crosscheck("hpet", "address", h->address, res);
}

/* Both, now, on this CPU (the HPET first: see init_clock_acpi()). */
static void crosscheck_now(const struct discovered_acpi *acpi)
{
	struct clockcal_result res;
	uint64_t hpet_hz;

	if (acpi->hpet.address) {
		const volatile void *regs = map_hpet(&acpi->hpet);
		if (regs) {
			bool ok = arch_tsc_measure_hpet(regs, &res, &hpet_hz);
			report_hpet(&acpi->hpet, ok, hpet_hz, &res);
		}
	}
	if (acpi->pm_timer.port) {
		arch_tsc_measure_pm_timer(acpi->pm_timer.port, acpi->pm_timer.bits, &res);
		report_pm_timer(&acpi->pm_timer, &res);
	}
}

/*
 * The boot's first TSC figure when phase early had none: no CPUID figure
 * and no PIT that counts (a legacy-free platform, QEMU's -machine pit=off).
 * The ACPI tables name what is left; clockcal_first() says which to use:
 * the HPET, else the PM timer, each probed before it is sampled (a table
 * may name a timer that does not count), the next one tried when one gives
 * no figure. Measured now, on the boot CPU, as the quick estimate the PIT
 * would have given: the SMP timeouts need it, and the APs' measurements
 * (init_clockcheck_start()) refine it as they refine the PIT's. With none, @cal
 * keeps hz 0 and names what is missing.
 */
static void clock_first(const struct discovered_acpi *acpi, struct tsc_calibration *cal)
{
	const uint64_t t0 = rdtsc();
	const volatile void *regs = acpi->hpet.address ? map_hpet(&acpi->hpet) : NULL;
	unsigned have = (cal->cpuid_hz ? CLOCKCAL_HAVE_CPUID : 0) |
			(cal->pit_present ? CLOCKCAL_HAVE_PIT : 0) |
			(regs ? CLOCKCAL_HAVE_HPET : 0) |
			(acpi->pm_timer.port ? CLOCKCAL_HAVE_PM_TIMER : 0);
	struct clockcal_result res = { 0 };
	const char *method = NULL;

	while (!method) {
		enum clockcal_first first = clockcal_first(have, true);
		uint64_t hpet_hz;

		if (first == CLOCKCAL_FIRST_HPET) {
			if (arch_tsc_measure_hpet(regs, &res, &hpet_hz) && res.hz)
				method = "hpet";
			else
				have &= ~(unsigned)CLOCKCAL_HAVE_HPET;
		} else if (first == CLOCKCAL_FIRST_PM_TIMER) {
			if (arch_tsc_measure_pm_timer(acpi->pm_timer.port, acpi->pm_timer.bits, &res) &&
			    res.hz)
				method = "pm_timer";
			else
				have &= ~(unsigned)CLOCKCAL_HAVE_PM_TIMER;
		} else {
			break;   /* CLOCKCAL_FIRST_ASSUMED: nothing left */
		}
	}
	cal->phase = "acpi";
	if (method) {
		cal->hz = res.hz;
		cal->method = method;
		cal->uncertainty_ppm = res.uncertainty_ppm;
	}
	clockcal_missing(have, cal->missing, sizeof(cal->missing));
	cal->cycles += rdtsc() - t0;
}

/* What the APs run (and the boot CPU, with no AP to run it). */
static void measure_hpet(void *arg)
{
	struct clock_checks *cc = arg;

	if (cc->hpet_regs)
		cc->hpet_ok = arch_tsc_measure_hpet(cc->hpet_regs, &cc->hpet_res, &cc->hpet_hz);
	__atomic_store_n(&cc->hpet_done, 1, __ATOMIC_RELEASE);
}

static void measure_pm_timer(void *arg)
{
	struct clock_checks *cc = arg;
	const struct discovered_acpi *acpi = cc->acpi;

	if (acpi->pm_timer.port)
		cc->pm_ok = arch_tsc_measure_pm_timer(acpi->pm_timer.port, acpi->pm_timer.bits,
						      &cc->pm_res);
	__atomic_store_n(&cc->pm_done, 1, __ATOMIC_RELEASE);
}

static void measure_both(void *arg)
{
	measure_hpet(arg);
	measure_pm_timer(arg);
}


void init_clock_acpi(struct discovered_acpi *acpi, bool coarse, struct tsc_calibration *first)
{
	/* The first phase that can use the command line's debug key: from here
	 * on everything runs on the poor figure it makes. */
	if (coarse)
		time_coarsen();
	/* A quick estimate too poor for timeouts (or an assumed figure) must
	 * give way to a better reference before the SMP timeout counts on it:
	 * measure now, the HPET first (a memory read, the fastest of the
	 * references where port I/O is slow, TCG with many vCPUs). Otherwise
	 * an AP measures both later (init_clockcheck_start()), off the boot
	 * CPU's path, and the better becomes the precise figure. */
	if (tsc_uncertainty_ppm > TIME_TIMEOUT_PPM) {
		crosscheck_now(acpi);
		acpi->clock_checked = true;
	}
	if (tsc_hz)
		return;
	/*
	 * Phase early had no figure: the HPET's or the PM timer's. With
	 * neither (and no CPUID figure, no PIT), 1 GHz is assumed for the
	 * timeouts, and a warning names what is missing: every time of this
	 * boot is a guess, and says so (method "assumed", uncertainty unknown,
	 * in the `tsc` and `boot` records; every stamp and record marked,
	 * kernel/services/console/out/render.c).
	 */
	clock_first(acpi, first);
	if (first->hz == 0) {
		first->hz = 1000000000ULL;
		first->method = "assumed";
		first->uncertainty_ppm = CLOCKCAL_UNKNOWN_PPM;
		pr_warn("tsc: no clock reference (missing: %s); assuming 1 GHz: every time "
			"this boot prints is unreliable", first->missing);
	}
	time_init_provisional(first->hz, first->method, first->uncertainty_ppm);
	tsc_report(first);
}

/*
 * The AP to measure on: the highest-numbered idle one off the boot CPU's
 * node (where the store probe and the boot CPU's own share of memory init
 * run), else the highest-numbered idle one; 0 if none is idle.
 */
static uint32_t measuring_ap(void)
{
	const uint32_t boot_node = job_platform_node(0);
	uint32_t any = 0;

	for (uint32_t cpu = job_platform_max_cpus(); cpu-- > 1;) {
		if (!job_platform_online(cpu) || job_platform_busy(cpu))
			continue;
		if (job_platform_node(cpu) != boot_node)
			return cpu;
		if (!any)
			any = cpu;
	}
	return any;
}

void init_clockcheck_start(const struct discovered_acpi *acpi, struct clock_checks *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->acpi = acpi;
	if (acpi->clock_checked || (!acpi->hpet.address && !acpi->pm_timer.port))
		return;
	cc->pending = true;
	/* Mapped here, by the boot CPU: the APs only read. */
	if (acpi->hpet.address)
		cc->hpet_regs = map_hpet(&acpi->hpet);
	/*
	 * One reference now, on an idle AP, the last one: the measurement is
	 * of the TSC's rate, which every CPU's TSC shares (invariant TSC). The
	 * HPET where there is one (a memory read: the finer of the two), else
	 * the PM timer. Off the boot CPU's node, whose APs the store probe
	 * wants (phase memmap). Memory init may begin before it is done (the
	 * figure is needed only once memory is usable, phase clockcheck): a
	 * vCPU that measures on a host with fewer cores than vCPUs takes time
	 * from memory init's, so the other reference, a cross-check, is
	 * measured in phase clockcheck, after it (two measuring APs made
	 * meminit 2 ms slower in a busy spell of a 2-core host).
	 */
	uint32_t cpu = measuring_ap();

	if (!cpu)
		return;                  /* the boot CPU measures both in finish() */
	if (cc->hpet_regs) {
		cc->hpet_cpu = cpu;
		job_platform_post(cpu, measure_hpet, cc);
	} else {
		cc->pm_cpu = cpu;
		job_platform_post(cpu, measure_pm_timer, cc);
	}
}

/* @cpu's measurement is in (@done) and @cpu is back in its idle loop, so
 * later jobs find it idle; unless it was lost since, in memory init
 * (kernel/services/jobs/job.h): then its mailbox stays busy for good. */
static void wait_measured(volatile uint32_t *done, uint32_t cpu)
{
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE) ||
	       (cpu && job_platform_online(cpu) && job_platform_busy(cpu)))
		job_platform_relax();
}

/* The APs' measurements in: the better one refines the quick estimate
 * if it is better than it (time_refine), and each reference is
 * cross-checked against the figure in force. */
static void refine_from_checks(struct clock_checks *cc)
{
	/* What no AP measured, the boot CPU does now (the APs are idle: memory
	 * is usable). */
	if (cc->hpet_cpu == 0 && cc->pm_cpu == 0)
		measure_both(cc);
	else if (cc->pm_cpu == 0)
		measure_pm_timer(cc);
	else
		measure_hpet(cc);
	wait_measured(&cc->hpet_done, cc->hpet_cpu);
	wait_measured(&cc->pm_done, cc->pm_cpu);
	const bool hpet = cc->acpi->hpet.address && cc->hpet_regs;
	const bool pm = cc->acpi->pm_timer.port != 0;
	const struct clockcal_candidate cand[] = {
		{ "hpet", hpet ? cc->hpet_res.hz : 0, cc->hpet_res.uncertainty_ppm, true },
		{ "pm_timer", pm ? cc->pm_res.hz : 0, cc->pm_res.uncertainty_ppm, true },
	};
	int best = clockcal_choose(cand, 2, 0);
	/* The one that refines the figure is reported by time_refine(); every
	 * other reference, the best too when the quick estimate was better
	 * still (a host that descheduled the measuring CPU), is cross-checked:
	 * each reference always has its clock_check record. */
	int refined = best >= 0 && cand[best].uncertainty_ppm < tsc_uncertainty_ppm ? best : -1;
	if (refined >= 0)
		time_refine(cand[refined].method, refined == 0 ? "address" : "port",
			    refined == 0 ? cc->acpi->hpet.address : cc->acpi->pm_timer.port,
			    refined == 0 ? &cc->hpet_res : &cc->pm_res);
	if (hpet && refined != 0)
		report_hpet(&cc->acpi->hpet, cc->hpet_ok, cc->hpet_hz, &cc->hpet_res);
	if (pm && refined != 1)
		report_pm_timer(&cc->acpi->pm_timer, &cc->pm_res);
	cc->pending = false;
}

void init_clockcheck(struct clock_checks *cc)
{
	if (cc->pending)
		refine_from_checks(cc);
	/* Whatever the references gave (nothing to measure, or nothing better
	 * than the quick estimate: a long PIT window, measuring CPUs the host
	 * descheduled), the figure in force is now the precise one, and what
	 * waits in the log ring may be printed. */
	if (!tsc_final)
		time_init(tsc_hz, tsc_method, tsc_uncertainty_ppm);
}

/*
 * discover.c: the machine as its firmware describes it, phase by phase:
 * "acpi" reads the ACPI tables out of physical memory (the parsers are
 * kernel/acpi/), "numa" builds the topology from them and the memory map,
 * and "smp" turns the MADT's CPUs into the APIC mode and the list of CPUs
 * that kernel/init/smp.c brings up (discover_smp). It stays beside the
 * tables it reads; the bring-up itself is smp.c's.
 */
#include "kernel/init/discover.h"

#include <stdio.h>
#include <string.h>

#include "arch/apic.h"
#include "arch/cpu.h"
#include "arch/x86_64/include/arch/apic_mode.h"
#include "arch/paging.h"
#include "arch/tsc.h"
#include "kernel/acpi/sleep.h"
#include "kernel/acpi/spcr.h"
#include "kernel/console.h"
#include "kernel/console/options.h"
#include "kernel/exit.h"
#include "kernel/log.h"
#include "kernel/panic.h"
#include "kernel/report/record.h"
#include "kernel/init/smp.h"
#include "kernel/jobs/platform.h"
#include "kernel/cpus.h"
#include "kernel/report/summary.h"
#include "kernel/clock/time.h"
#include "mm/numa.h"
#include "mm/physmem.h"

static const void *table_bytes(const struct discovered_acpi *acpi, const char *sig,
			       uint32_t *len)
{
	const struct acpi_table_info *t = acpi_tables_find(&acpi->dir, sig);

	if (!t)
		return NULL;
	*len = t->length;
	return arch_map_phys(NULL, t->phys, t->length);
}

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

/* Both, now, on this CPU (the HPET first: see discover_acpi()). */
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
 * (clock_checks_start()) refine it as they refine the PIT's. With none, @cal
 * keeps hz 0 and names what is missing.
 */
void discover_clock_first(const struct discovered_acpi *acpi, struct tsc_calibration *cal)
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

/* console_defer()'s forms of the two table reports. */
static void print_acpi_tables(void *dir)
{
	acpi_print_tables(dir);
}

static void print_numa(void *topo)
{
	numa_print(topo);
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

void clock_checks_start(const struct discovered_acpi *acpi, struct clock_checks *cc)
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
 * (kernel/jobs/job.h): then its mailbox stays busy for good. */
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

void clock_checks_finish(struct clock_checks *cc)
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

/* Found in the tables discover_acpi() walks; defined below it. */
static void discover_s5(const struct discovered_acpi *acpi);
static void discover_spcr(const struct bootinfo *bi, const void *bytes, uint32_t len);

void discover_acpi(const struct bootinfo *bi, bool dump, struct discovered_acpi *acpi)
{
	const void *bytes;
	uint32_t len;

	memset(acpi, 0, sizeof(*acpi));
	if (bi->rsdp_len == 0) {
		pr_warn("ACPI: no RSDP: no tables, one node, the boot CPU only");
		return;
	}
	if (acpi_walk(&acpi->dir, bi->rsdp, bi->rsdp_len, 0, arch_map_phys, NULL, 0) != ACPI_OK) {
		pr_warn("ACPI: tables unusable: one node, the boot CPU only");
		return;
	}
	/* Output only: printed when the consoles drain, in this place. */
	console_defer(print_acpi_tables, &acpi->dir,
		      ((size_t)acpi->dir.nr_tables + 2) * CONSOLE_DEFER_ITEM_BYTES);
	if (dump)
		acpi_dump_tables(&acpi->dir);

	if ((bytes = table_bytes(acpi, "APIC", &len)))
		acpi->have_madt = acpi_madt_parse(bytes, len, &acpi->madt);
	if ((bytes = table_bytes(acpi, "SRAT", &len)))
		acpi->have_srat = acpi_srat_parse(bytes, len, &acpi->srat);
	if ((bytes = table_bytes(acpi, "SLIT", &len)))
		acpi->have_slit = acpi_slit_parse(bytes, len, &acpi->slit);
	if ((bytes = table_bytes(acpi, "HMAT", &len)))
		acpi->have_hmat = acpi_hmat_parse(bytes, len, &acpi->hmat);
	if (!acpi->have_madt)
		pr_warn("ACPI: no usable MADT: the boot CPU only");
	if ((bytes = table_bytes(acpi, "SPCR", &len)))
		discover_spcr(bi, bytes, len);
	if ((bytes = table_bytes(acpi, "HPET", &len)) && !acpi_hpet_parse(bytes, len, &acpi->hpet))
		acpi->hpet.address = 0;
	if ((bytes = table_bytes(acpi, "FACP", &len)) &&
	    !acpi_fadt_pm_timer(bytes, len, &acpi->pm_timer))
		acpi->pm_timer.port = 0;
	/* The first phase that can use the command line's debug key: from here
	 * on everything runs on the poor figure it makes. */
	if (smp_settings.tsc_coarse)
		time_coarsen();
	/* A quick estimate too poor for timeouts (or an assumed figure) must
	 * give way to a better reference before the SMP timeout counts on it:
	 * measure now, the HPET first (a memory read, the fastest of the
	 * references where port I/O is slow, TCG with many vCPUs). Otherwise
	 * an AP measures both later (clock_checks_start), off the boot CPU's
	 * path, and the better becomes the precise figure. */
	if (tsc_uncertainty_ppm > TIME_TIMEOUT_PPM) {
		crosscheck_now(acpi);
		acpi->clock_checked = true;
	}
	/* Only memboot.exit=poweroff writes S5 (the command line is read by
	 * now): no scan of the DSDT's AML on any other boot's path. */
	if (exit_method == EXIT_METHOD_POWEROFF)
		discover_s5(acpi);
}

/* What memboot.exit=poweroff writes where (kernel/acpi/sleep.h). */
static void discover_s5(const struct discovered_acpi *acpi)
{
	struct acpi_s5 s5 = { 0 };
	const void *fadt, *dsdt;
	uint32_t fadt_len, dsdt_len;

	if (!(fadt = table_bytes(acpi, "FACP", &fadt_len)) ||
	    !(dsdt = table_bytes(acpi, "DSDT", &dsdt_len)))
		return;
	if (!acpi_fadt_pm1(fadt, fadt_len, &s5))
		return;
	if (!acpi_find_s5((const uint8_t *)dsdt + ACPI_SDT_HEADER_BYTES,
			  dsdt_len > ACPI_SDT_HEADER_BYTES ? dsdt_len - ACPI_SDT_HEADER_BYTES : 0,
			  &s5))
		return;
	exit_set_poweroff(&(struct exit_acpi_s5){ .valid = true,
						  .pm1a_cnt_port = s5.pm1a_cnt_port,
						  .pm1b_cnt_port = s5.pm1b_cnt_port,
						  .slp_typa = s5.slp_typa, .slp_typb = s5.slp_typb });
}

/* The firmware's console port (a BMC's serial over LAN): a console too,
 * unless console= chose the consoles. */
static void discover_spcr(const struct bootinfo *bi, const void *bytes, uint32_t len)
{
	struct acpi_spcr_info spcr;
	struct uart u;
	char name[32], why[160];

	if (!acpi_spcr_parse(bytes, len, &spcr))
		return;
	u = (struct uart){ .base = spcr.address, .mmio_bytes = spcr.io_port ? 0 : spcr.access_bytes };
	snprintf(name, sizeof(name), "spcr@%s0x%llx", spcr.io_port ? "io" : "mmio",
		 (unsigned long long)spcr.address);
	if (spcr.baud)
		pr_info("ACPI: SPCR: console UART at %s 0x%llx, %u baud",
			spcr.io_port ? "I/O port" : "MMIO", (unsigned long long)spcr.address, spcr.baud);
	else
		pr_info("ACPI: SPCR: console UART at %s 0x%llx, at the speed the firmware set",
			spcr.io_port ? "I/O port" : "MMIO", (unsigned long long)spcr.address);
	if (console_cmdline.given) {
		pr_info("ACPI: SPCR: console= chose the consoles; the SPCR port is not added");
		return;
	}
	if (!acpi_spcr_address_ok(&spcr, bi->ranges, bi->nr_ranges, why, sizeof(why))) {
		pr_warn("ACPI: SPCR: UART refused: %s", why);
		return;
	}
	if (!spcr.io_port && !arch_map_phys(NULL, spcr.address, 32)) {
		pr_warn("ACPI: SPCR: UART at 0x%llx is not mapped; not used",
			(unsigned long long)spcr.address);
		return;
	}
	/* Probed once: a table naming a UART that is not there must not make
	 * every line wait on it. */
	if (!console_probe_uart(&u)) {
		pr_warn("ACPI: SPCR: no 16550 answers at %s 0x%llx (scratch register, line "
			"status); not used", spcr.io_port ? "I/O port" : "MMIO",
			(unsigned long long)spcr.address);
		return;
	}
	if (console_add_uart(&u, spcr.baud, name))
		console_print_list();
}

void discover_numa(const struct bootinfo *bi, const struct discovered_acpi *acpi,
		   struct physmem *pm, struct numa_topology *topo)
{
	struct numa_input in = {
		.map = bi->ranges,
		.nr_map = bi->nr_ranges,
		.madt = acpi->have_madt ? &acpi->madt : NULL,
		.srat = acpi->have_srat ? &acpi->srat : NULL,
		.slit = acpi->have_slit ? &acpi->slit : NULL,
		.boot_apic_id = cpuid_apic_id(),
	};

	numa_build(topo, &in);
	/* Output only: printed when the consoles drain, in this place (a CPU a
	 * line and a record, a node a record and a row of distances). */
	console_defer(print_numa, topo,
		      ((size_t)topo->nr_cpus * 2 + (size_t)topo->nr_nodes * 3 +
		       topo->nr_srat_ranges + 8) * CONSOLE_DEFER_ITEM_BYTES);
	for (uint32_t i = 0; i < topo->nr_nodes; i++)
		summary_node_topology(i, topo->nodes[i].nr_present_cpus, topo->nodes[i].mem_bytes);
	physmem_set_distance(pm, topo->nr_nodes, topo->distance);
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		physmem_set_node(pm, topo->ranges[i].start, topo->ranges[i].end,
				 topo->ranges[i].node);
}

/*
 * The local APIC mode for every CPU (arch/apic_mode.h): x2APIC when the MADT
 * lists x2APIC processors or an ID is above 254, as many-core servers need,
 * when firmware already switched it on, or on a virtual CPU that has it;
 * memboot.apic= may ask for either.
 * Prints a line and an `apic` record; returns true for x2APIC.
 */
/* What the APIC mode was chosen from, reported when the consoles drain
 * (console_defer(): kernel/init/phase.c says why); a refused request is a
 * warning, reported at once. */
struct apic_report {
	struct apic_mode_input in;
	struct apic_mode_choice c;
	uint32_t unreachable;
	const struct discovered_acpi *acpi;
	const struct numa_topology *topo;
};
static struct apic_report apic_reported;

static void apic_report_now(void *arg)
{
	const struct apic_report *a = arg;
	const struct discovered_acpi *acpi = a->acpi;
	struct record r;

	rec_begin(&r, "apic");
	rec_str(&r, "mode", apic_mode_name(a->c.mode));
	rec_str(&r, "reason", a->c.reason);
	rec_bool(&r, "cpu_x2apic", a->in.cpu_x2apic);
	rec_bool(&r, "hypervisor", a->in.hypervisor);
	rec_bool(&r, "firmware_x2apic", a->in.firmware_x2apic);
	rec_bool(&r, "madt_x2apic", a->in.madt_x2apic);
	rec_u64(&r, "max_apic_id", a->in.max_apic_id);
	rec_u64(&r, "unreachable", a->unreachable);
	if (acpi->have_madt) {
		uint32_t x2 = 0;
		for (uint32_t i = 0; i < acpi->madt.nr_nmis && i < ACPI_MADT_MAX_NMIS; i++)
			x2 += acpi->madt.nmis[i].x2apic;
		rec_u64(&r, "nmi_entries", acpi->madt.nr_nmis);
		rec_u64(&r, "x2apic_nmi_entries", x2);
		rec_u64(&r, "boot_lint_nmi", acpi_lint_nmi_of(&acpi->madt, a->topo->cpus[0].acpi_uid));
	}
	if (a->c.request_refused) {
		rec_str(&r, "requested", a->in.request == APIC_REQUEST_XAPIC ? "xapic" : "x2apic");
		record_report(&r, LOG_WARN, "apic: {mode} mode ({reason}); memboot.apic={requested} "
			      "not honoured");
	} else {
		record_report(&r, LOG_INFO, "apic: {mode} mode ({reason})");
	}
}

static bool discover_apic_mode(const struct discovered_acpi *acpi,
			       const struct numa_topology *topo)
{
	struct apic_report *a = &apic_reported;

	*a = (struct apic_report){
		.in = {
			.cpu_x2apic = cpu_features.x2apic,
			.hypervisor = cpu_features.has_hypervisor,
			.firmware_x2apic = apic_firmware_x2apic(),
			.request = (enum apic_request)smp_settings.apic,
		},
		.acpi = acpi, .topo = topo,
	};
	for (uint32_t i = 0; acpi->have_madt && i < acpi->madt.nr_cpus; i++)
		a->in.madt_x2apic |= acpi->madt.cpus[i].x2apic;
	for (uint32_t i = 0; i < topo->nr_cpus; i++)
		if (topo->cpus[i].present && topo->cpus[i].apic_id > a->in.max_apic_id)
			a->in.max_apic_id = topo->cpus[i].apic_id;
	a->c = apic_choose_mode(&a->in);
	for (uint32_t i = 0; i < topo->nr_cpus; i++)
		a->unreachable += topo->cpus[i].present &&
				  !apic_id_reachable(a->c.mode, topo->cpus[i].apic_id);
	if (a->c.request_refused)
		apic_report_now(a);
	else
		console_defer(apic_report_now, a, 2 * CONSOLE_DEFER_ITEM_BYTES);
	apic_set_mode(a->c.mode == APIC_MODE_X2APIC);
	return a->c.mode == APIC_MODE_X2APIC;
}

/*
 * Start the topology's present CPUs the APIC mode can reach, at most
 * maxcpus= of them (nosmp: 1), chosen balanced over the nodes
 * (numa_select_balanced(): each node an equal share, the first of each in
 * MADT order), never simply the first ones: a node must not lose all its
 * CPUs, and with them the CPUs that initialise its memory. Logical ids are
 * dense over the chosen CPUs, in topology order (the boot CPU is 0).
 */
void discover_smp(const struct discovered_acpi *acpi, const struct numa_topology *topo,
		  struct physmem *pm)
{
	bool x2apic = discover_apic_mode(acpi, topo);
	enum apic_mode mode = x2apic ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
	uint32_t limit = smp_settings.nosmp ? 1 : (uint32_t)smp_settings.maxcpus;
	uint32_t nc = 0, kept, n = 0, quota[NUMA_MAX_NODES];
	uint32_t boot_mem_node = topo->nodes[topo->cpus[0].node].mem_node;
	struct smp_boot_options opt = {
		.timeout_ns = smp_settings.timeout_ms * 1000000ULL,
		.skip_apic_id = (uint32_t)smp_settings.skip_apic,
		.serial = smp_settings.bringup == SMP_BRINGUP_SERIAL,
	};

	for (uint32_t i = 0; i < topo->nr_cpus; i++) {
		const struct numa_cpu *c = &topo->cpus[i];
		bool reachable = apic_id_reachable(mode, c->apic_id);

		if (c->present && !reachable && i > 0)
			pr_warn("smp: APIC ID 0x%x needs x2APIC, which this CPU lacks; CPU %u stays down",
				c->apic_id, i);
		nc += i == 0 || (c->present && reachable);
	}
	/* Work space for the choice, sized by the CPUs there are; given back
	 * once they are up. */
	uint64_t bytes = (uint64_t)nc * (sizeof(uint32_t) + sizeof(bool) + sizeof(struct smp_cpu_desc)) + 64;
	uint64_t base = physmem_alloc(pm, (bytes + 4095) & ~4095ULL, 4096, boot_mem_node, false,
				      PHYSMEM_RESV_PERCPU);
	if (!base) {
		struct smp_cpu_desc boot = {
			.apic_id = topo->cpus[0].apic_id, .node = topo->cpus[0].node,
			.mem_node = boot_mem_node,
			.lint_nmi = acpi->have_madt ? acpi_lint_nmi_of(&acpi->madt, topo->cpus[0].acpi_uid) : 0 };
		pr_err("smp: no %llu bytes to list %u CPUs; running on the boot CPU",
		       (unsigned long long)bytes, nc);
		smp_boot(pm, &boot, 1, nc - 1, &opt);
		return;
	}
	struct smp_cpu_desc *cpus = (struct smp_cpu_desc *)(uintptr_t)base;
	uint32_t *group_of = (uint32_t *)(cpus + nc);
	bool *keep = (bool *)(group_of + nc);

	if (limit >= nc) {
		/* Nothing to share out (no maxcpus= below the CPUs there are):
		 * every CPU, without the choice's code on the boot's path. */
		memset(keep, 1, nc * sizeof(*keep));
		kept = nc;
	} else {
		for (uint32_t i = 0, k = 0; i < topo->nr_cpus; i++) {
			const struct numa_cpu *c = &topo->cpus[i];

			if (i == 0 || (c->present && apic_id_reachable(mode, c->apic_id)))
				group_of[k++] = c->node;
		}
		kept = numa_select_balanced(group_of, nc, topo->nr_nodes, limit, keep, quota);
	}
	for (uint32_t i = 0, k = 0; i < topo->nr_cpus; i++) {
		const struct numa_cpu *c = &topo->cpus[i];

		if (!(i == 0 || (c->present && apic_id_reachable(mode, c->apic_id))))
			continue;
		if (keep[k++])
			cpus[n++] = (struct smp_cpu_desc){
				.apic_id = c->apic_id, .node = c->node,
				.mem_node = topo->nodes[c->node].mem_node,
				.lint_nmi = acpi->have_madt ? acpi_lint_nmi_of(&acpi->madt, c->acpi_uid) : 0 };
	}
	ASSERT(n == kept && n >= 1 && cpus[0].apic_id == topo->cpus[0].apic_id,
	       "%u of %u CPUs chosen", n, kept);
	smp_boot(pm, cpus, n, nc - n, &opt);
	physmem_free(pm, base, base + ((bytes + 4095) & ~4095ULL));
}

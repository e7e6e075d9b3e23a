/*
 * main.c: the boot sequence, one phase per line (docs/design.md).
 *
 * Every phase is timed (kernel/init/phase.h). Nothing here knows how the machine
 * was booted: boot_collect() turns the loader's registers into struct
 * bootinfo, and everything after reads only that.
 *
 * main.c owns the boot state (struct boot_state below) and hands each phase
 * pointers to what it reads (const) and what it fills; no phase reaches
 * another's globals. The phases, in order, with what each takes and builds,
 * are kernel/init/phases.h's table: PHASE() names its phase from it.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu.h"
#include "arch/paging.h"
#include "arch/tsc.h"
#include "boot/boot.h"
#include "kernel/init/bootreport.h"
#include "kernel/console/options.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/init/discover.h"
#include "kernel/exit.h"
#include "kernel/init/census.h"
#include "kernel/init/hugetlb.h"
#include "kernel/init/hugetlb1g.h"
#include "kernel/init/machine.h"
#include "kernel/init/memtiers.h"
#include "kernel/log.h"
#include "kernel/init/meminit.h"
#include "kernel/init/memmap.h"
#include "kernel/init/memprep.h"
#include "kernel/init/pagetables.h"
#include "kernel/init/physmem.h"
#include "mm/mminit.h"
#include "mm/memtest.h"
#include "kernel/jobs/job.h"
#include "mm/alloc/pcp.h"
#include "kernel/init/pcp.h"
#include "kernel/init/phase.h"
#include "kernel/report/record.h"
#include "kernel/report/efivars.h"
#include "kernel/selftest/selftest.h"
#include "kernel/bench/bench.h"
#include "kernel/fault/fault.h"
#include "kernel/selftest/select.h"
#include "kernel/init/smp.h"
#include "kernel/cpus.h"
#include "kernel/vm/vm.h"
#include "mm/pt/pt.h"
#include "kernel/clock/time.h"
#include "mm/alloc/alloc.h"

/* Everything one phase builds and a later one reads. */
struct boot_state {
	struct bootinfo bootinfo;        /* the loader's hand-off, normalized */
	struct physmem physmem;          /* early ranges and reservations, until meminit */
	struct discovered_acpi acpi;     /* the parsed ACPI tables */
	struct numa_topology topo;       /* nodes, CPUs, each range's node, distances */
	struct machine_info machine;     /* SMBIOS: firmware, system, memory devices */
	struct mem_tiers tiers;          /* HMAT figures and tiers per node */
	struct memmap memmap;            /* every node's page descriptors */
	/* The huge page pools: 1 GiB pages reserved before the page tables,
	 * 2 MiB pages after memory init; used by self-tests and faults. */
	struct hugetlb_pools hugetlb;
	struct hugetlb_state hugetlb_state;  /* who builds each node's 2 MiB pools */
	struct clock_checks clock_checks;   /* HPET on an AP, PM timer in clockcheck */
	/* What the census counts as fixed: physmem's reservations when it
	 * retired, the 1 GiB pool pages among them. */
	struct census_baseline census;
	struct census_ranges census_ranges;  /* each census's view of the topology's ranges */
	struct direct_map_stats direct_map;  /* the kernel's page tables' figures (phase pagetables) */
	/* Phase memmap's figures: the mapped pieces, each node's array, the
	 * store probe (its report, meminit's and memtest's read them). */
	struct memmap_state memmap_state;
	/* Memory init's engine, set up in memprep, run in meminit, reported
	 * after tscsync, read by every census; memtest's state with it. */
	struct meminit_state meminit;
	struct pcp_state pcp;            /* the per-CPU lists' memory: memprep reserves, pcp carves */
};

static struct boot_state bs;

/* Every subsystem's command-line keys (docs/cmdline.md), in lookup order:
 * a subsystem with keys adds its table here, once. */
static const struct param_table *const cmdline_tables[] = {
	&console_param_table,
	&console_levels_param_table,
	&exit_param_table,
	&bootreport_param_table,
	&smp_param_table,
	&alloc_param_table,
	&meminit_param_table,
	&memtest_param_table,
	&hugetlb_param_table,
	&pcp_param_table,
	&selftest_param_table,
	&vm_param_table,
	&bench_param_table,
};

/* The calibration as a line and a `tsc` record (docs/records.md); made when
 * the consoles drain, in this place (console_defer(): kernel/init/phase.c
 * says why), from the figures as they were. */
static struct tsc_calibration tsc_reported;

static void tsc_report_now(void *arg)
{
	const struct tsc_calibration *cal = arg;
	struct record r;

	rec_begin(&r, "tsc");
	rec_u64(&r, "hz", cal->hz);
	rec_str(&r, "method", cal->method);
	rec_u64(&r, "uncertainty_ppm", cal->uncertainty_ppm);
	rec_u64(&r, "cpuid_hz", cal->cpuid_hz);
	rec_str(&r, "cpuid_leaf", cal->cpuid_leaf);
	rec_str(&r, "phase", cal->phase);
	rec_str(&r, "missing", cal->missing);
	rec_bool(&r, "pit_present", cal->pit_present);
	rec_u64(&r, "pit_probe_reads", cal->pit_probe_reads);
	rec_u64(&r, "pit_hz", cal->pit.hz);
	rec_u64(&r, "pit_uncertainty_ppm", cal->pit.uncertainty_ppm);
	rec_u64(&r, "pit_samples", cal->pit_samples);
	rec_u64(&r, "pit_kept", cal->pit.kept);
	rec_u64(&r, "pit_reads", cal->pit_reads);
	rec_u64(&r, "pit_ticks", cal->pit_ticks);
	rec_u64(&r, "pit_windows", cal->pit_windows);
	rec_u64(&r, "pit_pairs", cal->pit.pairs);
	rec_u64(&r, "bracket_limit_cycles", cal->pit.bracket_limit);
	if (cal->cpuid_hz && cal->pit.hz)
		rec_u64(&r, "cpuid_vs_pit_ppm", cal->cpuid_vs_pit_ppm);
	rec_tsc_ns(&r, "ns", cal->cycles);
	if (!cal->pit_present)
		record_report(&r, cal->uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM ? LOG_WARN : LOG_INFO,
			      "tsc: Detected {hz:MHz} MHz processor ({method}, +-{uncertainty_ppm:.4}%, "
			      "{ns:us} us, phase {phase}; no PIT: it did not count in "
			      "{pit_probe_reads} reads; missing: {missing})");
	else
		record_report(&r, LOG_INFO, "tsc: Detected {hz:MHz} MHz processor ({method}, "
			      "+-{uncertainty_ppm:.4}%, {ns:us} us; PIT: {pit_kept} of {pit_samples} samples kept)");
}

static void tsc_report(const struct tsc_calibration *cal)
{
	tsc_reported = *cal;
	console_defer(tsc_report_now, &tsc_reported, 2 * CONSOLE_DEFER_ITEM_BYTES);
}

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

/* COM1, CPU identity, this CPU's descriptor tables, TSC calibration. */
static void early_init(void)
{
	struct tsc_calibration cal;

	console_init();
	arch_cpu_identify();
	smp_init_boot_cpu();
	console_defer(banner_now, NULL, 2 * CONSOLE_DEFER_ITEM_BYTES);
	arch_tsc_calibrate(&cal);
	/* No CPUID figure and no PIT that counts: nothing is assumed; the
	 * first figure waits for the ACPI tables' HPET or PM timer
	 * (clockcal_first(), clock_first_from_acpi()). Until then tsc_hz is 0:
	 * nothing before phase acpi times anything but the consoles, whose
	 * timeouts take an upper bound meanwhile, and every stamp waits in the
	 * log ring as TSC cycles. */
	if (clockcal_first((cal.cpuid_hz ? CLOCKCAL_HAVE_CPUID : 0) | (cal.pit.hz ? CLOCKCAL_HAVE_PIT : 0),
			   false) == CLOCKCAL_FIRST_WAIT) {
		tsc_reported = cal;
		return;
	}
	/* A quick estimate: the precise figure comes from the HPET or the PM
	 * timer, measured on the APs (phase clockcheck); until then what is
	 * printed waits in the log ring. */
	time_init_provisional(cal.hz, cal.method, cal.uncertainty_ppm);
	tsc_report(&cal);
}

/*
 * Phase acpi, when phase early had no figure: the HPET's or the PM timer's
 * (discover_clock_first()). With neither (and no CPUID figure, no PIT), 1 GHz
 * is assumed for the timeouts, and a warning names what is missing: every
 * time of this boot is a guess, and says so (method "assumed", uncertainty
 * unknown, in the `tsc` and `boot` records; every stamp and record marked,
 * kernel/console.c).
 */
static void clock_first_from_acpi(void)
{
	struct tsc_calibration cal = tsc_reported;

	if (tsc_hz)
		return;
	discover_clock_first(&bs.acpi, &cal);
	if (cal.hz == 0) {
		cal.hz = 1000000000ULL;
		cal.method = "assumed";
		cal.uncertainty_ppm = CLOCKCAL_UNKNOWN_PPM;
		pr_warn("tsc: no clock reference (missing: %s); assuming 1 GHz: every time "
			"this boot prints is unreliable", cal.missing);
	}
	time_init_provisional(cal.hz, cal.method, cal.uncertainty_ppm);
	tsc_report(&cal);
}

/* The census the self-tests take after each test (struct selftest_ctx). */
static bool boot_census(void *arg, const char *when)
{
	struct boot_state *b = arg;

	return init_census(&b->topo, &b->memmap, &b->census, &b->meminit, &b->census_ranges, when);
}

/* VGA text exists where a BIOS set the machine up: Multiboot2 under BIOS
 * and PVH (SeaBIOS). UEFI machines may have no legacy VGA at all. */
static bool boot_has_legacy_vga(const struct bootinfo *bi)
{
	return bi->path == BOOT_PATH_MB2_BIOS || bi->path == BOOT_PATH_PVH;
}

void kernel_main(uint32_t boot_magic, uint32_t boot_info);

void kernel_main(uint32_t boot_magic, uint32_t boot_info)
{
	bool boot_ok = false, tests_ok = true, census_ok = true;
	const struct selftest_ctx tests = { .topo = &bs.topo, .mm = &bs.memmap, .pools = &bs.hugetlb,
					    .tiers = &bs.tiers,
					    .census = boot_census, .census_arg = &bs,
					    .replay = &bs.bootinfo.replay };

	PHASE(early, early_init());
	PHASE(bootinfo, boot_ok = boot_collect(boot_magic, boot_info, &bs.bootinfo));
	efivars_setup(bs.bootinfo.efi_system_table, bs.bootinfo.efi_runtime_code,
		      bs.bootinfo.nr_efi_runtime_code);
	PHASE(cmdline, cmdline_parse_tables(bs.bootinfo.cmdline, cmdline_tables,
					      sizeof(cmdline_tables) / sizeof(cmdline_tables[0])));
	PHASE(console, console_setup(&console_cmdline, &bs.bootinfo.fb,
				       boot_has_legacy_vga(&bs.bootinfo), arch_mapped_top()));
	PHASE(report, bootreport_print(&bs.bootinfo, bootreport_settings.dump_mmap,
				       &tsc_reported));
	if (bootreport_settings.dump_bootinfo)
		bootreport_dump_loader_info(&bs.bootinfo);
	if (!boot_ok)
		kernel_exit(EXIT_BOOTINFO, "boot information missing or corrupt");
	PHASE(physmem, init_physmem(&bs.bootinfo, bootreport_settings.dump_mmap, &memtest_settings,
				      &bs.physmem));
	PHASE(acpi, discover_acpi(&bs.bootinfo, bootreport_settings.dump_acpi, &bs.acpi);
		    clock_first_from_acpi());
	PHASE(numa, discover_numa(&bs.bootinfo, &bs.acpi, &bs.physmem, &bs.topo));
	PHASE(tiers, discover_tiers(&bs.acpi, &bs.topo, &bs.tiers));
	phase_console_ring(&bs.topo, &bs.physmem);
	PHASE(hugetlb1g, init_hugetlb1g(&bs.topo, &hugetlb_settings, &bs.physmem, &bs.hugetlb));
	PHASE(pagetables, init_pagetables(&bs.bootinfo, &bs.physmem, &bs.direct_map));
	PHASE(smp, discover_smp(&bs.acpi, &bs.topo, &bs.physmem));
	clock_checks_start(&bs.acpi, &bs.clock_checks);
	PHASE(memmap, init_memmap(&bs.topo, &bs.physmem, &bs.memmap, &bs.memmap_state));
	PHASE(memprep, init_memprep(&bs.topo, &bs.hugetlb, &meminit_settings, &memtest_settings,
				    &pcp_settings, &bs.physmem, &bs.memmap, &bs.pcp, &bs.meminit,
				    &bs.census));
	PHASE(meminit, init_meminit(&meminit_settings, &bs.memmap, &bs.meminit));
	PHASE(clockcheck, clock_checks_finish(&bs.clock_checks));
	PHASE(tscsync, smp_tsc_check());
	init_meminit_report(&bs.topo, &meminit_settings, &bs.physmem, &bs.memmap_state, &bs.meminit);
	/* Off the path to usable memory: nothing before needs it. */
	PHASE(machine, discover_machine(&bs.bootinfo, &bs.topo, &bs.machine));
	PHASE(hugetlb, init_hugetlb(&bs.topo, &bs.memmap, &hugetlb_settings, meminit_settings.trace,
				    &bs.hugetlb, &bs.hugetlb_state));
	PHASE(vm, vm_init(&bs.memmap, &bs.hugetlb));
	PHASE(census, census_ok = init_census(&bs.topo, &bs.memmap, &bs.census, &bs.meminit,
					      &bs.census_ranges, "boot"));
	/* After the boot census, which thus counts exactly what memory init
	 * left free; the lists' own memory shows as allocated from here on. */
	PHASE(pcp, init_pcp(&bs.pcp, &pcp_settings));
	fault_inject(&bs.memmap);
	PHASE(selftest, tests_ok = selftests_run(&tests));
	if (bench_wanted(&bench_settings))
		PHASE(bench, bench_pt_run(&tests, &bench_settings));
	if (!census_ok || !init_census(&bs.topo, &bs.memmap, &bs.census, &bs.meminit,
				       &bs.census_ranges, "end"))
		kernel_exit(EXIT_CENSUS, "pages unaccounted for");
	if (tests_ok && job_lost_cpus())
		kernel_exit(EXIT_CPU_LOST, "a CPU stopped answering; its work was done by others");
	kernel_exit(tests_ok ? EXIT_OK : EXIT_SELFTEST, tests_ok ? NULL : "a self-test failed");
}

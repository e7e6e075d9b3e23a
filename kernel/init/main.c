/*
 * main.c: the boot sequence, one phase per line (kernel/init/phases.h).
 *
 * Every phase is timed (kernel/init/phase.h). Nothing here knows how the
 * machine was booted: phase bootinfo turns the loader's registers into
 * struct bootinfo, and everything after reads only that.
 *
 * main.c owns the boot state (struct boot_state below: the one mutable
 * object at file scope in kernel/init) and hands each phase pointers to
 * what it reads (const) and what it fills, and the settings it needs; no
 * phase reaches another's state or another subsystem's settings. Each
 * phase NAME is kernel/init/NAME.c, entry point init_NAME(); the phases,
 * in order, with what each takes and builds, are phases.h's table, from
 * which PHASE() names its phase.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/entry.h"
#include "kernel/services/exit.h"
#include "kernel/init/acpi.h"
#include "kernel/init/bench.h"
#include "kernel/init/bootinfo.h"
#include "kernel/init/clockcheck.h"
#include "kernel/init/cmdline.h"
#include "kernel/init/console.h"
#include "kernel/init/early.h"
#include "kernel/init/census.h"
#include "kernel/init/hugetlb.h"
#include "kernel/init/hugetlb1g.h"
#include "kernel/init/machine.h"
#include "kernel/init/meminit.h"
#include "kernel/init/memmap.h"
#include "kernel/init/memprep.h"
#include "kernel/init/numa.h"
#include "kernel/init/pagetables.h"
#include "kernel/init/pcp.h"
#include "kernel/init/phase.h"
#include "kernel/init/physmem.h"
#include "kernel/init/report.h"
#include "kernel/init/selftest.h"
#include "kernel/init/smp.h"
#include "kernel/init/tiers.h"
#include "kernel/init/tscsync.h"
#include "kernel/init/vm.h"
#include "kernel/init/watchdog.h"
#include "kernel/services/clock/clock.h"
#include "kernel/services/console/options.h"
#include "kernel/services/report/bootreport_keys.h"
#include "kernel/services/jobs/job.h"
#include "kernel/bench/bench.h"
#include "kernel/selftest/select.h"
#include "kernel/services/smp_settings.h"
#include "mm/meminit_settings.h"
#include "mm/memtest.h"

/* Everything one phase builds and a later one reads. */
struct boot_state {
	/* The clock's story (kernel/services/clock/clock.h): the boot's first
	 * figure (phase early's, or phase acpi's when early had none), which
	 * the `boot` record reports; the second references, measured from the
	 * end of smp to clockcheck; the per-CPU check's words (tscsync). */
	struct clock_state clock;
	struct bootinfo bootinfo;        /* the loader's hand-off, normalized */
	/* The machine as the loader's device tree describes it (boot/'s
	 * storage, boot/dtimage), NULL when it handed over none. */
	const struct dt_machine *dt;
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
	struct smp_report smp;           /* the bring-up's report, completed by tscsync */
	/* What the census counts as fixed: physmem's reservations when it
	 * retired, the 1 GiB pool pages among them. */
	struct census_baseline census;
	struct census_ranges census_ranges;  /* each census's view of the topology's ranges */
	struct arch_direct_map_stats direct_map;  /* the kernel's page tables' figures (phase pagetables) */
	/* Phase memmap's figures: the mapped pieces, each node's array, the
	 * store probe (its report, meminit's and memtest's read them). */
	struct memmap_state memmap_state;
	/* Memory init's engine, set up in memprep, run in meminit, reported
	 * after tscsync, read by every census; memtest's state with it. */
	struct meminit_state meminit;
	struct pcp_state pcp;            /* the per-CPU lists' memory: memprep reserves, pcp carves */
};

static struct boot_state bs;

/* The census the self-tests take after each test (struct selftest_ctx). */
static bool boot_census(void *arg, const char *when)
{
	struct boot_state *b = arg;

	return init_census(&b->topo, &b->memmap, &b->census, &b->meminit, &b->census_ranges, when);
}

/* What phase acpi is asked for, by the keys of the subsystems that own
 * them (after phase cmdline). */
static struct acpi_options acpi_asked(void)
{
	return (struct acpi_options){
		.dump_tables = bootreport_settings.dump_acpi,
		.find_s5 = exit_method == EXIT_METHOD_POWEROFF,
		.console_chosen = console_cmdline.given,
	};
}

/* What the boot may take, by the keys that decide it, for the watchdog's
 * time (phase watchdog adds the memory). */
static struct watchdog_budget watchdog_asked(void)
{
	return (struct watchdog_budget){
		.smp_timeout_ms = smp_settings.timeout_ms,
		.init_deadline_ms = meminit_settings.deadline_ms,
		.memtest_passes = memtest_settings.passes,
		.selftests = selftest_count(&selftest_settings),
		.selftest_deadline_ms = selftest_settings.deadline_ms,
		.bench = bench_wanted(&bench_settings),
	};
}

void kernel_main(uintptr_t boot_arg0, uintptr_t boot_arg1)
{
	bool boot_ok = false, tests_ok = true, census_ok = true;
	const struct selftest_ctx tests = { .topo = &bs.topo, .mm = &bs.memmap, .pools = &bs.hugetlb,
					    .tiers = &bs.tiers,
					    .census = boot_census, .census_arg = &bs,
					    .replay = &bs.bootinfo.replay };

	PHASE(early, init_early(&bs.clock));
	PHASE(bootinfo, boot_ok = init_bootinfo(boot_arg0, boot_arg1, &bs.bootinfo, &bs.dt));
	PHASE(cmdline, init_cmdline(&bs.bootinfo));
	PHASE(console, init_console(&bs.bootinfo, bs.dt, &console_cmdline));
	PHASE(report, init_report(&bs.bootinfo, &bootreport_settings, &bs.clock.first));
	if (!boot_ok)
		kernel_exit(EXIT_BOOTINFO, "boot information missing or corrupt");
	PHASE(physmem, init_physmem(&bs.bootinfo, bootreport_settings.dump_mmap, &memtest_settings,
				      &bs.physmem));
	PHASE(acpi, init_acpi(&bs.bootinfo, acpi_asked(), &bs.acpi);
		    init_acpi_clock(&bs.acpi, smp_settings.tsc_coarse, &bs.clock));
	PHASE(watchdog, init_watchdog(&bs.bootinfo, &bs.acpi, &watchdog_settings, watchdog_asked()));
	PHASE(numa, init_numa(&bs.bootinfo, &bs.acpi, bs.dt, &bs.physmem, &bs.topo);
		    init_console_ring(&bs.topo, &bs.physmem));
	PHASE(tiers, init_tiers(&bs.acpi, &bs.topo, &bs.tiers));
	PHASE(hugetlb1g, init_hugetlb1g(&bs.topo, &hugetlb_settings, &bs.physmem, &bs.hugetlb));
	PHASE(pagetables, init_pagetables(&bs.bootinfo, &bs.physmem, &bs.direct_map));
	PHASE(smp, init_smp(&bs.acpi, bs.dt, &bs.topo, &bs.physmem, &smp_settings, &bs.smp);
		   clock_checks_start(&bs.clock));
	PHASE(memmap, init_memmap(&bs.topo, &bs.physmem, &bs.memmap, &bs.memmap_state));
	PHASE(memprep, init_memprep(&bs.topo, &bs.hugetlb, &meminit_settings, &memtest_settings,
				    &pcp_settings, &bs.physmem, &bs.memmap, &bs.pcp, &bs.meminit,
				    &bs.census));
	PHASE(meminit, init_meminit(&meminit_settings, &bs.memmap, &bs.meminit));
	PHASE(clockcheck, init_clockcheck(&bs.clock));
	PHASE(tscsync, init_tscsync(smp_settings.tsc_sync, &bs.clock, &bs.smp));
	STEP(meminit_report, init_meminit_report(&bs.topo, &meminit_settings, &bs.physmem,
						  &bs.memmap_state.probe, bs.memmap_state.stats,
						  &bs.meminit));
	PHASE(machine, init_machine(&bs.bootinfo, &bs.topo, &bs.machine));
	PHASE(hugetlb, init_hugetlb(&bs.topo, &bs.memmap, &hugetlb_settings, meminit_settings.trace,
				    &bs.hugetlb, &bs.hugetlb_state));
	PHASE(vm, init_vm(&bs.memmap, &bs.hugetlb));
	PHASE(census, census_ok = init_census(&bs.topo, &bs.memmap, &bs.census, &bs.meminit,
					      &bs.census_ranges, "boot"));
	/* After the boot census, which thus counts exactly what memory init
	 * left free; the lists' own memory shows as allocated from here on. */
	PHASE(pcp, init_pcp(&bs.pcp, &pcp_settings));
	PHASE(selftest, tests_ok = init_selftest(&tests));
	if (bench_wanted(&bench_settings))
		PHASE(bench, init_bench(&tests, &bench_settings));
	if (!census_ok || !init_census(&bs.topo, &bs.memmap, &bs.census, &bs.meminit,
				       &bs.census_ranges, "end"))
		kernel_exit(EXIT_CENSUS, "pages unaccounted for");
	if (tests_ok && job_lost_cpus())
		kernel_exit(EXIT_CPU_LOST, "a CPU stopped answering; its work was done by others");
	kernel_exit(tests_ok ? EXIT_OK : EXIT_SELFTEST, tests_ok ? NULL : "a self-test failed");
}

/*
 * main.c: the boot sequence, one phase per line (docs/design.md).
 *
 * Every phase is timed (kernel/phase.h). Nothing here knows how the machine
 * was booted: boot_collect() turns the loader's registers into struct
 * bootinfo, and everything after reads only that.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu.h"
#include "arch/paging.h"
#include "arch/tsc.h"
#include "boot/boot.h"
#include "kernel/bootreport.h"
#include "kernel/bootreport_keys.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/console/options.h"
#include "kernel/discover.h"
#include "kernel/exit.h"
#include "kernel/hugetlb.h"
#include "kernel/log.h"
#include "kernel/memory.h"
#include "kernel/meminit.h"
#include "kernel/meminit_keys.h"
#include "kernel/pcp_keys.h"
#include "kernel/pcp_setup.h"
#include "kernel/phase.h"
#include "kernel/record.h"
#include "kernel/selftest.h"
#include "kernel/selftest_keys.h"
#include "kernel/smp.h"
#include "kernel/smp_keys.h"
#include "kernel/vm.h"
#include "kernel/vm_keys.h"
#include "kernel/time.h"
#include "mm/alloc.h"

static struct bootinfo bootinfo;
/* The huge page pools: reserved (1 GiB) before the page tables, built
 * (2 MiB) after memory init, used by the self-tests and the fault path. */
static struct hugetlb_pools hugetlb_pools;

/* Every subsystem's command-line keys (docs/cmdline.md), in lookup order:
 * a subsystem with keys adds its table here, once. */
static const struct param_table *const cmdline_tables[] = {
	&console_param_table,
	&exit_param_table,
	&bootreport_param_table,
	&smp_param_table,
	&alloc_param_table,
	&meminit_param_table,
	&hugetlb_param_table,
	&pcp_param_table,
	&selftest_param_table,
	&vm_param_table,
};

/* The calibration as a line and a `tsc` record (docs/records.md). */
static void tsc_report(const struct tsc_calibration *cal)
{
	struct record r;
	uint64_t us = tsc_cycles_to_ns(cal->cycles) / 1000;

	pr_info("tsc: Detected %llu.%03llu MHz processor (%s, +-%u.%04u%%, %llu us; PIT: %u of %u "
		"samples kept)", (unsigned long long)(cal->hz / 1000000),
		(unsigned long long)(cal->hz / 1000 % 1000), cal->method,
		cal->uncertainty_ppm / 10000, cal->uncertainty_ppm % 10000, (unsigned long long)us,
		cal->pit.kept, cal->pit_samples);
	rec_begin(&r, "tsc");
	rec_u64(&r, "hz", cal->hz);
	rec_str(&r, "method", cal->method);
	rec_u64(&r, "uncertainty_ppm", cal->uncertainty_ppm);
	rec_u64(&r, "cpuid_hz", cal->cpuid_hz);
	rec_str(&r, "cpuid_leaf", cal->cpuid_leaf);
	rec_u64(&r, "pit_hz", cal->pit.hz);
	rec_u64(&r, "pit_uncertainty_ppm", cal->pit.uncertainty_ppm);
	rec_u64(&r, "pit_samples", cal->pit_samples);
	rec_u64(&r, "pit_kept", cal->pit.kept);
	rec_u64(&r, "pit_reads", cal->pit_reads);
	rec_u64(&r, "pit_ticks", cal->pit_ticks);
	rec_u64(&r, "pit_pairs", cal->pit.pairs);
	rec_u64(&r, "bracket_limit_cycles", cal->pit.bracket_limit);
	if (cal->cpuid_hz && cal->pit.hz)
		rec_u64(&r, "cpuid_vs_pit_ppm", cal->cpuid_vs_pit_ppm);
	rec_u64(&r, "ns", tsc_cycles_to_ns(cal->cycles));
	record_emit(&r);
}

/* COM1, CPU identity, this CPU's descriptor tables, TSC calibration. */
static void early_init(void)
{
	struct tsc_calibration cal;

	console_init();
	arch_cpu_identify();
	smp_init_boot_cpu();
	pr_info("memboot version %s (%s build) on %s", MEMBOOT_VERSION,
#ifdef NDEBUG
		"release",
#else
		"debug",
#endif
		cpu_features.brand[0] ? cpu_features.brand : cpu_features.vendor);
	if (cpu_features.has_hypervisor)
		pr_info("Hypervisor detected: %s", cpu_features.hypervisor);
	arch_tsc_calibrate(&cal);
	if (cal.hz == 0) {
		cal.hz = 1000000000ULL;
		cal.uncertainty_ppm = UINT32_MAX;
		pr_warn("tsc: no CPUID frequency and the PIT did not count; assuming 1 GHz, "
			"all timings are unreliable");
	}
	time_init(cal.hz, cal.method, cal.uncertainty_ppm);
	tsc_report(&cal);
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

	PHASE("early", early_init());
	PHASE("bootinfo", boot_ok = boot_collect(boot_magic, boot_info, &bootinfo));
	PHASE("cmdline", cmdline_parse_tables(bootinfo.cmdline, cmdline_tables,
					      sizeof(cmdline_tables) / sizeof(cmdline_tables[0])));
	PHASE("console", console_setup(&console_cmdline, &bootinfo.fb, boot_has_legacy_vga(&bootinfo),
				       arch_mapped_top()));
	PHASE("report", bootreport_print(&bootinfo, bootreport_settings.dump_mmap));
	if (bootreport_settings.dump_bootinfo)
		bootreport_dump_loader_info(&bootinfo);
	if (!boot_ok)
		kernel_exit(EXIT_BOOTINFO, "boot information missing or corrupt");
	PHASE("physmem", memory_init_physmem(&bootinfo, bootreport_settings.dump_mmap));
	PHASE("acpi", discover_acpi(&bootinfo, bootreport_settings.dump_acpi));
	PHASE("numa", discover_numa(&bootinfo, &physmem));
	PHASE("hugetlb1g", hugetlb_boot_reserve(&hugetlb_pools, &hugetlb_params, &numa_topo, &physmem));
	PHASE("pagetables", memory_direct_map(&bootinfo));
	PHASE("smp", discover_smp(&physmem));
	PHASE("memmap", meminit_arrays());
	PHASE("meminit", meminit_run(&hugetlb_pools));
	PHASE("hugetlb", hugetlb_boot_pools(&hugetlb_pools, &hugetlb_params, &numa_topo, &memmap,
					    meminit_settings.trace));
	PHASE("census", census_ok = census_run("boot"));
	/* After the boot census, which thus counts exactly what memory init
	 * left free; the lists' own memory shows as allocated from here on. */
	PHASE("pcp", pcp_setup_init());
	fault_inject();
	PHASE("selftest", tests_ok = selftests_run(&hugetlb_pools));
	if (vm_settings.bench_pt)
		PHASE("bench", vm_bench(&hugetlb_pools));
	if (!census_ok || !census_run("end"))
		kernel_exit(EXIT_CENSUS, "pages unaccounted for");
	kernel_exit(tests_ok ? EXIT_OK : EXIT_SELFTEST, tests_ok ? NULL : "a self-test failed");
}

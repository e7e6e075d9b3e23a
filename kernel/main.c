/*
 * main.c: the boot sequence, one phase per line (shared/ARCHITECTURE.md 2).
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
#include "kernel/console.h"
#include "kernel/discover.h"
#include "kernel/exit.h"
#include "kernel/hugetlb.h"
#include "kernel/log.h"
#include "kernel/memory.h"
#include "kernel/meminit.h"
#include "kernel/params.h"
#include "kernel/phase.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/time.h"

static struct bootinfo bootinfo;

/* COM1, CPU identity, this CPU's descriptor tables, TSC calibration. */
static void early_init(void)
{
	uint64_t hz;

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
	hz = arch_tsc_calibrate();
	if (hz == 0) {
		hz = 1000000000ULL;
		pr_warn("tsc: PIT did not count; assuming 1 GHz, all timings are unreliable");
	}
	time_init(hz);
	pr_info("tsc: Detected %llu.%03llu MHz processor (PIT calibration)",
		(unsigned long long)(hz / 1000000), (unsigned long long)(hz / 1000 % 1000));
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
	PHASE("cmdline", params_parse(bootinfo.cmdline));
	PHASE("console", console_setup(&kparams.console, &bootinfo.fb, boot_has_legacy_vga(&bootinfo),
				       arch_mapped_top()));
	PHASE("report", bootreport_print(&bootinfo, kparams.dump_mmap));
	if (kparams.dump_bootinfo)
		bootreport_dump_loader_info(&bootinfo);
	if (!boot_ok)
		kernel_exit(EXIT_BOOTINFO, "boot information missing or corrupt");
	PHASE("physmem", memory_init_physmem(&bootinfo, kparams.dump_mmap));
	PHASE("acpi", discover_acpi(&bootinfo, kparams.dump_acpi));
	PHASE("numa", discover_numa(&bootinfo, &physmem));
	PHASE("hugetlb1g", hugetlb_reserve_gigantic(&physmem));
	PHASE("pagetables", memory_direct_map(&bootinfo));
	PHASE("smp", discover_smp(&physmem));
	PHASE("memmap", meminit_arrays());
	PHASE("meminit", meminit_run());
	PHASE("hugetlb", hugetlb_init_pools());
	PHASE("census", census_ok = census_run("boot"));
	fault_inject();
	PHASE("selftest", tests_ok = selftests_run());
	if (!census_ok || !census_run("end"))
		kernel_exit(EXIT_CENSUS, "pages unaccounted for");
	kernel_exit(tests_ok ? EXIT_OK : EXIT_SELFTEST, tests_ok ? NULL : "a self-test failed");
}

/*
 * discover.h: the machine as its firmware describes it: ACPI tables, then
 * the NUMA topology built from them and the memory map, then the CPUs they
 * list brought up (through kernel/init/smp.c).
 *
 * The parsed tables and the topology are filled into structures the caller
 * owns (kernel/init/main.c's boot state); the parsers themselves are pure
 * (kernel/acpi/, mm/numa.c).
 */
#ifndef MEMBOOT_KERNEL_DISCOVER_H
#define MEMBOOT_KERNEL_DISCOVER_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "kernel/clock/clockcal.h"
#include "kernel/acpi/acpi.h"
#include "mm/numa.h"

struct discovered_acpi {
	struct acpi_tables dir;
	bool have_madt, have_srat, have_slit, have_hmat;
	struct acpi_madt_info madt;
	struct acpi_srat_info srat;
	struct acpi_slit_info slit;
	struct acpi_hmat_info hmat;      /* phase tiers checks and reads it */
	struct acpi_pm_timer pm_timer;   /* port 0: none */
	struct acpi_hpet_info hpet;      /* address 0: none */
	bool clock_checked;              /* the cross-checks ran in phase acpi */
};

/*
 * The clock cross-checks off the boot CPU's path: when the figure from the
 * early calibration is good (its uncertainty within TIME_ADOPT_PPM, so no
 * reference will replace it), phase acpi only finds the PM timer and the
 * HPET; clock_checks_start() then posts one measurement to an idle AP
 * (after phase smp), which measures while the boot CPU builds the
 * descriptor arrays and prepares memory init, and clock_checks_finish()
 * (phase clockcheck, once memory is usable: nothing
 * before needs the precise figure, as nothing is printed or converted for
 * good until then) measures the other reference on the boot CPU, waits for
 * the AP's and reports, exactly as the checks in phase acpi do. With no AP
 * the boot CPU measures both in clock_checks_finish().
 */
struct clock_checks {
	bool pending;                    /* start() posted or left work for finish() */
	/* An idle AP measures one reference from start() on (the HPET where
	 * there is one), the boot CPU the other in finish(); with no AP the
	 * boot CPU measures both, in finish(). (The HPET and the PM timer
	 * have sample space of their own, arch/x86_64/tsc.c.) */
	volatile uint32_t hpet_done, pm_done;
	uint32_t hpet_cpu, pm_cpu;       /* who measures (0: the boot CPU) */
	const struct discovered_acpi *acpi;
	const volatile void *hpet_regs;
	bool hpet_ok, pm_ok;
	uint64_t hpet_hz;
	struct clockcal_result hpet_res, pm_res;
};
void clock_checks_start(const struct discovered_acpi *acpi, struct clock_checks *cc);
void clock_checks_finish(struct clock_checks *cc);

struct tsc_calibration;
/* Phase acpi, when phase early found no TSC figure (@cal: its calibration,
 * hz 0): the figure from the HPET or the PM timer into @cal, or hz 0 and
 * cal->missing naming what is not there (kernel/init/discover.c). */
void discover_clock_first(const struct discovered_acpi *acpi, struct tsc_calibration *cal);

struct physmem;

/* Phase "acpi": walk the tables from the RSDP of @bi, parse MADT, SRAT,
 * SLIT into @acpi (emptied first: no RSDP leaves it empty, one node follows);
 * cross-check the clock against the PM timer and HPET, find S5 and SPCR.
 * @dump prints every table. */
void discover_acpi(const struct bootinfo *bi, bool dump, struct discovered_acpi *acpi);
/* Phase "numa": build @topo from the memory map of @bi and the tables in
 * @acpi, and give @pm its nodes and distances. */
void discover_numa(const struct bootinfo *bi, const struct discovered_acpi *acpi,
		   struct physmem *pm, struct numa_topology *topo);
/* Phase "smp": bring up the CPUs of @topo (maxcpus=, nosmp honoured), each
 * one's stack and per-CPU area from @pm on its node. */
void discover_smp(const struct discovered_acpi *acpi, const struct numa_topology *topo,
		  struct physmem *pm);

#endif

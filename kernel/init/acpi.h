/*
 * acpi.h: phase `acpi` (kernel/init/phases.h): the ACPI tables as the
 * firmware left them, parsed (the parsers are pure: kernel/firmware/acpi/) into a
 * structure the boot state owns (`bs.acpi`).
 */
#ifndef MEMBOOT_KERNEL_INIT_ACPI_H
#define MEMBOOT_KERNEL_INIT_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "kernel/firmware/acpi/acpi.h"
#include "kernel/firmware/acpi/wdat.h"
#include "kernel/services/clock/clock.h"

struct discovered_acpi {
	struct acpi_tables dir;
	bool have_madt, have_srat, have_slit, have_hmat;
	struct acpi_madt_info madt;
	struct acpi_srat_info srat;
	struct acpi_slit_info slit;
	struct acpi_hmat_info hmat;      /* phase tiers checks and reads it */
	/* The clock's references the tables describe (arch_clock_tables):
	 * the FADT's timer at an I/O address, the HPET table's timer block. */
	struct acpi_pm_timer timer_port; /* port 0: none */
	struct acpi_hpet_info timer_block; /* address 0: none */
	/* arm64's: the FADT's PSCI conduit (psci false: none named) and the
	 * GTDT's timer interrupts; the GIC's addresses are the MADT's. */
	struct acpi_arm_boot arm_boot;
	bool have_gtdt;
	struct acpi_gtdt_info gtdt;
	/* The PPTT's packages, clusters, cores, threads and caches (arm64
	 * servers': reported in phase acpi, read by nothing else yet). */
	bool have_pptt;
	struct acpi_pptt_info pptt;
	bool wdat_found, have_wdat;      /* a WDAT; parsed and usable */
	struct acpi_wdat_info wdat;      /* phase watchdog arms it */
};

/* What the command line asks of the phase (main.c fills it from the
 * settings of the subsystems that own the keys). */
struct acpi_options {
	bool dump_tables;       /* memboot.dump_acpi: every table's bytes */
	bool find_s5;           /* memboot.exit=poweroff: the S5 sleep values */
	bool console_chosen;    /* console= was given: the SPCR port is not added */
};

/* The tables of @bi's RSDP into @acpi (cleared first: no RSDP or unusable
 * tables leave it empty, and the boot goes on with one node and the boot
 * CPU). */
void init_acpi(const struct bootinfo *bi, struct acpi_options opt,
	       struct discovered_acpi *acpi);

/* The clock's step of the phase, once the tables are parsed: the timers
 * @acpi names handed to the clock (clock_tables(): a poor figure
 * cross-checked now, the first figure when phase early had none); @coarse:
 * memboot.tsc_coarse. */
void init_acpi_clock(const struct discovered_acpi *acpi, bool coarse, struct clock_state *clock);

/* The mapped bytes of the table @sig of @acpi, its length in @len; NULL
 * when the firmware has none. */
const void *acpi_table_bytes(const struct discovered_acpi *acpi, const char *sig, uint32_t *len);

#endif

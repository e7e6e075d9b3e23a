/*
 * acpi.c: phase `acpi`: takes `bs.bootinfo`'s RSDP; builds `bs.acpi`: the
 * tables found (the parsers are kernel/firmware/acpi/), the MADT (CPUs; on
 * arm64 the GIC too), SRAT (CPU and memory affinity), SLIT (distances) and
 * HMAT, validated; the FADT's PSCI flags and the GTDT (arm64); the timers of
 * the FADT (PM timer) and of the HPET table (the clock's references:
 * init_acpi_clock() hands them over);
 * S5 (only with memboot.exit=poweroff, its one user); the SPCR console; the
 * WDAT (phase watchdog arms its watchdog).
 */
#include "kernel/init/acpi.h"

#include <stdio.h>
#include <string.h>

#include "arch/machine.h"
#include "arch/map.h"
#include "kernel/firmware/acpi/sleep.h"
#include "kernel/firmware/acpi/spcr.h"
#include "kernel/init/console.h"
#include "kernel/services/console.h"
#include "kernel/services/exit.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

/* The bytes of the table @sig in @acpi's directory, mapped (NULL: none). */
const void *acpi_table_bytes(const struct discovered_acpi *acpi, const char *sig,
			       uint32_t *len)
{
	const struct acpi_table_info *t = acpi_tables_find(&acpi->dir, sig);

	if (!t)
		return NULL;
	*len = t->length;
	return arch_map_phys(NULL, t->phys, t->length);
}

/* Found in the tables init_acpi() walks; defined below it. */
static void find_s5(const struct discovered_acpi *acpi);
static void find_spcr(const struct bootinfo *bi, bool console_chosen, const void *bytes, uint32_t len);

static const char *const pptt_cache_types[] = {
	[ACPI_PPTT_CACHE_DATA] = "data",
	[ACPI_PPTT_CACHE_INSTRUCTION] = "instruction",
	[ACPI_PPTT_CACHE_UNIFIED] = "unified",
};

/* The `pptt` record and a `pptt_cache` record per kind of cache. */
static void report_pptt(const struct acpi_pptt_info *p)
{
	struct record r;

	rec_begin(&r, "pptt");
	rec_u64(&r, "revision", p->revision);
	rec_u64(&r, "processors", p->nr_processors);
	rec_u64(&r, "packages", p->nr_packages);
	rec_u64(&r, "clusters", p->nr_clusters);
	rec_u64(&r, "cores", p->nr_cores);
	rec_u64(&r, "threads", p->nr_threads);
	rec_u64(&r, "cache_structures", p->nr_cache_structs);
	rec_u64(&r, "cache_kinds", p->nr_caches);
	rec_u64(&r, "warnings", p->warnings);
	rec_bool(&r, "truncated", p->truncated);
	record_report(&r, LOG_INFO, "PPTT: {processors} processor{processors:s}: {packages} "
		      "package{packages:s}, {clusters} cluster{clusters:s}, {cores} core{cores:s}, "
		      "{threads} thread{threads:s}; {cache_structures} cache structure{cache_structures:s}");
	for (uint32_t i = 0; i < p->nr_caches; i++) {
		const struct acpi_pptt_cache *c = &p->caches[i];

		rec_begin(&r, "pptt_cache");
		rec_u64(&r, "level", c->level);
		rec_str(&r, "type", pptt_cache_types[c->type]);
		rec_u64(&r, "size_bytes", c->size_bytes);
		rec_u64(&r, "line_bytes", c->line_bytes);
		rec_u64(&r, "ways", c->ways);
		rec_u64(&r, "sets", c->sets);
		rec_u64(&r, "cpus", c->cpus);
		rec_u64(&r, "count", c->count);
		record_report(&r, LOG_INFO, "PPTT: {count} x L{level} {type} {size_bytes:KiB} KiB, "
			      "{line_bytes}-byte lines, {ways} ways, {sets} sets; each shared by "
			      "{cpus} processor{cpus:s}");
	}
}

/* console_defer()'s form of the table list. */
static void print_acpi_tables(void *dir)
{
	acpi_print_tables(dir);
}

void init_acpi(const struct bootinfo *bi, struct acpi_options opt, struct discovered_acpi *acpi)
{
	const void *bytes;
	uint32_t len;

	memset(acpi, 0, sizeof(*acpi));
	if (bi->rsdp_len == 0) {
		/* A device tree in its place is the machine's description, not
		 * a fault (arm64's Image path; phase numa reads its nodes). */
		if (!bi->dtb_bytes)
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
	if (opt.dump_tables)
		acpi_dump_tables(&acpi->dir);

	if ((bytes = acpi_table_bytes(acpi, "APIC", &len)))
		acpi->have_madt = acpi_madt_parse(bytes, len, &acpi->madt);
	if ((bytes = acpi_table_bytes(acpi, "SRAT", &len)))
		acpi->have_srat = acpi_srat_parse(bytes, len, &acpi->srat);
	if ((bytes = acpi_table_bytes(acpi, "SLIT", &len)))
		acpi->have_slit = acpi_slit_parse(bytes, len, &acpi->slit);
	if ((bytes = acpi_table_bytes(acpi, "HMAT", &len)))
		acpi->have_hmat = acpi_hmat_parse(bytes, len, &acpi->hmat);
	if (!acpi->have_madt)
		pr_warn("ACPI: no usable MADT: the boot CPU only");
	/* SRAT GICC affinities name processor UIDs: their hwids are the MADT's. */
	if (acpi->have_srat)
		acpi_srat_resolve_uids(&acpi->srat, acpi->have_madt ? &acpi->madt : NULL);
	if ((bytes = acpi_table_bytes(acpi, "SPCR", &len)))
		find_spcr(bi, opt.console_chosen, bytes, len);
	if ((bytes = acpi_table_bytes(acpi, "HPET", &len)) && !acpi_hpet_parse(bytes, len, &acpi->timer_block))
		acpi->timer_block.address = 0;
	if ((bytes = acpi_table_bytes(acpi, "FACP", &len)) &&
	    !acpi_fadt_pm_timer(bytes, len, &acpi->timer_port))
		acpi->timer_port.port = 0;
	if (acpi->madt.nr_gicc && (bytes = acpi_table_bytes(acpi, "FACP", &len)))
		(void)acpi_fadt_arm_boot(bytes, len, &acpi->arm_boot);
	if ((bytes = acpi_table_bytes(acpi, "GTDT", &len)))
		acpi->have_gtdt = acpi_gtdt_parse(bytes, len, &acpi->gtdt);
	if ((bytes = acpi_table_bytes(acpi, "PPTT", &len)) &&
	    (acpi->have_pptt = acpi_pptt_parse(bytes, len, &acpi->pptt)))
		report_pptt(&acpi->pptt);
	if ((bytes = acpi_table_bytes(acpi, "WDAT", &len))) {
		acpi->wdat_found = true;
		acpi->have_wdat = acpi_wdat_parse(bytes, len, &acpi->wdat);
	}
	/* Only memboot.exit=poweroff writes S5 (the command line is read by
	 * now): no scan of the DSDT's AML on any other boot's path. */
	if (opt.find_s5)
		find_s5(acpi);
}

void init_acpi_clock(const struct discovered_acpi *acpi, bool coarse, struct clock_state *clock)
{
	const struct arch_clock_tables t = {
		.timer_block = acpi->timer_block.address,
		.timer_port = acpi->timer_port.port,
		.timer_port_bits = acpi->timer_port.bits,
	};

	clock_tables(clock, &t, coarse);
}

/* What memboot.exit=poweroff writes where (kernel/firmware/acpi/sleep.h). */
static void find_s5(const struct discovered_acpi *acpi)
{
	struct acpi_s5 s5 = { 0 };
	const void *fadt, *dsdt;
	uint32_t fadt_len, dsdt_len;

	if (!(fadt = acpi_table_bytes(acpi, "FACP", &fadt_len)) ||
	    !(dsdt = acpi_table_bytes(acpi, "DSDT", &dsdt_len)))
		return;
	if (!acpi_fadt_pm1(fadt, fadt_len, &s5))
		return;
	if (!acpi_find_s5((const uint8_t *)dsdt + ACPI_SDT_HEADER_BYTES,
			  dsdt_len > ACPI_SDT_HEADER_BYTES ? dsdt_len - ACPI_SDT_HEADER_BYTES : 0,
			  &s5))
		return;
	exit_set_poweroff(&(struct arch_acpi_s5){ .valid = true,
						  .pm1a_cnt_port = s5.pm1a_cnt_port,
						  .pm1b_cnt_port = s5.pm1b_cnt_port,
						  .slp_typa = s5.slp_typa, .slp_typb = s5.slp_typb });
}

/* The firmware's console port (a BMC's serial over LAN): a console too,
 * unless console= chose the consoles. */
static void find_spcr(const struct bootinfo *bi, bool console_chosen, const void *bytes, uint32_t len)
{
	struct acpi_spcr_info spcr;
	struct arch_uart u;
	char name[32];
	const char *space;

	if (!acpi_spcr_parse(bytes, len, &spcr))
		return;
	space = spcr.io_port ? "I/O port" : "MMIO";   /* SPCR's address space, ACPI 5.2.3.2 */
	u = (struct arch_uart){ .base = spcr.address, .mmio_bytes = spcr.io_port ? 0 : spcr.access_bytes,
				.kind = spcr.kind == ACPI_SPCR_PL011 ? ARCH_UART_PL011 : ARCH_UART_16550 };
	snprintf(name, sizeof(name), "spcr@%s0x%llx", spcr.io_port ? "io" : "mmio",
		 (unsigned long long)spcr.address);
	if (spcr.baud)
		pr_info("ACPI: SPCR: console UART at %s 0x%llx, %u baud",
			space, (unsigned long long)spcr.address, spcr.baud);
	else
		pr_info("ACPI: SPCR: console UART at %s 0x%llx, at the speed the firmware set",
			space, (unsigned long long)spcr.address);
	console_add_firmware_uart(bi, console_chosen, "ACPI: SPCR", space, &u,
				  spcr.io_port ? 8 : 8ULL * spcr.access_bytes, spcr.baud, name);
}

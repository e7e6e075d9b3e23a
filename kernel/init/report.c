/*
 * report.c: phase `report`: takes `bs.bootinfo` and the boot's first clock
 * figure; builds the `boot`, `mem_range` and `mem_summary` records and the
 * memory map as Linux prints it (made when the consoles drain, in this
 * place: docs/console.md, "Reports made late"); with memboot.dump_bootinfo
 * the loader's information block as `blob` records.
 *
 * The prose lines copy Linux's format, inclusive end and all
 * ("BIOS-e820: [mem 0x0000000000100000-0x000000007ffdefff] usable"), so a
 * memboot log can be compared with a Linux log of the same machine line by
 * line. The records use half-open [start, end) like everything else.
 */
#include "kernel/init/report.h"

#include <stdio.h>

#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/clock/clock.h"
#include "kernel/services/clock/time.h"

static void print_range(const char *prefix, const struct mem_range *r)
{
	pr_info("%s: [mem 0x%016llx-0x%016llx] %s", prefix,
		(unsigned long long)r->start, (unsigned long long)(r->end - 1),
		mem_type_linux_name((enum mem_type)r->type));
}

static void dump_loader_info(const struct bootinfo *bi)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)bi->loader_info_phys;
	const uint32_t chunk = 256;

	if (!bi->loader_info_phys || !bi->loader_info_bytes) {
		pr_warn("boot: no loader information block to dump");
		return;
	}
	pr_info("boot: dumping %u bytes of loader information at 0x%llx",
		bi->loader_info_bytes, (unsigned long long)bi->loader_info_phys);
	for (uint32_t off = 0; off < bi->loader_info_bytes; off += chunk) {
		char hex[2 * 256 + 1];
		uint32_t n = bi->loader_info_bytes - off < chunk ? bi->loader_info_bytes - off : chunk;
		struct record r;

		for (uint32_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", p[off + i]);
		rec_begin(&r, "blob");
		rec_str(&r, "name", boot_path_name(bi->path));
		rec_u64(&r, "offset", off);
		rec_u64(&r, "total", bi->loader_info_bytes);
		rec_str(&r, "hex", hex);
		record_emit(&r);
	}
}

/* What the report prints: the boot's first clock figure (the quick
 * estimate), not the one in force when it runs; read when the report runs,
 * as phase acpi fills it when phase early had none. The arguments are
 * copied by console_defer_copy(); what they point to is the boot state's. */
struct report_args {
	const struct bootinfo *bi;
	bool dump_raw;
	const struct arch_clock_first *first;
};

static void report_now(void *arg)
{
	const struct report_args *a = arg;
	const struct bootinfo *bi = a->bi;
	const bool dump_raw = a->dump_raw;
	struct record r;

	pr_info("Command line: %s", bi->cmdline);
	rec_begin(&r, "boot");
	rec_str(&r, "version", MEMBOOT_VERSION);
	rec_str(&r, "boot_path", boot_path_name(bi->path));
	rec_str(&r, "loader", bi->loader);
	rec_u64(&r, "tsc_hz", a->first->hz);
	rec_str(&r, "tsc_method", a->first->method ? a->first->method : "none");
	rec_u64(&r, "tsc_uncertainty_ppm", a->first->uncertainty_ppm);
	/* Where no second reference exists on any machine, the figure is as
	 * the firmware gave it: every time of the boot rests on it unchecked.
	 * (Elsewhere the check's `clock_check` records say how it went.) */
	if (a->first->never_checked) {
		rec_str(&r, "tsc_known", clock_known_name(a->first->known));
		rec_bool(&r, "tsc_checked", false);
	}
	rec_str(&r, "map_source", bi->map_source);
	rec_u64(&r, "map_entries", bi->raw.nr_entries);
	rec_u64(&r, "rsdp_revision", bi->rsdp_len ? bi->rsdp_revision : 0);
	rec_bool(&r, "rsdp", bi->rsdp_len != 0);
	if (bi->cmdline_cut)
		rec_str(&r, "cmdline_dropped", bi->cmdline_dropped);
	/* Last, and cut to what the record has room for: a long command line
	 * must not push the keys above out of the record. */
	if (rec_str_cut(&r, "cmdline", bi->cmdline, sizeof(",\"cmdline_record_cut\":true") - 1))
		rec_bool(&r, "cmdline_record_cut", true);
	record_report(&r, LOG_INFO, "boot: path {boot_path}, loader '{loader}', memory map from "
		      "{map_source} ({map_entries} firmware entries)");

	if (dump_raw) {
		pr_info("firmware memory map as read (%u entries, %u ranges after merging neighbours):",
			bi->raw.nr_entries, bi->raw.nr_ranges);
		for (uint32_t i = 0; i < bi->raw.nr_ranges; i++)
			print_range("raw", &bi->raw.ranges[i]);
	}

	pr_info("BIOS-provided physical RAM map:");
	for (uint32_t i = 0; i < bi->nr_ranges; i++) {
		const struct mem_range *m = &bi->ranges[i];
		char line[96];

		/* The record says "acpi", the line Linux's "ACPI data". */
		snprintf(line, sizeof(line), "BIOS-e820: [mem 0x{start:x16}-0x{end:x16-1}] %s",
			 mem_type_linux_name((enum mem_type)m->type));
		rec_begin(&r, "mem_range");
		rec_hex(&r, "start", m->start);
		rec_hex(&r, "end", m->end);
		rec_str(&r, "type", mem_type_name((enum mem_type)m->type));
		record_report(&r, LOG_INFO, line);
	}
	for (uint32_t i = 0; i < bi->nr_soft_reserved && i < BOOTINFO_MAX_SOFT_RESERVED; i++) {
		rec_begin(&r, "soft_reserved");
		rec_hex(&r, "start", bi->soft_reserved[i].start);
		rec_hex(&r, "end", bi->soft_reserved[i].end);
		rec_u64(&r, "bytes", bi->soft_reserved[i].end - bi->soft_reserved[i].start);
		record_report(&r, LOG_INFO, "efi: [mem 0x{start:x16}-0x{end:x16-1}] is EFI_MEMORY_SP "
			      "(soft reserved, {bytes:MiB} MiB): left to drivers, not in the allocator");
	}
	if (bi->nr_soft_reserved > BOOTINFO_MAX_SOFT_RESERVED)
		pr_info("efi: %u more soft-reserved ranges, kept out of the allocator too",
			bi->nr_soft_reserved - BOOTINFO_MAX_SOFT_RESERVED);
	rec_begin(&r, "mem_summary");
	for (int t = MEM_USABLE; t < MEM_TYPE_COUNT; t++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_bytes", mem_type_name((enum mem_type)t));
		rec_u64(&r, key, bootinfo_total_bytes(bi, (enum mem_type)t));
	}
	rec_u64(&r, "ranges", bi->nr_ranges);
	record_report(&r, LOG_INFO, "Memory: {usable_bytes:KiB}K usable ({usable_bytes:MiB} MiB) "
		      "in {ranges} ranges");

	if (bi->rsdp_len)
		pr_info("ACPI: RSDP revision %u (OEM '%.6s') from the boot loader (%s)",
			bi->rsdp_revision, (const char *)bi->rsdp + 9,
			bi->rsdp_revision >= 2 ? "XSDT" : "RSDT");
	else if (bi->dtb_bytes)
		pr_info("ACPI: no RSDP: the device tree at 0x%llx (%u bytes) describes the machine",
			(unsigned long long)bi->dtb_phys, bi->dtb_bytes);
	else
		pr_warn("ACPI: the boot loader passed no RSDP");
}

void init_report(const struct bootinfo *bi, const struct bootreport_settings *s,
		 const struct arch_clock_first *first)
{
	const struct report_args args = { bi, s->dump_mmap, first };

	/* Output only: made when the consoles drain, in this place of the log
	 * (console_defer_copy()); a raw dump, long and asked for, now. */
	if (s->dump_mmap)
		report_now((void *)&args);
	else
		console_defer_copy(report_now, &args, sizeof(args),
				   ((size_t)bi->nr_ranges + 8) * CONSOLE_DEFER_ITEM_BYTES);
	if (s->dump_bootinfo)
		dump_loader_info(bi);
}

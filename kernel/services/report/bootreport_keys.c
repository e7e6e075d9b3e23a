/*
 * bootreport_keys.c: the boot report's dump keys (bootreport_keys.h), in a
 * pure file of their own: the phases that print the dumps run only in the
 * kernel, and the host tests parse the same table.
 */
#include "kernel/services/report/bootreport_keys.h"

#include "kernel/services/cmdline.h"

struct bootreport_settings bootreport_settings;   /* every dump off */

static const struct param bootreport_params[] = {
	{ .key = "memboot.dump_mmap", .type = PARAM_BOOL, .ptr = &bootreport_settings.dump_mmap,
	  .help = "print the firmware memory map as read, before normalization" },
	{ .key = "memboot.dump_acpi", .type = PARAM_BOOL, .ptr = &bootreport_settings.dump_acpi,
	  .help = "print every ACPI table in acpidump's text format" },
	{ .key = "memboot.dump_bootinfo", .type = PARAM_BOOL,
	  .ptr = &bootreport_settings.dump_bootinfo,
	  .help = "print the loader's boot information bytes as blob records" },
};
PARAM_TABLE(bootreport_param_table, "bootreport", bootreport_params);

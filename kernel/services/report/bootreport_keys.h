/*
 * bootreport_keys.h: the boot report's dump keys, memboot.dump_mmap,
 * memboot.dump_acpi and memboot.dump_bootinfo (docs/cmdline.md), and the
 * settings they fill. main.c passes each setting to the phase that prints
 * the dump (kernel/init/bootreport.c, discover.c, memory.c).
 */
#ifndef MEMBOOT_KERNEL_REPORT_BOOTREPORT_KEYS_H
#define MEMBOOT_KERNEL_REPORT_BOOTREPORT_KEYS_H

#include <stdbool.h>

struct bootreport_settings {
	bool dump_mmap;            /* the firmware map as read, and physmem */
	bool dump_acpi;            /* every ACPI table, acpidump text */
	bool dump_bootinfo;        /* the loader's bytes as blob records */
};

extern struct bootreport_settings bootreport_settings;
struct param_table;
extern const struct param_table bootreport_param_table;

#endif

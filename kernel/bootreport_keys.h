/*
 * bootreport_keys.h: the keys that ask for raw dumps of what firmware and
 * the loader handed over (docs/cmdline.md): memboot.dump_mmap,
 * memboot.dump_acpi and memboot.dump_bootinfo. Parsed by
 * bootreport_param_table (kernel/bootreport_keys.c); main.c passes each to
 * the phase that prints it.
 */
#ifndef MEMBOOT_KERNEL_BOOTREPORT_KEYS_H
#define MEMBOOT_KERNEL_BOOTREPORT_KEYS_H

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

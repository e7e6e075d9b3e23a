/*
 * vm_settings.h: the address spaces' command-line keys (docs/cmdline.md):
 * which page-table locks a space uses and whether a fault zeroes its frame.
 * Pure: parsed by the kernel and by the host tests alike.
 */
#ifndef MEMBOOT_KERNEL_VM_SETTINGS_H
#define MEMBOOT_KERNEL_VM_SETTINGS_H

#include <stdbool.h>

struct vm_settings {
	unsigned ptlock;           /* enum pt_lock_mode (mm/pt/pt.h): split (default) or global */
	bool pt_zero;              /* zero each faulted-in frame (as Linux does) */
};

extern struct vm_settings vm_settings;
struct param_table;
extern const struct param_table vm_param_table;

#endif

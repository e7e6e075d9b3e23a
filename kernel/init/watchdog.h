/*
 * watchdog.h: phase `watchdog` (kernel/init/phases.h): the machine's
 * watchdog armed for what this boot may take (kernel/services/watchdog/),
 * as soon as the firmware tables say which one there is, so that a boot
 * that hangs from here on resets the machine; and the watch tick's timer,
 * for the self-tests' watch.
 */
#ifndef MEMBOOT_KERNEL_INIT_WATCHDOG_H
#define MEMBOOT_KERNEL_INIT_WATCHDOG_H

#include "boot/bootinfo.h"
#include "kernel/init/acpi.h"
#include "kernel/services/watchdog/watchdog.h"

/* @budget: what the boot may take, memory_bytes left to the phase (from
 * @bi's map); @set: memboot.watchdog. */
void init_watchdog(const struct bootinfo *bi, const struct discovered_acpi *acpi,
		   const struct watchdog_settings *set, struct watchdog_budget budget);

#endif

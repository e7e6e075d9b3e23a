/*
 * report.h: phase `report` (kernel/init/phases.h): what the kernel prints
 * about how it was booted: the `boot` record, the normalized memory map as
 * Linux prints it, `mem_range` records.
 */
#ifndef MEMBOOT_KERNEL_INIT_REPORT_H
#define MEMBOOT_KERNEL_INIT_REPORT_H

#include <stdbool.h>

#include "arch/clock.h"
#include "boot/bootinfo.h"
#include "kernel/services/report/bootreport_keys.h"

/*
 * The report of @bi; with @s->dump_mmap the firmware's map as read too
 * (printed now), with @s->dump_bootinfo the loader's information block as
 * `blob` records of hex text, so tools/capture-bootinfo can rebuild the
 * exact bytes (test fixtures). @first: the boot's first clock figure
 * (`bs.clock.first`), which the `boot` record reports; filled by phase acpi
 * when phase early had none, so read when the record is made, as the
 * consoles drain.
 */
void init_report(const struct bootinfo *bi, const struct bootreport_settings *s,
		 const struct arch_clock_first *first);

#endif

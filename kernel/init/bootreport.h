/*
 * bootreport.h: what the kernel prints about how it was booted: the `boot`
 * record, the normalized memory map as Linux prints it, `mem_range` records.
 */
#ifndef MEMBOOT_KERNEL_BOOTREPORT_H
#define MEMBOOT_KERNEL_BOOTREPORT_H

#include <stdbool.h>

#include "boot/bootinfo.h"

struct tsc_calibration;
/* @first: the boot's first TSC figure, which the `boot` record reports;
 * filled by phase acpi when phase early had none (kernel/init/main.c), so
 * read when the record is made, as the consoles drain. */
void bootreport_print(const struct bootinfo *bi, bool dump_raw,
		      const struct tsc_calibration *first);

/*
 * Print the loader's information block as `blob` records of hex text, so
 * tools/capture-bootinfo can rebuild the exact bytes (test fixtures).
 */
void bootreport_dump_loader_info(const struct bootinfo *bi);

#endif

/*
 * bootreport.h: what the kernel prints about how it was booted: the `boot`
 * record, the normalized memory map as Linux prints it, `mem_range` records.
 */
#ifndef MEMBOOT_KERNEL_BOOTREPORT_H
#define MEMBOOT_KERNEL_BOOTREPORT_H

#include <stdbool.h>

#include "boot/bootinfo.h"

void bootreport_print(const struct bootinfo *bi, bool dump_raw);

/*
 * Print the loader's information block as `blob` records of hex text, so
 * tools/capture-bootinfo can rebuild the exact bytes (test fixtures).
 */
void bootreport_dump_loader_info(const struct bootinfo *bi);

#endif

/*
 * bootreport.h: what the kernel prints about how it was booted: the `boot`
 * record, the normalized memory map as Linux prints it, `mem_range` records.
 */
#ifndef MEMBOOT_KERNEL_BOOTREPORT_H
#define MEMBOOT_KERNEL_BOOTREPORT_H

#include <stdbool.h>

#include "boot/bootinfo.h"

void bootreport_print(const struct bootinfo *bi, bool dump_raw);

#endif

/*
 * bootinfo.h: phase `bootinfo` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_BOOTINFO_H
#define MEMBOOT_KERNEL_INIT_BOOTINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"

struct dt_machine;

/* The loader's registers (@arg0, @arg1: arch/entry.h) into @bi, normalized
 * (boot/), with @dt pointed at the device tree's machine where the loader
 * handed over a tree (else NULL); and the UEFI runtime services found there kept for the results
 * store (kernel/services/report/efivars.h). False when the hand-off is
 * missing or corrupt: the boot ends once phase report has printed what
 * there is. */
bool init_bootinfo(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi, const struct dt_machine **dt);

#endif

/*
 * cmdline.h: phase `cmdline` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_CMDLINE_H
#define MEMBOOT_KERNEL_INIT_CMDLINE_H

#include "boot/bootinfo.h"

/* @bi's command line parsed by every subsystem's key table, into each
 * subsystem's settings (docs/cmdline.md). */
void init_cmdline(const struct bootinfo *bi);

#endif

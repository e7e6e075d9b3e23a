/*
 * memory.h: the kernel's physical memory state (phase "physmem").
 */
#ifndef MEMBOOT_KERNEL_MEMORY_H
#define MEMBOOT_KERNEL_MEMORY_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "mm/physmem.h"

extern struct physmem physmem;

/*
 * Feed the usable ranges of @bi to physmem and reserve what is already in
 * use: page 0 (real-mode IVT and BIOS data, and a NULL that must never be a
 * valid allocation), the kernel image with its .bss.
 */
void memory_init_physmem(const struct bootinfo *bi, bool dump);

#endif

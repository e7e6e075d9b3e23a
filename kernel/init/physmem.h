/*
 * physmem.h: phase `physmem`, the early allocator (mm/physmem.h) seeded
 * from the boot map (its retirement, when memory init takes its free
 * memory, is physmem_retire(), called by phase memprep).
 */
#ifndef MEMBOOT_KERNEL_INIT_PHYSMEM_H
#define MEMBOOT_KERNEL_INIT_PHYSMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "mm/physmem.h"

struct memtest_settings;

/*
 * Phase "physmem": fill @pm with the usable ranges of @bi and reserve what
 * is already in use: page 0 (real-mode IVT and BIOS data, and a NULL that
 * must never be a valid allocation), the kernel image with its .bss, and
 * the ranges @mt names bad (memmap=nn$ss, memboot.badram=:
 * PHYSMEM_RESV_BADRAM, their pages become PAGE_BAD). Page tables come from
 * @pm from here until physmem_retire(). @dump: print @pm.
 */
void init_physmem(const struct bootinfo *bi, bool dump, const struct memtest_settings *mt,
		  struct physmem *pm);

#endif

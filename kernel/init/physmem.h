/*
 * physmem.h: phase `physmem`, the early allocator (mm/physmem.h) seeded
 * from the boot map, and its retirement when memory init takes its free
 * memory (phase memprep; the report after the counter check).
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
 * @pm from here until init_physmem_retire(). @dump: print @pm.
 */
void init_physmem(const struct bootinfo *bi, bool dump, const struct memtest_settings *mt,
		  struct physmem *pm);

/*
 * The page allocator now owns all free memory: physmem allocations are
 * over (@pm->retired: page tables come from the page allocator). Returns
 * the pages @pm keeps reserved for good, for the census baseline.
 */
uint64_t init_physmem_retire(struct physmem *pm);
/* Its `physmem_retire` record and line: apart, so the printing can wait
 * until the time-critical part of memory init is over. */
void init_physmem_report_retired(const struct physmem *pm);

#endif

/*
 * pagetables.h: phase `pagetables`, the kernel's own W^X identity map; its
 * pages, and those of every later mapping of the boot, come from
 * mm/pt_pages.h's source.
 */
#ifndef MEMBOOT_KERNEL_INIT_PAGETABLES_H
#define MEMBOOT_KERNEL_INIT_PAGETABLES_H

#include <stdint.h>

#include "arch/map.h"
#include "boot/bootinfo.h"
#include "mm/physmem.h"
#include "mm/pt_pages.h"

/* Phase "pagetables": build the kernel's identity map of the ranges of
 * @bi, W^X, its tables from @pm, and switch to it; its figures go into
 * @dm (the boot state's, which the `direct_map` record reads when the
 * consoles drain). */
void init_pagetables(const struct bootinfo *bi, struct physmem *pm,
		     struct arch_direct_map_stats *dm);

#endif

/*
 * census.h: phase `census`, every page counted exactly once (mm/census.h),
 * against the baseline phase memprep left; also the census each self-test
 * is followed by, and the last one before the exit.
 */
#ifndef MEMBOOT_KERNEL_INIT_CENSUS_H
#define MEMBOOT_KERNEL_INIT_CENSUS_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/memmap.h"
#include "mm/numa.h"

struct meminit_state;

/*
 * What the census counts as fixed besides the live page tables (which the
 * vm layer counts, vm_table_pages()): the pages physmem kept reserved when
 * it retired, less the 1 GiB pool pages among them (PAGE_HUGE heads in the
 * census, not reserved pages). Filled by phase memprep, held in the boot
 * state (kernel/init/main.c).
 */
struct census_baseline {
	uint64_t retired_reserved_pages;
	uint64_t gigantic_pages;
	/* Reserved as known-bad memory (memmap=nn$ss, memboot.badram=): PAGE_BAD
	 * heads in the census, not reserved pages. */
	uint64_t badram_pages;
};

/* The topology's ranges as the census reads them, rebuilt for each count:
 * in the boot state, since 12 KiB on the boot CPU's stack under a
 * self-test's frames is too much. */
struct census_ranges {
	struct mm_node_range r[NUMA_MAX_RANGES];
};

/* Count every page of @topo's ranges in @mm against @base and the pages
 * memtest kept out (@mis's engine); false if any is lost. @when names the
 * count in its record ("boot", a self-test's name, "end"). */
bool init_census(const struct numa_topology *topo, const struct memmap *mm,
		 const struct census_baseline *base, const struct meminit_state *mis,
		 struct census_ranges *ranges, const char *when);

#endif

/*
 * meminit.h: page descriptors for every node, filled by the node's own CPUs,
 * and the buddy allocator handed all free memory (phases "memmap" and
 * "meminit"); then the census that accounts for every page.
 *
 * Policies (memboot.init=):
 *   serial    the boot CPU fills and frees everything (the baseline);
 *   deferred  the boot CPU fills what must exist before any parallel work
 *             (reserved ranges, the hole markers) and a first section of
 *             its node's free memory (memboot.early_pages), growing that on
 *             demand if early allocations outgrow it; then each node's CPUs
 *             fill and free the rest in parallel (the default);
 *   lazy      like deferred, but only the head descriptor of each max-order
 *             block is written; a block's other descriptors are written when
 *             it is first split.
 * Threads per node (memboot.init_threads=): 1, node (all of the node's CPUs,
 * the default), all (every CPU on each node in turn), or a number.
 */
#ifndef MEMBOOT_KERNEL_MEMINIT_H
#define MEMBOOT_KERNEL_MEMINIT_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/memmap.h"

struct numa_topology;
struct physmem;


struct hugetlb_pools;

/* Phase "memmap": fill @mm with one descriptor array per node of @topo,
 * each in its own node's memory, taken from @pm. */
void meminit_arrays(const struct numa_topology *topo, struct physmem *pm, struct memmap *mm);
/*
 * What the census counts as fixed besides the live page tables (which the
 * vm layer counts, vm_table_pages()): the pages physmem kept reserved when
 * it retired, less the 1 GiB pool pages among them (PAGE_HUGE heads in the
 * census, not reserved pages). Filled by meminit_prepare(), held in the boot
 * state (kernel/init/main.c).
 */
struct census_baseline {
	uint64_t retired_reserved_pages;
	uint64_t gigantic_pages;
	/* Reserved as known-bad memory (memmap=nn$ss, memboot.badram=): PAGE_BAD
	 * heads in the census, not reserved pages. */
	uint64_t badram_pages;
};

/* Phase "memprep": start the allocator over @mm, reserve the per-CPU
 * lists' memory, take @pm's free ranges as the init engine's work (@pm
 * retires, and what it keeps reserved is @base) and write the fixed
 * descriptors (reserved pages, holes; the 1 GiB pool pages of @hp get
 * their heads). Everything the nodes' CPUs need before their first chunk,
 * done while an AP still measures the clock (phase clockcheck). */
void meminit_prepare(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		     struct physmem *pm, struct memmap *mm, struct census_baseline *base);
/* Phase "meminit": the nodes' CPUs fill the rest of @mm's descriptors and
 * hand the free memory to the allocator. After meminit_prepare() of @mm;
 * it ends when memory is usable, and reports nothing. */
void meminit_run(const struct memmap *mm);
/* What meminit_run() did, after the TSC check (phase tscsync, whose offsets
 * it applies to the APs' chunk times): each node's init and the boot's
 * usable_ns (the summary), the allocator, @pm's retired reservations. */
void meminit_report(const struct numa_topology *topo, struct physmem *pm);
/* Count every page of @topo's ranges in @mm against @base; false if any
 * is lost. */
bool census_run(const struct numa_topology *topo, const struct memmap *mm,
		const struct census_baseline *base, const char *when);

#endif

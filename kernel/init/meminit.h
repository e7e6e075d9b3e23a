/*
 * meminit.h: phase `meminit`, every free page's descriptor filled by its
 * node's own CPUs and the page allocator (mm/alloc/alloc.h) handed all
 * free memory; and its report, made after the counter check (phase tscsync).
 * Phase memprep (memprep.h) sets up the work first.
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
#ifndef MEMBOOT_KERNEL_INIT_MEMINIT_H
#define MEMBOOT_KERNEL_INIT_MEMINIT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/limits.h"
#include "mm/meminit_settings.h"
#include "mm/memmap.h"
#include "mm/memtest_run.h"
#include "mm/mminit.h"

struct alloc_ops;
struct numa_topology;
struct physmem;

/*
 * Lazy: what the first allocations pay for descriptors not yet written.
 * Measured right after the init, before anything is printed: a mix of
 * order-0 allocations (which split lazy blocks, writing a few heads) and
 * 2 MiB ones (which also write their 511 tails).
 */
struct lazy_stats {                /* counter cycles: converted when reported */
	uint64_t first_alloc_cycles;  /* end of init to the first page in hand */
	uint32_t allocs, fill_allocs;
	uint64_t fill_cycles, fill_max_cycles, plain_cycles, filled_pages;
};

/*
 * Memory init's state, in the boot state: set up by phase memprep, run by
 * phase meminit, reported after phase tscsync, read by every census (the
 * pages memtest kept out).
 */
struct meminit_state {
	struct mminit mi;                         /* the init engine's work and figures */
	/* Each node's initialising node (struct numa_node's init_node): the
	 * engine's config points here. */
	uint32_t init_nodes[MEMBOOT_MAX_NODES];
	const struct alloc_ops *ops;              /* the allocator memprep started */
	/* Phase meminit's start: what usable_ns counts from. */
	uint64_t phase_start_counter;
	bool ran;                                 /* init_meminit() is done */
	uint64_t early_alloc_made;                /* memboot.early_alloc_pages: how many were made */
	struct lazy_stats lazy;                   /* memboot.init=lazy's first allocations */
	struct memtest_state memtest;             /* memtest=N (mm/memtest_run.h) */
};

/* Phase "meminit": the nodes' CPUs fill the rest of @mm's descriptors and
 * hand the free memory to the allocator, as @set asks. After
 * init_memprep() of @mm into @st; it ends when memory is usable, and
 * reports nothing. */
void init_meminit(const struct meminit_settings *set, const struct memmap *mm,
		  struct meminit_state *st);
/* What init_meminit() did, after the counter check (phase tscsync, whose
 * offsets it applies to the APs' chunk times): each node's init (@desc[node]:
 * its descriptor array's figures, phase memmap's) and the boot's usable_ns
 * (the summary), the allocator, @pm's retired reservations, memtest's
 * findings against the store @probe (phase memmap's). */
void init_meminit_report(const struct numa_topology *topo, const struct meminit_settings *set,
			 const struct physmem *pm, const struct memmap_probe_result *probe,
			 const struct memmap_sparse_stats *desc, struct meminit_state *st);

#endif

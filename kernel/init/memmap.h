/*
 * memmap.h: phase `memmap`, one page descriptor array per node (mm/memmap.h),
 * each in its own node's memory, and the store probe that chooses how the
 * arrays larger than the LLC are written.
 */
#ifndef MEMBOOT_KERNEL_INIT_MEMMAP_H
#define MEMBOOT_KERNEL_INIT_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/memmap.h"
#include "mm/numa.h"

struct physmem;

/*
 * Phase memmap's records (a memmap_piece per mapped piece of a window, the
 * store_probe, a memmap per node) are made when the consoles drain, in
 * their place (console_defer(): kernel/init/phase.c says why), from what
 * is kept in struct memmap_state. Past MEMMAP_PIECES_LATE pieces a piece's
 * record is made at once (before the others, then).
 */
#define MEMMAP_PIECES_LATE 1024
struct memmap_piece {
	uint32_t nid;
	uint64_t phys, bytes, virt;
};

/* What phase memmap keeps for its report and for phase meminit's (each
 * node's descriptor bytes, the probe's rate), in the boot state. */
struct memmap_state {
	const struct numa_topology *topo;   /* the report's */
	struct memmap *mm;                  /* the store choice reads it */
	struct memmap_piece pieces[MEMMAP_PIECES_LATE];
	uint32_t nr_pieces;
	struct memmap_sparse_stats stats[MEMMAP_MAX_NODES];   /* per node with memory */
	struct memmap_probe_result probe;
	/* The node being set up: its present ranges and the runs of its array
	 * (within one call; 16 KiB, too much for the boot CPU's stack). */
	struct memmap_range present[NUMA_MAX_RANGES], runs[NUMA_MAX_RANGES];
};

/* Phase "memmap": fill @mm with one descriptor array per node of @topo,
 * each in its own node's memory, taken from @pm; @ms keeps what its report
 * (made when the consoles drain) and phase meminit's read. */
void init_memmap(const struct numa_topology *topo, struct physmem *pm, struct memmap *mm,
		 struct memmap_state *ms);

#endif

/*
 * memtest_run.h: the memory test run inside memory init (memtest=N;
 * mm/memtest.h has the passes and the keys): the init engine's test hook
 * (mm/mminit.h, struct mminit_test), which each node's CPUs call on the
 * pieces they initialise through the job runner, and what it found,
 * reported per node. Phase memprep sets it up (memtest_run_hook()), the
 * nodes' CPUs run it inside phase meminit, its report is part of
 * init_meminit_report(). Its state is struct memtest_state, the caller's
 * (the boot state's struct meminit_state). (The known-bad ranges of the
 * command line are reserved by phase physmem.)
 */
#ifndef MEMBOOT_MM_MEMTEST_RUN_H
#define MEMBOOT_MM_MEMTEST_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/spinlock.h"
#include "mm/memmap.h"
#include "mm/memtest.h"
#include "mm/mminit.h"

struct numa_topology;
struct physmem;

/* Bad ranges kept for their lines, over all nodes (a table per node would
 * cost every boot its .bss for 256 nodes); more are counted per node. */
#define MEMTEST_RANGES_KEPT 64

/* A run of consecutive bad words of one pass. */
struct memtest_bad_range {
	uint32_t node;
	uint64_t start, end;     /* bytes, [start, end) */
	uint64_t pattern;        /* written */
	uint64_t read;           /* the first word as read */
	uint64_t bits;           /* bits that differed in any of its words */
};

/* One node's figures, added to by every CPU that tests a piece of it. */
struct memtest_node {
	volatile uint64_t bytes;             /* tested (each byte once, whatever the passes) */
	volatile uint64_t errors;            /* words that read back wrong, over all passes */
	volatile uint64_t busy_ticks;        /* summed over the CPUs testing */
	volatile uint64_t first_ticks, end_ticks;
	volatile uint64_t nr_ranges;         /* bad ranges found */
	volatile uint64_t ranges_cut;        /* of those, not kept for a line */
	uint64_t total_bytes;                /* the node's free memory: what 100 % is */
	volatile uint64_t progress_ticks;    /* the last progress line (0: none yet) */
};

/* The test's state: shared with the nodes' CPUs during meminit's jobs,
 * which reach it through the hook's context. */
struct memtest_state {
	const struct memtest_settings *settings;
	struct mminit_test hook;             /* ctx: this state */
	enum memtest_store store;
	struct {
		struct spinlock lock;
		struct memtest_bad_range r[MEMTEST_RANGES_KEPT];
		uint32_t nr;
	} bad_ranges;
	struct memtest_node nodes[MEMMAP_MAX_NODES];
	volatile uint8_t fault_hit[MEMTEST_MAX_FAULTS];
};

/* The init engine's test hook (mm/mminit.h) when @set asks for one
 * (memtest=N), kept in @mt, else NULL. The store is the one memory init
 * uses for cold memory of @mm (memmap_store_for_cold()). */
const struct mminit_test *memtest_run_hook(struct memtest_state *mt,
					   const struct memtest_settings *set,
					   const struct memmap *mm);
/* Node @node's free memory, @bytes: what its progress lines count to. */
void memtest_run_node_total(struct memtest_state *mt, uint32_t node, uint64_t bytes);
/* After memory init: a line per bad range, a memtest record and summary
 * line per node tested (@bad_pages[node]: the pages the engine kept out);
 * @probe_bytes over @probe_ns is the store probe's rate (0: none ran),
 * measured on node @probe_node. Nothing without a hook. */
void memtest_run_report(const struct memtest_state *mt, const struct numa_topology *topo,
			const uint64_t *bad_pages, uint64_t probe_bytes, uint64_t probe_ns,
			uint32_t probe_node);

/*
 * Reserve the ranges @mt names bad (PHYSMEM_RESV_BADRAM), in order, each
 * page-rounded outward, with a line each. A range that would leave the
 * kernel too little free memory for its own tables (below the page tables'
 * limit, and for the page descriptors) is not kept out: a warning says how
 * much would be left and how much is needed. Returns the ranges kept out
 * that held free memory.
 */
uint32_t memtest_keep_out_badram(const struct memtest_settings *mt, struct physmem *pm);

#endif

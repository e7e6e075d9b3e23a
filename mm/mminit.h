/*
 * mminit.h: the init-policy engine: fill every node's page descriptors and
 * hand its free memory to the page allocator (mm/alloc/alloc.h), on the node's own
 * CPUs, under one of three policies.
 *
 * Policies:
 *   serial    the calling CPU fills and frees everything (the baseline);
 *   deferred  the caller fills a first section of its own node's free
 *             memory (early_pages), growing that on demand when an
 *             allocation finds nothing free (the alloc seam's grow hook);
 *             then each node's CPUs fill and free the rest in parallel;
 *   lazy      like deferred, but only the head descriptor of each max-order
 *             block is written; the allocator writes the tails of a block
 *             when it is handed out.
 * Threads per node: max_threads (0: all of the node's CPUs), or all_cpus
 * (every CPU works on each node in turn).
 *
 * Use: mminit_start(), mminit_add_free() for each free range, the fixed
 * descriptors (mminit_write_fixed for reserved ranges, mminit_mark_holes)
 * before any free, then mminit_run(). The allocator must have been started
 * (alloc_init) over the same memmap. Chunks of the parallel part are cut at
 * multiples of ALLOC_MAX_ORDER_PAGES, so init-then-free per chunk needs no
 * barrier: a merge reads outside its chunk only fixed descriptors, which
 * are written first.
 */
#ifndef MEMBOOT_MM_INIT_H
#define MEMBOOT_MM_INIT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/spinlock.h"
#include "mm/memmap.h"
#include "mm/page.h"

#define MMINIT_MAX_RANGES 256        /* free ranges per node */
#define MMINIT_TRACE_CHUNKS 256      /* chunk timings kept per node */
#define MMINIT_GROW_PAGES 32768ULL   /* one 128 MiB section, as Linux grows */
#define MMINIT_MIN_CHUNK_PAGES 32768ULL   /* a chunk worth a thread: 128 MiB */

enum mminit_policy { MMINIT_SERIAL, MMINIT_DEFERRED, MMINIT_LAZY };

/* Bad pages one piece's test can name; past that the rest of the piece is
 * taken as bad (a DIMM failing that widely has nothing worth keeping). */
#define MMINIT_TEST_BAD_MAX 64

/*
 * Optional: test each piece of free memory before its pages go to the
 * allocator (the memory test, mm/memtest.h), on the CPU that initialises
 * the piece: under every policy the last thing before the free, so lazy
 * and deferred memory is tested before it is handed over, the boot CPU's
 * early section and on-demand growth included. run() tests [start_pfn,
 * end_pfn) of @node and fills @bad with the bad pages, ascending and
 * distinct, at most MMINIT_TEST_BAD_MAX; it returns how many it found (more
 * than that: every page from bad[MMINIT_TEST_BAD_MAX - 1] to the end of
 * the piece is taken as bad). Bad pages get PAGE_BAD descriptors and are
 * never freed.
 */
struct mminit_test {
	uint32_t (*run)(void *ctx, uint32_t node, uint64_t start_pfn, uint64_t end_pfn,
			uint64_t *bad);
	void *ctx;
};

struct mminit_config {
	enum mminit_policy policy;
	uint32_t max_threads;        /* per node; 0: all of its CPUs */
	bool all_cpus;               /* every CPU on each node in turn */
	uint64_t early_pages;        /* deferred/lazy: the caller's first section */
	uint32_t boot_node;          /* the node whose memory the caller fills first */
	bool trace;                  /* keep per-chunk timings */
	/* Per node, the node whose CPUs run its parallel part (a CPU-less
	 * node's nearest); NULL: each node's own. */
	const uint32_t *cpu_node;
	const struct mminit_test *test;   /* NULL: no memory test */
	/* A node CPU that makes no progress in the middle of its chunk for this
	 * long is counted lost and its unclaimed 4 MiB steps are done by the
	 * node's other CPUs (kernel/services/jobs/job.h; 0: never). */
	uint64_t deadline_ns;
};

/* One node's work and what it cost. */
struct mminit_node {
	struct memmap_range todo[MMINIT_MAX_RANGES];   /* free memory not yet handed over */
	uint32_t nr_todo;
	/* The parallel job's units: todo packed (mm/memmap.h, "parallel work
	 * over present memory"), so holes in the span cost no chunk. */
	struct memmap_range seg[MMINIT_MAX_RANGES];
	uint32_t nr_seg;
	uint64_t free_pages;         /* all free pages of the node */
	uint64_t early_pages;        /* filled by the caller before the parallel part */
	uint64_t parallel_pages;     /* filled by the node's CPUs */
	volatile uint64_t bad_pages; /* of those and the early ones: PAGE_BAD, never freed */
	uint32_t threads;            /* CPUs that ran at least one chunk */
	uint32_t cpus;               /* CPUs offered the node's job */
	bool caller_offered;         /* the caller helped (its node, or a CPU-less one) */
	uint64_t early_ns;           /* the caller's first section (its node only) */
	uint64_t early_ticks;        /* the same in ticks (also with no pages in it) */
	uint64_t early_start_ticks, early_end_ticks;   /* that section (0: none) */
	uint64_t start_ticks, end_ticks;   /* first chunk's start, last chunk's end */
	uint64_t ns;                 /* the parallel part (serial: the caller's work) */
	uint32_t nr_chunks;
	/* Always kept (not only with cfg.trace): they say which CPU did what.
	 * start/end are pfns (the job's packed units, converted back). */
	struct job_chunk_time chunks[MMINIT_TRACE_CHUNKS];
	/* Each chunk's claim word and progress (kernel/services/jobs/job.h): a chunk is freed
	 * to the allocator 4 MiB step by step, each step claimed once, so a
	 * CPU lost mid-chunk leaves steps others can finish without freeing
	 * any block twice (a free is not repeatable). */
	struct job_chunk_state chunk_states[MMINIT_TRACE_CHUNKS];
	/* The node's parallel part as posted to the job runner (job.fn NULL:
	 * none), its state while it runs, and the argument of its chunks:
	 * here, in the caller's memory, since the jobs outlive no call of
	 * mminit_run() but are too large for a stack. */
	struct job job;
	struct job_state job_state;
	struct mminit_chunk_arg {
		struct mminit *mi;
		uint32_t node;
	} chunk_arg;
};

struct mminit {
	const struct memmap *mm;
	uint32_t nr_nodes;
	struct mminit_config cfg;
	struct spinlock grow_lock;
	uint64_t grows;
	/* nr_nodes entries, the caller's memory: sized by the machine's nodes,
	 * not by MEMMAP_MAX_NODES (256 nodes of it would be 4 MiB). */
	struct mminit_node *nodes;
};

/* Empty work for @nr_nodes nodes of @mm under @cfg, kept in @nodes
 * (@nr_nodes entries; cleared here). */
void mminit_start(struct mminit *mi, struct mminit_node *nodes, const struct memmap *mm,
		  uint32_t nr_nodes, const struct mminit_config *cfg);
/* Free memory [start_pfn, end_pfn) of @node, in address order. False (and
 * an error naming the node) when the node has MMINIT_MAX_RANGES already:
 * that memory stays unused. */
bool mminit_add_free(struct mminit *mi, uint32_t node, uint64_t start_pfn, uint64_t end_pfn);
/* Write every descriptor of the reserved [start_pfn, end_pfn) of @node as
 * @type, on each side of the 4 GiB line. */
void mminit_write_fixed(const struct mminit *mi, uint32_t node, uint64_t start_pfn,
			uint64_t end_pfn, enum page_type type);
/* Mark the holes of @node's span between its present ranges (sorted). */
void mminit_mark_holes(const struct mminit *mi, uint32_t node, const struct memmap_range *present,
		       uint32_t nr_present);
/* Fill and free everything added. Deferred and lazy: @before_parallel (may
 * be NULL) runs after the caller's first section, while on-demand growth is
 * possible, before the parallel part (a place for early allocations). */
void mminit_run(struct mminit *mi, void (*before_parallel)(void *ctx), void *ctx);

/*
 * When a node's free memory became usable, measured from @phase_start_ticks
 * (the start of the phase that called mminit_run): its first piece of work
 * (the boot CPU's early section, or the first chunk of the parallel part;
 * serial: the caller's work) and the end of its last (the last chunk's end:
 * with lazy, when the heads are in). wait = first - phase start (the node's
 * CPUs not yet working), work = end - first; usable = wait + work. All in
 * platform ticks; zero when the node had nothing to do.
 */
struct mminit_usable {
	uint64_t first_ticks, end_ticks;
	uint64_t wait_ticks, work_ticks, usable_ticks;
};
void mminit_node_usable(const struct mminit_node *w, uint64_t phase_start_ticks,
			struct mminit_usable *out);

/*
 * Make every time figure of the work final, after it ran: the per-CPU clock
 * corrections learned since (the per-CPU counter check runs once memory
 * is usable: @offset_of(cpu, @ctx) is how far that CPU's ticks are ahead of
 * the caller's clock) and the tick rate in force now (the work may have run
 * on a quick estimate of it: every ns figure is converted again from its
 * ticks). Each kept chunk's times move into the caller's clock; each node's
 * first start and last end are recomputed from its chunks where one moved.
 * Returns the nodes with a moved chunk whose chunks were not all kept (more
 * than MMINIT_TRACE_CHUNKS): their first and end stay as measured (0: every
 * figure exact).
 */
uint32_t mminit_retime(struct mminit *mi, int64_t (*offset_of)(uint32_t cpu, void *ctx),
		       void *ctx);

/* Pages handed to the allocator on @node so far. */
static inline uint64_t mminit_done_pages(const struct mminit *mi, uint32_t node)
{
	return mi->nodes[node].early_pages + mi->nodes[node].parallel_pages;
}

#endif

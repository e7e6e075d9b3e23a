/*
 * memmap.h: per-node page descriptor arrays and the routines that fill them.
 *
 * Overview
 *  Each node has one array of struct page (mm/page.h) covering its span
 *  [base_pfn, base_pfn + nr_pages), from its first usable page to its last,
 *  allocated from the node's own memory (physmem_alloc(..., node, exact,
 *  "memmap")). A descriptor is found from a pfn in O(1): the global
 *  nid_of_2m table gives the node of each 2 MiB granule, the node's
 *  array gives the descriptor (memmap_pfn_to_page: two dependent loads).
 *  Links in descriptors are node-relative indices, so 32 bits address a
 *  node of 2^32 pages (16 TiB).
 *
 * Filling (every routine works on a chunk [start_pfn, end_pfn) of one node
 * and may run on any CPU at the same time as the others, on other chunks:
 * two chunks never share a descriptor. They are shaped for the job runner,
 * fn(arg, start_pfn, end_pfn)):
 *  memmap_init_range()  writes every descriptor of the chunk (the eager
 *                       policies' hot loop: a 16-byte template stored in a
 *                       tight loop; see "Plain or streaming stores");
 *  memmap_init_heads()  writes only the head of each naturally aligned block
 *                       of up to 2^max_order pages, flagged
 *                       PAGE_F_LAZY_UNINIT when it has tails (the lazy
 *                       policy); memmap_lazy_fill() writes the tails later,
 *                       when the block (or a part of it) is allocated;
 *  memmap_mark_hole()   writes PAGE_HOLE only at the few descriptors of a
 *                       hole that a buddy merge can read (see below).
 *
 * What must be written before the page allocator runs on a node
 *  The buddy allocator (the default behind the seam) reads a descriptor it
 *  did not write only when it looks at the buddy of a block being freed:
 *  the head of an aligned block of order < max_order next to it. So, over
 *  the zone's span, every pfn must be one of: written by
 *  memmap_init_range(); inside a block whose head
 *  memmap_init_heads() wrote (its tails are never buddy heads of a block
 *  outside it); inside a naturally aligned huge page whose head says
 *  PAGE_HUGE; or inside a hole passed to memmap_mark_hole(). Descriptors left
 *  unwritten read as garbage, never as PAGE_UNINIT: the census
 *  (memmap_count_types) is only ever given ranges the caller initialised.
 *  Parallel init followed by a parallel free is safe per chunk when chunk
 *  boundaries are multiples of 2^max_order (no merge leaves a max-order
 *  block); with other boundaries, finish the init of the whole range before
 *  any chunk frees (a merge may read the next chunk).
 *
 * Plain or streaming stores
 *  A descriptor array is far larger than the caches and is written once.
 *  Ordinary stores may pay a read of each cache line before writing it (the
 *  read-for-ownership); non-temporal stores never do, but bypass the cache,
 *  and block zeroing (where the architecture has it) claims a whole block
 *  without reading it. The kinds an architecture offers are arch/memory.h's
 *  (enum arch_store_kind). On the machine this project is measured on (AMD
 *  EPYC, docs/results.md) plain and non-temporal stores are within the
 *  noise of each other, both at about the rate one core issues 8-byte
 *  stores. memmap_init_range() uses the node's store (plain for an array
 *  that fits the last-level cache, which also leaves the chunk's last lines
 *  in the cache for the buddy_free_range() that follows);
 *  memmap_init_range_store() lets the caller choose.
 */
#ifndef MEMBOOT_MM_MEMMAP_H
#define MEMBOOT_MM_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/memory.h"
#include "kernel/services/limits.h"
#include "kernel/services/panic.h"
#include "mm/page.h"

#define MEMMAP_MAX_NODES MEMBOOT_MAX_NODES
#define MEMMAP_NO_NODE 0xffffffffu   /* memmap_nid_of_pfn(): not in any node */

/* The node table: one byte per 2 MiB granule of physical memory. */
#define MEMMAP_NID_SHIFT 9           /* pages per granule: 2^9 (2 MiB) */
/* An entry of the node table: 16 bits, so that every node id below
 * MEMMAP_MAX_NODES (up to 65534) fits beside the two markers. */
typedef uint16_t memmap_nid_t;
#define MEMMAP_NID_NONE 0xffffu      /* granule holds no node's memory */
#define MEMMAP_NID_MIXED 0xfffeu     /* granule shared by two nodes: look at spans */

/* How memmap_init_range_store() writes: one of the store kinds of
 * arch/memory.h, which this architecture must offer
 * (arch_store_offered()), or the node's own. */
enum memmap_store {
	MEMMAP_STORE_PLAIN = ARCH_STORE_PLAIN,   /* ordinary stores */
	MEMMAP_STORE_NT = ARCH_STORE_NT,         /* non-temporal stores, then a store fence */
	MEMMAP_STORE_ZERO = ARCH_STORE_ZERO,     /* whole blocks zeroed, the rest plain, a fence */
	MEMMAP_STORE_AUTO = ARCH_STORE_NR_KINDS, /* the node's: memmap_store_choose() for its array */
};
#define MEMMAP_STORE_KINDS MEMMAP_STORE_AUTO   /* the kinds: PLAIN up to AUTO */

/* True when @how is a kind this architecture offers (AUTO is not one). */
static inline bool memmap_store_offered(enum memmap_store how)
{
	return arch_store_offered((enum arch_store_kind)how);
}

/*
 * One node's descriptor array.
 * Invariants: pages != NULL, aligned to MEMMAP_DESC_BYTES;
 * 0 < nr_pages < MEMMAP_NONE (node-relative indices fit 32 bits with one
 * value left for "none"); base_pfn + nr_pages does not overflow;
 * nid < MEMMAP_MAX_NODES. pages[i] describes pfn base_pfn + i.
 */
struct memmap_node {
	struct page *pages;
	uint64_t base_pfn;
	uint64_t nr_pages;           /* the span, holes included */
	uint64_t present_pages;      /* pages with backed descriptors (sparse), else nr_pages */
	uint32_t nid;
	/* What MEMMAP_STORE_AUTO means for this array: the cold store
	 * (memmap_store_default_cold()) from memmap_node_init(),
	 * memmap_node_choose_store() for known caches. */
	enum memmap_store store;
};

/*
 * All nodes and the pfn -> node table.
 * Invariants: nodes[i].nr_pages == 0 for a node with no array, else
 * nodes[i].nid == i; nr_nodes <= MEMMAP_MAX_NODES and every node id in use
 * is < nr_nodes; nid_of_2m has (max_pfn + 511) >> 9 entries, each a node id
 * < nr_nodes, MEMMAP_NID_NONE or MEMMAP_NID_MIXED; pfns >= max_pfn have no
 * node.
 */
struct memmap {
	struct memmap_node nodes[MEMMAP_MAX_NODES];
	uint32_t nr_nodes;
	memmap_nid_t *nid_of_2m;
	uint64_t max_pfn;
	/* The store the probe measured for arrays larger than the LLC
	 * (memmap_store_set()); MEMMAP_STORE_AUTO: none measured. Written
	 * once, before memory init's CPUs start; read by all of them. */
	enum memmap_store cold_store;
};

/* A range of pfns, [start_pfn, end_pfn). */
struct memmap_range {
	uint64_t start_pfn;
	uint64_t end_pfn;
};

/* A range of pfns on a node: how mm/ is told where memory is, whatever
 * firmware table it came from. */
struct mm_node_range {
	uint64_t start_pfn;
	uint64_t end_pfn;
	uint32_t node;
};


/* ---- arrays and lookups ---- */

/* Bytes of descriptors for @nr_pages pages. */
static inline uint64_t memmap_desc_bytes(uint64_t nr_pages)
{
	return nr_pages * sizeof(struct page);
}

/* Set up @n for the span [base_pfn, base_pfn + nr_pages) with the array
 * @pages (memmap_desc_bytes(nr_pages) bytes). Writes no descriptor. */
void memmap_node_init(struct memmap_node *n, uint32_t nid, uint64_t base_pfn,
		      uint64_t nr_pages, struct page *pages);

static inline bool memmap_in_span(const struct memmap_node *n, uint64_t pfn)
{
	return pfn - n->base_pfn < n->nr_pages;   /* unsigned: pfn < base wraps */
}

/* Descriptor of @pfn, which must be in the node's span. */
static inline struct page *memmap_page(const struct memmap_node *n, uint64_t pfn)
{
	DEBUG_ASSERT(memmap_in_span(n, pfn), "pfn %#llx outside node %u",
		     (unsigned long long)pfn, n->nid);
	return &n->pages[pfn - n->base_pfn];
}

/* Pfn of a descriptor of this node's array. */
static inline uint64_t memmap_pfn(const struct memmap_node *n, const struct page *p)
{
	DEBUG_ASSERT(p >= n->pages && (uint64_t)(p - n->pages) < n->nr_pages,
		     "descriptor %p not in node %u", (const void *)p, n->nid);
	return n->base_pfn + (uint64_t)(p - n->pages);
}

/* Node-relative index (the value stored in links) <-> pfn. */
static inline uint32_t memmap_index(const struct memmap_node *n, uint64_t pfn)
{
	DEBUG_ASSERT(memmap_in_span(n, pfn), "pfn %#llx outside node %u",
		     (unsigned long long)pfn, n->nid);
	return (uint32_t)(pfn - n->base_pfn);
}

static inline uint64_t memmap_index_pfn(const struct memmap_node *n, uint32_t index)
{
	return n->base_pfn + index;
}

/*
 * ---- sparse storage: descriptors only for present memory ----
 *
 * A node's span can hold large holes (the PCI hole below 4 GiB, AMD's hole
 * below 1 TiB, other nodes' memory interleaved in the physical map). The
 * array stays one virtually contiguous array indexed by node-relative page
 * number, so every lookup above is unchanged, but only the parts of it that
 * describe present memory are backed by memory (the kernel maps them into a
 * window of its address space reserved for the node; the host tests reserve
 * the window with mmap and back the same parts). A descriptor in an unbacked
 * part is never read: the page allocator reads a descriptor it did not write
 * only inside the naturally aligned block of 2^max_order pages around a
 * present page (a buddy of order < max_order lies in the same such block), so
 * rounding every present range out to those blocks covers every read. This is
 * Linux's SPARSEMEM_VMEMMAP with the block, not a 128 MiB section, as the
 * unit: the overhead is at most one block's descriptors at each end of a
 * range, however large the holes.
 */

/* Bytes of descriptor memory mapped in one piece (one 4 KiB page). */
#define MEMMAP_BACKING_ALIGN_BYTES 4096ULL

/*
 * The runs of a node's array that must be backed, as pfn ranges: each of the
 * node's @nr present ranges (sorted, disjoint, inside [span_start_pfn,
 * span_end_pfn)) rounded out to whole aligned blocks of 2^@max_order pages and
 * to whole MEMMAP_BACKING_ALIGN_BYTES of descriptors, clamped to the span,
 * overlapping or touching runs merged. Writes at most @cap runs to @runs and
 * returns how many there are (more than @cap: the caller's array is too
 * small; nothing past @cap is written).
 */
uint32_t memmap_backing_runs(const struct memmap_range *present, uint32_t nr,
			     uint64_t span_start_pfn, uint64_t span_end_pfn, unsigned max_order,
			     struct memmap_range *runs, uint32_t cap);

/* Byte offsets in the node's array of the run [start_pfn, end_pfn) of a node
 * whose span starts at @span_start_pfn: [*off_start, *off_end). */
static inline void memmap_run_bytes(uint64_t span_start_pfn, const struct memmap_range *run,
				    uint64_t *off_start, uint64_t *off_end)
{
	*off_start = memmap_desc_bytes(run->start_pfn - span_start_pfn);
	*off_end = memmap_desc_bytes(run->end_pfn - span_start_pfn);
}

/* Where a sparse array's backing comes from: supplied by the kernel (physmem
 * and its page tables) or by a host test (mmap). */
struct memmap_sparse_ops {
	/* @bytes of memory aligned to @align for node @nid's descriptors, from
	 * that node if it can, else from any node; 0 if none anywhere. */
	uint64_t (*alloc)(void *ctx, uint64_t bytes, uint64_t align, uint32_t nid);
	/* Back [virt, virt + bytes) with [phys, phys + bytes), read-write;
	 * bytes and both addresses are multiples of 4 KiB; where both are
	 * 2 MiB aligned the mapper may use 2 MiB pages. */
	bool (*map)(void *ctx, uint64_t virt, uint64_t phys, uint64_t bytes);
	void *ctx;
};

struct memmap_sparse_stats {
	uint64_t present_pages;      /* pages of the present ranges */
	uint64_t backed_bytes;       /* descriptor memory allocated and mapped */
	uint32_t runs;               /* runs of the array backed */
	uint32_t pieces;             /* allocations made (up to three a run) */
};

/*
 * Set up @n (as memmap_node_init) for the span [base_pfn, base_pfn + nr_pages)
 * with its array at @window, a reserved, unbacked range of virtual addresses
 * of memmap_desc_bytes(nr_pages) bytes (rounded up to 4 KiB), and back the
 * runs memmap_backing_runs() gives for the @nr_present present ranges.
 * Each run is allocated in up to three pieces so that its middle can be
 * mapped with 2 MiB pages: 4 KiB-aligned head and tail, 2 MiB-aligned middle.
 * @runs (@cap entries) is scratch space. Returns false, with what was done
 * so far left in place, when a run does not fit in @runs or memory or a
 * mapping cannot be had.
 */
bool memmap_node_init_sparse(struct memmap_node *n, uint32_t nid, uint64_t base_pfn,
			     uint64_t nr_pages, void *window, const struct memmap_range *present,
			     uint32_t nr_present, unsigned max_order,
			     const struct memmap_sparse_ops *ops, struct memmap_range *runs,
			     uint32_t cap, struct memmap_sparse_stats *st);

/*
 * ---- parallel work over present memory only ----
 *
 * A job over a node's span would cut the holes into chunks too: node 0 of a
 * 1 TiB guest spans 1.12 TiB for 128 GiB of memory, so most chunks would be
 * empty and the memory would fall to a few threads. Instead a job runs over
 * "packed" units: the node's ranges, each rounded out to aligned blocks of
 * 2^order pages, laid end to end. Ranges whose blocks touch become one
 * segment, so an aligned block is never split between two segments, and a
 * packed offset that is a multiple of 2^order is a pfn that is one: chunks
 * cut at such multiples keep every block in one chunk, exactly as chunks of
 * the span did.
 */

/* Merge @nr sorted disjoint ranges, rounded out to 2^@order blocks, into
 * segments (at most @nr, written to @seg). Returns how many. */
uint32_t memmap_pack_segments(const struct memmap_range *ranges, uint32_t nr, unsigned order,
			      struct memmap_range *seg);

/* Packed units of @nseg segments. */
uint64_t memmap_packed_pages(const struct memmap_range *seg, uint32_t nseg);

/* Call fn(arg, s_pfn, e_pfn) for the pfn ranges of the packed units [s, e),
 * in order. */
void memmap_packed_for_each(const struct memmap_range *seg, uint32_t nseg, uint64_t s,
			    uint64_t e, void (*fn)(void *arg, uint64_t s_pfn, uint64_t e_pfn),
			    void *arg);

/* The pfn of packed unit @off (@off < memmap_packed_pages()). */
uint64_t memmap_packed_pfn(const struct memmap_range *seg, uint32_t nseg, uint64_t off);

/* Bytes of the pfn -> node table for pfns [0, max_pfn). */
static inline uint64_t memmap_nid_table_bytes(uint64_t max_pfn)
{
	return ((max_pfn + (1u << MEMMAP_NID_SHIFT) - 1) >> MEMMAP_NID_SHIFT) * sizeof(memmap_nid_t);
}

/* Empty: no nodes; @nid_table (memmap_nid_table_bytes(max_pfn) bytes) is
 * filled with MEMMAP_NID_NONE. */
void memmap_init(struct memmap *mm, memmap_nid_t *nid_table, uint64_t max_pfn);

/* Register a node's array (copied into mm->nodes[n->nid]). The table is not
 * touched: call memmap_set_nid() for each usable range of the node. */
void memmap_add_node(struct memmap *mm, const struct memmap_node *n);

/* Record that the usable pages [start_pfn, end_pfn) (< max_pfn) are on
 * @nid. A granule already given to another node becomes MEMMAP_NID_MIXED. */
void memmap_set_nid(struct memmap *mm, uint64_t start_pfn, uint64_t end_pfn, uint32_t nid);

/* Slow path of memmap_nid_of_pfn() for a mixed granule: the first node whose
 * span holds @pfn (exact unless two nodes' spans overlap at a node edge that
 * is not 2 MiB aligned). */
uint32_t memmap_nid_of_pfn_mixed(const struct memmap *mm, uint64_t pfn);

/* Node of @pfn, or MEMMAP_NO_NODE. One load for a granule of one node. */
static inline uint32_t memmap_nid_of_pfn(const struct memmap *mm, uint64_t pfn)
{
	memmap_nid_t nid;

	if (pfn >= mm->max_pfn)
		return MEMMAP_NO_NODE;
	nid = mm->nid_of_2m[pfn >> MEMMAP_NID_SHIFT];
	if (__builtin_expect(nid < MEMMAP_NID_MIXED, 1))
		return nid;
	return nid == MEMMAP_NID_NONE ? MEMMAP_NO_NODE : memmap_nid_of_pfn_mixed(mm, pfn);
}

/* Descriptor of @pfn, or NULL when no node's span holds it. Whether it was
 * initialised is the caller's knowledge (holes and huge-page insides are
 * not). */
static inline struct page *memmap_pfn_to_page(const struct memmap *mm, uint64_t pfn)
{
	uint32_t nid = memmap_nid_of_pfn(mm, pfn);
	const struct memmap_node *n;

	if (nid == MEMMAP_NO_NODE)
		return 0;
	n = &mm->nodes[nid];
	return memmap_in_span(n, pfn) ? &n->pages[pfn - n->base_pfn] : 0;
}

/* ---- blocks ---- */

/*
 * Order of the block starting at @pfn when [pfn, end_pfn) is cut into the
 * largest naturally aligned blocks of at most 2^max_order pages, low to
 * high: the most that @pfn's alignment, the room left and @max_order allow.
 * pfn < end_pfn.
 */
static inline unsigned memmap_block_order(uint64_t pfn, uint64_t end_pfn, unsigned max_order)
{
	unsigned order = max_order;
	uint64_t room = end_pfn - pfn;

	if (pfn && (unsigned)__builtin_ctzll(pfn) < order)
		order = (unsigned)__builtin_ctzll(pfn);
	if ((unsigned)(63 - __builtin_clzll(room)) < order)
		order = (unsigned)(63 - __builtin_clzll(room));
	return order;
}

/* Write a whole descriptor as a head: the given fields, links MEMMAP_NONE,
 * padding zero. */
static inline void memmap_write_head(struct page *p, unsigned type, unsigned order,
				     unsigned zone, unsigned flags, uint32_t word)
{
	*p = (struct page){
		.type = (uint8_t)type, .order = (uint8_t)order, .zone = (uint8_t)zone,
		.flags = (uint8_t)flags, .word = word,
		.next = MEMMAP_NONE, .prev = MEMMAP_NONE,
	};
}

/* ---- filling ---- */

/*
 * Write every descriptor of [start_pfn, end_pfn) (inside the node's span):
 * type @type, order 0, zone @zone, no flags, word 0, no links, padding 0.
 * For memory about to be freed to the page allocator use PAGE_RESERVED
 * (buddy_free_range() turns heads into PAGE_FREE). The stores are the
 * node's own (MEMMAP_STORE_AUTO: n->store, memmap_node_choose_store());
 * any kind but plain ends with a store fence (arch_fence_store()).
 */
void memmap_init_range(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
		       enum page_type type, enum page_zone zone);

/*
 * The store that fills an array of @array_bytes fastest on a CPU with
 * caches @c:
 * - an array that fits the last-level cache: plain stores, because the
 *   lines stay cached for the buddy pass that reads them right after;
 * - a larger one: the store for cold memory, memmap_store_for_cold(@mm):
 *   the one the probe measured, else the architecture's default
 *   (memmap_store_default_cold(): non-temporal stores, which write whole
 *   lines without first reading them, no read-for-ownership: half the
 *   memory traffic of plain stores to cold lines. Measured on AMD
 *   (docs/results.md) and reported on Intel at 1.0-1.1x the store limit,
 *   against 1.4-2.7x for plain stores).
 * An unknown LLC size (0, or no @c) counts as "larger"; no @mm, as no
 * measurement.
 */
enum memmap_store memmap_store_choose(const struct memmap *mm, uint64_t array_bytes,
				      const struct arch_caches *c);
/* The store an array too large for the LLC gets: the one measured for @mm
 * (memmap_store_set(); none with no @mm), else memmap_store_default_cold(). */
enum memmap_store memmap_store_for_cold(const struct memmap *mm);
/* The cold store before any measurement: the first of non-temporal stores,
 * block zeroing and plain stores that the architecture offers. */
enum memmap_store memmap_store_default_cold(void);

/*
 * Which store this CPU writes cold descriptors fastest with, measured, as
 * Linux times its xor routines at boot and keeps the fastest: every kind
 * the architecture offers (arch/memory.h) over the descriptors of
 * [start_pfn, end_pfn) of @n (part of an array about to be initialised
 * anyway: the probe writes them as PAGE_RESERVED, which memory init
 * overwrites), every line written once. First the whole range is flushed
 * out of the caches (@flush: every line flushed, then waited for;
 * arch_cache_flush_range() in the kernel), untimed, so stores pay their
 * read-for-ownership as in an array larger than the cache; then
 * @warm_bytes of plain stores, untimed (the LLC's size: from there on each
 * plain store evicts a dirty line, the write-back a whole-array init pays
 * and a probe of cold lines alone never saw); then @reps rounds of one
 * pass of each kind (plain first), each over its own descriptors, the
 * fastest of each kind kept. Timed is what memory init pays: the stores,
 * and for the other kinds their fence. A range too short for passes of an
 * eighth of it after the warm-up gets half of it as warm-up. @ticks reads
 * a clock (the cycle counter; the host's monotonic ns). The pick is
 * memmap_store_pick() against the fastest other kind; it is what
 * memmap_store_choose() uses for arrays larger than the last-level cache
 * once memmap_store_set() records it.
 */
struct memmap_store_probe {
	uint64_t warm_bytes;              /* plain stores before the timed passes */
	uint64_t bytes;                   /* descriptor bytes of one timed pass */
	/* The fastest pass of each kind; UINT64_MAX for a kind the
	 * architecture does not offer (none ran). */
	uint64_t plain_ticks, nt_ticks, zero_ticks;
	unsigned cpus;                    /* CPUs the passes ran on at once */
	enum memmap_store choice;
};
/*
 * Run by @ncpus CPUs at once, each calling with its own @cpu (0..ncpus-1)
 * and @out: each flushes, warms up and writes its contiguous slice of the
 * range and of every pass, and @sync->wait (return once all @ncpus CPUs
 * have called it) lines the passes up, since memory init runs on all of a
 * node's CPUs together and what wins on one CPU may lose when several
 * share the memory's bandwidth. memmap_store_probe_combine() then takes
 * the slowest CPU's time of each kind (when the pass was done) and picks.
 * @ncpus 1 needs no @sync.
 */
struct memmap_probe_sync {
	void (*wait)(void *arg);
	void *arg;
};
void memmap_store_probe(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			uint64_t warm_bytes, unsigned reps, unsigned cpu, unsigned ncpus,
			const struct memmap_probe_sync *sync, uint64_t (*ticks)(void),
			void (*flush)(const void *p, uint64_t bytes), struct memmap_store_probe *out);
void memmap_store_probe_combine(const struct memmap_store_probe *parts, unsigned n,
				struct memmap_store_probe *out);
/* @p's fastest pass of kind @how (not AUTO). */
uint64_t memmap_store_probe_ticks(const struct memmap_store_probe *p, enum memmap_store how);
/* The store probe's result as the kernel ran it at boot: what phase
 * memmap's report prints and memtest compares its rate with (none ran:
 * !ran). */
struct memmap_probe_result {
	bool ran;
	uint32_t nid;                     /* the node whose descriptors it wrote */
	uint32_t cpu, cpus;               /* the first CPU it ran on, how many */
	struct memmap_store_probe res;
};
/*
 * The probe's extent, the same at boot and in the host benchmark: the
 * warm-up is the LLC (@llc_bytes; 0, unknown, counts as
 * MEMMAP_PROBE_LLC_GUESS_BYTES), each pass half of it and at least
 * MEMMAP_PROBE_MIN_PASS_BYTES. Returns the descriptor bytes of the warm-up
 * and one pass of each kind the architecture offers, and the warm-up in
 * *@warm_bytes.
 */
#define MEMMAP_PROBE_LLC_GUESS_BYTES (32ULL << 20)
#define MEMMAP_PROBE_MIN_PASS_BYTES (1ULL << 20)
uint64_t memmap_store_probe_bytes(uint64_t llc_bytes, uint64_t *warm_bytes);
/* Plain only when it probed at least MEMMAP_PLAIN_MARGIN_PCT faster than
 * @cold, the fastest other kind (@cold_ticks; the data is at the
 * definition in mm/memmap.c), @cold otherwise. */
#define MEMMAP_PLAIN_MARGIN_PCT 15
enum memmap_store memmap_store_pick(uint64_t plain_ticks, uint64_t cold_ticks,
				    enum memmap_store cold);
/* The name of store kind @how (not AUTO) in the memmap and store_probe
 * records: the architecture's (arch_store_kind_name()). */
const char *memmap_store_name(enum memmap_store how);
/* From now on @mm's arrays larger than the LLC get @how (a kind the
 * architecture offers); MEMMAP_STORE_AUTO forgets the measurement (the
 * size rule alone). */
void memmap_store_set(struct memmap *mm, enum memmap_store how);

/* Set @n's store (what MEMMAP_STORE_AUTO writes with) to the one
 * memmap_store_choose() picks for its present pages' descriptors with
 * @mm's measurement on a CPU with caches @c (arch/memory.h: the kernel's
 * arch_caches(), or a host test's own); returns it. */
enum memmap_store memmap_node_choose_store(const struct memmap *mm, struct memmap_node *n,
					   const struct arch_caches *c);

/* memmap_init_range() with the kind of store chosen: any kind the
 * architecture offers, or MEMMAP_STORE_AUTO (the node's). Any kind but
 * plain ends with a store fence, so the descriptors are visible to
 * whoever the caller then tells that the chunk is done. */
void memmap_init_range_store(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			     enum page_type type, enum page_zone zone, enum memmap_store how);

/*
 * Write only the head of each block of [start_pfn, end_pfn) cut as
 * memmap_block_order() does with @max_order (<= PAGE_ORDER_LIMIT): type
 * @type, the block's order, zone @zone, PAGE_F_LAZY_UNINIT if the block has
 * tails, word 0, no links. Tails are not touched. Returns the heads written.
 * buddy_free_range() over the same range (or one cut at multiples of
 * 2^max_order) frees these blocks and keeps the flag.
 */
uint64_t memmap_init_heads(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			   enum page_type type, enum page_zone zone, unsigned max_order);

/*
 * Write the tails of the block of 2^order pages headed by @head_pfn as
 * PAGE_TAIL (the head's zone, word PAGE_POISON_TAIL, no links) and clear the
 * head's PAGE_F_LAZY_UNINIT. Returns the descriptors written (2^order - 1).
 * The caller owns the block (it is on no free list).
 */
uint64_t memmap_lazy_fill(const struct memmap_node *n, uint64_t head_pfn, unsigned order);

/*
 * Mark the hole [start_pfn, end_pfn) (inside the span, not RAM): write
 * PAGE_HOLE only where a buddy merge of blocks of order < @max_order can
 * read, i.e. at start_pfn and at the last multiple of 2^k below end_pfn for
 * each k < max_order that falls inside the hole. At most max_order + 1
 * descriptors however large the hole. Returns the descriptors written.
 */
uint64_t memmap_mark_hole(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			  unsigned max_order);

/* ---- census ---- */

/*
 * Add to counts[type] the pages of each range in @ranges (initialised by the
 * caller, each inside the node's span): walking heads only, a head of order
 * k accounts for 2^k pages (cut at the range end) and its tails are skipped
 * unread. A descriptor with a type, order or zone out of range counts one
 * page under PAGE_UNINIT and is logged; so is a free, allocated or pcp head
 * whose block is not naturally aligned (counted where it says). Returns the
 * number of such bad descriptors (0 when the census is clean).
 */
uint64_t memmap_count_types(const struct memmap_node *n, const struct memmap_range *ranges,
			    uint32_t nr_ranges, uint64_t counts[PAGE_NR_TYPES]);

#endif

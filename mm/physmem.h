/*
 * physmem.h: the early physical memory allocator.
 *
 * From the normalized boot map until the page allocator takes over, physical
 * memory is two sorted arrays: usable RAM ranges, each on a NUMA node, and
 * reservations (page 0, the kernel image, early allocations), each with a
 * type (enum physmem_resv_type) saying what the pages hold. Free memory is
 * usable minus reserved; it is never stored, only computed by walking both
 * arrays side by side.
 *
 *   physmem_init(pm);
 *   physmem_add_map(pm, map, nr_map);         the MEM_USABLE ranges of the map
 *   physmem_reserve(pm, start, end, PHYSMEM_RESV_KERNEL);
 *   physmem_set_distance(pm, nr_nodes, slit);   numa: SLIT (or NULL)
 *   physmem_set_node(pm, start, end, node);     numa: each SRAT memory range
 *   addr = physmem_alloc(pm, size, align, node, exact, PHYSMEM_RESV_MEMMAP);
 *
 * The map comes as (struct mem_range *, count) (kernel/services/mem_range.h), never as
 * a boot hand-off: physmem knows no boot protocol.
 *
 * Every range is half-open [start, end) in bytes and page aligned; log lines
 * print inclusive ends ("[mem 0x...-0x...fff]") like Linux. There are no
 * globals and no heap: all state lives in struct physmem (the kernel keeps one
 * static instance), so the same file builds for the kernel and the host
 * tests. Each operation is linear in the number of ranges. Not thread safe:
 * it runs on the boot CPU before SMP, or under the caller's lock.
 *
 * Caller bugs (unaligned input, size 0, an empty range, a bad node number)
 * are ASSERTs. Runtime conditions (no memory left, no slot left, overlapping
 * requests) are return values with a logged warning or error.
 */
#ifndef MEMBOOT_MM_PHYSMEM_H
#define MEMBOOT_MM_PHYSMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/limits.h"
#include "kernel/services/mem_range.h"

#define PHYSMEM_MAX_MEM 256          /* usable ranges */
#define PHYSMEM_MAX_RESV 512         /* reservations */
#define PHYSMEM_MAX_NODES MEMBOOT_MAX_NODES
#define PHYSMEM_NO_NODE 0xffffffffu  /* physmem_node_of(): not usable memory */
#define PHYSMEM_ANY_NODE 0xfffffffeu /* allocation and sums: every node */

#define PHYSMEM_LOCAL_DISTANCE MEMBOOT_LOCAL_DISTANCE
#define PHYSMEM_REMOTE_DISTANCE MEMBOOT_REMOTE_DISTANCE
#define PHYSMEM_ADDR_MAX UINT64_MAX  /* max_addr meaning "no upper limit" */

struct physmem_range {               /* usable RAM, [start, end) */
	uint64_t start;
	uint64_t end;
	uint32_t node;
};

/*
 * What reserved pages hold. The type, not a name, decides what memory init
 * writes into their page descriptors (kernel/init/memprep.c: memmap and page-table
 * pages get their own page types; 1 GiB pool pages are left to the pool) and
 * what the census counts them as; physmem_resv_type_name() gives the word
 * for messages. Adding an owner of early memory means adding a type here and
 * its name in physmem.c.
 */
enum physmem_resv_type {
	PHYSMEM_RESV_NONE = 0,       /* never stored: a zeroed entry is invalid */
	PHYSMEM_RESV_PAGE0,          /* page 0: real-mode IVT and BIOS data, and NULL */
	PHYSMEM_RESV_KERNEL,         /* the kernel image with its .bss (boot data included) */
	PHYSMEM_RESV_TRAMPOLINE,     /* the SMP start-up page below 1 MiB */
	PHYSMEM_RESV_PAGETABLE,      /* the kernel's page tables */
	PHYSMEM_RESV_PERCPU,         /* per-CPU areas and stacks */
	PHYSMEM_RESV_HUGETLB_1G,     /* 1 GiB huge pages, taken before anything large */
	PHYSMEM_RESV_HUGETLB_TABLES, /* the huge page pools' per-node tables */
	PHYSMEM_RESV_MEMMAP,         /* page descriptor arrays and the PFN-to-node table */
	PHYSMEM_RESV_ALLOC,          /* the page allocator's own tables */
	PHYSMEM_RESV_PCP,            /* the per-CPU page lists */
	PHYSMEM_RESV_MEMINIT,        /* memory init's work area (chunks, timings) */
	PHYSMEM_RESV_CONSOLE,        /* the log ring between the kernel and its consoles */
	PHYSMEM_RESV_BADRAM,         /* named bad on the command line (memmap=nn$ss, memboot.badram=) */
	PHYSMEM_RESV_TYPE_COUNT,
};

struct physmem_resv {                /* reserved RAM, [start, end) */
	uint64_t start;
	uint64_t end;
	uint32_t node;               /* always the node of the memory range holding it */
	uint32_t type;               /* enum physmem_resv_type, never NONE */
};

/*
 * Invariants (physmem_check() tests each; mutating calls assert it on entry
 * in debug builds):
 *
 *  mem[0, nr_mem):   start < end, both page aligned; sorted by address and
 *                    disjoint (mem[i].end <= mem[i+1].start); two touching
 *                    ranges are on different nodes (same-node neighbours are
 *                    merged); node < nr_nodes. nr_mem <= PHYSMEM_MAX_MEM.
 *  resv[0, nr_resv): start < end, both page aligned; sorted and disjoint;
 *                    each lies wholly inside one memory range and carries
 *                    that range's node (parts of a request outside usable
 *                    memory are never recorded, and a request spanning two
 *                    nodes becomes one entry per node); two touching
 *                    reservations differ in type or node (same-type
 *                    neighbours are merged); type is a valid
 *                    enum physmem_resv_type other than NONE.
 *                    nr_resv <= PHYSMEM_MAX_RESV.
 *  nodes:            1 <= nr_nodes <= PHYSMEM_MAX_NODES; for i, j < nr_nodes
 *                    distance[i][i] == PHYSMEM_LOCAL_DISTANCE and
 *                    distance[i][j] > PHYSMEM_LOCAL_DISTANCE when i != j.
 *
 * Hence free memory (usable minus reserved) never needs storing, and for
 * every node total == reserved + free exactly.
 */
struct physmem {
	struct physmem_range mem[PHYSMEM_MAX_MEM];
	uint32_t nr_mem;
	struct physmem_resv resv[PHYSMEM_MAX_RESV];
	uint32_t nr_resv;
	uint32_t nr_nodes;
	/* distance[from][to], SLIT style; entries past nr_nodes hold the defaults */
	uint8_t distance[PHYSMEM_MAX_NODES][PHYSMEM_MAX_NODES];
	uint32_t failed_allocs;      /* allocations that returned 0 */
	/* The page allocator owns the free memory now: what stays reserved
	 * stays so for good, and nothing more is allocated here. */
	bool retired;
};

/* Empty: no memory, no reservations, one node, default distances. */
void physmem_init(struct physmem *pm);

/*
 * Add usable RAM [start, end) on node 0; start < end, both page aligned (the
 * normalized boot map guarantees it). Merges with a touching node-0 range.
 * Returns false, with an error logged, if the range overlaps memory already
 * added (nothing is added) or if the table is full.
 */
bool physmem_add(struct physmem *pm, uint64_t start, uint64_t end);

/*
 * physmem_add() for every MEM_USABLE range of map[0, nr_map), a normalized
 * memory map (sorted, disjoint, page aligned); other types are not RAM the
 * kernel may use and are skipped. Returns the number of ranges that could
 * not be added (0: all of them), each with its error logged.
 */
uint32_t physmem_add_map(struct physmem *pm, const struct mem_range *map, uint32_t nr_map);

/*
 * Give the usable memory inside [start, end) (page aligned) to @node
 * (< PHYSMEM_MAX_NODES), splitting memory ranges and reservations that cross
 * start or end; reservations inside follow their memory. Holes inside the
 * range are ignored. Raises nr_nodes to node + 1 if needed (new nodes get the
 * default distances). Returns false, with an error logged and nothing
 * changed, if a split needs a slot and none is left.
 */
bool physmem_set_node(struct physmem *pm, uint64_t start, uint64_t end, uint32_t node);

/*
 * Set the node count (1..PHYSMEM_MAX_NODES, not below any node in use) and
 * the distance matrix: @matrix is nr_nodes * nr_nodes bytes, row-major
 * (matrix[from * nr_nodes + to]), already validated by the caller (10 on the
 * diagonal, above 10 elsewhere; asserted). NULL means 10 local, 20 remote.
 */
void physmem_set_distance(struct physmem *pm, uint32_t nr_nodes, const uint8_t *matrix);

/*
 * Reserve [start, end) (start < end; rounded outward to pages) for @type.
 * Only the part inside usable memory is recorded; the rest (firmware tables
 * in reserved memory, MMIO) is silently not needed. A part already reserved
 * keeps its first owner and a warning names both, so nothing is counted
 * twice. Returns false, with an error logged and nothing changed, if the new
 * entries do not fit in the table.
 */
bool physmem_reserve(struct physmem *pm, uint64_t start, uint64_t end,
		     enum physmem_resv_type type);

/*
 * Allocate @size_bytes (> 0; rounded up to pages) aligned to @align_bytes (a
 * power of two, >= 4096) from free memory inside [min_addr, max_addr)
 * (min_addr < max_addr; neither needs to be aligned), and record it as a
 * reservation of @type.
 *
 * Node choice: @node itself first. With @exact, nothing else. Otherwise the
 * other nodes in order of distance[node][other], ties to the lower node id.
 * PHYSMEM_ANY_NODE means every node, lowest id first. Within a node the
 * highest suitable address wins (top down, like memblock), so low memory stays
 * free for what needs it (SMP trampoline, DMA below 4 GiB).
 *
 * Returns the physical address, or 0 on failure: address 0 is never handed
 * out. A failure increments failed_allocs and logs a warning naming size,
 * node and type.
 */
uint64_t physmem_alloc_range(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			     uint64_t min_addr, uint64_t max_addr, uint32_t node, bool exact,
			     enum physmem_resv_type type);

/*
 * physmem_alloc() for a preferred placement that has a fallback (a 2 MiB
 * aligned block before any block): a failure is not a warning and is not
 * counted, since the caller goes on to the fallback and reports that.
 */
uint64_t physmem_try_alloc(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			   uint32_t node, bool exact, enum physmem_resv_type type);

/* physmem_alloc_range() over the whole address space. */
uint64_t physmem_alloc(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
		       uint32_t node, bool exact, enum physmem_resv_type type);

/*
 * Give back the reserved pages in [start, end) (start < end; rounded outward
 * to pages, so the arguments of a reserve or an allocation free exactly what
 * it took), whoever owns them, so later allocations can use them. Freeing
 * pages nobody reserved logs a warning (a likely double free). Returns false,
 * with an error logged and nothing changed, only when freeing the middle of a
 * reservation needs a new slot and none is left.
 */
bool physmem_free(struct physmem *pm, uint64_t start, uint64_t end);

/* Node of the usable range holding @addr, or PHYSMEM_NO_NODE. */
uint32_t physmem_node_of(const struct physmem *pm, uint64_t addr);

/* Sums over @node, or over every node for PHYSMEM_ANY_NODE. */
uint64_t physmem_total_bytes(const struct physmem *pm, uint32_t node);
uint64_t physmem_reserved_bytes(const struct physmem *pm, uint32_t node);
uint64_t physmem_free_bytes(const struct physmem *pm, uint32_t node);

/*
 * Call @cb for each free range [start, end) of @node (or every node for
 * PHYSMEM_ANY_NODE) in address order. Each range is maximal: its neighbours
 * are reserved, not usable, or on another node. Stops when @cb returns false.
 * @cb must not change @pm.
 */
void physmem_for_each_free(const struct physmem *pm, uint32_t node,
			   bool (*cb)(void *ctx, uint64_t start, uint64_t end, uint32_t node),
			   void *ctx);

/* Bytes reserved as @type, all nodes. */
uint64_t physmem_reserved_bytes_of(const struct physmem *pm, enum physmem_resv_type type);

/* The word for @type in messages ("kernel", "memmap", ...); "?" if invalid. */
const char *physmem_resv_type_name(uint32_t type);

/*
 * Log every memory range and reservation, one line each, then one totals line
 * per node and one for all nodes:
 *   physmem: memory [mem 0x0000000000100000-0x000000003fffffff] node 0
 *   physmem: reserved [mem 0x0000000000100000-0x00000000002fffff] node 0 'kernel'
 *   physmem: node 0: 1047552 KiB total, 2048 KiB reserved, 1045504 KiB free
 */
void physmem_dump(const struct physmem *pm);

/* Check every invariant listed at struct physmem; log each violation and return false. */
bool physmem_check(const struct physmem *pm);

/*
 * The page allocator now owns all free memory: allocations from @pm are
 * over (@pm->retired: page tables come from the page allocator,
 * mm/pt_pages.h). Returns the pages @pm keeps reserved for good (the
 * census baseline's).
 */
uint64_t physmem_retire(struct physmem *pm);
/* The retired @pm's `physmem_retire` record and line: what stays reserved,
 * by type. Apart from physmem_retire(), so the printing can wait until the
 * time-critical part of memory init is over. */
void physmem_report_retired(const struct physmem *pm);

#endif

/*
 * pt.h: address spaces other than the kernel's identity map: page tables
 * with a lock per PMD table (and per PTE table), or one lock per space.
 *
 * Overview
 *  A struct pt_as owns 4-level page tables in the architecture's entry
 *  format (arch/mmu.h) for a window [va_start, va_end) of virtual
 *  addresses, aligned to what one root entry spans (512 GiB). Outside the
 *  window the root copies a template (the kernel's own root entries), which
 *  the layer never touches or frees. Inside it, map / unmap / protect /
 *  lookup work on 4 KiB, 2 MiB and 1 GiB pages, and pt_fault() is the fault
 *  path of a region: allocate a frame, zero it, map it. Table pages come
 *  from a callback (the page allocator, on the faulting CPU's node); the
 *  descriptor of each table page (mm/page.h) says PAGE_PAGETABLE and holds
 *  that table's lock. Pure C: the kernel and the host tests and benchmark
 *  build the same file.
 *
 * Locks (docs/pagetables.md has the full rules and the reasoning)
 *  PT_LOCK_GLOBAL: every change to any table under as->lock (Linux's
 *  mm->page_table_lock before split PMD locks).
 *  PT_LOCK_SPLIT: root and PUD entries (upper tables, 1 GiB leaves) under
 *  as->lock, as Linux populates pgd/p4d/pud under page_table_lock; PMD
 *  entries (2 MiB leaves, pointers to page tables) under the ptlock in the
 *  PMD page's descriptor (Linux's pmd_lockptr() with split PMD ptlocks);
 *  PTEs under the ptlock in the PTE table page's descriptor (pte_lockptr()).
 *  Order: as->lock, then a PMD's lock, then a PTE table's lock; the deferred
 *  list lock is innermost. Entries are read without locks (atomic loads);
 *  a table found that way is locked and then its parent entry is checked
 *  again: a table is linked into its parent, and stays linked, only while
 *  the parent entry points at it.
 *
 * Freeing empty tables
 *  A table that becomes empty is unlinked at once (under its parent's lock
 *  and its own) and put on the space's deferred list: a CPU that read the
 *  parent entry just before may still lock it, and other CPUs' paging
 *  structure caches may still hold it. pt_reclaim() flushes the TLBs and
 *  gives the deferred tables back; the caller calls it when no CPU works on
 *  the space (Linux defers page-table frees past a TLB flush the same way,
 *  mmu_gather / tlb_remove_table). pt_destroy() reclaims everything.
 */
#ifndef MEMBOOT_MM_PT_H
#define MEMBOOT_MM_PT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/mmu.h"
#include "kernel/services/spinlock.h"
#include "mm/page.h"

#define PT_NO_PHYS UINT64_MAX
#define PT_WINDOW_ALIGN (1ULL << ARCH_PT_SHIFT(ARCH_PT_ROOT))   /* one root entry: 512 GiB */
#define PT_VA_LIMIT ARCH_PT_VA_LIMIT       /* what one root translates from 0 up */
#define PT_TABLE_BYTES 4096ULL             /* a table is one page of alloc_table() */

/* A page size is the level its leaf sits at. */
enum pt_size { PT_SIZE_4K = 0, PT_SIZE_2M = 1, PT_SIZE_1G = 2, PT_NR_SIZES };

static inline uint64_t pt_size_bytes(enum pt_size s)
{
	return 1ULL << ARCH_PT_SHIFT((unsigned)s);
}

enum pt_lock_mode { PT_LOCK_SPLIT = 0, PT_LOCK_GLOBAL = 1 };

/* Protection of a mapping: always readable; these add rights. */
#define PT_PROT_WRITE 0x1u
#define PT_PROT_EXEC 0x2u
#define PT_PROT_ALL (PT_PROT_WRITE | PT_PROT_EXEC)

enum pt_err {
	PT_OK = 0,
	PT_ERR_NOMEM = -1,        /* no page for a table (or, in pt_fault, a frame) */
	PT_ERR_BUSY = -2,         /* something is already mapped in the way */
	PT_ERR_NOTMAPPED = -3,    /* nothing mapped at that address */
	PT_ERR_INVAL = -4,        /* unaligned, outside the window, bad size or prot */
};
const char *pt_strerror(int err);

/* Lock statistics of one CPU (or thread); summed by the caller. */
struct pt_stats {
	uint64_t acquisitions;    /* every lock taken */
	uint64_t contended;       /* of which the first try found it held */
	uint64_t spin_cycles;     /* counter cycles spent waiting in those (arch_counter()) */
	uint64_t tables_allocated;
	uint64_t tables_raced;    /* allocated, then another CPU installed one first */
	uint64_t faults;          /* pt_fault() calls that mapped a frame */
	uint64_t faults_raced;    /* pt_fault() found the page already mapped */
};
void pt_stats_add(struct pt_stats *sum, const struct pt_stats *s);

struct pt_as;

/* What a space needs from its owner. */
struct pt_ops {
	/* Physical address of a 4 KiB page on (or near) @node, or PT_NO_PHYS.
	 * Its descriptor is page_of(); the layer zeroes the page and retypes
	 * the descriptor PAGE_PAGETABLE. */
	uint64_t (*alloc_table)(void *ctx, uint32_t node);
	/* Give back a page alloc_table() returned (descriptor retyped back to
	 * PAGE_ALLOCATED, refcount 1, links MEMMAP_NONE). */
	void (*free_table)(void *ctx, uint64_t phys);
	/* The descriptor of the page at @phys (never NULL for a table page). */
	struct page *(*page_of)(void *ctx, uint64_t phys);
	/* Invalidate [va, va + bytes) on every CPU that may cache this space
	 * (paging-structure caches included); bytes 0 means everything. May be
	 * NULL (nothing caches translations: the host). Called with no lock
	 * held. */
	void (*tlb_flush)(void *ctx, struct pt_as *as, uint64_t va, uint64_t bytes);
};

/* Table pages are reached at their physical address (identity map in the
 * kernel; on the host "physical" addresses are the pages' own addresses). */
struct pt_as {
	uint64_t *root;               /* the root table */
	uint64_t root_phys;
	enum pt_lock_mode mode;
	uint64_t va_start, va_end;    /* the window, PT_WINDOW_ALIGN aligned */
	const struct pt_ops *ops;
	void *ctx;
	struct spinlock lock;         /* upper levels; everything in PT_LOCK_GLOBAL */
	struct spinlock deferred_lock;
	uint64_t deferred_head;       /* phys of the first unlinked table, or PT_NO_PHYS */
	uint64_t nr_deferred;
	uint64_t nr_tables;           /* table pages held, root and deferred included */
};

/* One mapping as lookup/unmap report it. */
struct pt_mapping {
	uint64_t va;                  /* start of the page */
	uint64_t phys;
	enum pt_size size;
	unsigned prot;                /* PT_PROT_* */
};

/*
 * Set up @as over [va_start, va_end) (PT_WINDOW_ALIGN aligned, below
 * PT_VA_LIMIT, not empty) with its root from alloc_table(@node). Root
 * entries outside the window are copied from @template_root (may be NULL).
 * PT_ERR_INVAL also when a table of the entry format is larger than
 * PT_TABLE_BYTES (POWER radix's 64 KiB root: not supported yet).
 */
int pt_create(struct pt_as *as, const struct pt_ops *ops, void *ctx, enum pt_lock_mode mode,
	      uint64_t va_start, uint64_t va_end, const uint64_t *template_root, uint32_t node);

/* Unmap everything in the window, calling @leaf (may be NULL) for each
 * mapping so its owner can free the frame, flush, free every table. No
 * other CPU may use the space. */
void pt_destroy(struct pt_as *as, void (*leaf)(void *arg, const struct pt_mapping *m), void *arg);

/* Map @phys at @va as one page of @size (both aligned to it). Tables are
 * allocated on @node. PT_ERR_BUSY if any part of it is mapped already. */
int pt_map(struct pt_as *as, uint64_t va, uint64_t phys, enum pt_size size, unsigned prot,
	   uint32_t node, struct pt_stats *st);

/* Remove the mapping that contains @va, report it in *@old (may be NULL),
 * flush it from the TLBs; its frame is the caller's again once this
 * returns. Tables left empty are unlinked (freed by pt_reclaim). */
int pt_unmap(struct pt_as *as, uint64_t va, struct pt_mapping *old, struct pt_stats *st);

/* Change the protection of the mapping that contains @va; flush it. */
int pt_protect(struct pt_as *as, uint64_t va, unsigned prot, struct pt_stats *st);

/* The mapping that contains @va, read without locks: true and *@m, or
 * false. A consistent snapshot of that one entry. */
bool pt_lookup(struct pt_as *as, uint64_t va, struct pt_mapping *m);

/* Flush everything, then give back the tables unlinked since the last
 * reclaim. No other CPU may be working on the space. Returns how many. */
uint64_t pt_reclaim(struct pt_as *as);

/* Which lock protects the entries of the table at @table_phys, a table of
 * @level (0 PTE table, 1 PMD, 2 PUD, 3 root): for tests and docs. */
struct spinlock *pt_lockptr(struct pt_as *as, uint64_t table_phys, unsigned level);

/* ---- regions and the fault path ---- */

/* Where a region's frames come from. */
enum pt_region_kind {
	PT_REGION_4K = 0,       /* single pages ("THP off") */
	PT_REGION_2M,           /* 2 MiB blocks from the allocator ("THP on") */
	PT_REGION_HUGETLB,      /* 2 MiB pages from a huge page pool */
	PT_NR_REGION_KINDS
};
const char *pt_region_kind_name(enum pt_region_kind k);

struct pt_region {
	uint64_t start, end;          /* [start, end), aligned to the page size */
	enum pt_region_kind kind;
	unsigned prot;
	bool zero;                    /* zero each frame before it is mapped */
	/* A frame of pt_size_bytes(pt_region_page_size()) on @node, or
	 * PT_NO_PHYS; and its release (a frame that lost a race). */
	uint64_t (*alloc_frame)(void *ctx, enum pt_region_kind kind, uint32_t node);
	void (*free_frame)(void *ctx, enum pt_region_kind kind, uint64_t phys);
	void *ctx;
};

static inline enum pt_size pt_region_page_size(const struct pt_region *r)
{
	return r->kind == PT_REGION_4K ? PT_SIZE_4K : PT_SIZE_2M;
}

static inline bool pt_region_contains(const struct pt_region *r, uint64_t va)
{
	return va >= r->start && va < r->end;
}

/*
 * The fault path: @va in @r is not mapped; allocate a frame on @node,
 * zero it if the region says so (before any lock is taken, as Linux clears
 * a page before it takes the PTL), map it. PT_OK also when another CPU
 * mapped the page first (its frame stays, ours goes back).
 */
int pt_fault(struct pt_as *as, const struct pt_region *r, uint64_t va, uint32_t node,
	     struct pt_stats *st);

#endif

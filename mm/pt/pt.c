/*
 * pt.c: page tables with a lock per PMD table (mm/pt/pt.h has the rules).
 */
#include "mm/pt/pt.h"

#include <string.h>

#include "arch/counter.h"
#include "x86/pte.h"
#include <stdio.h>
#include "kernel/services/cmdline.h"

#define LEVEL_PML4 3
#define LEVEL_PDPT 2
#define LEVEL_PD 1
#define LEVEL_PT 0

const char *pt_strerror(int err)
{
	switch (err) {
	case PT_OK: return "ok";
	case PT_ERR_NOMEM: return "out of memory";
	case PT_ERR_BUSY: return "already mapped";
	case PT_ERR_NOTMAPPED: return "not mapped";
	case PT_ERR_INVAL: return "invalid argument";
	}
	return "?";
}

const char *pt_region_kind_name(enum pt_region_kind k)
{
	static const char *const names[PT_NR_REGION_KINDS] = { "4k", "2m", "hugetlb" };
	return k < PT_NR_REGION_KINDS ? names[k] : "?";
}

void pt_stats_add(struct pt_stats *sum, const struct pt_stats *s)
{
	sum->acquisitions += s->acquisitions;
	sum->contended += s->contended;
	sum->spin_cycles += s->spin_cycles;
	sum->tables_allocated += s->tables_allocated;
	sum->tables_raced += s->tables_raced;
	sum->faults += s->faults;
	sum->faults_raced += s->faults_raced;
}

/* ---- entries ---- */

static inline uint64_t *table_of(uint64_t phys)
{
	return (uint64_t *)(uintptr_t)phys;
}

static inline unsigned index_at(uint64_t va, unsigned level)
{
	return (unsigned)(va >> ARCH_PT_SHIFT(level)) & (ARCH_PT_ENTRIES - 1);
}

/* Entries change under their table's lock and are read without it: whole
 * 8-byte atomic accesses, release on store so a new table's zeroed contents
 * are visible before the pointer to it. */
static inline uint64_t entry_load(const uint64_t *e)
{
	return __atomic_load_n(e, __ATOMIC_ACQUIRE);
}

static inline void entry_store(uint64_t *e, uint64_t v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

static inline bool entry_is_table(uint64_t e, unsigned level)
{
	return (e & ARCH_PTE_P) && level > LEVEL_PT && !(e & ARCH_PTE_PS);
}

static inline bool entry_is_leaf(uint64_t e, unsigned level)
{
	return (e & ARCH_PTE_P) && (level == LEVEL_PT || (e & ARCH_PTE_PS));
}

/* A leaf: accessed and dirty preset, so the CPU never has to write them
 * back into an entry another CPU is changing (SDM vol. 3A 4.8). */
static uint64_t leaf_entry(uint64_t phys, unsigned prot, unsigned level)
{
	uint64_t e = phys | ARCH_PTE_P | ARCH_PTE_A | ARCH_PTE_D;

	if (prot & PT_PROT_WRITE)
		e |= ARCH_PTE_W;
	if (!(prot & PT_PROT_EXEC))
		e |= ARCH_PTE_NX;
	if (level != LEVEL_PT)
		e |= ARCH_PTE_PS;
	return e;
}

static unsigned leaf_prot(uint64_t e)
{
	return ((e & ARCH_PTE_W) ? PT_PROT_WRITE : 0) | ((e & ARCH_PTE_NX) ? 0 : PT_PROT_EXEC);
}

static bool table_empty(uint64_t phys)
{
	const uint64_t *t = table_of(phys);

	for (unsigned i = 0; i < ARCH_PT_ENTRIES; i++)
		if (entry_load(&t[i]))
			return false;
	return true;
}

/* ---- locks ---- */

struct spinlock *pt_lockptr(struct pt_as *as, uint64_t table_phys, unsigned level)
{
	/* Linux: pmd_lockptr() and pte_lockptr() give the ptlock of the table's
	 * struct page when split locks are on, &mm->page_table_lock otherwise;
	 * pud_lockptr() is always &mm->page_table_lock. */
	if (as->mode == PT_LOCK_SPLIT && level <= LEVEL_PD)
		return &as->ops->page_of(as->ctx, table_phys)->ptlock;
	return &as->lock;
}

static void lock_take(struct spinlock *l, struct pt_stats *st)
{
	st->acquisitions++;
	if (spin_trylock(l))
		return;
	uint64_t t0 = arch_counter();
	spin_lock(l);
	st->contended++;
	st->spin_cycles += arch_counter() - t0;
}

static inline void lock_drop(struct spinlock *l)
{
	spin_unlock(l);
}

/* ---- table pages ---- */

static uint64_t table_alloc(struct pt_as *as, uint32_t node, struct pt_stats *st)
{
	uint64_t phys = as->ops->alloc_table(as->ctx, node);

	if (phys == PT_NO_PHYS)
		return PT_NO_PHYS;
	memset(table_of(phys), 0, 4096);
	struct page *pg = as->ops->page_of(as->ctx, phys);
	pg->type = PAGE_PAGETABLE;
	pg->ptlock.locked = 0;
	__atomic_fetch_add(&as->nr_tables, 1, __ATOMIC_RELAXED);
	st->tables_allocated++;
	return phys;
}

static void table_free(struct pt_as *as, uint64_t phys)
{
	struct page *pg = as->ops->page_of(as->ctx, phys);

	/* Back to what the allocator handed out (mm/alloc/alloc.h: an allocated head
	 * has refcount 1 and no links). */
	pg->type = PAGE_ALLOCATED;
	pg->refcount = 1;
	pg->next = pg->prev = MEMMAP_NONE;
	__atomic_fetch_sub(&as->nr_tables, 1, __ATOMIC_RELAXED);
	as->ops->free_table(as->ctx, phys);
}

/* An unlinked table waits for pt_reclaim(); the list runs through the
 * descriptors' links (unused while a page is a table): pfn low 32 bits in
 * next, high in prev. */
static void table_defer(struct pt_as *as, uint64_t phys)
{
	struct page *pg = as->ops->page_of(as->ctx, phys);

	spin_lock(&as->deferred_lock);
	uint64_t pfn = as->deferred_head == PT_NO_PHYS ? UINT64_MAX : as->deferred_head >> 12;
	pg->next = (uint32_t)pfn;
	pg->prev = (uint32_t)(pfn >> 32);
	as->deferred_head = phys;
	as->nr_deferred++;
	spin_unlock(&as->deferred_lock);
}

static void flush(struct pt_as *as, uint64_t va, uint64_t bytes)
{
	if (as->ops->tlb_flush)
		as->ops->tlb_flush(as->ctx, as, va, bytes);
}

/* ---- walks ---- */

/* True if the table at @phys is the table of @level that @va's walk from the
 * root reaches now. Checked with that table's lock held: a table cannot be
 * unlinked without its own lock, so the answer then stays true. */
static bool linked(struct pt_as *as, uint64_t va, uint64_t phys, unsigned level)
{
	uint64_t cur = as->root_phys;

	for (unsigned l = LEVEL_PML4; l > level; l--) {
		uint64_t e = entry_load(&table_of(cur)[index_at(va, l)]);
		if (!entry_is_table(e, l))
			return false;
		cur = e & ARCH_PTE_ADDR;
	}
	return cur == phys;
}

/*
 * The table of @level on @va's path, allocating missing tables on @node when
 * @alloc. A missing table is allocated and zeroed before the parent's lock
 * is taken and given back if another CPU installed one first (Linux's
 * __pte_alloc / __pmd_alloc do the same). PT_NO_PHYS and *err when a leaf
 * is in the way (PT_ERR_BUSY), nothing is there (PT_ERR_NOTMAPPED) or no
 * memory is left.
 */
static uint64_t walk(struct pt_as *as, uint64_t va, unsigned level, bool alloc, uint32_t node,
		     struct pt_stats *st, int *err)
{
retry:;
	uint64_t cur = as->root_phys;

	for (unsigned l = LEVEL_PML4; l > level; l--) {
		uint64_t *e = &table_of(cur)[index_at(va, l)];
		uint64_t v = entry_load(e);

		if (!(v & ARCH_PTE_P)) {
			if (!alloc) {
				*err = PT_ERR_NOTMAPPED;
				return PT_NO_PHYS;
			}
			uint64_t fresh = table_alloc(as, node, st);
			if (fresh == PT_NO_PHYS) {
				*err = PT_ERR_NOMEM;
				return PT_NO_PHYS;
			}
			struct spinlock *lk = pt_lockptr(as, cur, l);
			lock_take(lk, st);
			if (!linked(as, va, cur, l)) {
				/* The parent was emptied and unlinked meanwhile. */
				lock_drop(lk);
				table_free(as, fresh);
				st->tables_raced++;
				goto retry;
			}
			v = entry_load(e);
			if (!(v & ARCH_PTE_P)) {
				v = fresh | ARCH_PTE_TABLE;
				entry_store(e, v);
				fresh = PT_NO_PHYS;
			}
			lock_drop(lk);
			if (fresh != PT_NO_PHYS) {
				table_free(as, fresh);
				st->tables_raced++;
			}
		}
		if (entry_is_leaf(v, l)) {
			*err = PT_ERR_BUSY;
			return PT_NO_PHYS;
		}
		cur = v & ARCH_PTE_ADDR;
	}
	return cur;
}

/* The leaf that maps @va, without locks: its table and level, or false. */
static bool find_leaf(struct pt_as *as, uint64_t va, uint64_t *table, unsigned *level,
		      uint64_t *entry)
{
	uint64_t cur = as->root_phys;

	for (unsigned l = LEVEL_PML4;; l--) {
		uint64_t e = entry_load(&table_of(cur)[index_at(va, l)]);
		if (!(e & ARCH_PTE_P))
			return false;
		if (entry_is_leaf(e, l)) {
			*table = cur;
			*level = l;
			*entry = e;
			return true;
		}
		if (l == LEVEL_PT)
			return false;
		cur = e & ARCH_PTE_ADDR;
	}
}

static bool in_window(const struct pt_as *as, uint64_t va, uint64_t bytes)
{
	return va >= as->va_start && va < as->va_end && bytes <= as->va_end - va;
}

/* ---- create / destroy ---- */

int pt_create(struct pt_as *as, const struct pt_ops *ops, void *ctx, enum pt_lock_mode mode,
	      uint64_t va_start, uint64_t va_end, const uint64_t *template_root, uint32_t node)
{
	struct pt_stats st = { 0 };

	if (!ops || !ops->alloc_table || !ops->free_table || !ops->page_of ||
	    (mode != PT_LOCK_SPLIT && mode != PT_LOCK_GLOBAL) ||
	    va_start % PT_WINDOW_ALIGN || va_end % PT_WINDOW_ALIGN || va_start >= va_end ||
	    va_end > PT_VA_LIMIT)
		return PT_ERR_INVAL;
	memset(as, 0, sizeof(*as));
	as->ops = ops;
	as->ctx = ctx;
	as->mode = mode;
	as->va_start = va_start;
	as->va_end = va_end;
	as->deferred_head = PT_NO_PHYS;
	as->root_phys = table_alloc(as, node, &st);
	if (as->root_phys == PT_NO_PHYS)
		return PT_ERR_NOMEM;
	as->root = table_of(as->root_phys);
	if (template_root) {
		unsigned lo = index_at(va_start, LEVEL_PML4);
		unsigned hi = lo + (unsigned)((va_end - va_start) / PT_WINDOW_ALIGN);
		for (unsigned i = 0; i < ARCH_PT_ENTRIES; i++)
			if (i < lo || i >= hi)
				as->root[i] = template_root[i];
	}
	return PT_OK;
}

static void destroy_table(struct pt_as *as, uint64_t phys, unsigned level, uint64_t va_base,
			  void (*leaf)(void *, const struct pt_mapping *), void *arg)
{
	uint64_t *t = table_of(phys);

	for (unsigned i = 0; i < ARCH_PT_ENTRIES; i++) {
		uint64_t e = t[i];
		uint64_t va = va_base + ((uint64_t)i << ARCH_PT_SHIFT(level));
		if (!(e & ARCH_PTE_P))
			continue;
		if (entry_is_leaf(e, level)) {
			struct pt_mapping m = { .va = va, .phys = arch_pte_leaf_addr(e, level),
						.size = (enum pt_size)level, .prot = leaf_prot(e) };
			if (leaf)
				leaf(arg, &m);
		} else {
			destroy_table(as, e & ARCH_PTE_ADDR, level - 1, va, leaf, arg);
		}
		t[i] = 0;
	}
	table_free(as, phys);
}

void pt_destroy(struct pt_as *as, void (*leaf)(void *arg, const struct pt_mapping *m), void *arg)
{
	if (!as->root)
		return;
	/* Nothing may translate through the tables once they are free. */
	flush(as, 0, 0);
	for (uint64_t va = as->va_start; va < as->va_end; va += PT_WINDOW_ALIGN) {
		uint64_t *e = &as->root[index_at(va, LEVEL_PML4)];
		if (*e & ARCH_PTE_P)
			destroy_table(as, *e & ARCH_PTE_ADDR, LEVEL_PDPT, va, leaf, arg);
		*e = 0;
	}
	pt_reclaim(as);
	table_free(as, as->root_phys);
	as->root = NULL;
	as->root_phys = PT_NO_PHYS;
}

uint64_t pt_reclaim(struct pt_as *as)
{
	uint64_t n = 0, phys;

	spin_lock(&as->deferred_lock);
	phys = as->deferred_head;
	as->deferred_head = PT_NO_PHYS;
	as->nr_deferred = 0;
	spin_unlock(&as->deferred_lock);
	if (phys == PT_NO_PHYS)
		return 0;
	/* Paging-structure caches may still hold the unlinked tables. */
	flush(as, 0, 0);
	while (phys != PT_NO_PHYS) {
		const struct page *pg = as->ops->page_of(as->ctx, phys);
		uint64_t pfn = pg->next | ((uint64_t)pg->prev << 32);
		table_free(as, phys);
		phys = pfn == UINT64_MAX ? PT_NO_PHYS : pfn << 12;
		n++;
	}
	return n;
}

/* ---- map / unmap / protect / lookup ---- */

int pt_map(struct pt_as *as, uint64_t va, uint64_t phys, enum pt_size size, unsigned prot,
	   uint32_t node, struct pt_stats *st)
{
	struct pt_stats local = { 0 };
	int err = PT_OK;

	if (!st)
		st = &local;
	if ((unsigned)size >= PT_NR_SIZES || (prot & ~PT_PROT_ALL))
		return PT_ERR_INVAL;
	uint64_t bytes = pt_size_bytes(size);
	unsigned level = (unsigned)size;
	if ((va | phys) & (bytes - 1) || (phys & ~ARCH_PTE_ADDR) || !in_window(as, va, bytes))
		return PT_ERR_INVAL;
	for (;;) {
		uint64_t t = walk(as, va, level, true, node, st, &err);
		if (t == PT_NO_PHYS)
			return err;
		struct spinlock *lk = pt_lockptr(as, t, level);
		lock_take(lk, st);
		if (!linked(as, va, t, level)) {
			lock_drop(lk);
			continue;        /* emptied and unlinked under us: walk again */
		}
		uint64_t *e = &table_of(t)[index_at(va, level)];
		if (entry_load(e) & ARCH_PTE_P) {
			lock_drop(lk);
			return PT_ERR_BUSY;
		}
		entry_store(e, leaf_entry(phys, prot, level));
		lock_drop(lk);
		return PT_OK;
	}
}

/*
 * @phys, a table of @level on @va's path, went empty: unlink it from its
 * parent (parent's lock, then its own, the lock order), and so on upwards
 * while the parent goes empty too. The root stays.
 */
static void unlink_empty(struct pt_as *as, uint64_t va, uint64_t phys, unsigned level,
			 struct pt_stats *st)
{
	while (level < LEVEL_PML4) {
		int err;
		uint64_t parent = walk(as, va, level + 1, false, 0, st, &err);
		if (parent == PT_NO_PHYS)
			return;
		struct spinlock *plk = pt_lockptr(as, parent, level + 1);
		struct spinlock *lk = pt_lockptr(as, phys, level);
		lock_take(plk, st);
		uint64_t *pe = &table_of(parent)[index_at(va, level + 1)];
		uint64_t v = entry_load(pe);
		if (!linked(as, va, parent, level + 1) || !entry_is_table(v, level + 1) ||
		    (v & ARCH_PTE_ADDR) != phys) {
			lock_drop(plk);   /* someone else unlinked it already */
			return;
		}
		if (lk != plk)
			lock_take(lk, st);
		bool gone = table_empty(phys);
		if (gone) {
			entry_store(pe, 0);
			table_defer(as, phys);
		}
		if (lk != plk)
			lock_drop(lk);
		bool parent_empty = gone && level + 1 < LEVEL_PML4 && table_empty(parent);
		lock_drop(plk);
		if (!parent_empty)
			return;
		phys = parent;
		level++;
	}
}

/* Lock the leaf that maps @va; PT_OK with the table, level and lock held. */
static int lock_leaf(struct pt_as *as, uint64_t va, struct pt_stats *st, uint64_t *table,
		     unsigned *level, struct spinlock **lk)
{
	for (;;) {
		uint64_t t, e;
		unsigned l;
		if (!find_leaf(as, va, &t, &l, &e))
			return PT_ERR_NOTMAPPED;
		*lk = pt_lockptr(as, t, l);
		lock_take(*lk, st);
		e = entry_load(&table_of(t)[index_at(va, l)]);
		if (linked(as, va, t, l) && entry_is_leaf(e, l)) {
			*table = t;
			*level = l;
			return PT_OK;
		}
		lock_drop(*lk);   /* changed under us: look again */
	}
}

int pt_unmap(struct pt_as *as, uint64_t va, struct pt_mapping *old, struct pt_stats *st)
{
	struct pt_stats local = { 0 };
	struct spinlock *lk;
	uint64_t t;
	unsigned level;

	if (!st)
		st = &local;
	if (!in_window(as, va, 1))
		return PT_ERR_INVAL;
	int err = lock_leaf(as, va, st, &t, &level, &lk);
	if (err)
		return err;
	uint64_t *e = &table_of(t)[index_at(va, level)];
	uint64_t v = entry_load(e);
	entry_store(e, 0);
	bool empty = table_empty(t);
	lock_drop(lk);

	uint64_t bytes = 1ULL << ARCH_PT_SHIFT(level);
	uint64_t start = va & ~(bytes - 1);
	/* The frame is the caller's only once no TLB can reach it. */
	flush(as, start, bytes);
	if (old)
		*old = (struct pt_mapping){ .va = start, .phys = arch_pte_leaf_addr(v, level),
					    .size = (enum pt_size)level, .prot = leaf_prot(v) };
	if (empty)
		unlink_empty(as, va, t, level, st);
	return PT_OK;
}

int pt_protect(struct pt_as *as, uint64_t va, unsigned prot, struct pt_stats *st)
{
	struct pt_stats local = { 0 };
	struct spinlock *lk;
	uint64_t t;
	unsigned level;

	if (!st)
		st = &local;
	if (!in_window(as, va, 1) || (prot & ~PT_PROT_ALL))
		return PT_ERR_INVAL;
	int err = lock_leaf(as, va, st, &t, &level, &lk);
	if (err)
		return err;
	uint64_t *e = &table_of(t)[index_at(va, level)];
	uint64_t v = entry_load(e);
	uint64_t phys = arch_pte_leaf_addr(v, level);
	entry_store(e, leaf_entry(phys, prot, level));
	lock_drop(lk);
	uint64_t bytes = 1ULL << ARCH_PT_SHIFT(level);
	flush(as, va & ~(bytes - 1), bytes);
	return PT_OK;
}

bool pt_lookup(struct pt_as *as, uint64_t va, struct pt_mapping *m)
{
	uint64_t t, e;
	unsigned level;

	if (!in_window(as, va, 1) || !find_leaf(as, va, &t, &level, &e))
		return false;
	uint64_t bytes = 1ULL << ARCH_PT_SHIFT(level);
	*m = (struct pt_mapping){ .va = va & ~(bytes - 1), .phys = arch_pte_leaf_addr(e, level),
				  .size = (enum pt_size)level, .prot = leaf_prot(e) };
	return true;
}

/* ---- the fault path ---- */

int pt_fault(struct pt_as *as, const struct pt_region *r, uint64_t va, uint32_t node,
	     struct pt_stats *st)
{
	struct pt_stats local = { 0 };
	struct pt_mapping m;

	if (!st)
		st = &local;
	if (!pt_region_contains(r, va) || r->kind >= PT_NR_REGION_KINDS)
		return PT_ERR_INVAL;
	enum pt_size size = pt_region_page_size(r);
	uint64_t bytes = pt_size_bytes(size);
	va &= ~(bytes - 1);
	if (pt_lookup(as, va, &m)) {
		st->faults_raced++;      /* another CPU faulted it in first */
		return PT_OK;
	}
	uint64_t frame = r->alloc_frame(r->ctx, r->kind, node);
	if (frame == PT_NO_PHYS)
		return PT_ERR_NOMEM;
	if (r->zero)
		memset((void *)(uintptr_t)frame, 0, bytes);
	int err = pt_map(as, va, frame, size, r->prot, node, st);
	if (err == PT_OK) {
		st->faults++;
		return PT_OK;
	}
	r->free_frame(r->ctx, r->kind, frame);
	if (err == PT_ERR_BUSY && pt_lookup(as, va, &m) && m.size == size) {
		st->faults_raced++;
		return PT_OK;
	}
	return err;
}

/* --- page tables: command-line keys (docs/cmdline.md) --- */

struct vm_settings vm_settings = {
	.ptlock = PT_LOCK_SPLIT,
	.pt_zero = true,
};

/* In the order of enum pt_lock_mode. */
static const char *const ptlock_names[] = { "split", "global", NULL };

static const struct param vm_params[] = {
	{ .key = "memboot.ptlock", .type = PARAM_ENUM, .ptr = &vm_settings.ptlock,
	  .choices = ptlock_names, .help = "page-table locks: a lock per PMD table, or one per space" },
	{ .key = "memboot.pt_zero", .type = PARAM_BOOL, .ptr = &vm_settings.pt_zero,
	  .help = "zero each page a fault maps (on by default)" },
};
PARAM_TABLE(vm_param_table, "vm", vm_params);

/*
 * pt.c: page tables with a lock per PMD table (mm/pt/pt.h has the rules).
 */
#include "mm/pt/pt.h"

#include <string.h>

#include "arch/counter.h"
#include "arch/mmu.h"

/* Linux's names for the lowest levels; the root is ARCH_PT_ROOT. */
#define LEVEL_PMD 1
#define LEVEL_PTE 0

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
	return arch_pt_index(va, level);
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

/* A leaf of a space: kernel-only, not global, readable, with the rights
 * of @prot. arch_pte_leaf() presets accessed and written, so the MMU never
 * has to write them back into an entry another CPU is changing. */
static uint64_t leaf_entry(uint64_t phys, unsigned prot, unsigned level)
{
	unsigned perms = ARCH_PERM_READ;

	if (prot & PT_PROT_WRITE)
		perms |= ARCH_PERM_WRITE;
	if (prot & PT_PROT_EXEC)
		perms |= ARCH_PERM_EXEC;
	return arch_pte_leaf(phys, level, perms);
}

static unsigned leaf_prot(uint64_t e, unsigned level)
{
	unsigned perms = arch_pte_perms(e, level);

	return ((perms & ARCH_PERM_WRITE) ? PT_PROT_WRITE : 0) |
	       ((perms & ARCH_PERM_EXEC) ? PT_PROT_EXEC : 0);
}

/* The mapping @e, a leaf at @level of @va's walk, as lookup/unmap give it. */
static struct pt_mapping mapping_of(uint64_t va, uint64_t e, unsigned level)
{
	uint64_t bytes = 1ULL << ARCH_PT_SHIFT(level);

	return (struct pt_mapping){ .va = va & ~(bytes - 1), .phys = arch_pte_leaf_addr(e, level),
				    .size = (enum pt_size)level, .prot = leaf_prot(e, level) };
}

static bool table_empty(uint64_t phys, unsigned level)
{
	const uint64_t *t = table_of(phys);

	for (unsigned i = 0; i < ARCH_PT_ENTRIES(level); i++)
		if (entry_load(&t[i]) != ARCH_PTE_NONE)
			return false;
	return true;
}

/* ---- locks ---- */

struct spinlock *pt_lockptr(struct pt_as *as, uint64_t table_phys, unsigned level)
{
	/* Linux: pmd_lockptr() and pte_lockptr() give the ptlock of the table's
	 * struct page when split locks are on, &mm->page_table_lock otherwise;
	 * pud_lockptr() is always &mm->page_table_lock. */
	if (as->mode == PT_LOCK_SPLIT && level <= LEVEL_PMD)
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

/* A zeroed table of @level: one page (pt_create() refuses a format whose
 * tables are larger). */
static uint64_t table_alloc(struct pt_as *as, unsigned level, uint32_t node, struct pt_stats *st)
{
	uint64_t phys = as->ops->alloc_table(as->ctx, node);

	if (phys == PT_NO_PHYS)
		return PT_NO_PHYS;
	memset(table_of(phys), 0, ARCH_PT_TABLE_BYTES(level));
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

	for (unsigned l = ARCH_PT_ROOT; l > level; l--) {
		uint64_t e = entry_load(&table_of(cur)[index_at(va, l)]);
		if (!arch_pte_is_table(e, l))
			return false;
		cur = arch_pte_table_addr(e);
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

	for (unsigned l = ARCH_PT_ROOT; l > level; l--) {
		uint64_t *e = &table_of(cur)[index_at(va, l)];
		uint64_t v = entry_load(e);

		if (!arch_pte_present(v)) {
			if (!alloc) {
				*err = PT_ERR_NOTMAPPED;
				return PT_NO_PHYS;
			}
			uint64_t fresh = table_alloc(as, l - 1, node, st);
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
			if (!arch_pte_present(v)) {
				v = arch_pte_table(fresh, l);
				entry_store(e, v);
				fresh = PT_NO_PHYS;
			}
			lock_drop(lk);
			if (fresh != PT_NO_PHYS) {
				table_free(as, fresh);
				st->tables_raced++;
			}
		}
		if (!arch_pte_is_table(v, l)) {
			*err = PT_ERR_BUSY;   /* a leaf in the way */
			return PT_NO_PHYS;
		}
		cur = arch_pte_table_addr(v);
	}
	return cur;
}

/* The leaf that maps @va, without locks: its table and level, or false. */
static bool find_leaf(struct pt_as *as, uint64_t va, uint64_t *table, unsigned *level,
		      uint64_t *entry)
{
	uint64_t cur = as->root_phys;

	for (unsigned l = ARCH_PT_ROOT;; l--) {
		uint64_t e = entry_load(&table_of(cur)[index_at(va, l)]);
		if (!arch_pte_present(e))
			return false;
		if (arch_pte_is_leaf(e, l)) {
			*table = cur;
			*level = l;
			*entry = e;
			return true;
		}
		if (l == LEVEL_PTE || !arch_pte_is_table(e, l))
			return false;
		cur = arch_pte_table_addr(e);
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
	/* Every table is one page from alloc_table(). */
	for (unsigned l = 0; l < ARCH_PT_LEVELS; l++)
		if (ARCH_PT_TABLE_BYTES(l) > PT_TABLE_BYTES)
			return PT_ERR_INVAL;
	memset(as, 0, sizeof(*as));
	as->ops = ops;
	as->ctx = ctx;
	as->mode = mode;
	as->va_start = va_start;
	as->va_end = va_end;
	as->deferred_head = PT_NO_PHYS;
	as->root_phys = table_alloc(as, ARCH_PT_ROOT, node, &st);
	if (as->root_phys == PT_NO_PHYS)
		return PT_ERR_NOMEM;
	as->root = table_of(as->root_phys);
	if (template_root) {
		unsigned lo = index_at(va_start, ARCH_PT_ROOT);
		unsigned hi = lo + (unsigned)((va_end - va_start) / PT_WINDOW_ALIGN);
		for (unsigned i = 0; i < ARCH_PT_ENTRIES(ARCH_PT_ROOT); i++)
			if (i < lo || i >= hi)
				as->root[i] = template_root[i];
	}
	return PT_OK;
}

static void destroy_table(struct pt_as *as, uint64_t phys, unsigned level, uint64_t va_base,
			  void (*leaf)(void *, const struct pt_mapping *), void *arg)
{
	uint64_t *t = table_of(phys);

	for (unsigned i = 0; i < ARCH_PT_ENTRIES(level); i++) {
		uint64_t e = t[i];
		uint64_t va = va_base + ((uint64_t)i << ARCH_PT_SHIFT(level));
		if (!arch_pte_present(e))
			continue;
		if (arch_pte_is_leaf(e, level)) {
			struct pt_mapping m = mapping_of(va, e, level);
			if (leaf)
				leaf(arg, &m);
		} else if (arch_pte_is_table(e, level)) {
			destroy_table(as, arch_pte_table_addr(e), level - 1, va, leaf, arg);
		}
		t[i] = ARCH_PTE_NONE;
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
		uint64_t *e = &as->root[index_at(va, ARCH_PT_ROOT)];
		if (arch_pte_is_table(*e, ARCH_PT_ROOT))
			destroy_table(as, arch_pte_table_addr(*e), ARCH_PT_ROOT - 1, va, leaf, arg);
		*e = ARCH_PTE_NONE;
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
	if ((unsigned)size >= PT_NR_SIZES || !arch_pt_leaf_level((unsigned)size) ||
	    (prot & ~PT_PROT_ALL))
		return PT_ERR_INVAL;
	uint64_t bytes = pt_size_bytes(size);
	unsigned level = (unsigned)size;
	if ((va | phys) & (bytes - 1) || !arch_pte_phys_ok(phys) || !in_window(as, va, bytes))
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
		if (arch_pte_present(entry_load(e))) {
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
	while (level < ARCH_PT_ROOT) {
		int err;
		uint64_t parent = walk(as, va, level + 1, false, 0, st, &err);
		if (parent == PT_NO_PHYS)
			return;
		struct spinlock *plk = pt_lockptr(as, parent, level + 1);
		struct spinlock *lk = pt_lockptr(as, phys, level);
		lock_take(plk, st);
		uint64_t *pe = &table_of(parent)[index_at(va, level + 1)];
		uint64_t v = entry_load(pe);
		if (!linked(as, va, parent, level + 1) || !arch_pte_is_table(v, level + 1) ||
		    arch_pte_table_addr(v) != phys) {
			lock_drop(plk);   /* someone else unlinked it already */
			return;
		}
		if (lk != plk)
			lock_take(lk, st);
		bool gone = table_empty(phys, level);
		if (gone) {
			entry_store(pe, ARCH_PTE_NONE);
			table_defer(as, phys);
		}
		if (lk != plk)
			lock_drop(lk);
		bool parent_empty = gone && level + 1 < ARCH_PT_ROOT && table_empty(parent, level + 1);
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
		if (linked(as, va, t, l) && arch_pte_is_leaf(e, l)) {
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
	entry_store(e, ARCH_PTE_NONE);
	bool empty = table_empty(t, level);
	lock_drop(lk);

	struct pt_mapping m = mapping_of(va, v, level);
	/* The frame is the caller's only once no TLB can reach it. */
	flush(as, m.va, pt_size_bytes(m.size));
	if (old)
		*old = m;
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
	*m = mapping_of(va, e, level);
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

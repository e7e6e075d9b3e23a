/*
 * physmem.c: the early physical memory allocator (see physmem.h).
 *
 * Pure C: builds for the kernel and for the host unit tests.
 *
 * Both arrays are sorted and disjoint, so a lookup is a binary search on the
 * range ends, and free memory is found by one merged walk over memory and
 * reservations (struct free_iter). Edits keep the arrays in place with
 * memmove; each edit first counts the slots it needs and refuses before
 * changing anything if they are not there, so a full table never leaves a
 * half-done operation behind.
 */
#include "mm/physmem.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"

#define PAGE_MASK (PAGE_SIZE_BYTES - 1)
/* Highest page-aligned end a range can have. */
#define TOP_PAGE_END (~0ULL & ~PAGE_MASK)

typedef unsigned long long ull;   /* for printf */

static bool page_aligned(uint64_t x)
{
	return (x & PAGE_MASK) == 0;
}

static uint64_t page_round_down(uint64_t x)
{
	return x & ~PAGE_MASK;
}

/* Round up to a page; ends in the last page of the address space stop at TOP_PAGE_END. */
static uint64_t page_round_up(uint64_t x)
{
	return x > TOP_PAGE_END ? TOP_PAGE_END : (x + PAGE_MASK) & ~PAGE_MASK;
}

static bool type_valid(uint32_t type)
{
	return type > PHYSMEM_RESV_NONE && type < PHYSMEM_RESV_TYPE_COUNT;
}

const char *physmem_resv_type_name(uint32_t type)
{
	static const char *const names[PHYSMEM_RESV_TYPE_COUNT] = {
		[PHYSMEM_RESV_NONE] = "none",
		[PHYSMEM_RESV_PAGE0] = "page0",
		[PHYSMEM_RESV_KERNEL] = "kernel",
		[PHYSMEM_RESV_TRAMPOLINE] = "trampoline",
		[PHYSMEM_RESV_PAGETABLE] = "pagetable",
		[PHYSMEM_RESV_PERCPU] = "percpu",
		[PHYSMEM_RESV_HUGETLB_1G] = "hugetlb",
		[PHYSMEM_RESV_HUGETLB_TABLES] = "hugetlb-tables",
		[PHYSMEM_RESV_MEMMAP] = "memmap",
		[PHYSMEM_RESV_ALLOC] = "alloc",
		[PHYSMEM_RESV_PCP] = "pcp",
		[PHYSMEM_RESV_MEMINIT] = "meminit",
		[PHYSMEM_RESV_CONSOLE] = "console",
		[PHYSMEM_RESV_BADRAM] = "badram",
	};

	return type < PHYSMEM_RESV_TYPE_COUNT && names[type] ? names[type] : "?";
}

static bool same_owner(const struct physmem_resv *r, uint32_t node, uint32_t type)
{
	return r->node == node && r->type == type;
}

/* Index of the first memory range ending after @addr (nr_mem if none). */
static uint32_t mem_search(const struct physmem *pm, uint64_t addr)
{
	uint32_t lo = 0, hi = pm->nr_mem;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pm->mem[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Index of the first reservation ending after @addr (nr_resv if none). */
static uint32_t resv_search(const struct physmem *pm, uint64_t addr)
{
	uint32_t lo = 0, hi = pm->nr_resv;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pm->resv[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Free memory, in address order. cur only grows; mi and ri point at the first
 * memory range and reservation that may still matter at cur.
 */
struct free_iter {
	uint32_t mi;
	uint32_t ri;
	uint64_t cur;
};

static void free_iter_seek(const struct physmem *pm, struct free_iter *it, uint64_t addr)
{
	it->mi = mem_search(pm, addr);
	it->ri = resv_search(pm, addr);
	it->cur = addr;
}

/*
 * The next free range at or after it->cur, in [*start, *end) on *node. It is
 * maximal (bounded by reservations, holes or a node change), except that the
 * first one starts where the walk was seeked to.
 */
static bool free_iter_next(const struct physmem *pm, struct free_iter *it,
			   uint64_t *start, uint64_t *end, uint32_t *node)
{
	for (; it->mi < pm->nr_mem; it->mi++) {
		const struct physmem_range *m = &pm->mem[it->mi];

		if (it->cur < m->start)
			it->cur = m->start;
		while (it->cur < m->end) {
			const struct physmem_resv *r;

			while (it->ri < pm->nr_resv && pm->resv[it->ri].end <= it->cur)
				it->ri++;
			r = it->ri < pm->nr_resv ? &pm->resv[it->ri] : NULL;
			if (r && r->start <= it->cur) {
				it->cur = r->end;       /* reserved: skip it */
				continue;
			}
			*start = it->cur;
			*end = r && r->start < m->end ? r->start : m->end;
			*node = m->node;
			it->cur = *end;
			return true;
		}
	}
	return false;
}

/*
 * Where [start, end) would go in resv[]: at index *at, merging into the left
 * and/or right neighbour if that one touches it and has the same owner. The
 * range must overlap no reservation.
 */
static void resv_place(const struct physmem *pm, uint64_t start, uint64_t end, uint32_t node,
		       uint32_t type, uint32_t *at, bool *join_left, bool *join_right)
{
	uint32_t k = resv_search(pm, start);

	DEBUG_ASSERT(k == pm->nr_resv || pm->resv[k].start >= end,
		     "[0x%llx-0x%llx) overlaps reservation %u", (ull)start, (ull)end, k);
	*at = k;
	*join_left = k > 0 && pm->resv[k - 1].end == start &&
		     same_owner(&pm->resv[k - 1], node, type);
	*join_right = k < pm->nr_resv && pm->resv[k].start == end &&
		      same_owner(&pm->resv[k], node, type);
}

static bool resv_needs_slot(const struct physmem *pm, uint64_t start, uint64_t end,
			    uint32_t node, uint32_t type)
{
	uint32_t at;
	bool join_left, join_right;

	resv_place(pm, start, end, node, type, &at, &join_left, &join_right);
	return !join_left && !join_right;
}

/*
 * Record free pages [start, end), inside one memory range of @node, as
 * reserved for @type. False if a new slot was needed and none
 * is left; nothing changes then.
 */
static bool resv_insert(struct physmem *pm, uint64_t start, uint64_t end, uint32_t node,
			uint32_t type)
{
	uint32_t k;
	bool join_left, join_right;

	resv_place(pm, start, end, node, type, &k, &join_left, &join_right);
	if (join_left && join_right) {
		pm->resv[k - 1].end = pm->resv[k].end;
		memmove(&pm->resv[k], &pm->resv[k + 1],
			(pm->nr_resv - k - 1) * sizeof(pm->resv[0]));
		pm->nr_resv--;
	} else if (join_left) {
		pm->resv[k - 1].end = end;
	} else if (join_right) {
		pm->resv[k].start = start;
	} else {
		struct physmem_resv *r = &pm->resv[k];

		if (pm->nr_resv >= PHYSMEM_MAX_RESV)
			return false;
		memmove(&pm->resv[k + 1], r, (pm->nr_resv - k) * sizeof(pm->resv[0]));
		pm->nr_resv++;
		r->start = start;
		r->end = end;
		r->node = node;
		r->type = type;
	}
	return true;
}

/* Merge touching memory ranges on the same node. */
static void mem_merge(struct physmem *pm)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < pm->nr_mem; i++) {
		struct physmem_range *prev = w ? &pm->mem[w - 1] : NULL;
		if (prev && prev->end == pm->mem[i].start && prev->node == pm->mem[i].node)
			prev->end = pm->mem[i].end;
		else
			pm->mem[w++] = pm->mem[i];
	}
	pm->nr_mem = w;
}

/* Merge touching reservations with the same owner. */
static void resv_merge(struct physmem *pm)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < pm->nr_resv; i++) {
		struct physmem_resv *prev = w ? &pm->resv[w - 1] : NULL;
		const struct physmem_resv *r = &pm->resv[i];
		if (prev && prev->end == r->start && same_owner(prev, r->node, r->type))
			prev->end = r->end;
		else
			pm->resv[w++] = *r;
	}
	pm->nr_resv = w;
}

void physmem_init(struct physmem *pm)
{
	memset(pm, 0, sizeof(*pm));
	pm->nr_nodes = 1;
	/* One fill and the diagonal: a loop over 256 x 256 entries is
	 * milliseconds of a TCG guest's boot. */
	memset(pm->distance, PHYSMEM_REMOTE_DISTANCE, sizeof(pm->distance));
	for (uint32_t i = 0; i < PHYSMEM_MAX_NODES; i++)
		pm->distance[i][i] = PHYSMEM_LOCAL_DISTANCE;
}

bool physmem_add(struct physmem *pm, uint64_t start, uint64_t end)
{
	uint32_t i;
	bool join_left, join_right;

	ASSERT(start < end, "empty range [0x%llx-0x%llx)", (ull)start, (ull)end);
	ASSERT(page_aligned(start) && page_aligned(end),
	       "[0x%llx-0x%llx) not page aligned", (ull)start, (ull)end);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");

	i = mem_search(pm, start);
	if (i < pm->nr_mem && pm->mem[i].start < end) {
		pr_err("physmem: memory [mem 0x%016llx-0x%016llx] overlaps [mem 0x%016llx-0x%016llx] node %u; ignored",
		       (ull)start, (ull)end - 1, (ull)pm->mem[i].start,
		       (ull)pm->mem[i].end - 1, pm->mem[i].node);
		return false;
	}
	join_left = i > 0 && pm->mem[i - 1].end == start && pm->mem[i - 1].node == 0;
	join_right = i < pm->nr_mem && pm->mem[i].start == end && pm->mem[i].node == 0;
	if (join_left && join_right) {
		pm->mem[i - 1].end = pm->mem[i].end;
		memmove(&pm->mem[i], &pm->mem[i + 1], (pm->nr_mem - i - 1) * sizeof(pm->mem[0]));
		pm->nr_mem--;
	} else if (join_left) {
		pm->mem[i - 1].end = end;
	} else if (join_right) {
		pm->mem[i].start = start;
	} else {
		if (pm->nr_mem >= PHYSMEM_MAX_MEM) {
			pr_err("physmem: more than %d memory ranges; [mem 0x%016llx-0x%016llx] dropped",
			       PHYSMEM_MAX_MEM, (ull)start, (ull)end - 1);
			return false;
		}
		memmove(&pm->mem[i + 1], &pm->mem[i], (pm->nr_mem - i) * sizeof(pm->mem[0]));
		pm->nr_mem++;
		pm->mem[i] = (struct physmem_range){ .start = start, .end = end, .node = 0 };
	}
	return true;
}

uint32_t physmem_add_map(struct physmem *pm, const struct mem_range *map, uint32_t nr_map)
{
	uint32_t failed = 0;

	ASSERT(map || nr_map == 0, "no map but %u ranges", nr_map);
	for (uint32_t i = 0; i < nr_map; i++)
		if (map[i].type == MEM_USABLE && !physmem_add(pm, map[i].start, map[i].end))
			failed++;
	return failed;
}

/* Split the memory range strictly containing @at, unless it is already on @node. */
static void mem_split(struct physmem *pm, uint64_t at, uint32_t node)
{
	uint32_t i = mem_search(pm, at);

	if (i == pm->nr_mem || pm->mem[i].start >= at || pm->mem[i].node == node)
		return;
	ASSERT(pm->nr_mem < PHYSMEM_MAX_MEM, "no slot for a split at 0x%llx", (ull)at);
	memmove(&pm->mem[i + 1], &pm->mem[i], (pm->nr_mem - i) * sizeof(pm->mem[0]));
	pm->nr_mem++;
	pm->mem[i].end = at;
	pm->mem[i + 1].start = at;
}

/* Split the reservation strictly containing @at, unless it is already on @node. */
static void resv_split(struct physmem *pm, uint64_t at, uint32_t node)
{
	uint32_t i = resv_search(pm, at);

	if (i == pm->nr_resv || pm->resv[i].start >= at || pm->resv[i].node == node)
		return;
	ASSERT(pm->nr_resv < PHYSMEM_MAX_RESV, "no slot for a split at 0x%llx", (ull)at);
	memmove(&pm->resv[i + 1], &pm->resv[i], (pm->nr_resv - i) * sizeof(pm->resv[0]));
	pm->nr_resv++;
	pm->resv[i].end = at;
	pm->resv[i + 1].start = at;
}

static uint32_t mem_splits_needed(const struct physmem *pm, uint64_t at, uint32_t node)
{
	uint32_t i = mem_search(pm, at);
	return i < pm->nr_mem && pm->mem[i].start < at && pm->mem[i].node != node;
}

static uint32_t resv_splits_needed(const struct physmem *pm, uint64_t at, uint32_t node)
{
	uint32_t i = resv_search(pm, at);
	return i < pm->nr_resv && pm->resv[i].start < at && pm->resv[i].node != node;
}

bool physmem_set_node(struct physmem *pm, uint64_t start, uint64_t end, uint32_t node)
{
	uint32_t need_mem, need_resv;

	ASSERT(start < end, "empty range [0x%llx-0x%llx)", (ull)start, (ull)end);
	ASSERT(page_aligned(start) && page_aligned(end),
	       "[0x%llx-0x%llx) not page aligned", (ull)start, (ull)end);
	ASSERT(node < PHYSMEM_MAX_NODES, "node %u", node);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");

	need_mem = mem_splits_needed(pm, start, node) + mem_splits_needed(pm, end, node);
	need_resv = resv_splits_needed(pm, start, node) + resv_splits_needed(pm, end, node);
	if (need_mem > PHYSMEM_MAX_MEM - pm->nr_mem ||
	    need_resv > PHYSMEM_MAX_RESV - pm->nr_resv) {
		pr_err("physmem: no slot left to split at a node boundary: [mem 0x%016llx-0x%016llx] stays off node %u",
		       (ull)start, (ull)end - 1, node);
		return false;
	}
	if (node >= pm->nr_nodes)
		pm->nr_nodes = node + 1;

	mem_split(pm, start, node);
	mem_split(pm, end, node);
	resv_split(pm, start, node);
	resv_split(pm, end, node);
	for (uint32_t i = mem_search(pm, start); i < pm->nr_mem && pm->mem[i].start < end; i++)
		pm->mem[i].node = node;
	for (uint32_t i = resv_search(pm, start); i < pm->nr_resv && pm->resv[i].start < end; i++)
		pm->resv[i].node = node;
	mem_merge(pm);
	resv_merge(pm);
	return true;
}

void physmem_set_distance(struct physmem *pm, uint32_t nr_nodes, const uint8_t *matrix)
{
	ASSERT(nr_nodes >= 1 && nr_nodes <= PHYSMEM_MAX_NODES, "nr_nodes %u", nr_nodes);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");
	for (uint32_t i = 0; i < pm->nr_mem; i++)
		ASSERT(pm->mem[i].node < nr_nodes, "memory on node %u, only %u nodes",
		       pm->mem[i].node, nr_nodes);

	/* Only the rows and columns this call or the last one sized: the rest
	 * still hold physmem_init()'s defaults. The whole 256 x 256 matrix
	 * each time was 3.8 ms of a TCG guest's boot. */
	uint32_t span = nr_nodes > pm->nr_nodes ? nr_nodes : pm->nr_nodes;

	for (uint32_t i = 0; i < span; i++) {
		for (uint32_t j = 0; j < span; j++) {
			uint8_t d = i == j ? PHYSMEM_LOCAL_DISTANCE : PHYSMEM_REMOTE_DISTANCE;
			if (matrix && i < nr_nodes && j < nr_nodes) {
				d = matrix[i * nr_nodes + j];
				ASSERT(i == j ? d == PHYSMEM_LOCAL_DISTANCE : d > PHYSMEM_LOCAL_DISTANCE,
				       "distance[%u][%u] = %u", i, j, d);
			}
			pm->distance[i][j] = d;
		}
	}
	pm->nr_nodes = nr_nodes;
}

static void print_resv_overlap(uint32_t type, uint64_t s, uint64_t e,
			       const struct physmem_resv *r)
{
	uint64_t os = s > r->start ? s : r->start;
	uint64_t oe = e < r->end ? e : r->end;
	const char *old = physmem_resv_type_name(r->type);

	pr_warn("physmem: reserve [mem 0x%016llx-0x%016llx] '%s' overlaps '%s' at [mem 0x%016llx-0x%016llx]; the overlap stays with '%s'",
		(ull)s, (ull)e - 1, physmem_resv_type_name(type), old, (ull)os, (ull)oe - 1, old);
}

bool physmem_reserve(struct physmem *pm, uint64_t start, uint64_t end,
		     enum physmem_resv_type type)
{
	const char *owner = physmem_resv_type_name(type);
	struct free_iter it;
	uint64_t s, e, ps, pe;
	uint32_t pn, need = 0;

	ASSERT(start < end, "empty range [0x%llx-0x%llx)", (ull)start, (ull)end);
	ASSERT(type_valid(type), "reservation of type %u", (unsigned)type);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");

	s = page_round_down(start);
	e = page_round_up(end);
	if (s >= e)
		return true;   /* only the last page of the address space: never usable */

	/* Each free piece of [s, e) becomes one entry unless it joins a neighbour. */
	free_iter_seek(pm, &it, s);
	while (free_iter_next(pm, &it, &ps, &pe, &pn) && ps < e)
		need += resv_needs_slot(pm, ps, pe < e ? pe : e, pn, type);
	if (need > PHYSMEM_MAX_RESV - pm->nr_resv) {
		pr_err("physmem: out of reservation slots (%u of %d used, %u more needed); [mem 0x%016llx-0x%016llx] '%s' not reserved",
		       pm->nr_resv, PHYSMEM_MAX_RESV, need, (ull)s, (ull)e - 1, owner);
		return false;
	}

	for (uint32_t i = resv_search(pm, s); i < pm->nr_resv && pm->resv[i].start < e; i++)
		print_resv_overlap(type, s, e, &pm->resv[i]);

	free_iter_seek(pm, &it, s);
	while (free_iter_next(pm, &it, &ps, &pe, &pn) && ps < e) {
		if (pe > e)
			pe = e;
		bool inserted = resv_insert(pm, ps, pe, pn, type);

		ASSERT(inserted, "[0x%llx-0x%llx): slot count was checked", (ull)ps, (ull)pe);
		free_iter_seek(pm, &it, pe);   /* the arrays moved under the iterator */
	}
	return true;
}

/*
 * Pick the node to allocate from, given best[n] (the highest fitting address
 * on node n, 0 for none). The first node in preference order with a fit is
 * the nearest one with a fit, so no sorting is needed.
 */
static uint32_t pick_node(const struct physmem *pm, const uint64_t *best, uint32_t node, bool exact)
{
	uint32_t pick = PHYSMEM_NO_NODE;

	if (node == PHYSMEM_ANY_NODE) {
		for (uint32_t n = 0; n < pm->nr_nodes; n++)
			if (best[n])
				return n;
		return PHYSMEM_NO_NODE;
	}
	if (best[node])
		return node;
	if (exact)
		return PHYSMEM_NO_NODE;
	for (uint32_t n = 0; n < pm->nr_nodes; n++)
		if (n != node && best[n] &&
		    (pick == PHYSMEM_NO_NODE || pm->distance[node][n] < pm->distance[node][pick]))
			pick = n;
	return pick;
}

static uint64_t alloc_failed(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			     uint64_t min_addr, uint64_t max_addr, uint32_t node, bool exact,
			     const char *name, bool quiet)
{
	char where[64] = "";

	if (quiet)
		return 0;   /* the caller has a fallback and reports the outcome */
	pm->failed_allocs++;
	/* A window only when the caller gave one: the whole address space
	 * printed as [mem 0x0-0xfffffffffffffffe] says nothing. */
	if (min_addr != 0 || max_addr != PHYSMEM_ADDR_MAX)
		snprintf(where, sizeof(where), " in [mem 0x%016llx-0x%016llx]",
			 (ull)min_addr, (ull)max_addr - 1);
	if (node == PHYSMEM_ANY_NODE)
		pr_warn("physmem: cannot allocate %llu bytes (align 0x%llx)%s on any node for '%s'",
			(ull)size_bytes, (ull)align_bytes, where, name);
	else
		pr_warn("physmem: cannot allocate %llu bytes (align 0x%llx)%s on node %u%s for '%s'",
			(ull)size_bytes, (ull)align_bytes, where, node,
			exact ? " (exact)" : " or another", name);
	return 0;
}

static uint64_t alloc_range(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			    uint64_t min_addr, uint64_t max_addr, uint32_t node, bool exact,
			    uint32_t type, bool quiet)
{
	uint64_t best[PHYSMEM_MAX_NODES] = { 0 };
	const char *owner = physmem_resv_type_name(type);
	struct free_iter it;
	uint64_t size, fs, fe;
	uint32_t fn, pick;

	ASSERT(size_bytes > 0, "size 0 for '%s'", owner);
	ASSERT(align_bytes >= PAGE_SIZE_BYTES && (align_bytes & (align_bytes - 1)) == 0,
	       "align 0x%llx", (ull)align_bytes);
	ASSERT(min_addr < max_addr, "empty window [0x%llx-0x%llx)", (ull)min_addr, (ull)max_addr);
	ASSERT(type_valid(type), "allocation of type %u", type);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");
	ASSERT(node == PHYSMEM_ANY_NODE || node < pm->nr_nodes, "node %u of %u", node, pm->nr_nodes);

	if (size_bytes > TOP_PAGE_END)
		return alloc_failed(pm, size_bytes, align_bytes, min_addr, max_addr, node, exact, owner,
				    quiet);
	size = page_round_up(size_bytes);

	/* One walk finds the highest fit on every node; later ranges lie higher. */
	free_iter_seek(pm, &it, min_addr);
	while (free_iter_next(pm, &it, &fs, &fe, &fn) && fs < max_addr) {
		uint64_t lo = fs > min_addr ? fs : min_addr;
		uint64_t hi = fe < max_addr ? fe : max_addr;
		uint64_t at;

		if (hi - lo < size)
			continue;
		at = (hi - size) & ~(align_bytes - 1);
		if (at >= lo && at != 0)
			best[fn] = at;
	}

	pick = pick_node(pm, best, node, exact);
	if (pick == PHYSMEM_NO_NODE)
		return alloc_failed(pm, size_bytes, align_bytes, min_addr, max_addr, node, exact, owner,
				    quiet);
	if (!resv_insert(pm, best[pick], best[pick] + size, pick, type)) {
		pr_err("physmem: out of reservation slots (%d used) for '%s'", PHYSMEM_MAX_RESV, owner);
		return alloc_failed(pm, size_bytes, align_bytes, min_addr, max_addr, node, exact, owner,
				    false);
	}
	return best[pick];
}

uint64_t physmem_alloc_range(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			     uint64_t min_addr, uint64_t max_addr, uint32_t node, bool exact,
			     enum physmem_resv_type type)
{
	return alloc_range(pm, size_bytes, align_bytes, min_addr, max_addr, node, exact, type,
			   false);
}

uint64_t physmem_try_alloc(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
			   uint32_t node, bool exact, enum physmem_resv_type type)
{
	return alloc_range(pm, size_bytes, align_bytes, 0, PHYSMEM_ADDR_MAX, node, exact, type,
			   true);
}

uint64_t physmem_alloc(struct physmem *pm, uint64_t size_bytes, uint64_t align_bytes,
		       uint32_t node, bool exact, enum physmem_resv_type type)
{
	return physmem_alloc_range(pm, size_bytes, align_bytes, 0, PHYSMEM_ADDR_MAX, node, exact,
				   type);
}

bool physmem_free(struct physmem *pm, uint64_t start, uint64_t end)
{
	uint64_t s, e;
	uint32_t i, w;

	ASSERT(start < end, "empty range [0x%llx-0x%llx)", (ull)start, (ull)end);
	DEBUG_ASSERT(physmem_check(pm), "physmem corrupted");

	s = page_round_down(start);
	e = page_round_up(end);
	i = resv_search(pm, s);
	if (s >= e || i == pm->nr_resv || pm->resv[i].start >= e) {
		pr_warn("physmem: free [mem 0x%016llx-0x%016llx]: nothing reserved there",
			(ull)s, (ull)e - 1);
		return true;
	}

	if (pm->resv[i].start < s && pm->resv[i].end > e) {
		/* A hole in the middle of one reservation: it becomes two. */
		if (pm->nr_resv >= PHYSMEM_MAX_RESV) {
			pr_err("physmem: out of reservation slots; cannot free [mem 0x%016llx-0x%016llx] from '%s'",
			       (ull)s, (ull)e - 1, physmem_resv_type_name(pm->resv[i].type));
			return false;
		}
		memmove(&pm->resv[i + 1], &pm->resv[i], (pm->nr_resv - i) * sizeof(pm->resv[0]));
		pm->nr_resv++;
		pm->resv[i].end = s;
		pm->resv[i + 1].start = e;
		return true;
	}

	/* Otherwise trim the ends and drop what lies wholly inside. */
	for (w = i; i < pm->nr_resv; i++) {
		struct physmem_resv r = pm->resv[i];
		if (r.start < e) {
			if (r.start < s)
				r.end = s;
			else if (r.end > e)
				r.start = e;
			else
				continue;
		}
		pm->resv[w++] = r;
	}
	pm->nr_resv = w;
	return true;
}

uint32_t physmem_node_of(const struct physmem *pm, uint64_t addr)
{
	uint32_t i = mem_search(pm, addr);

	return i < pm->nr_mem && pm->mem[i].start <= addr ? pm->mem[i].node : PHYSMEM_NO_NODE;
}

static void assert_node_arg(const struct physmem *pm, uint32_t node)
{
	ASSERT(node == PHYSMEM_ANY_NODE || node < pm->nr_nodes, "node %u of %u", node,
	       pm->nr_nodes);
}

uint64_t physmem_total_bytes(const struct physmem *pm, uint32_t node)
{
	uint64_t sum = 0;

	assert_node_arg(pm, node);
	for (uint32_t i = 0; i < pm->nr_mem; i++)
		if (node == PHYSMEM_ANY_NODE || pm->mem[i].node == node)
			sum += pm->mem[i].end - pm->mem[i].start;
	return sum;
}

uint64_t physmem_reserved_bytes(const struct physmem *pm, uint32_t node)
{
	uint64_t sum = 0;

	assert_node_arg(pm, node);
	for (uint32_t i = 0; i < pm->nr_resv; i++)
		if (node == PHYSMEM_ANY_NODE || pm->resv[i].node == node)
			sum += pm->resv[i].end - pm->resv[i].start;
	return sum;
}

/* Walked rather than computed as total - reserved, so the two can be checked against each other. */
uint64_t physmem_free_bytes(const struct physmem *pm, uint32_t node)
{
	struct free_iter it;
	uint64_t sum = 0, s, e;
	uint32_t n;

	assert_node_arg(pm, node);
	free_iter_seek(pm, &it, 0);
	while (free_iter_next(pm, &it, &s, &e, &n))
		if (node == PHYSMEM_ANY_NODE || n == node)
			sum += e - s;
	return sum;
}

void physmem_for_each_free(const struct physmem *pm, uint32_t node,
			   bool (*cb)(void *ctx, uint64_t start, uint64_t end, uint32_t node),
			   void *ctx)
{
	struct free_iter it;
	uint64_t s, e;
	uint32_t n;

	assert_node_arg(pm, node);
	free_iter_seek(pm, &it, 0);
	while (free_iter_next(pm, &it, &s, &e, &n))
		if ((node == PHYSMEM_ANY_NODE || n == node) && !cb(ctx, s, e, n))
			return;
}

uint64_t physmem_reserved_bytes_of(const struct physmem *pm, enum physmem_resv_type type)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < pm->nr_resv; i++)
		if (pm->resv[i].type == (uint32_t)type)
			sum += pm->resv[i].end - pm->resv[i].start;
	return sum;
}

static void print_totals(const struct physmem *pm, uint32_t node)
{
	ull total = physmem_total_bytes(pm, node) >> 10;
	ull reserved = physmem_reserved_bytes(pm, node) >> 10;
	ull free_kib = physmem_free_bytes(pm, node) >> 10;

	if (node == PHYSMEM_ANY_NODE)
		pr_info("physmem: all nodes: %llu KiB total, %llu KiB reserved, %llu KiB free",
			total, reserved, free_kib);
	else
		pr_info("physmem: node %u: %llu KiB total, %llu KiB reserved, %llu KiB free",
			node, total, reserved, free_kib);
}

void physmem_dump(const struct physmem *pm)
{
	pr_info("physmem: %u memory ranges, %u reservations, %u nodes, %u failed allocations",
		pm->nr_mem, pm->nr_resv, pm->nr_nodes, pm->failed_allocs);
	for (uint32_t i = 0; i < pm->nr_mem; i++)
		pr_info("physmem: memory [mem 0x%016llx-0x%016llx] node %u",
			(ull)pm->mem[i].start, (ull)pm->mem[i].end - 1, pm->mem[i].node);
	for (uint32_t i = 0; i < pm->nr_resv; i++)
		pr_info("physmem: reserved [mem 0x%016llx-0x%016llx] node %u '%s'",
			(ull)pm->resv[i].start, (ull)pm->resv[i].end - 1, pm->resv[i].node,
			physmem_resv_type_name(pm->resv[i].type));
	for (uint32_t n = 0; n < pm->nr_nodes; n++)
		print_totals(pm, n);
	print_totals(pm, PHYSMEM_ANY_NODE);
}

bool physmem_check(const struct physmem *pm)
{
	bool ok = true;
	uint32_t mi = 0;

#define CHECK(cond, fmt, ...)                                               \
	do {                                                                \
		if (!(cond)) {                                              \
			pr_err("physmem: check: " fmt, ##__VA_ARGS__);      \
			ok = false;                                         \
		}                                                           \
	} while (0)

	CHECK(pm->nr_nodes >= 1 && pm->nr_nodes <= PHYSMEM_MAX_NODES, "nr_nodes %u", pm->nr_nodes);
	CHECK(pm->nr_mem <= PHYSMEM_MAX_MEM, "nr_mem %u > %d", pm->nr_mem, PHYSMEM_MAX_MEM);
	CHECK(pm->nr_resv <= PHYSMEM_MAX_RESV, "nr_resv %u > %d", pm->nr_resv, PHYSMEM_MAX_RESV);
	if (!ok)
		return false;   /* the counts bound every loop below */

	for (uint32_t i = 0; i < pm->nr_nodes; i++)
		for (uint32_t j = 0; j < pm->nr_nodes; j++)
			CHECK(i == j ? pm->distance[i][j] == PHYSMEM_LOCAL_DISTANCE
				     : pm->distance[i][j] > PHYSMEM_LOCAL_DISTANCE,
			      "distance[%u][%u] = %u", i, j, pm->distance[i][j]);

	for (uint32_t i = 0; i < pm->nr_mem; i++) {
		const struct physmem_range *m = &pm->mem[i];
		const struct physmem_range *prev = i ? &pm->mem[i - 1] : NULL;

		CHECK(m->start < m->end && page_aligned(m->start) && page_aligned(m->end),
		      "memory[%u] [0x%llx-0x%llx) empty or not page aligned", i,
		      (ull)m->start, (ull)m->end);
		CHECK(m->node < pm->nr_nodes, "memory[%u] on node %u of %u", i, m->node,
		      pm->nr_nodes);
		if (prev) {
			CHECK(prev->end <= m->start, "memory[%u] [0x%llx-0x%llx) not after [0x%llx-0x%llx)",
			      i, (ull)m->start, (ull)m->end, (ull)prev->start, (ull)prev->end);
			CHECK(prev->end != m->start || prev->node != m->node,
			      "memory[%u] at 0x%llx not merged with its neighbour on node %u", i,
			      (ull)m->start, m->node);
		}
	}

	for (uint32_t i = 0; i < pm->nr_resv; i++) {
		const struct physmem_resv *r = &pm->resv[i];
		const struct physmem_resv *prev = i ? &pm->resv[i - 1] : NULL;
		bool typed = type_valid(r->type);

		CHECK(typed, "reservation[%u] at 0x%llx has type %u", i, (ull)r->start, r->type);
		CHECK(r->start < r->end && page_aligned(r->start) && page_aligned(r->end),
		      "reservation[%u] [0x%llx-0x%llx) empty or not page aligned", i,
		      (ull)r->start, (ull)r->end);
		if (prev) {
			CHECK(prev->end <= r->start,
			      "reservation[%u] [0x%llx-0x%llx) not after [0x%llx-0x%llx)", i,
			      (ull)r->start, (ull)r->end, (ull)prev->start, (ull)prev->end);
			CHECK(prev->end != r->start || !same_owner(prev, r->node, r->type),
			      "reservation[%u] at 0x%llx not merged with its neighbour '%s'", i,
			      (ull)r->start, physmem_resv_type_name(r->type));
		}
		/* Memory is sorted too: the range holding r is at or after the last one found. */
		while (mi < pm->nr_mem && pm->mem[mi].end <= r->start)
			mi++;
		if (mi < pm->nr_mem && pm->mem[mi].start <= r->start && r->end <= pm->mem[mi].end)
			CHECK(r->node == pm->mem[mi].node,
			      "reservation[%u] [0x%llx-0x%llx) on node %u, its memory on node %u",
			      i, (ull)r->start, (ull)r->end, r->node, pm->mem[mi].node);
		else
			CHECK(false, "reservation[%u] [0x%llx-0x%llx) not inside one memory range",
			      i, (ull)r->start, (ull)r->end);
	}
#undef CHECK
	return ok;
}

uint64_t physmem_retire(struct physmem *pm)
{
	pm->retired = true;
	return physmem_reserved_bytes(pm, PHYSMEM_ANY_NODE) >> PAGE_SHIFT;
}

void physmem_report_retired(const struct physmem *pm)
{
	uint64_t reserved_pages = physmem_reserved_bytes(pm, PHYSMEM_ANY_NODE) >> PAGE_SHIFT;
	struct record r;

	/* What stays reserved for good, by type: the census finds the memmap
	 * and page-table pages again by the page types these types became. */
	rec_begin(&r, "physmem_retire");
	rec_u64(&r, "reserved_bytes", reserved_pages << PAGE_SHIFT);
	rec_u64(&r, "ranges", pm->nr_resv);
	rec_key(&r, "types");
	rec_open(&r, '{');
	for (uint32_t t = PHYSMEM_RESV_NONE + 1; t < PHYSMEM_RESV_TYPE_COUNT; t++) {
		rec_key(&r, physmem_resv_type_name(t));
		rec_v_u64(&r, physmem_reserved_bytes_of(pm, (enum physmem_resv_type)t));
	}
	rec_close(&r);
	record_report(&r, LOG_INFO, "physmem: retired; {reserved_bytes:KiB} KiB in {ranges} ranges stay reserved");
}

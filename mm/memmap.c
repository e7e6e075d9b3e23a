/*
 * memmap.c: per-node descriptor arrays, the pfn -> node table, and the
 * routines that fill descriptors (see memmap.h).
 *
 * Pure C: builds for the kernel (-mgeneral-regs-only) and for the host tests
 * and benchmark. The stores other than plain ones and their fence are the
 * architecture's (arch/memory.h); what it knows of the caches it is handed
 * (struct arch_caches).
 */
#include "mm/memmap.h"

#include <stddef.h>

#include "kernel/services/log.h"

typedef unsigned long long ull;   /* for printf */

/* A 64-bit store target that may alias a struct page. */
typedef uint64_t __attribute__((may_alias)) desc_word;

#define DESC_WORDS (MEMMAP_DESC_BYTES / 8)

const char *page_type_name(unsigned type)
{
	static const char *const names[PAGE_NR_TYPES] = {
		[PAGE_UNINIT] = "uninit",     [PAGE_FREE] = "free",
		[PAGE_TAIL] = "tail",         [PAGE_RESERVED] = "reserved",
		[PAGE_MEMMAP] = "memmap",     [PAGE_PAGETABLE] = "pagetable",
		[PAGE_HUGE] = "huge",         [PAGE_ALLOCATED] = "allocated",
		[PAGE_HOLE] = "hole",         [PAGE_PCP] = "pcp",
		[PAGE_BAD] = "bad",
	};
	return type < PAGE_NR_TYPES ? names[type] : "?";
}

void memmap_node_init(struct memmap_node *n, uint32_t nid, uint64_t base_pfn,
		      uint64_t nr_pages, struct page *pages)
{
	ASSERT(pages != 0, "node %u: no array", nid);
	ASSERT(((uintptr_t)pages & (MEMMAP_DESC_BYTES - 1)) == 0,
	       "node %u: array %p not aligned to %d", nid, (void *)pages, MEMMAP_DESC_BYTES);
	ASSERT(nr_pages > 0 && nr_pages < MEMMAP_NONE, "node %u: %llu pages", nid, (ull)nr_pages);
	ASSERT(base_pfn + nr_pages > base_pfn, "node %u: span overflows", nid);
	ASSERT(nid < MEMMAP_MAX_NODES, "node %u", nid);
	n->pages = pages;
	n->base_pfn = base_pfn;
	n->nr_pages = nr_pages;
	n->present_pages = nr_pages;
	n->nid = nid;
	n->store = memmap_store_choose(NULL, memmap_desc_bytes(nr_pages), NULL);
}

/* ---- sparse storage ---- */

uint32_t memmap_backing_runs(const struct memmap_range *present, uint32_t nr,
			     uint64_t span_start_pfn, uint64_t span_end_pfn, unsigned max_order,
			     struct memmap_range *runs, uint32_t cap)
{
	/* Pages whose descriptors fill one backing unit; a power of two. */
	const uint64_t unit_pages = MEMMAP_BACKING_ALIGN_BYTES / sizeof(struct page);
	uint64_t align = 1ULL << max_order;
	uint32_t count = 0;
	struct memmap_range cur = { 0, 0 };

	ASSERT(max_order <= PAGE_ORDER_LIMIT && span_start_pfn <= span_end_pfn,
	       "max_order %u span [%#llx, %#llx)", max_order, (ull)span_start_pfn,
	       (ull)span_end_pfn);
	if (unit_pages > align)
		align = unit_pages;
	for (uint32_t i = 0; i < nr; i++) {
		const struct memmap_range *r = &present[i];
		uint64_t s, e, rel_s, rel_e;

		ASSERT(r->start_pfn < r->end_pfn && r->start_pfn >= span_start_pfn &&
		       r->end_pfn <= span_end_pfn && (i == 0 || r->start_pfn >= present[i - 1].end_pfn),
		       "range %u [%#llx, %#llx) not sorted inside the span [%#llx, %#llx)", i,
		       (ull)r->start_pfn, (ull)r->end_pfn, (ull)span_start_pfn, (ull)span_end_pfn);
		/* Blocks are aligned on absolute pfns (buddies are), descriptor
		 * pages on the node-relative index (the array's own offsets):
		 * round for both, then clamp to the span. */
		s = r->start_pfn & ~(align - 1);
		e = (r->end_pfn + align - 1) & ~(align - 1);
		if (e < r->end_pfn)                     /* wrapped at the top */
			e = span_end_pfn;
		s = s < span_start_pfn ? span_start_pfn : s;
		e = e > span_end_pfn ? span_end_pfn : e;
		rel_s = (s - span_start_pfn) & ~(unit_pages - 1);
		rel_e = (e - span_start_pfn + unit_pages - 1) & ~(unit_pages - 1);
		s = span_start_pfn + rel_s;
		e = span_start_pfn + rel_e;
		if (e > span_end_pfn)
			e = span_end_pfn;
		if (cur.end_pfn > cur.start_pfn && s <= cur.end_pfn) {
			if (e > cur.end_pfn)
				cur.end_pfn = e;
			continue;
		}
		if (cur.end_pfn > cur.start_pfn) {
			if (count < cap)
				runs[count] = cur;
			count++;
		}
		cur = (struct memmap_range){ s, e };
	}
	if (cur.end_pfn > cur.start_pfn) {
		if (count < cap)
			runs[count] = cur;
		count++;
	}
	return count;
}

#define SPARSE_4K 4096ULL
#define SPARSE_2M (2ULL << 20)

/* Back [off_s, off_e) of the window (byte offsets, 4 KiB multiples) with one
 * allocation at @align. */
static bool back_piece(const struct memmap_sparse_ops *ops, uintptr_t window, uint32_t nid,
		       uint64_t off_s, uint64_t off_e, uint64_t align,
		       struct memmap_sparse_stats *st)
{
	uint64_t phys;

	if (off_s == off_e)
		return true;
	phys = ops->alloc(ops->ctx, off_e - off_s, align, nid);
	if (!phys) {
		pr_err("memmap: node %u: no memory for %llu bytes of descriptors", nid,
		       (ull)(off_e - off_s));
		return false;
	}
	if (!ops->map(ops->ctx, (uint64_t)window + off_s, phys, off_e - off_s)) {
		pr_err("memmap: node %u: cannot map descriptors at %#llx", nid,
		       (ull)((uint64_t)window + off_s));
		return false;
	}
	st->backed_bytes += off_e - off_s;
	st->pieces++;
	return true;
}

bool memmap_node_init_sparse(struct memmap_node *n, uint32_t nid, uint64_t base_pfn,
			     uint64_t nr_pages, void *window, const struct memmap_range *present,
			     uint32_t nr_present, unsigned max_order,
			     const struct memmap_sparse_ops *ops, struct memmap_range *runs,
			     uint32_t cap, struct memmap_sparse_stats *st)
{
	uintptr_t w = (uintptr_t)window;
	uint32_t nr_runs;

	ASSERT((w & (SPARSE_2M - 1)) == 0, "node %u: window %p not 2 MiB aligned", nid, window);
	*st = (struct memmap_sparse_stats){ 0 };
	memmap_node_init(n, nid, base_pfn, nr_pages, (struct page *)window);
	for (uint32_t i = 0; i < nr_present; i++)
		st->present_pages += present[i].end_pfn - present[i].start_pfn;
	n->present_pages = st->present_pages;
	nr_runs = memmap_backing_runs(present, nr_present, base_pfn, base_pfn + nr_pages,
				      max_order, runs, cap);
	if (nr_runs > cap) {
		pr_err("memmap: node %u: %u runs of descriptors, room for %u", nid, nr_runs, cap);
		return false;
	}
	for (uint32_t i = 0; i < nr_runs; i++) {
		uint64_t s, e, mid_s, mid_e;

		memmap_run_bytes(base_pfn, &runs[i], &s, &e);
		e = (e + SPARSE_4K - 1) & ~(SPARSE_4K - 1);      /* the span's last page */
		mid_s = (s + SPARSE_2M - 1) & ~(SPARSE_2M - 1);
		mid_e = e & ~(SPARSE_2M - 1);
		if (mid_s >= mid_e) {
			mid_s = mid_e = e;                       /* under 2 MiB: small pages */
			if (!back_piece(ops, w, nid, s, e, SPARSE_4K, st))
				return false;
		} else if (!back_piece(ops, w, nid, s, mid_s, SPARSE_4K, st) ||
			   !back_piece(ops, w, nid, mid_s, mid_e, SPARSE_2M, st) ||
			   !back_piece(ops, w, nid, mid_e, e, SPARSE_4K, st)) {
			return false;
		}
		st->runs++;
	}
	return true;
}

/* ---- packed units ---- */

uint32_t memmap_pack_segments(const struct memmap_range *ranges, uint32_t nr, unsigned order,
			      struct memmap_range *seg)
{
	const uint64_t align = 1ULL << order;
	uint32_t n = 0;

	ASSERT(order <= PAGE_ORDER_LIMIT, "order %u", order);
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t s = ranges[i].start_pfn & ~(align - 1);
		uint64_t e = (ranges[i].end_pfn + align - 1) & ~(align - 1);

		ASSERT(ranges[i].start_pfn < ranges[i].end_pfn &&
		       (i == 0 || ranges[i].start_pfn >= ranges[i - 1].end_pfn),
		       "range %u [%#llx, %#llx) empty or out of order", i,
		       (ull)ranges[i].start_pfn, (ull)ranges[i].end_pfn);
		if (n && s <= seg[n - 1].end_pfn) {
			if (e > seg[n - 1].end_pfn)
				seg[n - 1].end_pfn = e;
			continue;
		}
		seg[n++] = (struct memmap_range){ s, e };
	}
	return n;
}

uint64_t memmap_packed_pages(const struct memmap_range *seg, uint32_t nseg)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < nseg; i++)
		total += seg[i].end_pfn - seg[i].start_pfn;
	return total;
}

void memmap_packed_for_each(const struct memmap_range *seg, uint32_t nseg, uint64_t s,
			    uint64_t e, void (*fn)(void *arg, uint64_t s_pfn, uint64_t e_pfn),
			    void *arg)
{
	uint64_t base = 0;   /* packed offset of seg[i] */

	for (uint32_t i = 0; i < nseg && base < e; i++) {
		uint64_t len = seg[i].end_pfn - seg[i].start_pfn;
		uint64_t a = s > base ? s - base : 0, b = e - base < len ? e - base : len;

		if (a < b)
			fn(arg, seg[i].start_pfn + a, seg[i].start_pfn + b);
		base += len;
	}
}

uint64_t memmap_packed_pfn(const struct memmap_range *seg, uint32_t nseg, uint64_t off)
{
	for (uint32_t i = 0; i < nseg; i++) {
		uint64_t len = seg[i].end_pfn - seg[i].start_pfn;
		if (off < len)
			return seg[i].start_pfn + off;
		off -= len;
	}
	ASSERT(false, "packed offset past the end by %llu", (ull)off);
	return 0;
}

/* ---- the pfn -> node table ---- */

void memmap_init(struct memmap *mm, memmap_nid_t *nid_table, uint64_t max_pfn)
{
	uint64_t entries = memmap_nid_table_bytes(max_pfn) / sizeof(memmap_nid_t);

	ASSERT(nid_table != 0 || entries == 0, "no table for max_pfn %#llx", (ull)max_pfn);
	for (uint32_t i = 0; i < MEMMAP_MAX_NODES; i++)
		mm->nodes[i] = (struct memmap_node){ .nid = i };
	mm->nr_nodes = 0;
	mm->nid_of_2m = nid_table;
	mm->max_pfn = max_pfn;
	mm->cold_store = MEMMAP_STORE_AUTO;
	for (uint64_t i = 0; i < entries; i++)
		nid_table[i] = MEMMAP_NID_NONE;
}

void memmap_add_node(struct memmap *mm, const struct memmap_node *n)
{
	ASSERT(n->nid < MEMMAP_MAX_NODES && n->nr_pages > 0, "node %u, %llu pages",
	       n->nid, (ull)n->nr_pages);
	ASSERT(mm->nodes[n->nid].nr_pages == 0, "node %u added twice", n->nid);
	mm->nodes[n->nid] = *n;
	if (n->nid >= mm->nr_nodes)
		mm->nr_nodes = n->nid + 1;
}

void memmap_set_nid(struct memmap *mm, uint64_t start_pfn, uint64_t end_pfn, uint32_t nid)
{
	ASSERT(start_pfn < end_pfn && end_pfn <= mm->max_pfn,
	       "range [%#llx, %#llx) max_pfn %#llx", (ull)start_pfn, (ull)end_pfn, (ull)mm->max_pfn);
	ASSERT(nid < MEMMAP_MAX_NODES && mm->nodes[nid].nr_pages > 0, "node %u has no array", nid);
	ASSERT(memmap_in_span(&mm->nodes[nid], start_pfn) &&
	       memmap_in_span(&mm->nodes[nid], end_pfn - 1),
	       "range [%#llx, %#llx) outside node %u's span", (ull)start_pfn, (ull)end_pfn, nid);
	for (uint64_t g = start_pfn >> MEMMAP_NID_SHIFT; g <= (end_pfn - 1) >> MEMMAP_NID_SHIFT; g++) {
		memmap_nid_t *e = &mm->nid_of_2m[g];
		if (*e == MEMMAP_NID_NONE)
			*e = (memmap_nid_t)nid;
		else if (*e != nid)
			*e = MEMMAP_NID_MIXED;
	}
}

uint32_t memmap_nid_of_pfn_mixed(const struct memmap *mm, uint64_t pfn)
{
	for (uint32_t i = 0; i < mm->nr_nodes; i++)
		if (mm->nodes[i].nr_pages && memmap_in_span(&mm->nodes[i], pfn))
			return i;
	return MEMMAP_NO_NODE;
}

/* ---- filling ---- */

static void check_range(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			const char *who)
{
	ASSERT(start_pfn <= end_pfn && (start_pfn == end_pfn ||
	       (memmap_in_span(n, start_pfn) && memmap_in_span(n, end_pfn - 1))),
	       "%s: [%#llx, %#llx) outside node %u span [%#llx, %#llx)", who, (ull)start_pfn,
	       (ull)end_pfn, n->nid, (ull)n->base_pfn, (ull)(n->base_pfn + n->nr_pages));
}

/* The descriptor memmap_init_range() writes, as 64-bit words (little endian:
 * type, order, zone, flags, word; next, prev; padding). */
static void template_words(uint64_t w[DESC_WORDS], unsigned type, unsigned zone)
{
	struct page t;

	memmap_write_head(&t, type, 0, zone, 0, 0);
	for (unsigned i = 0; i < DESC_WORDS; i++)
		w[i] = ((const desc_word *)&t)[i];
}

static void store_plain(struct page *p, struct page *end, const uint64_t w[DESC_WORDS])
{
	/* The two template words from registers, zeros for the rest (as
	 * store_nt() writes them): a struct copy of a 64-byte template made
	 * the compiler load every word from the stack before storing it,
	 * twice the instructions of a store loop, 1.19x the store limit on
	 * AMD EPYC. */
	const uint64_t w0 = w[0], w1 = w[1];

	/* Four descriptors an iteration, as store_nt(): a whole line of
	 * 16-byte ones, so the loop's own instructions do not show at the
	 * store limit (1.04-1.05x with one descriptor an iteration, AMD EPYC,
	 * one thread). The zero words unrolled: at -O2 GCC keeps a loop of
	 * six stores in each 64-byte descriptor, three instructions a word
	 * (1.2-1.4x the store limit with non-temporal stores written so). */
	while (end - p >= 4) {
		volatile desc_word *d = (volatile desc_word *)p;
		for (unsigned k = 0; k < 4; k++) {
			d[k * DESC_WORDS] = w0;
			d[k * DESC_WORDS + 1] = w1;
#pragma GCC unroll 8
			for (unsigned i = 2; i < DESC_WORDS; i++)
				d[k * DESC_WORDS + i] = 0;
		}
		p += 4;
	}
	for (; p < end; p++) {
		volatile desc_word *d = (volatile desc_word *)p;
		d[0] = w0;
		d[1] = w1;
		for (unsigned i = 2; i < DESC_WORDS; i++)
			d[i] = 0;
	}
}

/*
 * Four descriptors an iteration, as store_plain(): one or more whole lines
 * in a few wide stores. With 8-byte non-temporal stores (eight to a line)
 * init ran 1.2x (16 B) to 2x (64 B) slower than with 16-byte ones on AMD
 * EPYC (family 25) in a busy spell of the host, 0.72-0.77 against 0.61
 * ns/page at 16 B and 2.9-3.1 against 1.3-1.7 at 64 B, one thread: a
 * write-combining buffer written out before its line is complete costs a
 * partial write, and fewer stores a line leave less time for that.
 */
static void store_nt(struct page *p, struct page *end, const uint64_t w[DESC_WORDS])
{
	const uint64_t w0 = w[0], w1 = w[1];

	if (((uintptr_t)p & 15) == 0)
		for (; end - p >= 4; p += 4)
			arch_store_nt16_x4(p, w0, w1, MEMMAP_DESC_BYTES);
	/* The tail, and arrays not 16-byte aligned (a host test's on the
	 * stack; the kernel's start on a page): 8-byte stores. */
	for (; p < end; p++) {
		desc_word *d = (desc_word *)p;
		arch_store_nt8((uint64_t *)&d[0], w0);
		arch_store_nt8((uint64_t *)&d[1], w1);
		for (unsigned i = 2; i < DESC_WORDS; i++)
			arch_store_nt8((uint64_t *)&d[i], 0);
	}
	/* Non-temporal stores are weakly ordered: fence them before whoever
	 * waits for this chunk reads the descriptors. */
	arch_fence_store();
}

/*
 * Whole blocks zeroed without being read (arch_zero_block()), then each
 * descriptor's two words that are not zero stored plainly into the lines
 * the zeroing just claimed; the descriptors before the first block
 * boundary and after the last whole block plainly. A block holds whole
 * descriptors or a descriptor whole blocks (both powers of two).
 */
static void store_zero(struct page *p, struct page *end, const uint64_t w[DESC_WORDS])
{
	const uint64_t block = arch_zero_block_bytes();
	const uint64_t step = block > MEMMAP_DESC_BYTES ? block : MEMMAP_DESC_BYTES;
	const uint64_t per_step = step / MEMMAP_DESC_BYTES;
	const uint64_t w0 = w[0], w1 = w[1];
	struct page *head = p;

	while (p < end && ((uintptr_t)p & (block - 1)))
		p++;
	store_plain(head, p, w);
	for (; (uint64_t)(end - p) >= per_step; p += per_step) {
		for (uint64_t off = 0; off < step; off += block)
			arch_zero_block((char *)p + off);
		for (uint64_t k = 0; k < per_step; k++) {
			volatile desc_word *d = (volatile desc_word *)(p + k);
			d[0] = w0;
			d[1] = w1;
		}
	}
	store_plain(p, end, w);
	arch_fence_store();
}

/* ---- choosing the store ---- */

/* How many store kinds the architecture offers (plain included). */
static unsigned store_kinds(void)
{
	return (unsigned)__builtin_popcount(ARCH_STORE_KINDS_OFFERED);
}

const char *memmap_store_name(enum memmap_store how)
{
	return arch_store_kind_name((enum arch_store_kind)how);
}

void memmap_store_set(struct memmap *mm, enum memmap_store how)
{
	ASSERT(how == MEMMAP_STORE_AUTO || memmap_store_offered(how),
	       "store %u not offered", (unsigned)how);
	__atomic_store_n(&mm->cold_store, how, __ATOMIC_RELEASE);
}

enum memmap_store memmap_store_default_cold(void)
{
	if (arch_store_offered(ARCH_STORE_NT))
		return MEMMAP_STORE_NT;
	if (arch_store_offered(ARCH_STORE_ZERO))
		return MEMMAP_STORE_ZERO;
	return MEMMAP_STORE_PLAIN;
}

enum memmap_store memmap_store_for_cold(const struct memmap *mm)
{
	enum memmap_store m = mm ? __atomic_load_n(&mm->cold_store, __ATOMIC_ACQUIRE)
				 : MEMMAP_STORE_AUTO;

	return m == MEMMAP_STORE_AUTO ? memmap_store_default_cold() : m;
}

enum memmap_store memmap_store_choose(const struct memmap *mm, uint64_t array_bytes,
				      const struct arch_caches *c)
{
	if (c && c->llc_bytes && array_bytes <= c->llc_bytes)
		return MEMMAP_STORE_PLAIN;
	return memmap_store_for_cold(mm);
}

/*
 * How much faster plain stores must time in the probe. Its plain passes run
 * after a cache's worth of plain stores, so each of their stores evicts a
 * dirty line as in a large array's init, and on as many CPUs at once as
 * memory init will use (memmap_store_probe()). What it still misses is the
 * host's drift: AMD EPYC (family 25), 64-byte descriptors at 2x the LLC,
 * one thread, with a 5 % margin the probe picked plain in 4 of 8 processes
 * and init then ran 1.13-1.59x the store limit; at two threads it saw
 * non-temporal stores ahead by 1.7-2x every time. With the cold 4 MiB
 * passes it replaces, plain/nt was 1.84, 1.25, 1.29, 0.81, 0.85, 0.82 in six
 * processes whose one-thread init ran 1.06, 1.29, 0.99, 1.57, 0.89, 0.86;
 * after the warm-up 0.98, 1.41, 0.90, 1.09, 0.71, 0.89.
 */
enum memmap_store memmap_store_pick(uint64_t plain_ticks, uint64_t cold_ticks,
				    enum memmap_store cold)
{
	return (unsigned __int128)plain_ticks * 100 < (unsigned __int128)cold_ticks * (100 - MEMMAP_PLAIN_MARGIN_PCT)
	       ? MEMMAP_STORE_PLAIN : cold;
}

/* The probe's ticks of kind @k. */
static uint64_t *probe_ticks_of(struct memmap_store_probe *p, enum memmap_store k)
{
	return k == MEMMAP_STORE_PLAIN ? &p->plain_ticks : k == MEMMAP_STORE_NT ? &p->nt_ticks
									    : &p->zero_ticks;
}

uint64_t memmap_store_probe_ticks(const struct memmap_store_probe *p, enum memmap_store how)
{
	return *probe_ticks_of((struct memmap_store_probe *)p, how);
}

/* Plain against the fastest other kind that ran (the first on a tie:
 * non-temporal before zeroing). */
static enum memmap_store probe_choice(struct memmap_store_probe *p)
{
	enum memmap_store cold = MEMMAP_STORE_PLAIN;

	for (enum memmap_store k = MEMMAP_STORE_NT; k < MEMMAP_STORE_KINDS; k++)
		if (memmap_store_offered(k) &&
		    (cold == MEMMAP_STORE_PLAIN || *probe_ticks_of(p, k) < *probe_ticks_of(p, cold)))
			cold = k;
	if (cold == MEMMAP_STORE_PLAIN)
		return MEMMAP_STORE_PLAIN;      /* nothing else to choose */
	return memmap_store_pick(p->plain_ticks, *probe_ticks_of(p, cold), cold);
}

uint64_t memmap_store_probe_bytes(uint64_t llc_bytes, uint64_t *warm_bytes)
{
	uint64_t warm = llc_bytes ? llc_bytes : MEMMAP_PROBE_LLC_GUESS_BYTES;
	uint64_t pass = warm / 2 > MEMMAP_PROBE_MIN_PASS_BYTES ? warm / 2 : MEMMAP_PROBE_MIN_PASS_BYTES;

	*warm_bytes = warm;
	return warm + store_kinds() * pass;
}

/* The @cpu-th of @ncpus contiguous slices of [start, end). */
static void slice_of(uint64_t start, uint64_t end, unsigned cpu, unsigned ncpus, uint64_t *s,
		     uint64_t *e)
{
	*s = start + (uint64_t)((unsigned __int128)(end - start) * cpu / ncpus);
	*e = start + (uint64_t)((unsigned __int128)(end - start) * (cpu + 1) / ncpus);
}

static void init_slice(const struct memmap_node *n, uint64_t start, uint64_t end, unsigned cpu,
		       unsigned ncpus, enum memmap_store how)
{
	uint64_t s, e;

	slice_of(start, end, cpu, ncpus, &s, &e);
	if (s < e)
		memmap_init_range_store(n, s, e, PAGE_RESERVED, page_zone_of_pfn(s), how);
}

void memmap_store_probe(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			uint64_t warm_bytes, unsigned reps, unsigned cpu, unsigned ncpus,
			const struct memmap_probe_sync *sync, uint64_t (*ticks)(void),
			void (*flush)(const void *p, uint64_t bytes), struct memmap_store_probe *out)
{
	uint64_t pages = end_pfn - start_pfn, warm = warm_bytes / MEMMAP_DESC_BYTES, pass, at, s, e;
	const uint64_t passes = (uint64_t)store_kinds() * reps;

	ASSERT(start_pfn < end_pfn && reps >= 1 && ncpus >= 1 && cpu < ncpus &&
	       (ncpus == 1 || sync) && pages >= passes * ncpus,
	       "probe [%#llx, %#llx) reps %u cpu %u of %u", (ull)start_pfn, (ull)end_pfn, reps,
	       cpu, ncpus);
	/* A range too short for the warm-up and passes of at least an
	 * eighth of it each: half warm-up, half passes. */
	if (warm > pages || (pages - warm) / passes < pages / 8)
		warm = pages / 2;
	pass = (pages - warm) / passes;
	*out = (struct memmap_store_probe){ .warm_bytes = memmap_desc_bytes(warm),
					    .bytes = memmap_desc_bytes(pass), .cpus = ncpus,
					    .plain_ticks = UINT64_MAX, .nt_ticks = UINT64_MAX,
					    .zero_ticks = UINT64_MAX };
	/* Cold lines, as memory init finds them; the flush is not timed: a
	 * flush writes dirty lines back one by one, far slower than the
	 * evictions of a large array's plain stores, and timing it made plain
	 * stores look 1.4-2x slower on AMD EPYC where the whole init ran both
	 * alike. */
	slice_of(start_pfn, end_pfn, cpu, ncpus, &s, &e);
	flush(&n->pages[s - n->base_pfn], memmap_desc_bytes(e - s));
	/* Plain stores fill the caches with dirty lines, untimed, so that
	 * each timed plain store evicts one as in an array larger than the
	 * LLC (the L3 of AMD's Zen takes the L2's victims; only when it is
	 * full does a store cost a write-back to memory). */
	init_slice(n, start_pfn, start_pfn + warm, cpu, ncpus, MEMMAP_STORE_PLAIN);
	at = start_pfn + warm;
	/* Each kind in turn over fresh descriptors, so a host's slow moment
	 * costs them alike; every CPU's slice of a pass starts together, as
	 * memory init's chunks run on all of a node's CPUs at once. Timed is
	 * what init pays: the stores, and for the other kinds their fence
	 * (store_nt(), store_zero()). */
	for (unsigned r = 0; r < reps; r++) {
		for (enum memmap_store how = MEMMAP_STORE_PLAIN; how < MEMMAP_STORE_KINDS; how++) {
			if (!memmap_store_offered(how))
				continue;
			if (ncpus > 1)
				sync->wait(sync->arg);
			uint64_t t0 = ticks();
			init_slice(n, at, at + pass, cpu, ncpus, how);
			uint64_t dt = ticks() - t0;
			uint64_t *best = probe_ticks_of(out, how);
			if (dt < *best)
				*best = dt;
			at += pass;
		}
	}
	out->choice = probe_choice(out);
}

void memmap_store_probe_combine(const struct memmap_store_probe *parts, unsigned n,
				struct memmap_store_probe *out)
{
	ASSERT(n >= 1, "no parts");
	*out = parts[0];
	out->cpus = n;
	for (unsigned i = 1; i < n; i++) {
		if (parts[i].plain_ticks > out->plain_ticks)
			out->plain_ticks = parts[i].plain_ticks;
		if (parts[i].nt_ticks > out->nt_ticks)
			out->nt_ticks = parts[i].nt_ticks;
		if (parts[i].zero_ticks > out->zero_ticks)
			out->zero_ticks = parts[i].zero_ticks;
	}
	out->choice = probe_choice(out);
}

enum memmap_store memmap_node_choose_store(const struct memmap *mm, struct memmap_node *n,
					   const struct arch_caches *c)
{
	n->store = memmap_store_choose(mm, memmap_desc_bytes(n->present_pages), c);
	return n->store;
}

void memmap_init_range_store(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			     enum page_type type, enum page_zone zone, enum memmap_store how)
{
	uint64_t w[DESC_WORDS];
	struct page *p, *end;

	check_range(n, start_pfn, end_pfn, __func__);
	ASSERT((unsigned)type < PAGE_NR_TYPES && (unsigned)zone < PAGE_NR_ZONES &&
	       (unsigned)how <= MEMMAP_STORE_AUTO,
	       "type %u zone %u store %u", (unsigned)type, (unsigned)zone, (unsigned)how);
	if (start_pfn == end_pfn)
		return;
	if (how == MEMMAP_STORE_AUTO)
		how = n->store;
	ASSERT(memmap_store_offered(how), "node %u: store %u not offered",
	       n->nid, (unsigned)how);
	template_words(w, type, zone);
	p = &n->pages[start_pfn - n->base_pfn];
	end = p + (end_pfn - start_pfn);
	if (how == MEMMAP_STORE_NT)
		store_nt(p, end, w);
	else if (how == MEMMAP_STORE_ZERO)
		store_zero(p, end, w);
	else
		store_plain(p, end, w);
}

void memmap_init_range(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
		       enum page_type type, enum page_zone zone)
{
	memmap_init_range_store(n, start_pfn, end_pfn, type, zone, MEMMAP_STORE_AUTO);
}

uint64_t memmap_init_heads(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			   enum page_type type, enum page_zone zone, unsigned max_order)
{
	uint64_t heads = 0;

	check_range(n, start_pfn, end_pfn, __func__);
	ASSERT((unsigned)type < PAGE_NR_TYPES && (unsigned)zone < PAGE_NR_ZONES &&
	       max_order <= PAGE_ORDER_LIMIT, "type %u zone %u max_order %u",
	       (unsigned)type, (unsigned)zone, max_order);
	for (uint64_t pfn = start_pfn; pfn < end_pfn; heads++) {
		unsigned order = memmap_block_order(pfn, end_pfn, max_order);
		memmap_write_head(&n->pages[pfn - n->base_pfn], type, order, zone,
				  order ? PAGE_F_LAZY_UNINIT : 0, 0);
		pfn += 1ULL << order;
	}
	return heads;
}

uint64_t memmap_lazy_fill(const struct memmap_node *n, uint64_t head_pfn, unsigned order)
{
	struct page *head, *p, *end;
	unsigned zone;

	ASSERT(order <= PAGE_ORDER_LIMIT && (head_pfn & ((1ULL << order) - 1)) == 0,
	       "head %#llx order %u", (ull)head_pfn, order);
	check_range(n, head_pfn, head_pfn + (1ULL << order), __func__);
	head = &n->pages[head_pfn - n->base_pfn];
	zone = head->zone;
	end = head + (1ULL << order);
	for (p = head + 1; p < end; p++)
		memmap_write_head(p, PAGE_TAIL, 0, zone, 0, PAGE_POISON_TAIL);
	head->flags &= (uint8_t)~PAGE_F_LAZY_UNINIT;
	return (1ULL << order) - 1;
}

/* True when the aligned block of 2^max_order pages around @pfn reaches
 * outside the hole [start_pfn, end_pfn): only then can a buddy merge of a
 * present block read @pfn, and only then is its descriptor backed under
 * sparse storage (memmap_backing_runs). */
static bool hole_pfn_readable(uint64_t pfn, uint64_t start_pfn, uint64_t end_pfn,
			      unsigned max_order)
{
	uint64_t block_s = pfn & ~((1ULL << max_order) - 1);

	return block_s < start_pfn || end_pfn - block_s < (1ULL << max_order);
}

uint64_t memmap_mark_hole(const struct memmap_node *n, uint64_t start_pfn, uint64_t end_pfn,
			  unsigned max_order)
{
	uint64_t written = 0, last = UINT64_MAX;   /* last pfn written, to skip repeats */

	check_range(n, start_pfn, end_pfn, __func__);
	ASSERT(max_order <= PAGE_ORDER_LIMIT, "max_order %u", max_order);
	if (start_pfn == end_pfn)
		return 0;
	/* A block of order k below the hole can only have its buddy at
	 * start_pfn; one above it, only at the multiple of 2^k just below
	 * end_pfn. These are visited from high to low pfn as k grows, except
	 * start_pfn, which is written first. A pfn whose max-order block lies
	 * wholly inside the hole is skipped: no present block's merge reads it
	 * (and sparse storage backs no descriptor there). */
	if (hole_pfn_readable(start_pfn, start_pfn, end_pfn, max_order)) {
		memmap_write_head(memmap_page(n, start_pfn), PAGE_HOLE, 0,
				  page_zone_of_pfn(start_pfn), 0, 0);
		last = start_pfn;
		written++;
	}
	for (unsigned k = 0; k < max_order; k++) {
		uint64_t b = (end_pfn - 1) & ~((1ULL << k) - 1);
		if (b <= start_pfn)
			break;                  /* larger k only go lower */
		if (b == last || !hole_pfn_readable(b, start_pfn, end_pfn, max_order))
			continue;
		memmap_write_head(memmap_page(n, b), PAGE_HOLE, 0, page_zone_of_pfn(b), 0, 0);
		last = b;
		written++;
	}
	return written;
}

/* ---- census ---- */

uint64_t memmap_count_types(const struct memmap_node *n, const struct memmap_range *ranges,
			    uint32_t nr_ranges, uint64_t counts[PAGE_NR_TYPES])
{
	uint64_t bad = 0;

	for (uint32_t r = 0; r < nr_ranges; r++) {
		uint64_t pfn = ranges[r].start_pfn, end = ranges[r].end_pfn;

		check_range(n, pfn, end, __func__);
		while (pfn < end) {
			const struct page *p = &n->pages[pfn - n->base_pfn];
			uint64_t span;

			if (p->type >= PAGE_NR_TYPES || p->order > PAGE_ORDER_LIMIT ||
			    p->zone >= PAGE_NR_ZONES) {
				if (bad++ == 0)
					pr_err("memmap: node %u pfn %#llx: bad descriptor type %u order %u zone %u",
					       n->nid, (ull)pfn, p->type, p->order, p->zone);
				counts[PAGE_UNINIT]++;
				pfn++;
				continue;
			}
			span = 1ULL << p->order;
			/* What an allocator handed out or holds free is a naturally
			 * aligned block (buddy merging and every caller rely on it). */
			if ((pfn & (span - 1)) && (p->type == PAGE_FREE ||
			    p->type == PAGE_ALLOCATED || p->type == PAGE_PCP)) {
				if (bad++ == 0)
					pr_err("memmap: node %u pfn %#llx: %s block of order %u is not aligned",
					       n->nid, (ull)pfn, page_type_name(p->type), p->order);
			}
			if (span > end - pfn)
				span = end - pfn;
			counts[p->type] += span;
			pfn += span;
		}
	}
	if (bad > 1)
		pr_err("memmap: node %u: %llu bad descriptors in all", n->nid, (ull)bad);
	return bad;
}

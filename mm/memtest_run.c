/*
 * memtest_run.c: memtest=N inside memory init, and what it found
 * (memtest_run.h; the passes are mm/memtest.c's), and the ranges named bad
 * kept out of physmem. Not a phase: set up by
 * phase memprep, run by the nodes' CPUs in phase meminit and reported with
 * meminit's figures; its state is the caller's (struct memtest_state).
 *
 * Each piece of a node's free memory is tested by the CPU that initialises
 * it (a node's own CPUs, through the job runner; the boot CPU for its
 * early section), right before its pages go to the allocator
 * (mm/mminit.h, struct mminit_test). Physical memory is identity mapped
 * (phase pagetables), so a piece's address is its pointer.
 */
#include "mm/memtest_run.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/jobs/job.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/physmem.h"
#include "mm/pt_pages.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)

typedef unsigned long long ull;

/* A progress line per node at most this often, for runs over seconds. */
#define MEMTEST_PROGRESS_NS 1000000000ULL

/* One piece's test, on the stack of the CPU running it. */
struct piece {
	struct memtest_state *mt;
	uint32_t node;
	uint64_t *bad;           /* MMINIT_TEST_BAD_MAX pfns, ascending */
	uint32_t nr_bad;         /* found; above the maximum: the rest is bad */
	struct memtest_bad_range cur;    /* the run being extended */
	bool have_cur;
};

static void flush_range(struct piece *p)
{
	struct memtest_state *mt = p->mt;
	struct memtest_node *n = &mt->nodes[p->node];
	bool kept = false;

	if (!p->have_cur)
		return;
	spin_lock(&mt->bad_ranges.lock);
	if (mt->bad_ranges.nr < MEMTEST_RANGES_KEPT) {
		mt->bad_ranges.r[mt->bad_ranges.nr++] = p->cur;
		kept = true;
	}
	spin_unlock(&mt->bad_ranges.lock);
	__atomic_fetch_add(&n->nr_ranges, 1, __ATOMIC_RELAXED);
	if (!kept)
		__atomic_fetch_add(&n->ranges_cut, 1, __ATOMIC_RELAXED);
	p->have_cur = false;
}

static void on_bad(void *ctx, uint64_t phys, uint64_t pattern, uint64_t read)
{
	struct piece *p = ctx;

	if (p->have_cur && p->cur.pattern == pattern && p->cur.end == phys) {
		p->cur.end += 8;
		p->cur.bits |= read ^ pattern;
	} else {
		flush_range(p);
		p->cur = (struct memtest_bad_range){ p->node, phys, phys + 8, pattern, read,
						     read ^ pattern };
		p->have_cur = true;
	}
	memtest_add_bad_page(p->bad, &p->nr_bad, MMINIT_TEST_BAD_MAX, PFN(phys));
}

/*
 * A line per node at most every MEMTEST_PROGRESS_NS: how far, and how fast
 * so far. One CPU of the node prints it (a compare-and-swap on the last
 * line's time); it goes into the log ring and reaches the consoles when
 * they drain, after memory init, with the time it was made.
 */
static void progress(const struct memtest_settings *set, uint32_t node, struct memtest_node *n,
		     uint64_t done, uint64_t now)
{
	uint64_t last = __atomic_load_n(&n->progress_ticks, __ATOMIC_RELAXED);
	uint64_t since = last ? last : n->first_ticks;

	if (now <= since || job_platform_ticks_to_ns(now - since) < MEMTEST_PROGRESS_NS ||
	    !__atomic_compare_exchange_n(&n->progress_ticks, &last, now, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	uint64_t ns = job_platform_ticks_to_ns(now - n->first_ticks);
	uint64_t mbps = ns ? (uint64_t)((unsigned __int128)done * set->passes * 1000 / ns) : 0;
	uint64_t pct = n->total_bytes ? done * 100 / n->total_bytes : 0;
	pr_info("memtest: node %u: %llu%% (%llu of %llu MiB, %u pattern%s) at %llu.%03llu GB/s",
		node, (ull)(pct > 100 ? 100 : pct), (ull)(done >> 20), (ull)(n->total_bytes >> 20),
		set->passes, set->passes == 1 ? "" : "s", (ull)(mbps / 1000), (ull)(mbps % 1000));
}

void memtest_run_node_total(struct memtest_state *mt, uint32_t node, uint64_t bytes)
{
	mt->nodes[node].total_bytes = bytes;
}

static uint32_t test_piece(void *ctx, uint32_t node, uint64_t start_pfn, uint64_t end_pfn,
			   uint64_t *bad)
{
	struct memtest_state *mt = ctx;
	const struct memtest_settings *set = mt->settings;
	struct memtest_node *n = &mt->nodes[node];
	struct piece p = { .mt = mt, .node = node, .bad = bad };
	const struct memtest_ops ops = {
		.store = mt->store, .faults = set->faults,
		.nr_faults = set->nr_faults, .fault_hit = mt->fault_hit,
		.bad = on_bad, .alive = job_progress, .ctx = &p,
	};
	uint64_t bytes = (end_pfn - start_pfn) << PAGE_SHIFT;
	uint64_t t0 = job_platform_ticks(), errors, t1;

	errors = memtest_range((uint64_t *)(uintptr_t)(start_pfn << PAGE_SHIFT),
			       start_pfn << PAGE_SHIFT, bytes / 8, set->passes, &ops);
	flush_range(&p);
	t1 = job_platform_ticks();
	job_ticks_min(&n->first_ticks, t0);
	job_ticks_max(&n->end_ticks, t1);
	__atomic_fetch_add(&n->busy_ticks, t1 - t0, __ATOMIC_RELAXED);
	uint64_t done = __atomic_add_fetch(&n->bytes, bytes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n->errors, errors, __ATOMIC_RELAXED);
	progress(set, node, n, done, t1);
	return p.nr_bad;
}

const struct mminit_test *memtest_run_hook(struct memtest_state *mt,
					   const struct memtest_settings *set,
					   const struct memmap *mm)
{
	mt->settings = set;
	if (!set->passes) {
		if (set->nr_faults)
			pr_warn("memtest: memboot.memtest_inject= names %u word%s, but memtest is off "
				"(memtest=N): nothing is tested, the injected bits have no effect",
				set->nr_faults, set->nr_faults == 1 ? "" : "s");
		return NULL;
	}
	/* Memory init's store for memory larger than the cache (the probe's
	 * choice, else non-temporal): the pieces are. */
	mt->store = memmap_store_for_cold(mm) == MEMMAP_STORE_PLAIN ? MEMTEST_STORE_PLAIN
								    : MEMTEST_STORE_NT;
	mt->hook = (struct mminit_test){ test_piece, mt };
	return &mt->hook;
}

static void report_range(uint32_t nid, const struct memtest_bad_range *b)
{
	struct record r;

	rec_begin(&r, "memtest_bad");
	rec_u64(&r, "node", nid);
	rec_hex(&r, "start", b->start);
	rec_hex(&r, "end", b->end);
	rec_hex(&r, "pattern", b->pattern);
	rec_hex(&r, "expected", b->pattern);
	rec_hex(&r, "read", b->read);
	rec_hex(&r, "bits", b->bits);
	rec_hex(&r, "page", b->start & ~(PAGE_SIZE_BYTES - 1));
	record_report(&r, LOG_WARN, "memtest: node {node}: bad mem addr 0x{start:x10} - "
		      "0x{end:x10-1} pattern {pattern:x16}: read {read:x16}, bits {bits:x16} "
		      "differ; page 0x{page:x10} reserved");
}

/* The line that keeps node @nid's bad pages out of later boots. */
static void report_badram_hint(const struct memtest_state *mt, uint32_t nid,
			       const struct memtest_node *n)
{
	char line[256];
	size_t len = 0;
	uint64_t last = UINT64_MAX;

	line[0] = '\0';
	for (uint32_t k = 0; k < mt->bad_ranges.nr && len + 40 < sizeof(line); k++) {
		const struct memtest_bad_range *b = &mt->bad_ranges.r[k];
		uint64_t s = b->start & ~(PAGE_SIZE_BYTES - 1);
		uint64_t e = (b->end + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
		if (b->node != nid || s == last)
			continue;   /* another node's, or the same page in another pass */
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s0x%llx-0x%llx",
					len ? "," : "", (ull)s, (ull)e);
		last = s;
	}
	pr_info("memtest: node %u: to keep them out on later boots: memboot.badram=%s%s", nid, line,
		n->ranges_cut ? " (and the ranges not listed)" : "");
}

void memtest_run_report(const struct memtest_state *mt, const struct numa_topology *topo,
			const uint64_t *bad_pages, uint64_t probe_bytes, uint64_t probe_ns,
			uint32_t probe_node)
{
	const struct memtest_settings *set = mt->settings;

	if (!set || !set->passes)
		return;
	for (uint32_t i = 0; i < set->nr_faults; i++)
		if (!mt->fault_hit[i])
			pr_warn("memtest: memboot.memtest_inject: the word at 0x%llx was not tested (not free memory)",
				(ull)set->faults[i].addr);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		const struct memtest_node *n = &mt->nodes[nid];
		struct record r;

		if (!n->bytes)
			continue;
		for (uint32_t k = 0; k < mt->bad_ranges.nr; k++)
			if (mt->bad_ranges.r[k].node == nid)
				report_range(nid, &mt->bad_ranges.r[k]);
		if (n->ranges_cut)
			pr_warn("memtest: node %u: %llu more bad ranges not listed", nid,
				(ull)n->ranges_cut);
		uint64_t ns = n->end_ticks > n->first_ticks ?
			      job_platform_ticks_to_ns(n->end_ticks - n->first_ticks) : 0;
		/* Bytes written (each also read back) per second, over the
		 * node's wall time: MB/s, printed as GB/s. */
		uint64_t written = n->bytes * set->passes;
		uint64_t mbps = ns ? (uint64_t)((unsigned __int128)written * 1000 / ns) : 0;
		uint64_t probe_mbps = probe_ns ? probe_bytes * 1000 / probe_ns : 0;
		rec_begin(&r, "memtest");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "passes", set->passes);
		rec_u64(&r, "bytes", n->bytes);
		rec_u64(&r, "errors", n->errors);
		rec_u64(&r, "bad_ranges", n->nr_ranges);
		rec_u64(&r, "bad_pages", bad_pages[nid]);
		rec_str(&r, "store", mt->store == MEMTEST_STORE_NT ? "nt" : "plain");
		rec_u64(&r, "ns", ns);
		rec_u64(&r, "busy_ns", job_platform_ticks_to_ns(n->busy_ticks));
		rec_u64(&r, "mb_per_s", mbps);
		rec_u64(&r, "probe_mb_per_s", probe_mbps);
		rec_u64(&r, "probe_node", probe_node);
		rec_u64(&r, "probe_ratio_pct", probe_mbps ? mbps * 100 / probe_mbps : 0);
		record_report(&r, LOG_INFO, "memtest: node {node}: {bytes:MiB} MiB tested with "
			      "{passes} pattern{passes:s} in {ns:ms} ms ({mb_per_s:.3} GB/s written and "
			      "read back, {store} stores): {errors} bad word{errors:s} in "
			      "{bad_ranges} range{bad_ranges:s}, {bad_pages} page{bad_pages:s} kept out");
		if (n->nr_ranges)
			report_badram_hint(mt, nid, n);
	}
}

/* --- the ranges named bad, kept out of physmem --- */

/*
 * What the kernel keeps free whatever the command line names bad: its own
 * needs (page tables, per-CPU areas, the console's ring, the per-CPU lists:
 * about 1 MiB on a small machine, with room to spare) below PT_PAGES_LIMIT,
 * where the page tables must lie, and besides those, anywhere, two page
 * descriptors' worth per usable page (the descriptors and the allocators'
 * own tables).
 */
#define BADRAM_KEEP_BYTES (2ULL << 20)

uint32_t memtest_keep_out_badram(const struct memtest_settings *mt, struct physmem *pm)
{
	const uint64_t need_low = BADRAM_KEEP_BYTES;
	const uint64_t need = BADRAM_KEEP_BYTES + (physmem_total_bytes(pm, PHYSMEM_ANY_NODE) >>
						   PAGE_SHIFT) * 2 * sizeof(struct page);
	uint32_t kept = 0;

	for (uint32_t i = 0; i < mt->nr_badram; i++) {
		const struct memtest_badram *b = &mt->badram[i];
		/* end <= MEMTEST_BADRAM_TOP: rounding up cannot wrap. */
		uint64_t s = b->start & ~(PAGE_SIZE_BYTES - 1);
		uint64_t e = (b->end + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
		uint64_t free = physmem_free_bytes(pm, PHYSMEM_ANY_NODE);
		uint64_t free_low = physmem_free_bytes_in(pm, 0, PT_PAGES_LIMIT);
		uint64_t take = physmem_free_bytes_in(pm, s, e);
		uint64_t take_low = physmem_free_bytes_in(pm, s, e < PT_PAGES_LIMIT ? e : PT_PAGES_LIMIT);

		if (s >= e)
			continue;
		if (take && (free - take < need || free_low - take_low < need_low)) {
			pr_warn("memtest: [mem 0x%010llx-0x%010llx] named bad on the command line would "
				"leave the kernel %llu KiB free, %llu KiB of it below %llu GiB, where it "
				"needs %llu KiB and %llu KiB (page tables, page descriptors): not kept out; "
				"this boot uses it", (ull)s, (ull)e - 1, (ull)(free - take) >> 10,
				(ull)(free_low - take_low) >> 10, (ull)(PT_PAGES_LIMIT >> 30),
				(ull)need >> 10, (ull)need_low >> 10);
			continue;
		}
		pr_info("memtest: [mem 0x%010llx-0x%010llx] named bad on the command line: not used",
			(ull)s, (ull)e - 1);
		if (physmem_reserve(pm, s, e, PHYSMEM_RESV_BADRAM) && take)
			kept++;
	}
	return kept;
}

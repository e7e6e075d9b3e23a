/*
 * replay.c: memboot.selftest=replay: a Linux page-allocator trace replayed
 * on real boot memory by every CPU (tools/memboot run --replay TRACE).
 *
 * The trace arrives as QEMU fw_cfg file opt/memboot/replay, written by
 * tools/mbtools/lab.py from tracefs or trace-cmd text, the same events the
 * host lab replays (tools/memboot lab --workloads trace): a header with
 * what the host's reading skipped, then one 8-byte event per allocation
 * or free, in trace order, each naming its trace CPU and the allocation it
 * belongs to. Its memory (events and one slot per allocation) comes from
 * the allocator itself, in 4 MiB blocks.
 *
 * Each trace CPU's events run in order as one chunk of a job on all CPUs.
 * A chunk never waits for another (the job runner may hand two chunks to
 * one CPU in turn): a free that finds its allocation not yet made (it was
 * another trace CPU's) marks the slot, and the allocation, when it comes,
 * frees the block at once. So every allocation and every free of the trace
 * happens exactly once, and the counts equal the host's: `replayed` is
 * allocations made plus frees done, `alloc_failed` the allocations the
 * allocator could not serve (their frees are not replayed).
 */
#include "kernel/selftest/tests.h"

#include <string.h>

#include "arch/counter.h"
#include "arch/fwcfg.h"
#include "kernel/services/fwcfg_blob.h"
#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/replay_file.h"
#include "kernel/services/clock/time.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/lab_stats.h"

typedef unsigned long long ull;

#define BLOCK_ORDER ALLOC_MAX_ORDER
#define BLOCK_BYTES (4096ULL << BLOCK_ORDER)
#define MAX_BLOCKS 64                 /* 256 MiB of events and slots at most */
#define EV_PER_BLOCK (BLOCK_BYTES / sizeof(struct replay_event))
#define SLOTS_PER_BLOCK (BLOCK_BYTES / sizeof(uint64_t))
#define HISTS_PER_BLOCK (BLOCK_BYTES / sizeof(struct lab_hist))
#define MAX_HIST_BLOCKS 8                /* 2 histograms (30 KiB each) per trace CPU: 552 trace CPUs */

#define SLOT_EMPTY (ALLOC_NO_PFN - 1)       /* not allocated yet */
#define SLOT_FREE_PENDING (ALLOC_NO_PFN - 2) /* its free came first */
#define SLOT_DONE (ALLOC_NO_PFN - 3)         /* freed */

struct replay {
	struct replay_header h;
	uint64_t ev_block[MAX_BLOCKS], slot_block[MAX_BLOCKS];
	uint64_t hist_block[MAX_HIST_BLOCKS];
	uint32_t nr_ev_blocks, nr_slot_blocks, nr_hist_blocks;
	uint64_t nr_loaded, nr_slots;   /* events read, ids with a slot: what memory held */
	struct replay_check check;
	uint64_t replayed, alloc_failed, deferred_frees, failed_frees;
	/* The latencies of every trace CPU merged (counter cycles), as the host lab's. */
	struct lab_hist alloc_lat, free_lat;
};

static inline struct replay_event *ev(const struct replay *r, uint64_t i)
{
	return (struct replay_event *)(uintptr_t)(r->ev_block[i / EV_PER_BLOCK] << PAGE_SHIFT) +
	       i % EV_PER_BLOCK;
}

static inline uint64_t *slot(const struct replay *r, uint64_t id)
{
	return (uint64_t *)(uintptr_t)(r->slot_block[id / SLOTS_PER_BLOCK] << PAGE_SHIFT) +
	       id % SLOTS_PER_BLOCK;
}

/* Trace CPU @c's histograms: [0] allocations, [1] frees. Only the chunk
 * that runs @c writes them, so recording takes no lock. */
static inline struct lab_hist *hists(const struct replay *r, uint64_t c)
{
	uint64_t i = 2 * c;
	return (struct lab_hist *)(uintptr_t)(r->hist_block[i / HISTS_PER_BLOCK] << PAGE_SHIFT) +
	       i % HISTS_PER_BLOCK;
}

/* The seam's calls, timed by the counter as the host lab times the allocator's:
 * here they include the per-CPU front (memboot.pcp). */
static uint64_t timed_alloc(struct lab_hist *h, uint32_t node, unsigned order)
{
	uint64_t t0 = arch_counter(), pfn = alloc_pages(node, order, 0);
	if (pfn != ALLOC_NO_PFN)
		lab_hist_add(&h[0], arch_counter() - t0);
	return pfn;
}

static void timed_free(struct lab_hist *h, uint64_t pfn, unsigned order)
{
	uint64_t t0 = arch_counter();
	alloc_free(pfn, order);
	lab_hist_add(&h[1], arch_counter() - t0);
}

static void add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static void replay_alloc(struct replay *r, const struct replay_event *e, uint32_t node,
			 struct lab_hist *h)
{
	uint64_t *s = slot(r, e->id), pfn = timed_alloc(h, node, e->order);
	uint64_t want = SLOT_EMPTY;

	if (pfn == ALLOC_NO_PFN) {
		add(&r->alloc_failed, 1);
		if (!__atomic_compare_exchange_n(s, &want, ALLOC_NO_PFN, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			/* Its free came first: it has nothing to free either. */
			__atomic_store_n(s, SLOT_DONE, __ATOMIC_RELEASE);
			add(&r->failed_frees, 1);
		}
		return;
	}
	add(&r->replayed, 1);
	if (__atomic_compare_exchange_n(s, &want, pfn, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	/* Its free came first, from another trace CPU: free it now. */
	timed_free(h, pfn, e->order);
	__atomic_store_n(s, SLOT_DONE, __ATOMIC_RELEASE);
	add(&r->replayed, 1);
	add(&r->deferred_frees, 1);
}

static void replay_free(struct replay *r, const struct replay_event *e, struct lab_hist *h)
{
	uint64_t *s = slot(r, e->id), v = __atomic_load_n(s, __ATOMIC_ACQUIRE);

	for (;;) {
		if (v == SLOT_EMPTY) {
			if (__atomic_compare_exchange_n(s, &v, SLOT_FREE_PENDING, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return;   /* the allocation will free it */
			continue;
		}
		if (v == ALLOC_NO_PFN) {
			add(&r->failed_frees, 1);   /* its allocation failed: nothing to free */
			return;
		}
		__atomic_store_n(s, SLOT_DONE, __ATOMIC_RELEASE);
		timed_free(h, v, e->order);
		add(&r->replayed, 1);
		return;
	}
}

/* Chunk [s, e) of trace CPUs: each one's events, in trace order. */
static void replay_cpus(void *arg, uint64_t s, uint64_t e)
{
	struct replay *r = arg;
	uint32_t node = this_cpu_state()->mem_node;

	for (uint64_t c = s; c < e; c++) {
		struct lab_hist *h = hists(r, c);
		for (uint64_t i = 0; i < r->nr_loaded; i++) {
			const struct replay_event *x = ev(r, i);
			if (x->cpu != c || x->op == REPLAY_OP_SKIP)
				continue;
			if (x->op == REPLAY_OP_ALLOC)
				replay_alloc(r, x, node, h);
			else
				replay_free(r, x, h);
		}
	}
}

static void release(struct replay *r)
{
	for (uint32_t i = 0; i < r->nr_ev_blocks; i++)
		alloc_free(r->ev_block[i], BLOCK_ORDER);
	for (uint32_t i = 0; i < r->nr_slot_blocks; i++)
		alloc_free(r->slot_block[i], BLOCK_ORDER);
	for (uint32_t i = 0; i < r->nr_hist_blocks; i++)
		alloc_free(r->hist_block[i], BLOCK_ORDER);
}

/* Up to @want blocks of 4 MiB into @blocks, fewer when the allocator runs
 * out; how many it took. */
static uint32_t take_blocks(uint64_t *blocks, uint64_t want)
{
	uint32_t n = 0;

	for (; n < want; n++) {
		blocks[n] = alloc_pages(this_cpu_state()->mem_node, BLOCK_ORDER, 0);
		if (blocks[n] == ALLOC_NO_PFN)
			break;
	}
	return n;
}

static uint64_t blocks_for(uint64_t bytes)
{
	return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The replay's own memory: the latencies' blocks (all, or none), then the
 * ids' slots and the events, within half of the free memory so that the
 * trace's allocations keep the other half. What does not fit is not loaded,
 * and counted (REPLAY_NO_MEMORY), not refused. */
static bool take_storage(struct replay *r)
{
	uint64_t budget = alloc_free_count() / 2 >> BLOCK_ORDER;
	uint64_t hist = blocks_for(2 * (uint64_t)r->h.cpus * sizeof(struct lab_hist));

	if (r->h.cpus > MAX_HIST_BLOCKS * HISTS_PER_BLOCK / 2 || hist > budget ||
	    (r->nr_hist_blocks = take_blocks(r->hist_block, hist)) < hist) {
		pr_err("replay: no memory for %u trace CPUs' latencies (%llu x 4 MiB of the "
		       "%llu half the free memory allows; at most %u trace CPUs)", r->h.cpus,
		       (ull)hist, (ull)budget, (unsigned)(MAX_HIST_BLOCKS * HISTS_PER_BLOCK / 2));
		return false;
	}
	budget -= hist;
	uint64_t slots = min64(min64(blocks_for(r->h.ids * 8), MAX_BLOCKS), budget);
	r->nr_slot_blocks = take_blocks(r->slot_block, slots);
	budget -= r->nr_slot_blocks;
	uint64_t evs = min64(min64(blocks_for(r->h.events * 8), MAX_BLOCKS), budget);
	r->nr_ev_blocks = take_blocks(r->ev_block, evs);
	r->nr_slots = min64(r->h.ids, r->nr_slot_blocks * SLOTS_PER_BLOCK);
	r->nr_loaded = min64(r->h.events, r->nr_ev_blocks * EV_PER_BLOCK);
	if (r->nr_loaded < r->h.events || r->nr_slots < r->h.ids)
		pr_warn("replay: memory for %llu of the trace's %llu events and %llu of its %llu "
			"ids (the replay keeps itself to half of the free memory, at most %u "
			"x 4 MiB each): events beyond are not replayed (not_loaded)",
			(ull)r->nr_loaded, (ull)r->h.events, (ull)r->nr_slots, (ull)r->h.ids,
			MAX_BLOCKS);
	return true;
}

#define SKIP_WARNINGS 4   /* events named one by one; the rest only counted */

/* Each loaded event checked against the ones before it (replay_file.h);
 * one that does not fit gets REPLAY_OP_SKIP, counted by its reason. The
 * slots hold each id's state byte meanwhile, then start empty. */
static void check_events(struct replay *r)
{
	struct replay_check *c = &r->check;
	unsigned warned = 0;

	replay_check_init(c, &r->h, ALLOC_MAX_ORDER);
	for (uint64_t id = 0; id < r->nr_slots; id++)
		*slot(r, id) = 0;
	replay_check_skip(c, REPLAY_NO_MEMORY, r->h.events - r->nr_loaded);
	for (uint64_t i = 0; i < r->nr_loaded; i++) {
		struct replay_event *x = ev(r, i);
		enum replay_verdict v = replay_check_fields(c, x);

		if (v == REPLAY_FITS && x->id >= r->nr_slots) {
			v = REPLAY_NO_MEMORY;
			replay_check_skip(c, v, 1);
		} else if (v == REPLAY_FITS) {
			/* The slot's low byte: x86 is little-endian. */
			v = replay_check_event(c, x, (uint8_t *)slot(r, x->id));
		}
		if (v == REPLAY_FITS)
			continue;
		if (warned++ < SKIP_WARNINGS)
			pr_warn("replay: event %llu (id %u op %u order %u cpu %u) skipped: %s",
				(ull)i, x->id, x->op, x->order, x->cpu, replay_skip_why(v));
		x->op = REPLAY_OP_SKIP;
	}
	for (uint64_t id = 0; id < r->nr_slots; id++)
		*slot(r, id) = SLOT_EMPTY;
	uint64_t invalid = replay_check_skipped(c) - c->skipped[REPLAY_NO_MEMORY];
	if (invalid)
		pr_warn("replay: %llu of %llu events do not fit the events before them and are "
			"skipped (each id is allocated once, then freed once at its order): "
			"%llu bad fields, %llu allocations of an allocated id, %llu frees before "
			"the allocation, %llu second frees, %llu frees at another order",
			(ull)invalid, (ull)r->h.events, (ull)c->skipped[REPLAY_BAD_FIELD],
			(ull)c->skipped[REPLAY_REALLOC], (ull)c->skipped[REPLAY_FREE_UNALLOCATED],
			(ull)c->skipped[REPLAY_DOUBLE_FREE], (ull)c->skipped[REPLAY_FREE_ORDER]);
}

static struct replay the_replay;   /* this self-test's own, used by nobody else */

bool selftest_replay(const struct selftest_ctx *ctx, const char **skipped)
{
	const struct fwcfg_blob *blob = ctx->replay;
	struct replay *r = &the_replay;
	struct record rec;
	struct job_state st;
	const char *problem;

	if (!blob || blob->bytes == 0) {
		*skipped = "no trace (tools/memboot run --replay TRACE)";
		return true;
	}
	memset(r, 0, sizeof(*r));
	arch_fwcfg_select(blob->select);
	if (blob->bytes >= sizeof(r->h) && !arch_fwcfg_read(&r->h, sizeof(r->h))) {
		pr_err("replay: fw_cfg reported an error reading the trace's header");
		return false;
	}
	problem = replay_header_problem(&r->h, blob->bytes);
	if (problem) {
		pr_err("replay: fw_cfg trace of %u bytes is not a version 1 replay file (written "
		       "by tools/memboot run --replay): %s", blob->bytes, problem);
		return false;
	}
	if (!take_storage(r)) {
		release(r);
		return false;
	}
	/* A block's events at a time: they are contiguous there. */
	for (uint64_t i = 0; i < r->nr_loaded; i += EV_PER_BLOCK) {
		uint64_t n = min64(EV_PER_BLOCK, r->nr_loaded - i);
		if (!arch_fwcfg_read(ev(r, i), n * sizeof(struct replay_event))) {
			pr_err("replay: fw_cfg reported an error reading events %llu to %llu",
			       (ull)i, (ull)(i + n - 1));
			release(r);
			return false;
		}
	}
	check_events(r);
	uint64_t free_pages = alloc_free_count();
	for (uint64_t c = 0; c < r->h.cpus; c++)
		memset(hists(r, c), 0, 2 * sizeof(struct lab_hist));

	/* The allocator's own lock statistics, before and after (the seam's
	 * allocator, not the per-CPU front's lists). */
	const struct alloc_ops *ops = alloc_current();
	struct alloc_lock_stats ls0 = { 0 }, ls1 = { 0 };
	if (ops->lock_stats)
		ops->lock_stats(alloc_current_self(), &ls0);

	struct job j = { .name = "replay", .start = 0, .size = r->h.cpus, .min_chunk = 1,
			 .node = JOB_ALL_NODES, .fn = replay_cpus, .arg = r };
	uint64_t t0 = ktime_ns();
	job_run(&j, &st);
	uint64_t ns = ktime_ns() - t0;
	if (ops->lock_stats)
		ops->lock_stats(alloc_current_self(), &ls1);
	for (uint64_t c = 0; c < r->h.cpus; c++) {
		lab_hist_merge(&r->alloc_lat, &hists(r, c)[0]);
		lab_hist_merge(&r->free_lat, &hists(r, c)[1]);
	}
	/* Fragmentation where the trace ends, what it holds still held (as
	 * the host lab's frag_end). Pages on the per-CPU lists are not free
	 * blocks of the allocator (as in Linux's buddyinfo). */
	uint64_t end_blocks[ALLOC_NR_ORDERS];
	alloc_free_blocks(end_blocks);

	/* What the trace still held at its end goes back (the census after
	 * the self-test counts every page). */
	uint64_t held = 0;
	for (uint64_t i = 0; i < r->nr_loaded; i++) {
		const struct replay_event *x = ev(r, i);
		if (x->op != REPLAY_OP_ALLOC)
			continue;   /* a skipped event's id may have no slot */
		uint64_t v = *slot(r, x->id);
		if (v >= SLOT_DONE)
			continue;
		alloc_free(v, x->order);
		*slot(r, x->id) = SLOT_DONE;
		held++;
	}
	release(r);

	rec_begin(&rec, "replay");
	rec_u64(&rec, "events", r->h.events);
	rec_u64(&rec, "cpus", r->h.cpus);
	rec_u64(&rec, "threads", st.threads);
	rec_u64(&rec, "replayed", r->replayed);
	rec_u64(&rec, "alloc_failed", r->alloc_failed);
	rec_u64(&rec, "deferred_frees", r->deferred_frees);
	rec_u64(&rec, "failed_frees", r->failed_frees);
	rec_u64(&rec, "held_at_end", held);
	/* The events of the file that were not replayed, by reason: with
	 * replayed, alloc_failed and failed_frees they add up to events. */
	const struct replay_check *c = &r->check;
	uint64_t not_loaded = c->skipped[REPLAY_NO_MEMORY];
	rec_u64(&rec, "invalid", replay_check_skipped(c) - not_loaded);
	for (int v = REPLAY_FITS + 1; v < REPLAY_NR_VERDICTS; v++)
		rec_u64(&rec, replay_skip_key(v), c->skipped[v]);
	rec_u64(&rec, "peak_held_pages", c->peak_held_pages);
	rec_u64(&rec, "free_pages", free_pages);
	rec_u64(&rec, "skipped_free_before_trace", r->h.skipped_free_before_trace);
	rec_u64(&rec, "skipped_alloc_of_held_pfn", r->h.skipped_alloc_of_held_pfn);
	rec_u64(&rec, "skipped_order", r->h.skipped_order);
	rec_u64(&rec, "skipped_failed_alloc", r->h.skipped_failed_alloc);
	rec_u64(&rec, "unparsed", r->h.unparsed);
	rec_u64(&rec, "ns", ns);
	static const uint32_t qs[] = { LAB_P50, LAB_P99, LAB_P999, LAB_Q_ONE };
	static const char *const keys[2][5] = {
		{ "alloc_n", "alloc_p50_ns", "alloc_p99_ns", "alloc_p999_ns", "alloc_max_ns" },
		{ "free_n", "free_p50_ns", "free_p99_ns", "free_p999_ns", "free_max_ns" },
	};
	for (int op = 0; op < 2; op++) {
		const struct lab_hist *h = op ? &r->free_lat : &r->alloc_lat;
		rec_u64(&rec, keys[op][0], h->n);
		for (int i = 0; i < 4; i++)
			rec_cycles_ns(&rec, keys[op][i + 1], lab_hist_pct(h, qs[i]));
	}
	rec_u64(&rec, "lock_acquired", ls1.acquired - ls0.acquired);
	rec_u64(&rec, "lock_contended", ls1.contended - ls0.contended);
	rec_cycles_ns(&rec, "spin_ns", ls1.spin_cycles - ls0.spin_cycles);
	rec_key(&rec, "free_blocks");
	rec_open(&rec, '[');
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		rec_v_u64(&rec, end_blocks[k]);
	rec_close(&rec);
	rec_u64(&rec, "unusable_9_permille",
		lab_unusable_index(end_blocks, ALLOC_NR_ORDERS, 9, 1000));
	record_report(&rec, LOG_INFO, "selftest replay: {replayed} of {events} events replayed on "
		      "{threads} CPUs in {ns} ns ({alloc_failed} allocations failed, "
		      "{failed_frees} frees of failed allocations, {invalid} events that do not "
		      "fit skipped, {not_loaded} not loaded; "
		      "{skipped_free_before_trace} frees before the trace skipped)");
	if (r->alloc_failed)
		pr_warn("replay: %llu allocations failed (and %llu frees of them not replayed): "
			"the trace holds up to %llu pages at once in trace order, the guest had "
			"%llu pages free when the replay began (after the replay's own %u x 4 MiB); "
			"give the guest more memory (tools/memboot run --mem-per-node)",
			(ull)r->alloc_failed, (ull)r->failed_frees, (ull)c->peak_held_pages,
			(ull)free_pages,
			r->nr_ev_blocks + r->nr_slot_blocks + r->nr_hist_blocks);
	uint64_t counted = r->replayed + r->alloc_failed + r->failed_frees +
			   replay_check_skipped(c);
	if (counted != r->h.events)
		pr_err("replay: %llu events counted of %llu", (ull)counted, (ull)r->h.events);
	return counted == r->h.events;
}

/*
 * mminit.c: the init-policy engine (see mminit.h).
 */
#include "mm/mminit.h"

#include <string.h>

#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "mm/alloc/alloc.h"

void mminit_start(struct mminit *mi, struct mminit_node *nodes, const struct memmap *mm,
		  uint32_t nr_nodes, const struct mminit_config *cfg)
{
	ASSERT(nr_nodes >= 1 && nr_nodes <= MEMMAP_MAX_NODES && nodes, "%u nodes at %p",
	       nr_nodes, (void *)nodes);
	memset(mi, 0, sizeof(*mi));
	memset(nodes, 0, nr_nodes * sizeof(*nodes));
	mi->nodes = nodes;
	mi->mm = mm;
	mi->nr_nodes = nr_nodes;
	mi->cfg = *cfg;
}

bool mminit_add_free(struct mminit *mi, uint32_t node, uint64_t start_pfn, uint64_t end_pfn)
{
	struct mminit_node *w = &mi->nodes[node];

	ASSERT(node < mi->nr_nodes && start_pfn < end_pfn, "node %u [%#llx, %#llx)", node,
	       (unsigned long long)start_pfn, (unsigned long long)end_pfn);
	if (w->nr_todo == MMINIT_MAX_RANGES) {
		pr_err("meminit: node %u has more than %d free ranges; the rest stays reserved",
		       node, MMINIT_MAX_RANGES);
		return false;
	}
	w->todo[w->nr_todo++] = (struct memmap_range){ start_pfn, end_pfn };
	w->free_pages += end_pfn - start_pfn;
	return true;
}

struct fixed_ctx {
	const struct memmap_node *map;
	enum page_type type;
};

static void write_fixed_zone(void *ctx, enum page_zone z, uint64_t s, uint64_t e)
{
	const struct fixed_ctx *c = ctx;

	memmap_init_range(c->map, s, e, c->type, z);
}

void mminit_write_fixed(const struct mminit *mi, uint32_t node, uint64_t start_pfn,
			uint64_t end_pfn, enum page_type type)
{
	struct fixed_ctx c = { &mi->mm->nodes[node], type };

	page_zone_split(start_pfn, end_pfn, write_fixed_zone, &c);
}

void mminit_mark_holes(const struct mminit *mi, uint32_t node, const struct memmap_range *present,
		       uint32_t nr_present)
{
	const struct memmap_node *map = &mi->mm->nodes[node];
	uint64_t prev_end = map->base_pfn;

	for (uint32_t i = 0; i < nr_present; i++) {
		if (present[i].start_pfn > prev_end)
			memmap_mark_hole(map, prev_end, present[i].start_pfn, ALLOC_MAX_ORDER);
		prev_end = present[i].end_pfn;
	}
}

/* ---- filling and freeing ---- */

struct zone_ctx {
	const struct mminit *mi;
	uint32_t node;
};

/*
 * A tested piece with bad pages: every descriptor written (lazy too: its
 * heads-only blocks assume every page of the block is free), the bad pages
 * typed PAGE_BAD, the good runs between them freed. A merge never takes in
 * a bad page: its head is not free.
 */
static void free_around_bad(const struct zone_ctx *c, enum page_zone z, uint64_t s, uint64_t e,
			    const uint64_t *bad, uint32_t nr_bad)
{
	const struct memmap_node *map = &c->mi->mm->nodes[c->node];
	uint32_t kept = nr_bad < MMINIT_TEST_BAD_MAX ? nr_bad : MMINIT_TEST_BAD_MAX;
	uint64_t from = s, nr_pages = 0;

	memmap_init_range(map, s, e, PAGE_RESERVED, z);
	for (uint32_t k = 0; k < kept; k++) {
		uint64_t b = bad[k];
		ASSERT(b >= from && b < e, "bad pfn %#llx outside [%#llx, %#llx)",
		       (unsigned long long)b, (unsigned long long)from, (unsigned long long)e);
		uint64_t to = k == kept - 1 && nr_bad > kept ? e : b + 1;
		memmap_init_range(map, b, to, PAGE_BAD, z);
		if (from < b)
			alloc_current()->free_range(alloc_current_self(), c->node, z, from, b);
		nr_pages += to - b;
		from = to;
	}
	if (from < e)
		alloc_current()->free_range(alloc_current_self(), c->node, z, from, e);
	__atomic_fetch_add(&c->mi->nodes[c->node].bad_pages, nr_pages, __ATOMIC_RELAXED);
}

/* Fill and free [s, e) of one zone: the unit of all policies. */
static void fill_and_free(void *ctx, enum page_zone z, uint64_t s, uint64_t e)
{
	const struct zone_ctx *c = ctx;
	const struct memmap_node *map = &c->mi->mm->nodes[c->node];
	const struct mminit_test *t = c->mi->cfg.test;

	if (t) {
		uint64_t bad[MMINIT_TEST_BAD_MAX];
		uint32_t nr_bad = t->run(t->ctx, c->node, s, e, bad);
		if (nr_bad) {
			free_around_bad(c, z, s, e, bad, nr_bad);
			return;
		}
	}
	if (c->mi->cfg.policy == MMINIT_LAZY)
		memmap_init_heads(map, s, e, PAGE_RESERVED, z, ALLOC_MAX_ORDER);
	else
		memmap_init_range(map, s, e, PAGE_RESERVED, z);
	alloc_current()->free_range(alloc_current_self(), c->node, z, s, e);
}

static void fill_and_free_range(const struct mminit *mi, uint32_t node, uint64_t s, uint64_t e)
{
	struct zone_ctx c = { mi, node };

	page_zone_split(s, e, fill_and_free, &c);
}

/* Take up to @want pages (whole max-order blocks at the end) from the front
 * of @node's work, fill and free them on this CPU. Returns pages done. */
static uint64_t take_front(struct mminit *mi, uint32_t node, uint64_t want)
{
	struct mminit_node *w = &mi->nodes[node];
	uint64_t done = 0;

	while (done < want && w->nr_todo) {
		struct memmap_range *r = &w->todo[0];
		uint64_t end = r->end_pfn;
		if (want - done < r->end_pfn - r->start_pfn) {
			/* Stop on a max-order boundary so that later chunks, cut
			 * at such boundaries, never share a block with this part. */
			end = r->start_pfn + (want - done);
			end = (end + ALLOC_MAX_ORDER_PAGES - 1) & ~(ALLOC_MAX_ORDER_PAGES - 1);
			if (end > r->end_pfn)
				end = r->end_pfn;
		}
		fill_and_free_range(mi, node, r->start_pfn, end);
		done += end - r->start_pfn;
		r->start_pfn = end;
		if (r->start_pfn == r->end_pfn) {
			memmove(&w->todo[0], &w->todo[1], (w->nr_todo - 1) * sizeof(w->todo[0]));
			w->nr_todo--;
		}
	}
	w->early_pages += done;
	return done;
}

/* deferred_grow_zone's counterpart: an allocation found nothing free while
 * deferred memory remains; give it one more section, from the asking node
 * first. */
static bool grow(void *ctx, uint32_t node)
{
	struct mminit *mi = ctx;
	bool grew = false;

	spin_lock(&mi->grow_lock);
	for (uint32_t k = 0; k < mi->nr_nodes && !grew; k++) {
		uint32_t nid = (node + k) % mi->nr_nodes;
		grew = mi->nodes[nid].nr_todo && take_front(mi, nid, MMINIT_GROW_PAGES);
	}
	mi->grows += grew;
	spin_unlock(&mi->grow_lock);
	return grew;
}

/* ---- the parallel part ---- */

/* Fill and free the parts of the pfns [s, e) still to do. */
static void node_chunk_pfns(void *arg, uint64_t s, uint64_t e)
{
	const struct mminit_chunk_arg *c = arg;
	const struct mminit_node *w = &c->mi->nodes[c->node];

	for (uint32_t i = 0; i < w->nr_todo; i++) {
		uint64_t a = w->todo[i].start_pfn > s ? w->todo[i].start_pfn : s;
		uint64_t b = w->todo[i].end_pfn < e ? w->todo[i].end_pfn : e;
		if (a < b)
			fill_and_free_range(c->mi, c->node, a, b);
	}
}

/* A chunk of a node job: the packed units [s, e). */
static void node_chunk(void *arg, uint64_t s, uint64_t e)
{
	const struct mminit_chunk_arg *c = arg;
	const struct mminit_node *w = &c->mi->nodes[c->node];

	memmap_packed_for_each(w->seg, w->nr_seg, s, e, node_chunk_pfns, arg);
}

/* Chunk timings are kept in packed units; give them as the pfns they
 * start and end at. */
static void chunks_to_pfns(struct mminit_node *w)
{
	for (uint32_t i = 0; i < w->nr_chunks && i < MMINIT_TRACE_CHUNKS; i++) {
		struct job_chunk_time *t = &w->chunks[i];
		if (t->end <= t->start)
			continue;
		t->end = memmap_packed_pfn(w->seg, w->nr_seg, t->end - 1) + 1;
		t->start = memmap_packed_pfn(w->seg, w->nr_seg, t->start);
	}
}

/* Post node @nid's parallel part (nothing if it has none left). */
static void parallel_start(struct mminit *mi, uint32_t nid)
{
	struct mminit_node *w = &mi->nodes[nid];
	bool all = mi->cfg.all_cpus;

	w->job.fn = 0;
	if (!w->nr_todo)
		return;
	for (uint32_t i = 0; i < w->nr_todo; i++)
		w->parallel_pages += w->todo[i].end_pfn - w->todo[i].start_pfn;
	w->nr_seg = memmap_pack_segments(w->todo, w->nr_todo, ALLOC_MAX_ORDER, w->seg);
	w->chunk_arg = (struct mminit_chunk_arg){ mi, nid };
	w->job = (struct job){
		.name = "meminit", .start = 0,
		.size = memmap_packed_pages(w->seg, w->nr_seg),
		.align = ALLOC_MAX_ORDER_PAGES, .min_chunk = MMINIT_MIN_CHUNK_PAGES,
		.max_threads = all ? 0 : mi->cfg.max_threads,
		.node = all ? JOB_ALL_NODES : mi->cfg.cpu_node ? mi->cfg.cpu_node[nid] : nid,
		.fn = node_chunk, .arg = &w->chunk_arg,
		.times = w->chunks, .times_cap = MMINIT_TRACE_CHUNKS,
		/* Steps of one max-order block: the unit a chunk is cut at. */
		.chunk_states = w->chunk_states, .chunk_states_cap = MMINIT_TRACE_CHUNKS,
		.step = ALLOC_MAX_ORDER_PAGES, .deadline_ns = mi->cfg.deadline_ns,
	};
	job_start(&w->job, &w->job_state);
	/* With all_cpus, every CPU works on one node after the other. */
	if (all)
		job_wait(&w->job_state);
}

static void parallel_wait(struct mminit *mi)
{
	bool all = mi->cfg.all_cpus;
	/* Wait for the caller's own node first: it helps there. */
	uint32_t own = mi->cfg.boot_node;

	for (uint32_t k = 0; k < mi->nr_nodes; k++) {
		uint32_t nid = (own + k) % mi->nr_nodes;
		struct mminit_node *w = &mi->nodes[nid];
		const struct job_state *js = &w->job_state;

		if (!w->job.fn)
			continue;
		if (!all)
			job_wait(&w->job_state);
		w->threads = js->threads;
		w->cpus = js->cpus;
		w->caller_offered = js->caller_helps;
		w->ns = js->ns;
		w->start_ticks = js->first_counter;
		w->end_ticks = js->end_counter;
		w->nr_todo = 0;
		w->nr_chunks = js->plan.nr_chunks;
		chunks_to_pfns(w);
	}
}

void mminit_run(struct mminit *mi, void (*before_parallel)(void *ctx), void *ctx)
{
	if (mi->cfg.policy == MMINIT_SERIAL) {
		for (uint32_t nid = 0; nid < mi->nr_nodes; nid++) {
			uint64_t t0 = job_platform_ticks(), t1;
			take_front(mi, nid, UINT64_MAX);
			t1 = job_platform_ticks();
			mi->nodes[nid].ns = job_platform_ticks_to_ns(t1 - t0);
			mi->nodes[nid].start_ticks = t0;
			mi->nodes[nid].end_ticks = t1;
			mi->nodes[nid].threads = mi->nodes[nid].cpus = 1;
		}
		return;
	}
	/* The caller's early section, timed: before the node's CPUs start. */
	struct mminit_node *own = &mi->nodes[mi->cfg.boot_node];
	/*
	 * The other nodes' CPUs need nothing of the caller's early section:
	 * post their jobs first, so they start as the phase does, not after
	 * it. Not with all_cpus (one node after the other, the caller
	 * helping) nor with @before_parallel, whose allocations may grow into
	 * another node's memory (grow()) while its job would be taking it.
	 */
	bool early_post = !mi->cfg.all_cpus && !before_parallel;
	if (early_post)
		for (uint32_t nid = 0; nid < mi->nr_nodes; nid++)
			if (nid != mi->cfg.boot_node)
				parallel_start(mi, nid);
	uint64_t t0 = job_platform_ticks(), t1;
	take_front(mi, mi->cfg.boot_node, mi->cfg.early_pages);
	alloc_set_grow(grow, mi);
	if (before_parallel)
		before_parallel(ctx);
	t1 = job_platform_ticks();
	own->early_ticks = t1 - t0;
	own->early_ns = job_platform_ticks_to_ns(t1 - t0);
	if (own->early_pages) {
		own->early_start_ticks = t0;
		own->early_end_ticks = t1;
	}
	for (uint32_t nid = 0; nid < mi->nr_nodes; nid++)
		if (!early_post || nid == mi->cfg.boot_node)
			parallel_start(mi, nid);
	parallel_wait(mi);
	alloc_set_grow(0, 0);
}

void mminit_node_usable(const struct mminit_node *w, uint64_t phase_start_ticks,
			struct mminit_usable *out)
{
	uint64_t first = w->start_ticks, end = w->end_ticks;

	*out = (struct mminit_usable){ 0 };
	/* The early section comes before any chunk and may have grown while
	 * they ran (on-demand growth): the earliest start, the latest end. */
	if (w->early_start_ticks && (!first || w->early_start_ticks < first))
		first = w->early_start_ticks;
	if (w->early_end_ticks > end)
		end = w->early_end_ticks;
	if (!first || end < first)
		return;
	if (first < phase_start_ticks)
		first = phase_start_ticks;   /* a clock read before the phase's own */
	if (end < first)
		end = first;
	out->first_ticks = first;
	out->end_ticks = end;
	out->wait_ticks = first - phase_start_ticks;
	out->work_ticks = end - first;
	out->usable_ticks = end - phase_start_ticks;
}

uint32_t mminit_retime(struct mminit *mi, int64_t (*offset_of)(uint32_t cpu, void *ctx),
		       void *ctx)
{
	uint32_t inexact = 0;

	for (uint32_t nid = 0; nid < mi->nr_nodes; nid++) {
		struct mminit_node *w = &mi->nodes[nid];
		uint32_t kept = w->nr_chunks < MMINIT_TRACE_CHUNKS ? w->nr_chunks : MMINIT_TRACE_CHUNKS;
		uint64_t first = 0, end = 0;
		bool moved = false;

		for (uint32_t i = 0; i < kept; i++) {
			struct job_chunk_time *t = &w->chunks[i];
			int64_t off = offset_of(t->cpu, ctx);

			t->start_ticks -= (uint64_t)off;
			t->end_ticks -= (uint64_t)off;
			t->ns = t->end_ticks > t->start_ticks ?
				job_platform_ticks_to_ns(t->end_ticks - t->start_ticks) : 0;
			moved |= off != 0;
			if (!first || t->start_ticks < first)
				first = t->start_ticks;
			if (t->end_ticks > end)
				end = t->end_ticks;
		}
		w->early_ns = job_platform_ticks_to_ns(w->early_ticks);
		/* The node's first start and last end are over all its chunks:
		 * recomputed only from all of them. */
		if (moved && kept < w->nr_chunks)
			inexact++;
		else if (moved) {
			w->start_ticks = first;
			w->end_ticks = end;
		}
		if (w->end_ticks > w->start_ticks && w->start_ticks)
			w->ns = job_platform_ticks_to_ns(w->end_ticks - w->start_ticks);
	}
	return inexact;
}

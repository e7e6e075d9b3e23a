/*
 * churn.c: the kbuild-like allocation workload (mm/alloc/churn.h has the
 * overview).
 */
#include "mm/alloc/churn.h"

#include <string.h>

#include "kernel/services/log.h"

/*
 * The mixes. kbuild: compiler processes whose bursts range from 1/64 to
 * 1/8 of a worker's pages, a quarter of them temporaries, one in ten kept
 * (page cache, a quarter of the worker's pages), 10% of frees on another
 * CPU, a tick every 4096 allocations. deep: bursts of 1/4 to 1/2 of the
 * pages (each process runs its list dry and refills it), few temporaries,
 * a tick every 512 allocations: a list whose pages are all in use between
 * ticks, the case patch 9 ("avoid to reduce PCP high unnecessarily") was
 * written for. net: a third of allocations order 1..3 freed soon, in runs.
 */
static const struct churn_mix mixes[] = {
	{ .name = "kbuild", .burst_min_div = 8, .burst_max_div = 64, .temp_pct = 25, .keep_pct = 10,
	  .keep_div = 4, .remote_pct = 10, .tick_allocs = 4096, .work_iters = 64,
	  .high_order_pct = 2 },
	{ .name = "deep", .burst_min_div = 2, .burst_max_div = 4, .temp_pct = 5, .keep_pct = 2,
	  .keep_div = 16, .remote_pct = 5, .tick_allocs = 512, .work_iters = 64,
	  .high_order_pct = 1 },
	{ .name = "net", .burst_min_div = 32, .burst_max_div = 256, .temp_pct = 70, .keep_pct = 2,
	  .keep_div = 16, .remote_pct = 30, .tick_allocs = 4096, .work_iters = 32,
	  .high_order_pct = 33 },
};

const struct churn_mix *churn_find_mix(const char *name)
{
	for (size_t i = 0; name && i < sizeof(mixes) / sizeof(mixes[0]); i++)
		if (strcmp(mixes[i].name, name) == 0)
			return &mixes[i];
	return NULL;
}

const char *churn_mix_names(void)
{
	return "kbuild, deep, net";
}

#define INBOX_CAP 4096
#define FORK_BLOCKS 8                /* 4 stack pages, 4 page tables */

/* A block in the workload's arrays: pfn << 2 | order (orders 0..3 only;
 * larger never occur). */
static uint64_t pack(uint64_t pfn, unsigned order) { return pfn << 2 | order; }
static uint64_t pk_pfn(uint64_t b) { return b >> 2; }
static unsigned pk_order(uint64_t b) { return (unsigned)(b & 3); }

struct churn_worker {
	uint64_t rng;
	uint32_t index;
	struct churn_result res;
	uint64_t *proc;              /* this process's blocks */
	uint32_t nproc, proc_cap;
	uint64_t *keep;              /* long-lived pages, a ring, oldest at keep_head */
	uint32_t keep_head, keep_nr, keep_cap;
	struct spinlock inbox_lock;
	uint64_t *inbox;             /* blocks other workers freed to this one */
	uint32_t in_nr;
	uint32_t since_tick;
};

static uint64_t rnd(struct churn_worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static uint32_t burst_max(const struct churn_params *p)
{
	return (uint32_t)(p->pages_per_worker / p->mix->burst_min_div);
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

static uint32_t keep_cap(const struct churn_params *p)
{
	return (uint32_t)(p->pages_per_worker / p->mix->keep_div) + 1;
}

size_t churn_worker_bytes(const struct churn_params *p)
{
	return align8(sizeof(struct churn_worker)) +
	       ((size_t)burst_max(p) + FORK_BLOCKS + 1) * sizeof(uint64_t) +
	       (size_t)keep_cap(p) * sizeof(uint64_t) + INBOX_CAP * sizeof(uint64_t);
}

bool churn_init(struct churn *c, const struct churn_params *p, const struct churn_ops *ops,
		void *const *mem)
{
	if (!p->mix || !p->nr_workers || p->nr_workers > CHURN_MAX_WORKERS ||
	    p->pages_per_worker < 256) {
		pr_err("churn: %u workers (1..%u), %llu pages each (at least 256), mix %s: cannot run",
		       p->nr_workers, CHURN_MAX_WORKERS, (unsigned long long)p->pages_per_worker,
		       p->mix ? p->mix->name : "none");
		return false;
	}
	memset(c, 0, sizeof(*c));
	c->p = *p;
	c->ops = ops;
	for (uint32_t i = 0; i < p->nr_workers; i++) {
		struct churn_worker *w = mem[i];
		char *m = (char *)mem[i] + align8(sizeof(*w));

		memset(w, 0, sizeof(*w));
		w->index = i;
		/* splitmix64 of seed and index: distinct non-zero streams. */
		uint64_t z = p->seed + 0x9e3779b97f4a7c15ULL * (i + 1);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		w->rng = (z ^ (z >> 31)) | 1;
		w->proc_cap = burst_max(p) + FORK_BLOCKS + 1;
		w->proc = (uint64_t *)m;
		m += (size_t)w->proc_cap * sizeof(uint64_t);
		w->keep_cap = keep_cap(p);
		w->keep = (uint64_t *)m;
		m += (size_t)w->keep_cap * sizeof(uint64_t);
		w->inbox = (uint64_t *)m;
		c->w[i] = w;
	}
	return true;
}

/* The compiler's own work between allocations. */
static void work(struct churn_worker *w, uint32_t iters)
{
	uint64_t x = w->res.sink + 1;

	for (uint32_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	w->res.sink = x;
}

static void free_local(struct churn *c, struct churn_worker *w, void *ctx, uint64_t b)
{
	c->ops->free(ctx, pk_pfn(b), pk_order(b));
	w->res.frees++;
}

static void drain_inbox(struct churn *c, struct churn_worker *w, void *ctx)
{
	uint64_t local[64];
	uint32_t n;

	do {
		spin_lock(&w->inbox_lock);
		n = w->in_nr < 64 ? w->in_nr : 64;
		w->in_nr -= n;
		memcpy(local, &w->inbox[w->in_nr], n * sizeof(uint64_t));
		spin_unlock(&w->inbox_lock);
		for (uint32_t k = 0; k < n; k++)
			free_local(c, w, ctx, local[k]);
	} while (n);
}

/* A free, done here or (remote_pct of the time) by another worker. */
static void free_some_cpu(struct churn *c, struct churn_worker *w, void *ctx, uint64_t b)
{
	uint32_t nw = c->p.nr_workers;

	if (nw > 1 && rnd(w) % 100 < c->p.mix->remote_pct) {
		uint32_t t = (uint32_t)((w->index + 1 + rnd(w) % (nw - 1)) % nw);
		struct churn_worker *o = c->w[t];
		bool sent = false;

		spin_lock(&o->inbox_lock);
		if (o->in_nr < INBOX_CAP) {
			o->inbox[o->in_nr++] = b;
			sent = true;
		}
		spin_unlock(&o->inbox_lock);
		if (sent) {
			w->res.remote_frees++;
			return;
		}
	}
	free_local(c, w, ctx, b);
}

static bool alloc_one(struct churn *c, struct churn_worker *w, void *ctx, unsigned order,
		      uint64_t *b)
{
	uint64_t pfn = c->ops->alloc(ctx, order);

	if (pfn == CHURN_NO_PFN) {
		w->res.failed++;
		return false;
	}
	*b = pack(pfn, order);
	w->res.allocs++;
	w->res.alloc_pages += 1ULL << order;
	if (++w->since_tick >= c->p.mix->tick_allocs) {
		w->since_tick = 0;
		w->res.ticks++;
		if (c->ops->tick)
			c->ops->tick(ctx);
	}
	return true;
}

static void keep_page(struct churn *c, struct churn_worker *w, void *ctx, uint64_t b)
{
	if (w->keep_nr == w->keep_cap) {
		free_some_cpu(c, w, ctx, w->keep[w->keep_head]);
		w->keep_head = (w->keep_head + 1) % w->keep_cap;
		w->keep_nr--;
	}
	w->keep[(w->keep_head + w->keep_nr) % w->keep_cap] = b;
	w->keep_nr++;
}

static void process(struct churn *c, struct churn_worker *w, void *ctx)
{
	const struct churn_mix *m = c->p.mix;
	uint64_t pgd = 0, b;
	bool have_pgd;
	uint32_t lo = (uint32_t)(c->p.pages_per_worker / m->burst_max_div), hi = burst_max(&c->p);
	uint32_t burst = lo + (uint32_t)(rnd(w) % (hi - lo + 1));

	w->res.processes++;
	drain_inbox(c, w, ctx);
	/* fork: the PGD (order 1 with page table isolation), the kernel
	 * stack (four order-0 pages with VMAP_STACK), page tables. */
	have_pgd = alloc_one(c, w, ctx, 1, &pgd);
	for (int i = 0; i < 4 + 4; i++)
		if (alloc_one(c, w, ctx, 0, &b))
			w->proc[w->nproc++] = b;
	/* run */
	for (uint32_t k = 0; k < burst; k++) {
		unsigned order = rnd(w) % 100 < m->high_order_pct ? 1 + (unsigned)(rnd(w) % 3) : 0;

		if (!alloc_one(c, w, ctx, order, &b))
			continue;
		work(w, m->work_iters << order);
		if (order == 0 && rnd(w) % 100 < m->keep_pct) {
			keep_page(c, w, ctx, b);
		} else if (w->nproc < w->proc_cap) {
			w->proc[w->nproc++] = b;
		} else {
			free_local(c, w, ctx, b);
		}
		/* Slab pages (orders 1..3) are temporaries, freed soon. */
		if (order && w->nproc && rnd(w) % 2 == 0) {
			uint64_t t = w->proc[--w->nproc];
			free_some_cpu(c, w, ctx, t);
		}
		if (w->nproc && rnd(w) % 100 < m->temp_pct) {
			uint32_t i = (uint32_t)(rnd(w) % w->nproc);
			uint64_t t = w->proc[i];

			w->proc[i] = w->proc[--w->nproc];
			free_some_cpu(c, w, ctx, t);
		}
		if ((k & 63) == 63)
			drain_inbox(c, w, ctx);
	}
	/* exit: everything at once, the PGD last (mm_free_pgd() after
	 * exit_mmap(), the sequence patch 1's commit message traces). */
	while (w->nproc)
		free_some_cpu(c, w, ctx, w->proc[--w->nproc]);
	if (have_pgd)
		free_local(c, w, ctx, pgd);
}

void churn_worker_run(struct churn *c, uint32_t i, void *ctx)
{
	struct churn_worker *w = c->w[i];

	while (w->res.allocs < c->p.allocs_per_worker) {
		uint64_t before = w->res.allocs;

		process(c, w, ctx);
		if (w->res.allocs == before)
			break;   /* the allocator has nothing left: stop, do not spin */
	}
	while (w->keep_nr) {
		free_local(c, w, ctx, w->keep[w->keep_head]);
		w->keep_head = (w->keep_head + 1) % w->keep_cap;
		w->keep_nr--;
	}
	drain_inbox(c, w, ctx);
}

void churn_worker_finish(struct churn *c, uint32_t i, void *ctx)
{
	drain_inbox(c, c->w[i], ctx);
}

const struct churn_result *churn_worker_result(const struct churn *c, uint32_t i)
{
	return &c->w[i]->res;
}

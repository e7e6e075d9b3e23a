/*
 * pcp.c: per-CPU page lists and Linux's PCP high auto-tuning steps
 * (mm/alloc/pcp.h has the overview).
 *
 * Each function below names the Linux function (mm/page_alloc.c, v6.7) it
 * follows and the patch of Huang Ying's series "mm: PCP high auto-tuning"
 * (v2: <20230920061856.257597-1-ying.huang@intel.com>, v3:
 * <20231016053002.756205-*>) that introduced each rule, so a step can be
 * switched on and off on its own. Where memboot departs from Linux it says
 * so and why.
 */
#include "mm/alloc/pcp.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/log.h"
#include "kernel/services/cmdline.h"

#define HAS(pz, n) (((pz)->cfg.steps & PCP_STEP(n)) != 0)

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

/* Linux's clamp() with a range that may be empty (hi < lo): lo wins. */
static int clamp_int(int v, int lo, int hi)
{
	if (hi < lo)
		hi = lo;
	return v < lo ? lo : v > hi ? hi : v;
}

static uint64_t isqrt_u64(uint64_t x)
{
	uint64_t r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static int rounddown_pow2(int x)
{
	int p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* zone_batchsize(): about a quarter of a 1 MiB chunk, capped for small zones
 * at managed/1024 pages, then (2^n - 1) so batches of different CPUs do not
 * keep hitting the same cache colours (Linux's comment on the rounding). */
int pcp_batch_for(uint64_t managed_pages)
{
	uint64_t b = managed_pages >> 10;
	int batch;

	if (b > (1024 * 1024) / 4096)
		b = (1024 * 1024) / 4096;
	batch = (int)(b / 4);
	if (batch < 1)
		batch = 1;
	batch = rounddown_pow2(batch + batch / 2) - 1;
	return batch > 0 ? batch : 1;
}

/* zone_highsize(): the pages a zone lets its node's CPUs keep, split evenly,
 * never under 4 batches. @fraction 0: the low watermark (Linux's default). */
static int highsize(const struct pcp_zone *pz, uint32_t fraction)
{
	uint64_t total = fraction ? pz->managed_pages / fraction : pz->wmark_low;
	uint64_t high = total / (pz->nr_cpus ? pz->nr_cpus : 1);

	if (high < (uint64_t)pz->batch << 2)
		high = (uint64_t)pz->batch << 2;
	if (high > (1u << 30))
		high = 1u << 30;
	return (int)high;
}

void pcp_zone_init(struct pcp_zone *pz, const struct pcp_backend *be, void *zone,
		   struct spinlock *lock, const struct pcp_config *cfg, uint64_t managed_pages,
		   uint64_t total_managed_pages, uint32_t nr_cpus)
{
	uint64_t min_kb, min_pages, tmp;

	memset(pz, 0, sizeof(*pz));
	pz->be = be;
	pz->zone = zone;
	pz->lock = lock;
	pz->cfg = *cfg;
	pz->cfg.steps &= PCP_STEPS_KNOWN;
	pz->managed_pages = managed_pages;
	pz->nr_cpus = nr_cpus ? nr_cpus : 1;
	if (total_managed_pages < managed_pages)
		total_managed_pages = managed_pages;

	/* init_per_zone_wmark_min(): min_free_kbytes = sqrt(lowmem KiB * 16),
	 * within [128 KiB, 256 MiB]; __setup_per_zone_wmarks() gives each zone
	 * its share, and low/high sit max(min/4, 0.1% of the zone) apart
	 * (watermark_scale_factor 10). */
	min_kb = isqrt_u64(total_managed_pages * 4 * 16);
	if (min_kb < 128)
		min_kb = 128;
	if (min_kb > 262144)
		min_kb = 262144;
	min_pages = min_kb / 4;
	pz->wmark_min = min_pages * managed_pages / total_managed_pages;
	tmp = pz->wmark_min / 4;
	if (tmp < managed_pages * 10 / 10000)
		tmp = managed_pages * 10 / 10000;
	pz->wmark_low = pz->wmark_min + tmp;
	pz->wmark_high = pz->wmark_low + tmp;

	pz->batch = pcp_batch_for(managed_pages);
	/* mm: add framework for PCP high auto-tuning (patch 6): high_min is
	 * the old default, high_max the value for fraction 8; a fraction set
	 * by the user makes them equal, which is how Linux turns tuning off. */
	if (cfg->policy == PCP_FIXED) {
		pz->high_min = pz->high_max = highsize(pz, cfg->high_fraction);
	} else if (cfg->policy == PCP_AUTO && HAS(pz, 7) && !cfg->high_fraction) {
		pz->high_min = highsize(pz, 0);
		pz->high_max = max_int(highsize(pz, PCP_HIGH_FRACTION_MIN), pz->high_min);
	} else {
		/* auto without step 7 is the kernel before the series: a fixed
		 * high from the default (or the fraction given). */
		pz->high_min = pz->high_max = highsize(pz, cfg->high_fraction);
	}
	pz->auto_tune = cfg->policy == PCP_AUTO && HAS(pz, 7) && pz->high_min < pz->high_max;

	/* The most a list can hold: high_max, one scaled refill (step 5 caps
	 * it under high, but a refill of another order can land on a list at
	 * high), a free batch, and slack for one block of each order. */
	for (unsigned o = 0; o < PCP_NR_ORDERS; o++) {
		uint64_t pages = (uint64_t)pz->high_max + ((uint64_t)pz->batch << PCP_BATCH_SCALE_MAX) +
				 4 * (uint64_t)pz->batch + 16;
		pz->cap[o] = (uint32_t)(pages >> o) + 4;
	}
}

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

size_t pcp_list_bytes(const struct pcp_zone *pz)
{
	size_t bytes = align64(sizeof(struct pcp_list));

	if (pz->cfg.policy == PCP_OFF)
		return bytes;
	for (unsigned o = 0; o < PCP_NR_ORDERS; o++)
		bytes += align64((size_t)pz->cap[o] * sizeof(uint64_t));
	return bytes;
}

static void note_high(struct pcp_list *l)
{
	if (l->high < l->st.high_min_seen)
		l->st.high_min_seen = l->high;
	if (l->high > l->st.high_max_seen)
		l->st.high_max_seen = l->high;
}

struct pcp_list *pcp_list_init(struct pcp_zone *pz, void *mem, uint32_t cpu)
{
	struct pcp_list *l = mem;
	char *p = (char *)mem + align64(sizeof(*l));

	memset(l, 0, sizeof(*l));
	l->pz = pz;
	l->cpu = cpu;
	if (pz->cfg.policy != PCP_OFF) {
		for (unsigned o = 0; o < PCP_NR_ORDERS; o++) {
			l->blocks[o] = (uint64_t *)p;
			p += align64((size_t)pz->cap[o] * sizeof(uint64_t));
		}
	}
	/* Linux starts pcp->high at 0 and nr_pcp_high() clamps it into
	 * [high_min, high_max]: the list starts at high_min. */
	l->high = pz->high_min;
	l->st.high_min_seen = l->st.high_max_seen = l->high;
	/* Patch 3 (commit 362d37a106dd upstream): if the CPU's slice of the
	 * data cache holds more than 4 batches, a batch of high-order pages
	 * may stay cached before free_high drains them. */
	if (HAS(pz, 3) && (pz->cfg.cache_bytes >> 12) > 4 * (uint64_t)pz->batch)
		l->flags |= PCPF_FREE_HIGH_BATCH;
	return l;
}

/* Take the zone lock, counting: a failed trylock first makes the acquisition
 * contended, and the wait is timed (the clock is read only then, so the
 * uncontended path costs one atomic exchange as before). */
static void zone_lock(struct pcp_list *l)
{
	struct pcp_zone *pz = l->pz;
	uint64_t t0;

	l->st.lock_acquired++;
	if (spin_trylock(pz->lock))
		return;
	l->st.lock_contended++;
	t0 = pz->now_ns ? pz->now_ns() : 0;
	spin_lock(pz->lock);
	if (pz->now_ns)
		l->st.spin_ns += pz->now_ns() - t0;
}

static void zone_unlock(struct pcp_list *l)
{
	spin_unlock(l->pz->lock);
}

/* ---- the rings: one per order, hot end at the top ---------------------
 * Blocks are pushed and popped at the top (the most recently freed, cache
 * hot, as Linux's list head) and drained from the bottom (the coldest, as
 * free_pcppages_bulk() takes list_last_entry()). */

static uint32_t ring_slot(const struct pcp_list *l, unsigned o, uint32_t i)
{
	uint32_t s = l->base[o] + i, cap = l->pz->cap[o];

	return s >= cap ? s - cap : s;
}

static void ring_push(struct pcp_list *l, unsigned o, uint64_t pfn)
{
	l->blocks[o][ring_slot(l, o, l->nr[o])] = pfn;
	l->nr[o]++;
}

static uint64_t ring_pop(struct pcp_list *l, unsigned o)
{
	l->nr[o]--;
	return l->blocks[o][ring_slot(l, o, l->nr[o])];
}

/* Give the @k coldest blocks of order @o back to the zone (lock held), in
 * at most two contiguous runs of the ring. */
static void ring_give_cold_locked(struct pcp_list *l, unsigned o, uint32_t k)
{
	struct pcp_zone *pz = l->pz;

	while (k) {
		uint32_t run = pz->cap[o] - l->base[o];

		if (run > k)
			run = k;
		pz->be->give_locked(pz->zone, o, &l->blocks[o][l->base[o]], run);
		l->base[o] = ring_slot(l, o, run);
		l->nr[o] -= run;
		k -= run;
	}
}

/* Take up to @n blocks of order @o from the zone onto the top (lock held). */
static uint32_t ring_take_locked(struct pcp_list *l, unsigned o, uint32_t n)
{
	struct pcp_zone *pz = l->pz;
	uint32_t got = 0;

	while (got < n) {
		uint32_t slot = ring_slot(l, o, l->nr[o]);
		uint32_t run = pz->cap[o] - slot, t;

		if (run > n - got)
			run = n - got;
		t = pz->be->take_locked(pz->zone, o, run, &l->blocks[o][slot]);
		l->nr[o] += t;
		got += t;
		if (t < run)
			break;
	}
	return got;
}

/* free_pcppages_bulk(): give about @pages pages back under one lock hold,
 * emptying one order's ring after another, round robin from the order after
 * @order (Linux's pindex walk), coldest blocks first. */
static int bulk_free(struct pcp_list *l, int pages, unsigned order)
{
	int done = 0;
	unsigned o = order;

	if (pages > l->count)
		pages = l->count;
	if (pages <= 0)
		return 0;
	zone_lock(l);
	while (done < pages) {
		uint32_t k, want;
		unsigned tries = 0;

		do
			o = (o + 1) % PCP_NR_ORDERS;
		while (!l->nr[o] && ++tries < PCP_NR_ORDERS);
		if (!l->nr[o]) {
			/* count says more than the rings hold: pcp_check()
			 * reports it; never spin here. */
			pr_err("pcp: cpu %u: count %d but the rings are empty", l->cpu, l->count);
			break;
		}
		want = (uint32_t)((pages - done + (1 << o) - 1) >> o);
		k = l->nr[o] < want ? l->nr[o] : want;
		ring_give_cold_locked(l, o, k);
		done += (int)(k << o);
	}
	zone_unlock(l);
	l->count -= done;
	l->st.drains++;
	l->st.drained_pages += (uint64_t)done;
	return done;
}

/* ---- allocation ------------------------------------------------------- */

/* nr_pcp_alloc(): how many blocks a refill takes. */
static int nr_pcp_alloc(struct pcp_list *l, unsigned order)
{
	struct pcp_zone *pz = l->pz;
	int base_batch = pz->batch, batch, max_nr_alloc, high = l->high;

	/* Patch 7: a list that runs dry wants more: raise high by a batch
	 * toward high_max; patch 8: not while the zone is short of memory. */
	if (pz->auto_tune && !(HAS(pz, 8) && pz->below_high)) {
		high = l->high = min_int(high + base_batch, pz->high_max);
		note_high(l);
	}
	if (order)
		return max_int(base_batch >> order, 2);
	if (!HAS(pz, 5))
		return base_batch;
	/* Patch 5 ("scale the number of pages that are batch allocated"):
	 * each refill with no free in between doubles the batch, up to
	 * 2^PCP_BATCH_SCALE_MAX, never filling the list past high - batch. */
	batch = base_batch << l->alloc_factor;
	max_nr_alloc = max_int(high - l->count - base_batch, base_batch);
	if (batch <= max_nr_alloc && l->alloc_factor < PCP_BATCH_SCALE_MAX)
		l->alloc_factor++;
	return min_int(batch, max_nr_alloc);
}

static uint64_t zone_alloc_direct(struct pcp_list *l, unsigned order)
{
	uint64_t pfn;

	zone_lock(l);
	if (!l->pz->be->take_locked(l->pz->zone, order, 1, &pfn))
		pfn = PCP_NO_PFN;
	zone_unlock(l);
	l->st.alloc_zone++;
	if (pfn != PCP_NO_PFN)
		l->st.alloc_zone_pages += 1ULL << order;
	return pfn;
}

static void refill(struct pcp_list *l, unsigned order)
{
	struct pcp_zone *pz = l->pz;
	int n = nr_pcp_alloc(l, order);
	uint32_t room = pz->cap[order] - l->nr[order], got;

	if ((uint32_t)n > room)
		n = (int)room;
	zone_lock(l);
	got = ring_take_locked(l, order, (uint32_t)n);
	/* Patch 8: a zone under its high watermark is short of memory; Linux
	 * notices in get_page_from_freelist() on every allocation, memboot
	 * when a list goes to the zone, to keep the shared counter off the
	 * hit path. */
	if (HAS(pz, 8) && pz->auto_tune && !pz->below_high &&
	    pz->be->free_pages(pz->zone) < pz->wmark_high)
		pz->below_high = 1;
	zone_unlock(l);
	l->count += (int)(got << order);
	l->st.refills++;
	l->st.alloc_zone_pages += (uint64_t)got << order;
}

uint64_t pcp_alloc(struct pcp_list *l, unsigned order)
{
	struct pcp_zone *pz = l->pz;
	uint64_t pfn;

	if (pz->cfg.policy == PCP_OFF || order > PCP_MAX_ORDER)
		return zone_alloc_direct(l, order);
	/* rmqueue_pcplist(): an allocation ends a run of frees. */
	if (HAS(pz, 10))
		l->free_count >>= 1;
	else
		l->free_factor >>= 1;
	if (!l->nr[order]) {
		refill(l, order);
		if (!l->nr[order])
			return PCP_NO_PFN;
	}
	pfn = ring_pop(l, order);
	l->count -= 1 << order;
	/* Patch 9: remember the fewest pages the list held since the last
	 * tick: those were idle all along. */
	if (HAS(pz, 9) && l->count < l->count_min)
		l->count_min = l->count;
	l->st.alloc_pcp++;
	return pfn;
}

/* ---- free ------------------------------------------------------------- */

/* nr_pcp_high(): the count above which this free drains, adjusting high. */
static int nr_pcp_high(struct pcp_list *l, bool free_high)
{
	struct pcp_zone *pz = l->pz;
	int high = l->high, dec;

	if (!high)
		return 0;
	if (free_high) {
		/* Patch 7: a CPU that frees high-order pages in a row does not
		 * need a large list. */
		if (pz->auto_tune) {
			l->high = max_int(high - (pz->batch << PCP_BATCH_SCALE_MAX), pz->high_min);
			note_high(l);
		}
		return 0;
	}
	if (!pz->auto_tune)
		return high;
	/* What one free batch needs: the scaled batch before patch 10, the
	 * run of freed pages after it. */
	dec = HAS(pz, 10) ? l->free_count : pz->batch << l->free_factor;
	if (HAS(pz, 8) && pz->below_high) {
		/* Patch 8: shrink high while the zone is short, and give back
		 * everything above high_min. */
		l->high = max_int(high - dec, pz->high_min);
		note_high(l);
		return max_int(l->count, pz->high_min);
	}
	if (l->count >= high) {
		/* Patch 7: frees find the list full while the zone has memory
		 * to spare: let high hold at least one free batch. */
		int need = dec + pz->batch;

		if (l->high < need) {
			l->high = clamp_int(need, pz->high_min, pz->high_max);
			note_high(l);
		}
	}
	return high;
}

/* nr_pcp_free(): how many pages a drain from the free path gives back. */
static int nr_pcp_free(struct pcp_list *l, int high, bool free_high)
{
	struct pcp_zone *pz = l->pz;
	int batch = pz->batch, min_nr_free, max_nr_free, b;

	/* Patch 4 caps even a free_high drain, for latency. */
	if (free_high)
		return HAS(pz, 4) ? min_int(l->count, batch << PCP_BATCH_SCALE_MAX) : l->count;
	if (high < batch)
		return 1;
	min_nr_free = batch;
	max_nr_free = high - batch;
	if (HAS(pz, 10))
		return clamp_int(l->free_count, min_nr_free, max_nr_free);
	/* Before patch 10: double the batch on each drain without an
	 * allocation in between; patch 4 stops at 2^PCP_BATCH_SCALE_MAX. */
	b = batch << l->free_factor;
	if (HAS(pz, 4) ? (b <= max_nr_free && l->free_factor < PCP_BATCH_SCALE_MAX)
		       : (b < max_nr_free && l->free_factor < 20))
		l->free_factor++;
	return clamp_int(b, min_nr_free, max_nr_free);
}

static void zone_free_direct(struct pcp_list *l, uint64_t pfn, unsigned order)
{
	zone_lock(l);
	l->pz->be->give_locked(l->pz->zone, order, &pfn, 1);
	zone_unlock(l);
}

void pcp_free(struct pcp_list *l, uint64_t pfn, unsigned order)
{
	struct pcp_zone *pz = l->pz;
	bool free_high = false;
	int high;

	if (pz->cfg.policy == PCP_OFF || order > PCP_MAX_ORDER) {
		zone_free_direct(l, pfn, order);
		return;
	}
	/* Patch 5: a free ends a run of refills. */
	if (HAS(pz, 5))
		l->alloc_factor >>= 1;
	if (l->nr[order] == pz->cap[order]) {
		/* Cannot happen with the capacity pcp_zone_init() computes;
		 * keep the page anyway rather than lose it. */
		pr_warn("pcp: cpu %u order %u ring full (%u blocks), draining it", l->cpu, order,
			pz->cap[order]);
		bulk_free(l, l->count, (order + PCP_NR_ORDERS - 1) % PCP_NR_ORDERS);
	}
	ring_push(l, order, pfn);
	l->count += 1 << order;

	/* free_unref_page_commit(): free_high, the drain for CPUs that free
	 * high-order pages in a row (network senders), keeps those pages
	 * cache hot for the CPU that allocates them next (commit
	 * f26b3fa04611). */
	if (order) {
		free_high = HAS(pz, 10) ? l->free_count >= pz->batch : l->free_factor != 0;
		/* Patch 1: only on the second high-order free in a row, so a
		 * process exit (many order-0 frees, then its order-1 PGD)
		 * does not drain the list. */
		if (HAS(pz, 1)) {
			free_high = free_high && (l->flags & PCPF_PREV_FREE_HIGH_ORDER);
			l->flags |= PCPF_PREV_FREE_HIGH_ORDER;
		}
		/* Patch 3: with a large cache slice keep a batch first. */
		if (l->flags & PCPF_FREE_HIGH_BATCH)
			free_high = free_high && l->count >= pz->batch;
	} else if (HAS(pz, 1)) {
		l->flags &= ~PCPF_PREV_FREE_HIGH_ORDER;
	}
	/* Patch 10: count the pages of a run of frees directly. */
	if (HAS(pz, 10) && l->free_count < (pz->batch << PCP_BATCH_SCALE_MAX))
		l->free_count += 1 << order;

	high = nr_pcp_high(l, free_high);
	if (l->count >= high) {
		bulk_free(l, nr_pcp_free(l, high, free_high), order);
		if (free_high)
			l->st.free_high++;
		/* Patch 8: the zone is out of its shortage once above high. */
		if (HAS(pz, 8) && pz->below_high &&
		    pz->be->free_pages(pz->zone) >= pz->wmark_high)
			pz->below_high = 0;
	}
}

/* ---- periodic work and drains ----------------------------------------- */

/* decay_pcp_high(): Linux calls it from refresh_cpu_vm_stats() once a
 * second; the caller picks the tick. */
int pcp_tick(struct pcp_list *l)
{
	struct pcp_zone *pz = l->pz;
	int to_drain, done = 0;

	if (pz->cfg.policy == PCP_OFF)
		return 0;
	if (pz->auto_tune && l->high > pz->high_min) {
		/* Patch 7: decay by 1/8 (v1 used 1/5; Mel Gorman asked for a
		 * shift), never dropping more than one maximal drain below
		 * the count. Patch 9: only by pages that sat idle all tick. */
		int dec = l->high >> 3;

		if (HAS(pz, 9))
			dec = min_int(dec, l->count_min);
		l->high = max_int(max_int(l->count - (pz->batch << PCP_BATCH_SCALE_MAX),
					  l->high - dec), pz->high_min);
		note_high(l);
	}
	to_drain = l->count - l->high;
	if (to_drain > 0)
		done = bulk_free(l, min_int(to_drain, pz->batch << PCP_BATCH_SCALE_MAX), 0);
	l->count_min = l->count;
	return done;
}

uint64_t pcp_drain(struct pcp_list *l)
{
	uint64_t done = 0;

	if (l->pz->cfg.policy == PCP_OFF)
		return 0;
	while (l->count > 0) {
		int n = bulk_free(l, l->count, PCP_MAX_ORDER);

		if (n <= 0)
			break;   /* inconsistent count, reported by bulk_free() */
		done += (uint64_t)n;
	}
	l->count_min = 0;
	return done;
}

bool pcp_check(const struct pcp_list *l)
{
	const struct pcp_zone *pz = l->pz;
	int64_t pages = 0;

	if (pz->cfg.policy == PCP_OFF)
		return l->count == 0;
	for (unsigned o = 0; o < PCP_NR_ORDERS; o++) {
		if (l->nr[o] > pz->cap[o] || l->base[o] >= pz->cap[o]) {
			pr_err("pcp: cpu %u order %u: %u blocks at slot %u, capacity %u", l->cpu, o,
			       l->nr[o], l->base[o], pz->cap[o]);
			return false;
		}
		pages += (int64_t)l->nr[o] << o;
	}
	if (pages != l->count) {
		pr_err("pcp: cpu %u: count %d but the rings hold %lld pages", l->cpu, l->count,
		       (long long)pages);
		return false;
	}
	if (l->high < pz->high_min || l->high > pz->high_max) {
		pr_err("pcp: cpu %u: high %d outside [%d, %d]", l->cpu, l->high, pz->high_min,
		       pz->high_max);
		return false;
	}
	return true;
}

/* ---- command line and formatting --------------------------------------- */

static const char *const policy_names[] = { "off", "fixed", "auto" };

const char *pcp_policy_name(enum pcp_policy p)
{
	return (unsigned)p < 3 ? policy_names[p] : "?";
}

bool pcp_parse_policy(const char *s, enum pcp_policy *out, char *err, size_t err_bytes)
{
	for (unsigned i = 0; s && i < 3; i++) {
		if (strcmp(s, policy_names[i]) == 0) {
			*out = (enum pcp_policy)i;
			return true;
		}
	}
	snprintf(err, err_bytes, "off, fixed or auto");
	return false;
}

struct steps_list {
	uint32_t add, remove;       /* the steps named plain or with +, and with - */
	bool relative;              /* signed items: from mainline */
};

static bool steps_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
		       size_t err_bytes)
{
	struct steps_list *l = ctx;
	uint64_t n;

	if (!cmdline_parse_u64(item, &n) || n > 31 || !(PCP_STEPS_KNOWN & PCP_STEP(n))) {
		snprintf(err, err_bytes, "'%s' is not one", item);
		return false;
	}
	if (sign == '-')
		l->remove |= PCP_STEP(n);
	else
		l->add |= PCP_STEP(n);
	l->relative = sign != 0;
	*key = n;        /* +3,-3 names step 3 twice: a duplicate */
	return true;
}

bool pcp_parse_steps(const char *s, uint32_t *out, char *err, size_t err_bytes)
{
	struct steps_list l = { 0 };
	const struct cmdline_list list = {
		.what = "mainline, none, all, or step numbers from 1,3,4,5,7,8,9,10 "
			"(+N/-N: mainline with/without N)",
		.signs = true, .item = steps_item, .ctx = &l };

	if (s && strcmp(s, "mainline") == 0) {
		*out = PCP_STEPS_MAINLINE;
		return true;
	}
	if (s && strcmp(s, "none") == 0) {
		*out = 0;
		return true;
	}
	if (s && strcmp(s, "all") == 0) {
		*out = PCP_STEPS_KNOWN;
		return true;
	}
	if (!cmdline_parse_list(s, &list, err, err_bytes))
		return false;
	/* The list is all relative or all absolute (cmdline_parse_list): the
	 * order of its items never matters. */
	*out = l.relative ? (PCP_STEPS_MAINLINE | l.add) & ~l.remove : l.add;
	return true;
}

void pcp_format_steps(uint32_t steps, char *buf, size_t bytes)
{
	size_t used = 0;

	if (bytes)
		buf[0] = 0;
	if (!(steps & PCP_STEPS_KNOWN)) {
		snprintf(buf, bytes, "none");
		return;
	}
	for (unsigned n = 0; n < 32; n++) {
		if (!(steps & PCP_STEPS_KNOWN & PCP_STEP(n)))
			continue;
		int w = snprintf(buf + used, used < bytes ? bytes - used : 0, "%s%u", used ? "," : "", n);
		if (w > 0)
			used += (size_t)w;
	}
}

void pcp_stats_add(struct pcp_stats *a, const struct pcp_stats *b)
{
	/* high is at least 4 batches whenever lists exist: 0 means unset. */
	bool first = !a->high_max_seen;

	a->lock_acquired += b->lock_acquired;
	a->lock_contended += b->lock_contended;
	a->spin_ns += b->spin_ns;
	a->alloc_zone_pages += b->alloc_zone_pages;
	a->alloc_pcp += b->alloc_pcp;
	a->alloc_zone += b->alloc_zone;
	a->refills += b->refills;
	a->drains += b->drains;
	a->drained_pages += b->drained_pages;
	a->free_high += b->free_high;
	if (first || b->high_min_seen < a->high_min_seen)
		a->high_min_seen = b->high_min_seen;
	if (first || b->high_max_seen > a->high_max_seen)
		a->high_max_seen = b->high_max_seen;
}

/* --- per-CPU lists: command-line keys (docs/cmdline.md) --- */

struct pcp_settings pcp_settings = {
	.policy = PCP_AUTO, .steps = PCP_STEPS_MAINLINE, .high_fraction = 0,
	.churn_mix = "kbuild", .churn_allocs = 20000, .churn_seed = 1,
};

static bool parse_pcp(const char *value, void *ptr, char *err, size_t err_bytes)
{
	enum pcp_policy p;

	if (!pcp_parse_policy(value, &p, err, err_bytes))
		return false;
	*(unsigned *)ptr = p;
	return true;
}

static bool parse_pcp_steps(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return pcp_parse_steps(value, ptr, err, err_bytes);
}

/*
 * memboot.pcp_high_fraction=0 or 8..1000000. Linux's sysctl handler for
 * vm.percpu_pagelist_high_fraction (mm/page_alloc.c) takes 0 (the default:
 * high from the low watermark) and refuses any other value below
 * MIN_PERCPU_PAGELIST_HIGH_FRACTION (8) with EINVAL, keeping the old value,
 * "to avoid pcp imbalance": below 8 one CPU's list could hold an eighth of
 * the zone or more (at 1, all of it).
 */
static bool parse_high_fraction(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t v;

	if (!value || !cmdline_parse_u64(value, &v) || (v && v < PCP_HIGH_FRACTION_MIN) ||
	    v > PCP_HIGH_FRACTION_MAX) {
		snprintf(err, err_bytes,
			 "0 (high from the low watermark) or a fraction %u..%u; below %u one CPU's list "
			 "could hold the node's memory, and Linux refuses it too",
			 PCP_HIGH_FRACTION_MIN, PCP_HIGH_FRACTION_MAX, PCP_HIGH_FRACTION_MIN);
		return false;
	}
	*(uint64_t *)ptr = v;
	return true;
}

static const struct param pcp_params[] = {
	{ .key = "memboot.pcp", .type = PARAM_FUNC, .ptr = &pcp_settings.policy,
	  .fn = parse_pcp, .help = "per-CPU page lists: off, fixed or auto (docs/pcp.md)" },
	{ .key = "memboot.pcp_steps", .type = PARAM_FUNC, .ptr = &pcp_settings.steps,
	  .fn = parse_pcp_steps, .help = "steps of Linux's PCP auto-tuning series to apply" },
	{ .key = "memboot.pcp_high_fraction", .type = PARAM_FUNC, .ptr = &pcp_settings.high_fraction,
	  .fn = parse_high_fraction,
	  .help = "high = node pages / fraction / CPUs: 0 (low watermark) or 8..1000000" },
	{ .key = "memboot.churn_mix", .type = PARAM_STR, .ptr = pcp_settings.churn_mix,
	  .max = sizeof(pcp_settings.churn_mix), .help = "churn self-test load: kbuild, deep or net" },
	{ .key = "memboot.churn_allocs", .type = PARAM_U64, .ptr = &pcp_settings.churn_allocs,
	  .min = 1, .max = 1ULL << 32, .help = "allocations per CPU in the churn self-test" },
};
PARAM_TABLE(pcp_param_table, "pcp", pcp_params);

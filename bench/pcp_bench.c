/*
 * pcp_bench.c: the churn workload (mm/alloc/churn.c) on pthreads, through the
 * per-CPU lists (mm/alloc/pcp.c) in front of the buddy allocator (mm/alloc/buddy.c),
 * once per step set of Linux's PCP auto-tuning series: seed 002's table.
 *
 *   build/bench/pcp_bench [--threads N] [--repeats R] [--mix kbuild|deep|net|all]
 *                         [--zone-mib M] [--allocs N] [--seed S]
 *
 * One zone (one node, as the series' "kbuild on one socket"), its lock
 * shared by every thread; each thread is one CPU with its own lists, pinned
 * when the machine has enough CPUs. Every run starts from a freshly freed
 * zone and must end with every page back in it (else it exits 1).
 *
 * Columns, as in the series' cover letter: time (the threads' CPU time,
 * which a shared host's preemption does not inflate as it does wall time),
 * lock contention (% of thread wall time spent waiting for the zone lock),
 * free_high (drains by the free_high heuristic), alloc_zone (pages taken
 * from the zone); time, free_high and alloc_zone relative to the "base"
 * row = 100. Each figure is the median of the repeats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm/alloc/buddy.h"
#include "mm/alloc/churn.h"
#include "mm/memmap.h"
#include "mm/alloc/pcp.h"
#include "tests/host/host_support.h"
#include "tests/host/pcp_buddy_zone.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* ---- the zone: the kernel's buddy allocator over a descriptor array ---- */


static uint64_t op_alloc(void *ctx, unsigned order) { return pcp_alloc(ctx, order); }
static void op_free(void *ctx, uint64_t pfn, unsigned order) { pcp_free(ctx, pfn, order); }
static void op_tick(void *ctx) { pcp_tick(ctx); }
static const struct churn_ops ops = { op_alloc, op_free, op_tick };

/* ---- rows ---- */

struct row {
	const char *name;
	enum pcp_policy policy;
	uint32_t steps;
	uint32_t fraction;
};

#define S(n) PCP_STEP(n)
static const struct row rows[] = {
	{ "off", PCP_OFF, 0, 0 },
	{ "fixed", PCP_FIXED, S(1) | S(3) | S(4) | S(5) | S(10), PCP_HIGH_FRACTION_MIN },
	{ "base", PCP_AUTO, 0, 0 },
	{ "patch1", PCP_AUTO, S(1), 0 },
	{ "patch3", PCP_AUTO, S(1) | S(3), 0 },
	{ "patch5", PCP_AUTO, S(1) | S(3) | S(4) | S(5), 0 },
	{ "patch7", PCP_AUTO, S(1) | S(3) | S(4) | S(5) | S(7), 0 },
	{ "patch8", PCP_AUTO, S(1) | S(3) | S(4) | S(5) | S(7) | S(8), 0 },
	{ "patch9", PCP_AUTO, S(1) | S(3) | S(4) | S(5) | S(7) | S(8) | S(9), 0 },
	{ "patch10", PCP_AUTO, PCP_STEPS_KNOWN, 0 },
	{ "mainline", PCP_AUTO, PCP_STEPS_MAINLINE, 0 },
};
#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

/* ---- one run ---- */

struct bench {
	uint32_t threads, repeats;
	uint64_t zone_pages, allocs, seed;
	uint64_t cache_bytes;
	struct page *descs;
	struct memmap_node node;
	struct buddy_zone zone;
	pthread_barrier_t bar;
	struct churn churn;
	struct pcp_zone pz;
	struct pcp_list *lists[CHURN_MAX_WORKERS];
	void *list_mem[CHURN_MAX_WORKERS], *churn_mem[CHURN_MAX_WORKERS];
	uint64_t t_start[CHURN_MAX_WORKERS], t_end[CHURN_MAX_WORKERS];
	uint64_t cpu_ns[CHURN_MAX_WORKERS];   /* thread CPU time of the run */
	bool pin;
};

static struct bench B;

struct run_result {
	double cpu_ms, ms, lock_pct, contended_pct;
	double free_high, alloc_zone, lock_acquired;
	double high_min, high_max, high_final;
	uint64_t failed;
};

static void *worker(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;

	if (B.pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(i, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&B.bar);
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	B.t_start[i] = now_ns();
	churn_worker_run(&B.churn, i, B.lists[i]);
	B.t_end[i] = now_ns();
	B.cpu_ns[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	pthread_barrier_wait(&B.bar);
	churn_worker_finish(&B.churn, i, B.lists[i]);
	pthread_barrier_wait(&B.bar);
	pcp_drain(B.lists[i]);
	return NULL;
}

static bool run_once(const struct row *r, const struct churn_mix *mix, struct run_result *out)
{
	const uint64_t base = 1ULL << 20;   /* pfn 1 Mi: 4 GiB, zone NORMAL */
	struct pcp_config cfg = { .policy = r->policy, .steps = r->steps,
				  .high_fraction = r->fraction, .cache_bytes = B.cache_bytes };
	struct churn_params p = { .seed = B.seed, .nr_workers = B.threads,
				  .pages_per_worker = B.zone_pages / 2 / B.threads,
				  .allocs_per_worker = B.allocs, .mix = mix };
	pthread_t th[CHURN_MAX_WORKERS];
	struct pcp_stats sum = { 0 };
	uint64_t t0 = UINT64_MAX, t1 = 0, cpu = 0;
	int high_final = 0;

	memmap_init_range(&B.node, base, base + B.zone_pages, PAGE_RESERVED, PAGE_ZONE_NORMAL);
	buddy_zone_init(&B.zone, &B.node, PAGE_ZONE_NORMAL, base, base + B.zone_pages);
	buddy_free_range(&B.zone, base, base + B.zone_pages);
	pcp_zone_init(&B.pz, &pcp_buddy_zone_backend, &B.zone, &B.zone.lock, &cfg, B.zone_pages,
		      B.zone_pages, B.threads);
	B.pz.now_ns = now_ns;
	for (uint32_t i = 0; i < B.threads; i++) {
		free(B.list_mem[i]);
		B.list_mem[i] = aligned_alloc(64, pcp_list_bytes(&B.pz));
		B.lists[i] = pcp_list_init(&B.pz, B.list_mem[i], i);
		free(B.churn_mem[i]);
		B.churn_mem[i] = aligned_alloc(64, (churn_worker_bytes(&p) + 63) & ~(size_t)63);
		if (!B.list_mem[i] || !B.churn_mem[i]) {
			fprintf(stderr, "pcp_bench: out of memory\n");
			exit(2);
		}
	}
	if (!churn_init(&B.churn, &p, &ops, B.churn_mem))
		exit(2);
	pthread_barrier_init(&B.bar, NULL, B.threads);
	for (uint32_t i = 0; i < B.threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (uint32_t i = 0; i < B.threads; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&B.bar);

	out->failed = 0;
	for (uint32_t i = 0; i < B.threads; i++) {
		pcp_stats_add(&sum, &B.lists[i]->st);
		high_final += B.lists[i]->high;
		cpu += B.cpu_ns[i];
		if (B.t_start[i] < t0)
			t0 = B.t_start[i];
		if (B.t_end[i] > t1)
			t1 = B.t_end[i];
		out->failed += churn_worker_result(&B.churn, i)->failed;
	}
	if (buddy_free_pages(&B.zone) != B.zone_pages || !buddy_check_zone(&B.zone)) {
		fprintf(stderr, "pcp_bench: %s: %llu of %llu pages back in the zone: pages lost\n",
			r->name, (unsigned long long)buddy_free_pages(&B.zone),
			(unsigned long long)B.zone_pages);
		return false;
	}
	out->ms = (double)(t1 - t0) / 1e6;
	out->cpu_ms = (double)cpu / 1e6;
	out->lock_pct = 100.0 * (double)sum.spin_ns / ((double)(t1 - t0) * B.threads);
	out->contended_pct = sum.lock_acquired ? 100.0 * (double)sum.lock_contended /
						 (double)sum.lock_acquired : 0;
	out->free_high = (double)sum.free_high;
	out->alloc_zone = (double)sum.alloc_zone_pages;
	out->lock_acquired = (double)sum.lock_acquired;
	out->high_min = r->policy == PCP_OFF ? 0 : sum.high_min_seen;
	out->high_max = r->policy == PCP_OFF ? 0 : sum.high_max_seen;
	out->high_final = r->policy == PCP_OFF ? 0 : (double)high_final / B.threads;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define NF 11
static bool run_mix(const struct churn_mix *mix)
{
	struct run_result med[NR_ROWS];
	double *vals = malloc(sizeof(double) * NF * B.repeats);
	uint64_t failed = 0;

	/* Repeats interleave the rows, so a slow spell of a shared host
	 * spreads over every row instead of landing on one. */
	struct run_result *all = calloc(NR_ROWS * B.repeats, sizeof(*all));
	for (uint32_t rep = 0; rep < B.repeats; rep++)
		for (size_t r = 0; r < NR_ROWS; r++)
			if (!run_once(&rows[r], mix, &all[r * B.repeats + rep]))
				return false;
	for (size_t r = 0; r < NR_ROWS; r++) {
		double *f[NF];
		for (int k = 0; k < NF; k++)
			f[k] = vals + k * B.repeats;
		for (uint32_t rep = 0; rep < B.repeats; rep++) {
			const struct run_result *x = &all[r * B.repeats + rep];
			f[0][rep] = x->ms; f[1][rep] = x->lock_pct; f[2][rep] = x->contended_pct;
			f[3][rep] = x->free_high; f[4][rep] = x->alloc_zone; f[5][rep] = x->lock_acquired;
			f[6][rep] = x->high_min; f[7][rep] = x->high_max; f[8][rep] = x->high_final;
			f[9][rep] = x->cpu_ms;
			failed += x->failed;
		}
		med[r].ms = median(f[0], B.repeats);
		med[r].lock_pct = median(f[1], B.repeats);
		med[r].contended_pct = median(f[2], B.repeats);
		med[r].free_high = median(f[3], B.repeats);
		med[r].alloc_zone = median(f[4], B.repeats);
		med[r].lock_acquired = median(f[5], B.repeats);
		med[r].high_min = median(f[6], B.repeats);
		med[r].high_max = median(f[7], B.repeats);
		med[r].high_final = median(f[8], B.repeats);
		med[r].cpu_ms = median(f[9], B.repeats);
	}
	const struct run_result *bs = &med[2];
	printf("\nchurn mix %s: %u threads, zone %llu MiB (%llu pages), %llu allocations per thread, "
	       "seed %llu, median of %u\n\n", mix->name, B.threads,
	       (unsigned long long)(B.zone_pages >> 8), (unsigned long long)B.zone_pages,
	       (unsigned long long)B.allocs, (unsigned long long)B.seed, B.repeats);
	printf("| step | steps | time | lock contend%% | free_high | alloc_zone | cpu ms | wall ms "
	       "| contended/acq %% | zone lock acq | free_high n | alloc_zone pages | high min/max/final |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t r = 0; r < NR_ROWS; r++) {
		char steps[48];
		const struct run_result *m = &med[r];

		if (rows[r].policy == PCP_OFF)
			snprintf(steps, sizeof(steps), "-");
		else
			pcp_format_steps(rows[r].steps, steps, sizeof(steps));
		if (rows[r].fraction)
			snprintf(steps + strlen(steps), sizeof(steps) - strlen(steps), " f=%u",
				 rows[r].fraction);
		printf("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %.0f/%.0f/%.0f |\n",
		       rows[r].name, steps, 100.0 * m->cpu_ms / bs->cpu_ms, m->lock_pct,
		       bs->free_high ? 100.0 * m->free_high / bs->free_high : 0.0,
		       100.0 * m->alloc_zone / bs->alloc_zone, m->cpu_ms, m->ms, m->contended_pct,
		       m->lock_acquired, m->free_high, m->alloc_zone, m->high_min, m->high_max,
		       m->high_final);
	}
	const struct run_result *ml = &med[NR_ROWS - 1], *p10 = &med[NR_ROWS - 2];
	printf("\npatch 9 on top of mainline (patch10 row vs mainline row): cpu time %+.1f%%, "
	       "lock contention %.2f%% -> %.2f%%, alloc_zone %+.1f%%\n",
	       100.0 * (p10->cpu_ms - ml->cpu_ms) / ml->cpu_ms, ml->lock_pct, p10->lock_pct,
	       ml->alloc_zone ? 100.0 * (p10->alloc_zone - ml->alloc_zone) / ml->alloc_zone : 0.0);
	if (failed)
		printf("note: %llu allocations found the zone empty (summed over repeats)\n",
		       (unsigned long long)failed);
	free(all);
	free(vals);
	return true;
}

static uint64_t arg_u64(const char *opt, const char *v, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = v ? strtoull(v, &end, 0) : 0;
	if (!v || errno || *end || x < lo || x > hi) {
		fprintf(stderr, "pcp_bench: %s wants a number in [%llu, %llu], not '%s'\n", opt,
			(unsigned long long)lo, (unsigned long long)hi, v ? v : "");
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	const char *mix = "kbuild";
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);

	/* The pure code's warnings and errors on stderr (tests/host/host_support.h). */
	host_shim_configure(&HOST_SHIM_BENCH);
	B.threads = 2;
	B.repeats = 5;
	B.zone_pages = 262144;
	B.allocs = 300000;
	B.seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--threads"))
			B.threads = (uint32_t)arg_u64(argv[i], v, 1, CHURN_MAX_WORKERS), i++;
		else if (!strcmp(argv[i], "--repeats"))
			B.repeats = (uint32_t)arg_u64(argv[i], v, 1, 99), i++;
		else if (!strcmp(argv[i], "--zone-mib"))
			B.zone_pages = arg_u64(argv[i], v, 64, 65536) << 8, i++;
		else if (!strcmp(argv[i], "--allocs"))
			B.allocs = arg_u64(argv[i], v, 1, 1ULL << 32), i++;
		else if (!strcmp(argv[i], "--seed"))
			B.seed = arg_u64(argv[i], v, 0, UINT64_MAX), i++;
		else if (!strcmp(argv[i], "--mix") && v)
			mix = v, i++;
		else {
			fprintf(stderr, "usage: %s [--threads N] [--repeats R] [--mix %s|all] "
				"[--zone-mib M] [--allocs N] [--seed S]\n", argv[0], churn_mix_names());
			return 2;
		}
	}
	if (strcmp(mix, "all") && !churn_find_mix(mix)) {
		fprintf(stderr, "pcp_bench: unknown mix '%s' (%s, all)\n", mix, churn_mix_names());
		return 2;
	}
	/* Linux's per-CPU data cache slice (patch 2): L2 plus the CPU's share
	 * of L3. */
	B.cache_bytes = (uint64_t)(l2 > 0 ? l2 : 0) + (uint64_t)(l3 > 0 ? l3 : 0) / (uint64_t)(ncpu > 0 ? ncpu : 1);
	B.pin = ncpu >= (long)B.threads;
	B.descs = aligned_alloc(64, (B.zone_pages * sizeof(struct page) + 63) & ~(size_t)63);
	if (!B.descs)
		return 2;
	memmap_node_init(&B.node, 0, 1ULL << 20, B.zone_pages, B.descs);
	printf("pcp_bench: %ld CPUs online, threads %s, data cache slice %llu KiB\n", ncpu,
	       B.pin ? "pinned" : "not pinned (more threads than CPUs)",
	       (unsigned long long)(B.cache_bytes >> 10));
	const char *names[] = { "kbuild", "deep", "net" };
	for (int k = 0; k < 3; k++) {
		if (strcmp(mix, "all") && strcmp(mix, names[k]))
			continue;
		if (!run_mix(churn_find_mix(names[k])))
			return 1;
	}
	return 0;
}

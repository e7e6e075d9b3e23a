/*
 * pt_bench.c: the fault-in benchmark of seed 003 (thp_memscale) on the host:
 * mm/pt/pt.c built natively, one pthread per CPU calling the fault path
 * (pt_fault) directly.
 *
 * All threads populate disjoint, contiguous parts of one region of one
 * address space, page by page, as thp_memscale's threads touch their parts
 * of one mapping. Rows: 4 KiB pages ("THP off"), 2 MiB pages from the
 * allocator ("THP on"), 2 MiB pages from per-thread pools ("HUGETLB");
 * columns: one lock per space (global) and a lock per PMD / PTE table
 * (split). Each cell is the median of --reps runs of: time from the start
 * barrier to the last thread done, lock acquisitions, contended
 * acquisitions (the first try found the lock held) and the time spent
 * spinning on them, summed over the threads.
 *
 * Usage: pt_bench [--threads N] [--mib M] [--reps R] [--no-zero]
 * Prints a table; writes no file.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/counter.h"
#include "arch/counter.h"
#include "mm/pt/pt.h"
#include "tests/host/pt_arena.h"

#define WIN (1ULL << 39)
#define MAX_THREADS 256
#define MAX_REPS 64

struct run_result {
	double ms;
	double acquisitions, contended, spin_ms;
	uint64_t faults;
};

struct shared {
	struct pt_as *as;
	struct pt_region *r;
	uint64_t part_bytes;
	uint32_t threads;
	pthread_barrier_t start;
	struct pt_stats st[MAX_THREADS];
	struct timespec t0[MAX_THREADS], t1[MAX_THREADS];
	int errors;
};

struct targ {
	struct shared *sh;
	uint32_t id;
};

static double cycles_per_ns;

static double now_ns(const struct timespec *t)
{
	return t->tv_sec * 1e9 + t->tv_nsec;
}

static void calibrate(void)
{
	struct timespec a, b, d = { 0, 50 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t c0 = arch_counter();
	nanosleep(&d, NULL);
	uint64_t c1 = arch_counter();
	clock_gettime(CLOCK_MONOTONIC, &b);
	cycles_per_ns = (double)(c1 - c0) / (now_ns(&b) - now_ns(&a));
}

static void *worker(void *arg)
{
	struct targ *ta = arg;
	struct shared *sh = ta->sh;
	uint64_t step = pt_size_bytes(pt_region_page_size(sh->r));
	uint64_t s = sh->r->start + ta->id * sh->part_bytes, e = s + sh->part_bytes;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(ta->id % (ncpu > 0 ? ncpu : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&sh->start);
	clock_gettime(CLOCK_MONOTONIC, &sh->t0[ta->id]);
	for (uint64_t va = s; va < e; va += step)
		if (pt_fault(sh->as, sh->r, va, ta->id, &sh->st[ta->id]) != PT_OK)
			__atomic_fetch_add(&sh->errors, 1, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_MONOTONIC, &sh->t1[ta->id]);
	return NULL;
}

static void give_back(void *arg, const struct pt_mapping *m)
{
	struct pt_region *r = arg;
	r->free_frame(r->ctx, r->kind, m->phys);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool run_cell(enum pt_region_kind kind, enum pt_lock_mode mode, uint32_t threads,
		     uint64_t region_bytes, unsigned reps, bool zero, struct run_result *out)
{
	struct pt_arena *a = calloc(1, sizeof(*a));
	struct shared *sh = calloc(1, sizeof(*sh));
	uint64_t part = region_bytes / threads;
	uint64_t huge = part / PT_ARENA_2M;
	double ms[MAX_REPS], acq[MAX_REPS], con[MAX_REPS], spin[MAX_REPS];
	bool ok = true;

	if (!a || !sh || !pt_arena_init(a, threads, huge + 16, kind == PT_REGION_HUGETLB ? 0 : part,
					kind == PT_REGION_HUGETLB ? huge : 0)) {
		fprintf(stderr, "pt_bench: no memory for a %llu MiB arena\n",
			(unsigned long long)(region_bytes >> 20));
		return false;
	}
	/* Touch every frame once so the host's own page faults stay out. */
	for (uint32_t l = 0; l < threads; l++) {
		struct pt_arena_list *L = &a->lists[l];
		memset((void *)(uintptr_t)L->frame_base, 1,
		       L->frame_end - L->frame_base + L->pool_cap * PT_ARENA_2M);
	}
	struct pt_region r = { .start = WIN, .end = WIN + part * threads, .kind = kind,
			       .prot = PT_PROT_WRITE, .zero = zero,
			       .alloc_frame = pt_arena_alloc_frame,
			       .free_frame = pt_arena_free_frame, .ctx = a };
	for (unsigned rep = 0; rep < reps; rep++) {
		struct pt_as as;
		pthread_t t[MAX_THREADS];
		struct targ ta[MAX_THREADS];
		struct pt_stats sum = { 0 };

		if (pt_create(&as, &pt_arena_ops, a, mode, WIN, 2 * WIN, NULL, 0) != PT_OK)
			return false;
		memset(sh, 0, sizeof(*sh));
		sh->as = &as;
		sh->r = &r;
		sh->part_bytes = part;
		sh->threads = threads;
		pthread_barrier_init(&sh->start, NULL, threads);
		for (uint32_t i = 0; i < threads; i++) {
			ta[i] = (struct targ){ sh, i };
			pthread_create(&t[i], NULL, worker, &ta[i]);
		}
		double first = 0, last = 0;
		for (uint32_t i = 0; i < threads; i++) {
			pthread_join(t[i], NULL);
			pt_stats_add(&sum, &sh->st[i]);
			if (i == 0 || now_ns(&sh->t0[i]) < first)
				first = now_ns(&sh->t0[i]);
			if (now_ns(&sh->t1[i]) > last)
				last = now_ns(&sh->t1[i]);
		}
		pthread_barrier_destroy(&sh->start);
		if (sh->errors || sum.faults != region_bytes / pt_size_bytes(pt_region_page_size(&r)) / threads * threads) {
			fprintf(stderr, "pt_bench: %d faults failed\n", sh->errors);
			ok = false;
		}
		ms[rep] = (last - first) / 1e6;
		acq[rep] = (double)sum.acquisitions;
		con[rep] = (double)sum.contended;
		spin[rep] = (double)sum.spin_cycles / cycles_per_ns / 1e6;
		out->faults = sum.faults;
		pt_destroy(&as, give_back, &r);
		pt_arena_reset_frames(a);
		if (pt_arena_tables_out(a)) {
			fprintf(stderr, "pt_bench: %llu table pages not given back\n",
				(unsigned long long)pt_arena_tables_out(a));
			ok = false;
		}
	}
	out->ms = median(ms, reps);
	out->acquisitions = median(acq, reps);
	out->contended = median(con, reps);
	out->spin_ms = median(spin, reps);
	pt_arena_fini(a);
	free(a);
	free(sh);
	return ok;
}

static void cpu_model(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, n, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				snprintf(buf, n, "%s", c + 2);
				buf[strcspn(buf, "\n")] = 0;
			}
			break;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t threads = ncpu > 0 ? (uint32_t)ncpu : 1;
	uint64_t mib = 256;
	unsigned reps = 5;
	bool zero = true;
	static const char *const row_names[PT_NR_REGION_KINDS] = {
		"4K (THP off)", "2M (THP on)", "HUGETLB" };

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--no-zero"))
			zero = false;
		else {
			fprintf(stderr, "usage: %s [--threads N] [--mib M] [--reps R] [--no-zero]\n",
				argv[0]);
			return 2;
		}
	}
	if (threads == 0 || threads > MAX_THREADS || reps == 0 || reps > MAX_REPS ||
	    mib < 2ULL * threads || mib > (1ULL << 20)) {
		fprintf(stderr, "pt_bench: need 1..%d threads, 1..%d reps, at least 2 MiB per thread\n",
			MAX_THREADS, MAX_REPS);
		return 2;
	}
	/* Each thread's part a whole number of 2 MiB pages. */
	uint64_t region = (mib << 20) / threads / PT_ARENA_2M * PT_ARENA_2M * threads;
	char model[128];

	calibrate();
	cpu_model(model, sizeof(model));
	printf("pt fault-in: %u threads, %llu MiB region, zeroing %s, medians of %u (%s, %ld CPUs)\n",
	       threads, (unsigned long long)(region >> 20), zero ? "on" : "off", reps, model, ncpu);
	printf("%-13s | %-6s | %9s | %8s | %10s | %10s | %9s\n", "row", "locks", "ms", "faults",
	       "acquired", "contended", "spin ms");
	int status = 0;
	for (int k = 0; k < PT_NR_REGION_KINDS; k++) {
		struct run_result res[2];
		for (int m = 0; m < 2; m++) {
			enum pt_lock_mode mode = m == 0 ? PT_LOCK_GLOBAL : PT_LOCK_SPLIT;
			if (!run_cell((enum pt_region_kind)k, mode, threads, region, reps, zero, &res[m]))
				status = 1;
			printf("%-13s | %-6s | %9.2f | %8llu | %10.0f | %10.0f | %9.3f\n",
			       m == 0 ? row_names[k] : "", m == 0 ? "global" : "split", res[m].ms,
			       (unsigned long long)res[m].faults, res[m].acquisitions,
			       res[m].contended, res[m].spin_ms);
		}
		printf("%-13s   global/split time: %.2fx\n", "", res[0].ms / res[1].ms);
	}
	return status;
}

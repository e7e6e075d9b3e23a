/*
 * memmap_bench.c: descriptor init and buddy boot-free speed on the host.
 *
 * The kernel's own mm/memmap.c and mm/alloc/buddy.c, built natively (-O2, no
 * sanitizers) once per descriptor size (-DMEMMAP_DESC_BYTES=16/32/64, one
 * binary each), run over simulated RAM: an anonymous MAP_NORESERVE arena of
 * --pages pages split into --nodes nodes, the first starting at 1 MiB. The
 * default, 64 GiB, gives 256 MiB of 16-byte descriptors: eight times a
 * 32 MiB L3, so memory is timed, not the cache (at 8 GiB the 32 MiB array
 * fits the L3 of the machine measured and dirty lines leave it only after
 * the clock stops). Each
 * node's descriptor array is carved from the top of the node's own memory,
 * as the kernel does, and is the only part of the arena ever touched. It is
 * pre-faulted (with transparent huge pages where the host gives them, like
 * the kernel's 2 MiB direct map) so page faults are not measured, and
 * flushed from the caches (clflush) before every repetition, so each
 * repetition writes cold memory as the boot does.
 *
 * Work is cut like the kernel's job runner cuts it (kernel/services/jobs/plan.c:
 * aligned to the max-order block, about four chunks per thread) and the
 * chunks are claimed from a shared counter by --threads threads, the
 * calling thread included, each pinned to a CPU. A measurement is the wall
 * time of one whole job (all nodes), the median of --reps repetitions.
 *
 * What is measured, per page of simulated RAM (the descriptor array's own
 * pages excluded):
 *   init        memmap_init_range(): the store memmap_store_choose() picks
 *               for this CPU's last-level cache (CPUID) and the array, with
 *               the kind for arrays larger than the cache measured first
 *               (memmap_store_probe(), as the kernel does at boot)
 *   init_plain  memmap_init_range_store(MEMMAP_STORE_PLAIN): plain stores
 *   init_nt     memmap_init_range_store(MEMMAP_STORE_NT): non-temporal stores
 *   heads       memmap_init_heads(): heads of max-order blocks only (lazy)
 *   lim_memset  memset(0x5a) of the same descriptor bytes \
 *   lim_store   a plain 8-byte store loop over them        | the store limit
 *   lim_nt      a movnti loop over them (8-byte stores)    | (the best of them)
 *   lim_ntdq    a movntdq loop over them (16-byte stores) /
 *   free        buddy_free_range() of descriptors already initialised
 *   boot_eager  memmap_init_range() + buddy_free_range() per chunk
 *   boot_lazy   memmap_init_heads() + buddy_free_range() per chunk
 * Output: one "memmap-bench ..." line per measurement on stdout
 * (bench/memmap_results.py turns them into docs/results.md tables).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arch/cpu.h"
#include "arch/memory.h"
#include "bench/memmap_host.h"
#include "kernel/services/jobs/plan.h"
#include "mm/alloc/buddy.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

#define MAX_NODES 8
#define MAX_THREADS 256
#define MAX_CHUNKS 4096
#define MAX_REPS 31
#define FIRST_PFN 256               /* RAM starts at 1 MiB */
#define ARRAY_ALIGN_PAGES 512       /* arrays start on a 2 MiB boundary */

enum what {
	W_INIT, W_INIT_PLAIN, W_INIT_NT, W_HEADS, W_LIM_MEMSET, W_LIM_STORE, W_LIM_NT,
	W_LIM_NTDQ, W_FREE, W_BOOT_EAGER, W_BOOT_LAZY, W_NR
};
static const char *const what_names[W_NR] = {
	"init", "init_plain", "init_nt", "heads", "lim_memset", "lim_store", "lim_nt",
	"lim_ntdq", "free", "boot_eager", "boot_lazy",
};

struct node_sim {
	struct memmap_node map;
	uint64_t start_pfn, end_pfn;    /* the span */
	uint64_t array_pfn;             /* the array's own pages: [array_pfn, end_pfn) */
	struct buddy_zone zones[PAGE_NR_ZONES];
	bool has_zone[PAGE_NR_ZONES];
};

struct chunk {
	uint32_t node;
	uint64_t start, end;
};

static struct {
	uint64_t pages;
	uint32_t nr_nodes;
	uint32_t threads[32], nr_threads;
	uint32_t reps;                  /* at most this many repetitions */
	uint64_t budget_ns;             /* --budget-s: 0, or the whole run's time bound */
	uint64_t start_ns;              /* when main() started: the budget counts from it */
	bool want[W_NR];
	struct node_sim nodes[MAX_NODES];
	/* What the nodes' arrays share, as the kernel's struct memmap does:
	 * the store the probe measured (memmap_store_set()). */
	struct memmap mm;
	uint64_t measured_pages;        /* sum over nodes of array_pfn - start_pfn */
	long ncpu;
} B;

/* ---- the job: chunks claimed from a counter ---- */

static struct {
	enum what what;
	struct chunk chunks[MAX_CHUNKS];
	uint32_t nr_chunks;
	uint32_t next;                  /* atomic */
} J;

/* Run fn on the zone of [s, e) (run_chunk() never lets it cross 4 GiB). */
static void on_zone(struct node_sim *n, uint64_t s, uint64_t e,
		       void (*fn)(struct buddy_zone *z, uint64_t s, uint64_t e))
{
	fn(&n->zones[page_zone_of_pfn(s)], s, e);
}

static void do_free(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	buddy_free_range(z, s, e);
}

static void do_boot_eager(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_range(z->map, s, e, PAGE_RESERVED, z->zone);
	buddy_free_range(z, s, e);
}

static void do_boot_lazy(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_heads(z->map, s, e, PAGE_RESERVED, z->zone, BUDDY_MAX_ORDER);
	buddy_free_range(z, s, e);
}

static void do_init(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_range(z->map, s, e, PAGE_RESERVED, z->zone);
}

static void do_init_plain(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_range_store(z->map, s, e, PAGE_RESERVED, z->zone, MEMMAP_STORE_PLAIN);
}

static void do_init_nt(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_range_store(z->map, s, e, PAGE_RESERVED, z->zone, MEMMAP_STORE_NT);
}

static void do_heads(struct buddy_zone *z, uint64_t s, uint64_t e)
{
	memmap_init_heads(z->map, s, e, PAGE_RESERVED, z->zone, BUDDY_MAX_ORDER);
}

/*
 * The limits: the same bytes as init writes, the descriptor's own words (the
 * template memmap_init_range() stores, repeated to fill a 64-byte line), one
 * line per iteration, 8-byte general-register stores as the kernel's code
 * can use. The same data matters: a descriptor is mostly zero words, and
 * non-temporal stores of zeros ran 10-30 % faster than of a non-zero pattern
 * (AMD EPYC, family 25, 128 MiB: medians 5.1-5.4 against 6.0-6.3 ms), which
 * put init below a "limit" that wrote a pattern.
 */
static uint64_t limit_line[8] __attribute__((aligned(64)));

static void limit_line_setup(void)
{
	struct page t[64 / MEMMAP_DESC_BYTES];

	_Static_assert(sizeof(t) == sizeof(limit_line), "one line of descriptors");
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		memmap_write_head(&t[i], PAGE_RESERVED, 0, PAGE_ZONE_NORMAL, 0, 0);
	memcpy(limit_line, t, sizeof(limit_line));
}

static void run_chunk(const struct chunk *c)
{
	struct node_sim *n = &B.nodes[c->node];

	/* Like the kernel, never let one call cross the 4 GiB zone boundary. */
	if (c->start < PAGE_ZONE_DMA32_END_PFN && c->end > PAGE_ZONE_DMA32_END_PFN) {
		struct chunk lo = { c->node, c->start, PAGE_ZONE_DMA32_END_PFN };
		struct chunk hi = { c->node, PAGE_ZONE_DMA32_END_PFN, c->end };
		run_chunk(&lo);
		run_chunk(&hi);
		return;
	}
	struct page *first = &n->map.pages[c->start - n->map.base_pfn];
	struct page *last = &n->map.pages[c->end - n->map.base_pfn];

	switch (J.what) {
	case W_INIT:
		on_zone(n, c->start, c->end, do_init);
		break;
	case W_INIT_PLAIN:
		on_zone(n, c->start, c->end, do_init_plain);
		break;
	case W_INIT_NT:
		on_zone(n, c->start, c->end, do_init_nt);
		break;
	case W_HEADS:
		on_zone(n, c->start, c->end, do_heads);
		break;
	case W_LIM_MEMSET:
		/* Not zero: on some machines memset(0) runs 2-4x faster than
		 * any other byte (a zero-line optimisation below the
		 * instruction set), which no descriptor fill can use. */
		memset(first, 0x5a, (size_t)((char *)last - (char *)first));
		break;
	case W_LIM_STORE:
		bench_store_loop((uint64_t *)first, (uint64_t *)last, limit_line);
		break;
	case W_LIM_NT:
		bench_nt_loop((uint64_t *)first, (uint64_t *)last, limit_line);
		break;
	case W_LIM_NTDQ:
		bench_ntdq_loop((uint64_t *)first, (uint64_t *)last, limit_line);
		break;
	case W_FREE:
		on_zone(n, c->start, c->end, do_free);
		break;
	case W_BOOT_EAGER:
		on_zone(n, c->start, c->end, do_boot_eager);
		break;
	case W_BOOT_LAZY:
		on_zone(n, c->start, c->end, do_boot_lazy);
		break;
	case W_NR:
		break;
	}
}

static void work(void)
{
	uint32_t i;

	while ((i = __atomic_fetch_add(&J.next, 1, __ATOMIC_RELAXED)) < J.nr_chunks)
		run_chunk(&J.chunks[i]);
}

/* ---- a pool of pinned threads ---- */

/*
 * Between jobs the workers sleep (so they take no CPU time from the
 * untimed preparation); to start a job they are woken, check in, and spin
 * until the caller starts the clock and releases them all at once, so no
 * wake-up latency (milliseconds on a virtual machine) is timed. Then every
 * thread claims chunks until none is left, as the kernel's job runner does.
 */
static struct {
	pthread_t th[MAX_THREADS];
	uint32_t n;                     /* threads including the caller */
	pthread_barrier_t wake;
	uint32_t ready;                 /* atomic: workers checked in */
	uint32_t go;                    /* atomic: job number released */
	uint32_t done;                  /* atomic: workers finished */
	bool quit;
} P;

static void pin(uint32_t i)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(i % (uint32_t)B.ncpu), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker(void *arg)
{
	uint32_t job = 0;

	pin((uint32_t)(uintptr_t)arg);
	for (;;) {
		pthread_barrier_wait(&P.wake);
		if (P.quit)
			break;
		job++;
		__atomic_fetch_add(&P.ready, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&P.go, __ATOMIC_ACQUIRE) != job)
			arch_cpu_relax();
		work();
		__atomic_fetch_add(&P.done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void pool_start(uint32_t n)
{
	P.n = n;
	P.quit = false;
	P.go = 0;
	pthread_barrier_init(&P.wake, NULL, n);
	pin(0);
	for (uint32_t i = 1; i < n; i++)
		if (pthread_create(&P.th[i], NULL, worker, (void *)(uintptr_t)i)) {
			perror("pthread_create");
			exit(1);
		}
}

static void pool_stop(void)
{
	P.quit = true;
	pthread_barrier_wait(&P.wake);
	for (uint32_t i = 1; i < P.n; i++)
		pthread_join(P.th[i], NULL);
	pthread_barrier_destroy(&P.wake);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run the job on every thread of the pool; wall time in ns. */
static uint64_t pool_run(enum what what)
{
	uint64_t t0, t1;

	J.what = what;
	J.next = 0;
	P.ready = 0;
	P.done = 0;
	pthread_barrier_wait(&P.wake);
	while (__atomic_load_n(&P.ready, __ATOMIC_ACQUIRE) != P.n - 1)
		arch_cpu_relax();
	t0 = now_ns();
	__atomic_fetch_add(&P.go, 1, __ATOMIC_RELEASE);
	work();
	while (__atomic_load_n(&P.done, __ATOMIC_ACQUIRE) != P.n - 1)
		arch_cpu_relax();
	t1 = now_ns();
	return t1 - t0;
}

/* ---- set-up ---- */

static void plan_chunks(uint32_t threads)
{
	J.nr_chunks = 0;
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		struct node_sim *n = &B.nodes[nd];
		struct job_plan p;

		if (!job_plan_make(&p, n->start_pfn, n->array_pfn - n->start_pfn,
				   BUDDY_MAX_ORDER_PAGES, 8 * BUDDY_MAX_ORDER_PAGES, threads, 0))
			continue;
		for (uint32_t i = 0; i < p.nr_chunks; i++) {
			struct chunk *c = &J.chunks[J.nr_chunks++];
			if (J.nr_chunks > MAX_CHUNKS) {
				fprintf(stderr, "too many chunks\n");
				exit(1);
			}
			c->node = nd;
			job_plan_chunk(&p, i, &c->start, &c->end);
		}
	}
}

static void zones_reset(void);

static void *arena_map(uint64_t bytes)
{
	uint64_t align = 2u << 20;
	char *p = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return (void *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
}

/* This machine's caches (bench/memmap_host.h), and as the kernel hands
 * them to mm/ (arch/memory.h's struct arch_caches). */
static struct bench_caches host_caches;
static struct arch_caches host_arch_caches;

static void setup(void)
{
	uint64_t per_node = B.pages / B.nr_nodes;
	uint64_t max_pfn = FIRST_PFN + per_node * B.nr_nodes;
	char *arena = arena_map(max_pfn << PAGE_SHIFT);

	limit_line_setup();
	memmap_init(&B.mm, NULL, 0);
	B.measured_pages = 0;
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		struct node_sim *n = &B.nodes[nd];
		uint64_t bytes;
		char *array;

		n->start_pfn = FIRST_PFN + nd * per_node;
		n->end_pfn = n->start_pfn + per_node;
		bytes = memmap_desc_bytes(per_node);
		n->array_pfn = (n->end_pfn - ((bytes + 4095) >> PAGE_SHIFT)) &
			       ~(uint64_t)(ARRAY_ALIGN_PAGES - 1);
		if (n->array_pfn <= n->start_pfn) {
			fprintf(stderr, "node too small for its array\n");
			exit(1);
		}
		array = arena + (n->array_pfn << PAGE_SHIFT);
		madvise(array, bytes, MADV_HUGEPAGE);
		memset(array, 0, bytes);                 /* pre-fault */
		memmap_node_init(&n->map, nd, n->start_pfn, per_node, (struct page *)array);
		memmap_node_choose_store(&B.mm, &n->map, &host_arch_caches);
		/* The array's own pages, as the kernel marks them. */
		memmap_init_range(&n->map, n->array_pfn, n->end_pfn, PAGE_MEMMAP,
				  page_zone_of_pfn(n->array_pfn));
		B.measured_pages += n->array_pfn - n->start_pfn;
	}
	zones_reset();
}

static void zones_reset(void)
{
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		struct node_sim *n = &B.nodes[nd];
		for (unsigned z = 0; z < PAGE_NR_ZONES; z++) {
			uint64_t s = n->start_pfn, e = n->array_pfn;
			uint64_t zs = z == PAGE_ZONE_DMA32 ? 0 : PAGE_ZONE_DMA32_END_PFN;
			uint64_t ze = z == PAGE_ZONE_DMA32 ? PAGE_ZONE_DMA32_END_PFN : UINT64_MAX;
			if (s < zs)
				s = zs;
			if (e > ze)
				e = ze;
			n->has_zone[z] = s < e;
			if (s < e)
				buddy_zone_init(&n->zones[z], &n->map, (enum page_zone)z, s, e);
		}
	}
}

/* The store probe's clock and flush (mm/memmap.h, memmap_store_probe). */

static uint64_t probe_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void probe_flush(const void *p, uint64_t bytes)
{
	arch_cache_flush_range(p, bytes);
}

static void flush_arrays(void)
{
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		const char *p = (const char *)B.nodes[nd].map.pages;
		const char *end = p + memmap_desc_bytes(B.nodes[nd].map.nr_pages);
		for (; p < end; p += ARCH_CACHE_LINE_BYTES)
			arch_cache_flush_line(p);
	}
	arch_cache_flush_done();
}

/* Untimed preparation of one repetition. */
static void prepare(enum what what)
{
	if (what == W_FREE || what == W_BOOT_EAGER || what == W_BOOT_LAZY)
		zones_reset();
	if (what == W_FREE) {
		/* Descriptors initialised, as the eager policies leave them. */
		pool_run(W_INIT);
	}
	flush_arrays();
}

/* The init kinds write whole descriptors: before the first repetition's
 * run the measured descriptors are poisoned (untimed), after it each must
 * be the one memmap_write_head() makes, byte for byte, so the store code of
 * every descriptor size is checked where it is built the kernel's way
 * (tests/tools/test_memmap_bench.py runs this at 16, 32 and 64 bytes). */
static bool is_init(enum what w)
{
	return w == W_INIT || w == W_INIT_PLAIN || w == W_INIT_NT;
}

static void poison_measured(void)
{
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		struct node_sim *n = &B.nodes[nd];
		memset(&n->map.pages[0], 0xa5, memmap_desc_bytes(n->array_pfn - n->start_pfn));
	}
}

static bool check_init(const char *what)
{
	struct page want[PAGE_NR_ZONES];
	uint64_t bad = 0, first_bad = 0;

	for (unsigned z = 0; z < PAGE_NR_ZONES; z++) {
		memset(&want[z], 0, sizeof(want[z]));
		memmap_write_head(&want[z], PAGE_RESERVED, 0, (enum page_zone)z, 0, 0);
	}
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		const struct node_sim *n = &B.nodes[nd];
		for (uint64_t pfn = n->start_pfn; pfn < n->array_pfn; pfn++)
			if (memcmp(&n->map.pages[pfn - n->map.base_pfn],
				   &want[page_zone_of_pfn(pfn)], sizeof(struct page))) {
				if (!bad++)
					first_bad = pfn;
			}
	}
	if (bad)
		fprintf(stderr, "memmap-bench: check after %s FAILED: %llu descriptors not as "
			"written, the first of pfn %#llx\n", what, (unsigned long long)bad,
			(unsigned long long)first_bad);
	return !bad;
}

/* Census and list checks after a boot-style run: every measured page free,
 * lists consistent. */
static bool check_boot(const char *what)
{
	uint64_t free_pages = 0;
	bool ok = true;

	for (uint32_t nd = 0; nd < B.nr_nodes; nd++) {
		struct node_sim *n = &B.nodes[nd];
		for (unsigned z = 0; z < PAGE_NR_ZONES; z++) {
			if (!n->has_zone[z])
				continue;
			ok &= buddy_check_zone(&n->zones[z]);
			ok &= buddy_count_free(&n->zones[z]) == n->zones[z].free_pages;
			free_pages += n->zones[z].free_pages;
		}
		uint64_t counts[PAGE_NR_TYPES] = { 0 };
		struct memmap_range all = { n->start_pfn, n->end_pfn };
		ok &= memmap_count_types(&n->map, &all, 1, counts) == 0;
		ok &= counts[PAGE_FREE] == n->array_pfn - n->start_pfn;
		ok &= counts[PAGE_MEMMAP] == n->end_pfn - n->array_pfn;
	}
	ok &= free_pages == B.measured_pages;
	if (!ok)
		fprintf(stderr, "memmap-bench: check after %s FAILED\n", what);
	return ok;
}

/*
 * The kernel's choice, made the kernel's way (kernel/init/memmap.c): the
 * store probe at the start of node 0's array, on as many CPUs at once as
 * this measurement's threads (memory init runs on all of a node's CPUs),
 * then every array takes it (memmap_node_choose_store()). Made again before
 * every repetition, as every boot probes right before its init:
 * this host's memory changes within seconds which kind is faster (64-byte
 * descriptors, one thread: plain ahead by 10 % in one process, non-temporal
 * by 1.5x in the next): with one probe before 15 repetitions some row of
 * `make bench` ran 1.06-1.71x the limit in 8 of 14 runs; probing per
 * repetition, 1.06-1.09x in 4 of 17.
 */
struct probe_thread {
	pthread_t th;
	unsigned cpu, ncpus;
	uint64_t start_pfn, end_pfn, warm;
	struct memmap_store_probe res;
};
static pthread_barrier_t probe_barrier;

static void probe_wait(void *arg)
{
	pthread_barrier_wait(arg);
}

static void *probe_thread_run(void *arg)
{
	struct probe_thread *p = arg;
	const struct memmap_probe_sync sync = { probe_wait, &probe_barrier };

	pin(p->cpu);
	memmap_store_probe(&B.nodes[0].map, p->start_pfn, p->end_pfn, p->warm, 1, p->cpu, p->ncpus,
			   &sync, probe_ns, probe_flush, &p->res);
	return NULL;
}

static uint32_t probe_plain_picks, probe_picks;
static struct memmap_store_probe last_probe;   /* the latest repetition's */

static void store_choose(uint32_t threads)
{
	static struct probe_thread pt[MAX_THREADS];
	static struct memmap_store_probe parts[MAX_THREADS];
	struct node_sim *n0 = &B.nodes[0];
	uint64_t warm;
	uint64_t pages = memmap_store_probe_bytes(host_caches.llc_bytes, &warm) / MEMMAP_DESC_BYTES;

	if (pages > n0->array_pfn - n0->start_pfn)
		pages = n0->array_pfn - n0->start_pfn;
	pthread_barrier_init(&probe_barrier, NULL, threads);
	for (uint32_t i = 0; i < threads; i++) {
		pt[i] = (struct probe_thread){ .cpu = i, .ncpus = threads, .start_pfn = n0->start_pfn,
					       .end_pfn = n0->start_pfn + pages, .warm = warm };
		if (i && pthread_create(&pt[i].th, NULL, probe_thread_run, &pt[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	probe_thread_run(&pt[0]);
	for (uint32_t i = 0; i < threads; i++) {
		if (i)
			pthread_join(pt[i].th, NULL);
		parts[i] = pt[i].res;
	}
	pthread_barrier_destroy(&probe_barrier);
	memmap_store_probe_combine(parts, threads, &last_probe);
	memmap_store_set(&B.mm, last_probe.choice);
	for (uint32_t nd = 0; nd < B.nr_nodes; nd++)
		memmap_node_choose_store(&B.mm, &B.nodes[nd].map, &host_arch_caches);
	probe_picks++;
	probe_plain_picks += last_probe.choice == MEMMAP_STORE_PLAIN;
}

/* The last repetition's probe and how often plain stores won. */
static void probe_report(uint32_t threads)
{
	const struct memmap_store_probe *pr = &last_probe;

	printf("memmap-bench-probe desc=%d threads=%u store=%s probes=%u plain_picks=%u "
	       "warm_bytes=%llu bytes=%llu plain_ns=%llu nt_ns=%llu plain_margin_pct=%d\n",
	       MEMMAP_DESC_BYTES, threads,
	       memmap_store_name(B.nodes[0].map.store), probe_picks,
	       probe_plain_picks, (unsigned long long)pr->warm_bytes, (unsigned long long)pr->bytes,
	       (unsigned long long)pr->plain_ticks, (unsigned long long)pr->nt_ticks,
	       MEMMAP_PLAIN_MARGIN_PCT);
	fflush(stdout);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * How many repetitions fit: with --budget-s, the time left is shared by the
 * thread counts still to measure (@left, this one included), and after each
 * odd count of at least three repetitions the run stops if two more (the
 * next odd count, a median needs one) would pass this measurement's share.
 * The arrays stay at four times the LLC whatever the budget: a host with a
 * 300 MiB L3 gets fewer repetitions, never arrays that fit its cache.
 */
static bool budget_spent(uint32_t done, uint64_t started_ns, uint64_t share_ns)
{
	if (!B.budget_ns || done < 3 || done % 2 == 0)
		return false;
	uint64_t spent = now_ns() - started_ns;
	return spent + 2 * (spent / done) > share_ns;
}

static bool measure(uint32_t threads, uint32_t left)
{
	static uint64_t t[W_NR][MAX_REPS];
	bool ok = true;
	const uint64_t started = now_ns(), used = started - B.start_ns;
	const uint64_t share = B.budget_ns > used ? (B.budget_ns - used) / left : 0;
	uint32_t reps = B.reps;

	probe_picks = probe_plain_picks = 0;
	plan_chunks(threads);
	pool_start(threads);
	/* Repetition by repetition, every measurement in turn, so a slow
	 * spell of the machine hits them all alike rather than one. */
	for (uint32_t r = 0; r < reps; r++) {
		store_choose(threads);
		for (int w = 0; w < W_NR; w++) {
			if (!B.want[w])
				continue;
			if (r == 0 && is_init((enum what)w))
				poison_measured();
			prepare((enum what)w);
			t[w][r] = pool_run((enum what)w);
			if (w == W_BOOT_EAGER || w == W_BOOT_LAZY)
				ok &= check_boot(what_names[w]);
			if (r == 0 && is_init((enum what)w))
				ok &= check_init(what_names[w]);
		}
		if (budget_spent(r + 1, started, share))
			reps = r + 1;
	}
	probe_report(threads);
	if (B.budget_ns) {
		printf("memmap-bench-budget desc=%d threads=%u budget_s=%.1f share_s=%.1f "
		       "spent_s=%.1f reps=%u max_reps=%u\n", MEMMAP_DESC_BYTES, threads,
		       B.budget_ns / 1e9, share / 1e9, (now_ns() - started) / 1e9, reps, B.reps);
	}
	/* init against the limit repetition by repetition, then the median of
	 * those ratios: the pair shares the machine's moment, which a ratio of
	 * two medians taken over different moments does not. The limit is the
	 * loop with the lowest median, the same loop in every repetition (the
	 * fastest of three in each repetition would pick out the lucky ones). */
	if (B.want[W_INIT] && (B.want[W_LIM_MEMSET] || B.want[W_LIM_STORE] || B.want[W_LIM_NT] ||
			       B.want[W_LIM_NTDQ])) {
		static uint64_t sorted[MAX_REPS], ratio_ppm[MAX_REPS];
		uint64_t best_median = UINT64_MAX;
		int lim_w = -1;

		for (int w = W_LIM_MEMSET; w <= W_LIM_NTDQ; w++) {
			if (!B.want[w])
				continue;
			memcpy(sorted, t[w], reps * sizeof(sorted[0]));
			qsort(sorted, reps, sizeof(sorted[0]), cmp_u64);
			if (sorted[reps / 2] < best_median) {
				best_median = sorted[reps / 2];
				lim_w = w;
			}
		}
		for (uint32_t r = 0; r < reps; r++)
			ratio_ppm[r] = t[lim_w][r] ? t[W_INIT][r] * 1000000ULL / t[lim_w][r] : 0;
		qsort(ratio_ppm, reps, sizeof(ratio_ppm[0]), cmp_u64);
		printf("memmap-bench-ratio desc=%d threads=%u limit=%s init_over_limit=%.4f min=%.4f max=%.4f reps=%u ratios=",
		       MEMMAP_DESC_BYTES, threads, what_names[lim_w], ratio_ppm[reps / 2] / 1e6,
		       ratio_ppm[0] / 1e6, ratio_ppm[reps - 1] / 1e6, reps);
		/* Every repetition's ratio, sorted: bench/memmap_results.py gives
		 * the median's confidence interval from them. */
		for (uint32_t r = 0; r < reps; r++)
			printf("%s%.4f", r ? "," : "", ratio_ppm[r] / 1e6);
		printf("\n");
	}
	for (int w = 0; w < W_NR; w++) {
		double ns_per_page, gbps;

		if (!B.want[w])
			continue;
		qsort(t[w], reps, sizeof(t[w][0]), cmp_u64);
		ns_per_page = (double)t[w][reps / 2] / (double)B.measured_pages;
		/* Descriptor bytes written per page of RAM; the head-only steps
		 * write one descriptor per block, so no rate is given. */
		gbps = (w == W_HEADS || w == W_FREE || w == W_BOOT_LAZY ? 0.0 : MEMMAP_DESC_BYTES) /
		       ns_per_page;
		printf("memmap-bench desc=%d threads=%u what=%s ns_per_page=%.4f gbps=%.3f "
		       "min_ns_per_page=%.4f max_ns_per_page=%.4f pages=%llu nodes=%u chunks=%u reps=%u\n",
		       MEMMAP_DESC_BYTES, threads, what_names[w], ns_per_page, gbps,
		       (double)t[w][0] / (double)B.measured_pages,
		       (double)t[w][reps - 1] / (double)B.measured_pages,
		       (unsigned long long)B.measured_pages, B.nr_nodes, J.nr_chunks, reps);
	}
	fflush(stdout);
	pool_stop();
	return ok;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--quick] [--pages N] [--nodes N] [--threads 1,2,...] [--reps N] [--what a,b,...]\n"
		"  --quick       descriptors of four times the last-level cache, 3 repetitions\n"
		"  --pages N     simulated RAM in 4 KiB pages (default 16777216 = 64 GiB, or\n"
		"                more: descriptors of four times the last-level cache)\n"
		"  --nodes N     nodes to split it into (default 2, at most %d)\n"
		"  --threads L   thread counts to measure (default 1 and every CPU)\n"
		"  --reps N      repetitions, the median is reported (default 5, odd, <= %d)\n"
		"  --llc-bytes N size everything as if the last-level cache were N bytes (to see\n"
		"                what a host with another cache would run; the default: CPUID's)\n"
		"  --budget-s S  stop repeating (at 3 or more, an odd count) once the run would\n"
		"                pass S seconds; the repetitions each row got are printed\n"
		"  --what L      measurements (default all):", argv0, MAX_NODES, MAX_REPS);
	for (int w = 0; w < W_NR; w++)
		fprintf(stderr, " %s", what_names[w]);
	fprintf(stderr, "\n");
	exit(2);
}

static bool parse_list(const char *s, uint32_t *out, uint32_t *n, uint32_t cap)
{
	*n = 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || v == 0 || v > MAX_THREADS || *n == cap)
			return false;
		out[(*n)++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return *n > 0;
}

int main(int argc, char **argv)
{
	bool ok = true, pages_given = false, quick = false;

	/* The pure code's warnings and errors on stderr (tests/host/host_support.h). */
	host_shim_configure(&HOST_SHIM_BENCH);
	B.start_ns = now_ns();
	bench_host_caches(&host_caches);
	host_arch_caches = (struct arch_caches){ host_caches.llc_bytes, host_caches.llc_source,
						 host_caches.slice_bytes };
	B.pages = 16777216;
	B.nr_nodes = 2;
	B.reps = 5;
	B.ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (B.ncpu < 1)
		B.ncpu = 1;
	B.threads[0] = 1;
	B.nr_threads = 1;
	if (B.ncpu > 1)
		B.threads[B.nr_threads++] = (uint32_t)B.ncpu;
	for (int w = 0; w < W_NR; w++)
		B.want[w] = true;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--quick")) {
			/* No value: do not skip the next argument. */
			quick = true;
			B.reps = 3;
			continue;
		}
		if (!strcmp(a, "--pages") && v) {
			B.pages = strtoull(v, NULL, 0);
			pages_given = true;
		} else if (!strcmp(a, "--nodes") && v) {
			B.nr_nodes = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--threads") && v) {
			if (!parse_list(v, B.threads, &B.nr_threads, 32))
				usage(argv[0]);
		} else if (!strcmp(a, "--reps") && v) {
			B.reps = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--llc-bytes") && v) {
			char *end;
			unsigned long long n = strtoull(v, &end, 0);
			if (end == v || *end || n < (1u << 20) || n > (1ull << 40))
				usage(argv[0]);
			host_caches.llc_bytes = n;
			host_caches.llc_source = "--llc-bytes";
		} else if (!strcmp(a, "--budget-s") && v) {
			char *end;
			double sec = strtod(v, &end);
			if (end == v || *end || !(sec > 0 && sec <= 86400))
				usage(argv[0]);
			B.budget_ns = (uint64_t)(sec * 1e9);
		} else if (!strcmp(a, "--what") && v) {
			char buf[256], *tok, *save;
			snprintf(buf, sizeof(buf), "%s", v);
			memset(B.want, 0, sizeof(B.want));
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int w;
				for (w = 0; w < W_NR && strcmp(tok, what_names[w]); w++)
					;
				if (w == W_NR)
					usage(argv[0]);
				B.want[w] = true;
			}
		} else {
			usage(argv[0]);
		}
		i++;
	}
	if (B.nr_nodes < 1 || B.nr_nodes > MAX_NODES || B.reps < 1 || B.reps > MAX_REPS ||
	    B.pages / B.nr_nodes < 4 * BUDDY_MAX_ORDER_PAGES)
		usage(argv[0]);

	if (!pages_given) {
		/* Descriptors of at least four times the last-level cache, so
		 * memory is timed and not the cache (a 260 MiB L3 holds the
		 * 16-byte array of 64 GiB whole). */
		const struct bench_caches *c = &host_caches;
		uint64_t want = 4 * c->llc_bytes / MEMMAP_DESC_BYTES;
		if (quick) {
			/* Exactly four times the LLC (or 128 MiB of descriptors if
			 * it is unknown), for every descriptor size. */
			B.pages = want ? want : (128ull << 20) / MEMMAP_DESC_BYTES;
			if (B.pages < 8ull * BUDDY_MAX_ORDER_PAGES * B.nr_nodes)
				B.pages = 8ull * BUDDY_MAX_ORDER_PAGES * B.nr_nodes;
		} else if (want > B.pages) {
			B.pages = want;
		}
	}
	setup();
	{
		const struct bench_caches *c = &host_caches;
		uint64_t array = memmap_desc_bytes(B.nodes[0].map.nr_pages);

		printf("memmap-bench-cpu desc=%d vendor=%s llc_bytes=%llu llc_source=%s "
		       "node_array_bytes=%llu\n", MEMMAP_DESC_BYTES, c->vendor,
		       (unsigned long long)c->llc_bytes, c->llc_source, (unsigned long long)array);
		fflush(stdout);
	}
	fprintf(stderr, "memmap-bench: %d-byte descriptors, %llu pages (%llu MiB of descriptors) "
		"on %u nodes, %ld CPUs\n", MEMMAP_DESC_BYTES, (unsigned long long)B.measured_pages,
		(unsigned long long)(memmap_desc_bytes(B.measured_pages) >> 20), B.nr_nodes, B.ncpu);
	for (uint32_t i = 0; i < B.nr_threads; i++)
		ok &= measure(B.threads[i], B.nr_threads - i);
	return ok ? 0 : 1;
}

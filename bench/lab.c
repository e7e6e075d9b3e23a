/*
 * lab.c: the allocator lab's native harness (tools/memboot lab drives it).
 *
 * One allocator of mm/alloc/table.h, bare (no per-CPU front: the designs
 * are compared as they are), over a simulated one-node machine of --mib
 * MiB above 4 GiB, descriptors written eagerly; --threads pthreads run one
 * seeded workload:
 *   kbuild, deep, net   the churn mixes of mm/alloc/churn.c
 *   bulk                each thread takes --batch order-0 pages, frees them all
 *   repeat              alloc and free one block of one order, over and over
 *   random              random orders (mostly 0..3, some 9) against a held set
 *   frag                fill 90% with order-0 pages, free 3 in 4 at random, then
 *                       count the 2 MiB blocks still to be had
 *   trace               replay of --events (written by tools/mbtools/lab.py from
 *                       a Linux kmem trace): each trace CPU on its own thread,
 *                       a free waits for the allocation it matches
 * Prints one JSON object on stdout: throughput, latency percentiles per op
 * and order (TSC-timed), a latency CDF, the allocator's lock statistics,
 * bookkeeping bytes per page, init ns per page and free blocks by order
 * with the unusable-free-space index at order 9 every --sample ops.
 *
 * Three builds of this file (bench/bench.mk): build/bench/lab (the host's
 * own CPU, timed), build/bench/lab-counted (no -march: valgrind's callgrind
 * runs it for the counted figures, the same instructions on every x86-64
 * host; the allocator's calls go through lab_counted_*(), which it counts)
 * and build/bench/lab-stress (every allocator compiled with
 * bench/lab_stress.h: --stress makes its lock operations points where
 * another thread may run, and preempts threads at random, so that a race
 * window of a few instructions is hit in every run).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <signal.h>
#include <ucontext.h>

/* The lab's clock: the TSC on x86, the generic timer's virtual count on
 * arm64, else CLOCK_MONOTONIC_RAW in ns; calibrated against CLOCK_MONOTONIC
 * (calibrate()), so every latency is given in clock ticks and in ns. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define LAB_CLOCK "tsc"
static inline uint64_t lab_ticks(void) { return __rdtsc(); }
static inline void lab_relax(void) { _mm_pause(); }
#elif defined(__aarch64__)
#define LAB_CLOCK "cntvct"
static inline uint64_t lab_ticks(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}
static inline void lab_relax(void) { __asm__ volatile("yield"); }
#else
#define LAB_CLOCK "clock_gettime"
static inline uint64_t lab_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
static inline void lab_relax(void) { }
#endif

#include "mm/alloc/alloc.h"
#include "mm/alloc/churn.h"
#include "mm/alloc/lab_stats.h"
#include "mm/memmap.h"
#include "mm/page.h"
#include "tests/host/host_support.h"

#define ZONE_LINE_PFN 0x100000ULL  /* 4 GiB: DMA32 below, Normal above */
#define LAB_MAX_NODES 8            /* the lab's option range, not the kernel's limit */
#define MAX_THREADS 256
#define MAX_SAMPLES 4096

struct lat { uint32_t cycles; uint8_t op; uint8_t order; };   /* op 0 alloc, 1 free */

struct thread {
	pthread_t th;
	uint32_t id;
	struct lat *lat;
	uint64_t nr_lat, max_lat;
	uint64_t ops, failed;
	uint64_t seed;
	uint64_t allocs_by_order[ALLOC_NR_ORDERS], failed_by_order[ALLOC_NR_ORDERS];
	uint64_t stress_seed;           /* --stress: its yields and preemptions */
	bool pinned;
} __attribute__((aligned(64)));

static const struct alloc_ops *ops;
static void *self;
static struct memmap mm;
static uint64_t nr_pages, reserved_bytes;
static uint64_t base_pfn = ZONE_LINE_PFN;   /* --split: half below the 4 GiB line */
static uint32_t nr_nodes = 1;
static bool lazy;
static uint32_t stress_permille, stress_us = 50;   /* --stress, --stress-us (below) */
static struct thread T[MAX_THREADS];
static uint32_t nr_threads;
static __thread struct thread *me;
static uint64_t n_ops = 200000, batch = 512, sample_every = 20000;
static unsigned repeat_order = 0;
static const char *workload = "kbuild";
static double ns_per_cycle;

/* Fragmentation samples (thread 0 takes them). */
struct sample { uint64_t at_ops; uint64_t blocks[ALLOC_NR_ORDERS]; };
static struct sample samples[MAX_SAMPLES];
static uint32_t nr_samples;
static uint64_t total_ops;   /* every thread's, relaxed */

/* ---- the verdict: every block checked, as the kernel's front checks it ----
 *
 * A block an allocator hands out goes through alloc_verify_block() (the
 * front's own check: aligned, inside one node, head written), and every one
 * of its pages is claimed in an ownership bitmap: a page claimed twice is a
 * block handed out while still held. At the end of the run: check(), the
 * free-page counter against the allocator's walk of its structures, the
 * census of the descriptors (memmap_count_types) against both, and free
 * blocks by order against the counter. The first failure ends the run: its
 * message is printed as the row's JSON with no figures (a broken allocator
 * is never timed as if good) and the harness exits with status 3. */
static uint64_t *owner_bits;         /* one bit per page of [base_pfn, +nr_pages) */
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *alloc_name = "buddy";
static uint64_t n_runs_done;         /* --repeat: runs finished before a failure */

static const struct host_shim_options shim_run = {
	.echo = HOST_ECHO_WARNINGS, .keep_lines = false, .records = HOST_RECORDS_LOG,
	.panic_prefix = "panic: ", .panic_exit = 0,
};
static const struct host_shim_options shim_capture = {
	.echo = HOST_ECHO_NONE, .keep_lines = true, .records = HOST_RECORDS_LOG,
	.panic_prefix = "panic: ", .panic_exit = 0,
};

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The row of a failed run: which check failed, in words; no figures. */
static void __attribute__((noreturn, format(printf, 1, 2))) lab_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	pthread_mutex_lock(&fail_lock);   /* the first failure only: never unlocked */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("{\"allocator\":");
	json_str(alloc_name);
	printf(",\"workload\":");
	json_str(workload);
	printf(",\"threads\":%u,\"check\":false,\"runs_done\":%llu,\"failure\":", nr_threads,
	       (unsigned long long)n_runs_done);
	json_str(msg);
	printf("}\n");
	fflush(stdout);
	fprintf(stderr, "lab: %s: %s\n", alloc_name, msg);
	_exit(3);
}

/* The first line @ops logged while failing a check, rerun with the log kept
 * (the run itself keeps none: its threads log unlocked). */
static void verify_or_fail(uint64_t pfn, unsigned order)
{
	if (__builtin_expect(alloc_verify_block(ops, &mm, pfn, order, 0), 1))
		return;
	pthread_mutex_lock(&fail_lock);
	host_shim_configure(&shim_capture);
	host_log_reset();
	alloc_verify_block(ops, &mm, pfn, order, 0);
	char line[300];
	snprintf(line, sizeof(line), "%s", host_log_total() ? host_log_line(0) : "?");
	pthread_mutex_unlock(&fail_lock);
	lab_fail("the front's check of every block failed: %s", line);
}

/* The bits of word p / 64 from page index @p on, at most @left of them. */
static uint64_t word_bits(uint64_t p, uint64_t left, uint64_t *count)
{
	uint64_t off = p & 63, c = 64 - off < left ? 64 - off : left;

	*count = c;
	return c == 64 ? ~0ULL : ((1ULL << c) - 1) << off;
}

static void claim(uint64_t pfn, unsigned order)
{
	uint64_t i = pfn - base_pfn, n = 1ULL << order, c;

	if (pfn < base_pfn || i + n > nr_pages)
		lab_fail("%s handed out block pfn %#llx order %u outside the memory it was given "
			 "[%#llx, %#llx)", alloc_name, (unsigned long long)pfn, order,
			 (unsigned long long)base_pfn, (unsigned long long)(base_pfn + nr_pages));
	for (uint64_t p = i; p < i + n; p += c) {
		uint64_t bits = word_bits(p, i + n - p, &c);
		uint64_t old = __atomic_fetch_or(&owner_bits[p / 64], bits, __ATOMIC_RELAXED);
		if (old & bits)
			lab_fail("%s handed out block pfn %#llx order %u while its page pfn %#llx "
				 "was still held (handed out before and not freed): one page in two "
				 "blocks", alloc_name, (unsigned long long)pfn, order,
				 (unsigned long long)(base_pfn + (p & ~63ULL) +
						      (unsigned)__builtin_ctzll(old & bits)));
	}
}

static void release(uint64_t pfn, unsigned order)
{
	uint64_t i = pfn - base_pfn, n = 1ULL << order, c;

	for (uint64_t p = i; p < i + n; p += c) {
		uint64_t bits = word_bits(p, i + n - p, &c);
		uint64_t old = __atomic_fetch_and(&owner_bits[p / 64], ~bits, __ATOMIC_RELAXED);
		if ((old & bits) != bits)
			lab_fail("the workload freed block pfn %#llx order %u that is not held "
				 "(a harness bug)", (unsigned long long)pfn, order);
	}
}

static uint64_t per_node;           /* pages of each node */

/*
 * --serial 1: the deterministic run. The threads take turns: thread 0 runs
 * until the workload's first meeting point (a barrier), then thread 1, and
 * so on, then thread 0 again for the next stretch; a trace is replayed in
 * its file order by one thread acting as each trace CPU in turn. With the
 * seed fixed, every block is the same from run to run, so fragmentation,
 * failures and counts by order are identical (their times mean nothing).
 *
 * The threads of a serial run are coroutines of the calling thread
 * (ucontext), not threads of the system: a turn ends at a meeting point
 * and nowhere else, and no other thread's start-up or hand-over runs in
 * the middle of it, so the order of every memory access, the harness's
 * included, is the same from run to run (what build/bench/lab-counted's
 * cache simulation needs to give the same misses every time).
 */
static bool serial;
static bool pin = true;
static ucontext_t co_main, co_ctx[MAX_THREADS];
static bool co_done[MAX_THREADS];
#define CO_STACK_BYTES (2u << 20)

static void *worker(void *arg);

static void co_entry(void)
{
	worker(me);
}

/* The next turn: the next thread still running, or back to the caller of
 * serial_run() when none is. */
static void co_switch(uint32_t from)
{
	for (uint32_t k = 1; k <= nr_threads; k++) {
		uint32_t next = (from + k) % nr_threads;
		if (!co_done[next]) {
			if (next != from) {
				me = &T[next];
				swapcontext(&co_ctx[from], &co_ctx[next]);
				me = &T[from];
			}
			return;
		}
	}
	swapcontext(&co_ctx[from], &co_main);
}

static void co_make(uint32_t i)
{
	void *stack = malloc(CO_STACK_BYTES);

	if (!stack || getcontext(&co_ctx[i]) != 0) {
		fprintf(stderr, "lab: no coroutine for thread %u\n", i);
		exit(1);
	}
	co_ctx[i].uc_stack.ss_sp = stack;
	co_ctx[i].uc_stack.ss_size = CO_STACK_BYTES;
	co_ctx[i].uc_link = &co_main;
	makecontext(&co_ctx[i], co_entry, 0);
}

static void serial_run(void)
{
	for (uint32_t i = 0; i < nr_threads; i++)
		co_make(i);
	me = &T[0];
	swapcontext(&co_main, &co_ctx[0]);
}

/* Where the workload's threads meet. */
static pthread_barrier_t bar;
static void lab_barrier(void)
{
	if (serial) {
		co_switch(me->id);
	} else {
		pthread_barrier_wait(&bar);
	}
}

/* Thread @t on CPU t mod (the CPUs this process may use), so that a run's
 * threads do not migrate; false where the host refuses. */
static cpu_set_t allowed;
static uint32_t nr_allowed;
static bool pin_thread(struct thread *t)
{
	cpu_set_t one;
	uint32_t cpus = nr_allowed ? nr_allowed : 1;

	if (stress_permille && cpus > 2)
		cpus = 2;   /* --stress: more threads than CPUs, on any host */
	uint32_t k = t->id % cpus, seen = 0;

	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed) && seen++ == k) {
			CPU_SET(c, &one);
			return pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
		}
	return false;
}

static uint64_t held_pages(void)
{
	uint64_t n = 0;

	for (uint64_t w = 0; w < (nr_pages + 63) / 64; w++)
		n += (uint64_t)__builtin_popcountll(owner_bits[w]);
	return n;
}

static const char *first_logged(void)
{
	return host_log_total() ? host_log_line(0) : "(it logged nothing)";
}

/* After every run: the allocator's invariants, its two counts, the census of
 * the descriptors and the free blocks by order, against each other and
 * against what the workload holds (the conformance suite's census). */
static void end_checks(bool trace)
{
	uint64_t free_now = 0, counted = 0, bad = 0, counts[PAGE_NR_TYPES] = { 0 };
	uint64_t blocks[ALLOC_NR_ORDERS] = { 0 };

	host_shim_configure(&shim_capture);
	host_log_reset();
	if (!ops->check(self))
		lab_fail("%s's check() found its invariants broken at the end of the run: %s",
			 alloc_name, first_logged());
	host_log_reset();
	for (uint32_t nd = 0; nd < nr_nodes; nd++) {
		struct memmap_range r = { base_pfn + nd * per_node, base_pfn + (nd + 1) * per_node };
		free_now += ops->free_pages(self, nd);
		counted += ops->count_free(self, nd);
		bad += memmap_count_types(&mm.nodes[nd], &r, 1, counts);
		ops->free_blocks(self, nd, blocks);
	}
	if (bad)
		lab_fail("census: %llu page descriptors are bad (a type, order or zone out of range, "
			 "or a block that is not naturally aligned): %s", (unsigned long long)bad,
			 first_logged());
	if (free_now != counted)
		lab_fail("%s's free-page counter says %llu pages, walking its structures finds %llu",
			 alloc_name, (unsigned long long)free_now, (unsigned long long)counted);
	if (counts[PAGE_FREE] != free_now)
		lab_fail("census: the page descriptors say %llu pages are free, %s's counter says "
			 "%llu", (unsigned long long)counts[PAGE_FREE], alloc_name,
			 (unsigned long long)free_now);
	uint64_t held = held_pages();
	if (free_now + held != nr_pages)
		lab_fail("%llu pages were given to %s; %llu are free and the workload holds %llu: "
			 "%lld pages unaccounted for", (unsigned long long)nr_pages, alloc_name,
			 (unsigned long long)free_now, (unsigned long long)held,
			 (long long)(nr_pages - free_now - held));
	if (lab_free_pages(blocks, ALLOC_NR_ORDERS) != free_now)
		lab_fail("%s's free blocks by order add up to %llu pages, its counter says %llu",
			 alloc_name, (unsigned long long)lab_free_pages(blocks, ALLOC_NR_ORDERS),
			 (unsigned long long)free_now);
	if (!trace && held)
		lab_fail("the workload still holds %llu pages at its end (a harness bug)",
			 (unsigned long long)held);
	uint64_t allocs = 0, refused = 0;
	for (uint32_t i = 0; i < nr_threads; i++)
		for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++) {
			allocs += T[i].allocs_by_order[k];
			refused += T[i].failed_by_order[k];
		}
	if (!allocs && refused && free_now)
		lab_fail("%s handed out no block in the whole run: %llu requests found no memory "
			 "while its counter says %llu pages are free: an allocator must hand out the "
			 "memory it holds", alloc_name, (unsigned long long)refused,
			 (unsigned long long)free_now);
	host_shim_configure(&shim_run);
}

static uint32_t lab_cpu(void)
{
	return me ? me->id : 0;
}

static uint64_t lab_reserve(void *ctx, uint64_t bytes, uint32_t node)
{
	void *p = aligned_alloc(4096, (bytes + 4095) & ~4095ULL);
	if (!p) {
		fprintf(stderr, "lab: out of host memory (%llu bytes)\n", (unsigned long long)bytes);
		exit(1);
	}
	reserved_bytes += bytes;
	return (uint64_t)(uintptr_t)p;
}

static inline void record(unsigned op, unsigned order, uint64_t cycles)
{
	if (me->nr_lat < me->max_lat)
		me->lat[me->nr_lat++] = (struct lat){ cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles,
						      (uint8_t)op, (uint8_t)order };
	me->ops++;
}

static void maybe_sample(void)
{
	uint64_t n = __atomic_add_fetch(&total_ops, 1, __ATOMIC_RELAXED);
	if ((serial || me->id == 0) && n / sample_every > nr_samples && nr_samples < MAX_SAMPLES) {
		struct sample *s = &samples[nr_samples++];
		memset(s, 0, sizeof(*s));
		s->at_ops = n;
		for (uint32_t nd = 0; nd < nr_nodes; nd++)
			ops->free_blocks(self, nd, s->blocks);
	}
}

/*
 * The allocator's own calls, never inlined (noipa): `tools/memboot lab
 * --counted` runs build/bench/lab-counted under callgrind collecting only
 * inside these (--toggle-collect=lab_counted_*), so its instruction and
 * cache-miss counts are the allocator's, not the harness's checks.
 */
static __attribute__((noipa)) uint64_t lab_counted_alloc(uint32_t node, unsigned order)
{
	return ops->alloc(self, node, order, 0);
}

static __attribute__((noipa)) void lab_counted_free(uint64_t pfn, unsigned order)
{
	ops->free(self, pfn, order);
}

static __attribute__((noipa)) void lab_counted_free_range(uint32_t node, enum page_zone zone,
							  uint64_t s, uint64_t e)
{
	ops->free_range(self, node, zone, s, e);
}

/* An allocation that found nothing in the deterministic run (the threads
 * take turns, so nothing changes under it): with pages free, an order-0
 * request must be served, and a request of any order must be when
 * free_blocks() counts a block of that order or more. An allocator that
 * never hands out what it holds fails here (the contract,
 * docs/allocators.md), not only in a boot that runs out of memory. */
static void check_refusal(unsigned order)
{
	uint64_t blocks[ALLOC_NR_ORDERS] = { 0 }, free_now = 0, fit = 0;

	for (uint32_t nd = 0; nd < nr_nodes; nd++) {
		free_now += ops->free_pages(self, nd);
		ops->free_blocks(self, nd, blocks);
	}
	for (unsigned k = order; k < ALLOC_NR_ORDERS; k++)
		fit += blocks[k];
	if (fit || (order == 0 && free_now))
		lab_fail("%s found no block of order %u on any node while its free_blocks() counts "
			 "%llu free block(s) of order %u or more and its counter %llu free pages: "
			 "an allocator must hand out the memory it holds", alloc_name, order,
			 (unsigned long long)fit, order, (unsigned long long)free_now);
}

static uint64_t lab_alloc(unsigned order)
{
	uint64_t t0 = lab_ticks();
	/* The thread's node first, then the others (as the seam's front). */
	uint64_t pfn = ALLOC_NO_PFN;
	for (uint32_t k = 0; k < nr_nodes && pfn == ALLOC_NO_PFN; k++)
		pfn = lab_counted_alloc((me->id + k) % nr_nodes, order);
	uint64_t t1 = lab_ticks();
	if (pfn == ALLOC_NO_PFN) {
		if (serial)
			check_refusal(order);
		me->failed++;
		me->failed_by_order[order]++;
	} else {
		me->allocs_by_order[order]++;
		record(0, order, t1 - t0);
		verify_or_fail(pfn, order);
		claim(pfn, order);
	}
	maybe_sample();
	return pfn;
}

static void lab_free(uint64_t pfn, unsigned order)
{
	release(pfn, order);   /* before: once freed, another thread may get it */
	uint64_t t0 = lab_ticks();
	lab_counted_free(pfn, order);
	record(1, order, lab_ticks() - t0);
	maybe_sample();
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- --stress: race windows widened (build/bench/lab-stress) ----
 *
 * A race in an allocator is a window of a few instructions: a descriptor
 * written just after the lock is dropped, a search done outside it. On an
 * idle 2-CPU host two threads meet in it now and then; on a busy one,
 * hardly ever. --stress N makes the meeting likely on any host:
 *  - all threads run on at most two CPUs (more threads than CPUs), so
 *    another thread is always ready to run on each;
 *  - every lock an allocator takes or drops (bench/lab_stress.h, compiled
 *    into every allocator of this build) is a point where the thread gives
 *    its CPU to another with probability N/1000: what a lock protects is
 *    then interleaved with a whole operation of another thread;
 *  - every thread is interrupted about every --stress-us microseconds of
 *    its run by a timer whose handler gives up the CPU: code between locks,
 *    or with no lock at all, is cut at random points too.
 * The points and intervals come from --seed; which thread runs next is the
 * scheduler's, so a stressed run is not repeatable, only likely to fail a
 * racy allocator (docs/teaching.md gives the figures).
 */
static bool stress_hooks =
#ifdef LAB_STRESS_BUILD
	true;
#else
	false;
#endif

void lab_stress_point(void);
void lab_stress_wait(void);

void lab_stress_point(void)
{
	if (stress_permille && me && rnd(&me->stress_seed) % 1000 < stress_permille)
		sched_yield();
}

void lab_stress_wait(void)
{
	sched_yield();
}

static __thread timer_t stress_timer;
static __thread bool stress_timer_on;

static void stress_arm(void)
{
	/* 1/2 to 3/2 of --stress-us: no two threads in step. */
	uint64_t ns = (uint64_t)stress_us * 500 + rnd(&me->stress_seed) % ((uint64_t)stress_us * 1000 + 1);
	struct itimerspec it = { .it_value = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) } };

	timer_settime(stress_timer, 0, &it, NULL);
}

static void on_stress_timer(int sig)
{
	(void)sig;
	if (!me || !stress_timer_on)
		return;
	sched_yield();
	stress_arm();
}

static void stress_start(struct thread *t)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGRTMIN };

#ifdef sigev_notify_thread_id
	ev.sigev_notify_thread_id = gettid();
#else
	ev._sigev_un._tid = gettid();   /* glibc before 2.41 names no field for it */
#endif
	if (timer_create(CLOCK_MONOTONIC, &ev, &stress_timer) == 0) {
		stress_timer_on = true;
		stress_arm();
	}
	(void)t;
}

static void stress_stop(void)
{
	if (stress_timer_on) {
		stress_timer_on = false;
		timer_delete(stress_timer);
	}
}

/* ---- workloads ---- */

static struct churn churn;
static uint64_t ch_alloc(void *ctx, unsigned order)
{
	uint64_t p = lab_alloc(order);
	return p == ALLOC_NO_PFN ? CHURN_NO_PFN : p;
}
static void ch_free(void *ctx, uint64_t pfn, unsigned order) { lab_free(pfn, order); }
static const struct churn_ops churn_ops = { ch_alloc, ch_free, NULL };

/* Trace events (from tools/mbtools/lab.py): per CPU, in time order. */
struct tev { uint32_t id; uint8_t op; uint8_t order; uint16_t cpu; };
static struct tev *tevs;
static uint64_t nr_tevs;
static uint64_t *tslot;          /* per allocation id: simulated pfn */
static uint64_t nr_ids;
#define SLOT_EMPTY (ALLOC_NO_PFN - 1)
static uint64_t replayed, replay_failed;
static uint64_t frag_huge;       /* frag: 2 MiB blocks found after the scatter */

static void run_trace(struct thread *t)
{
	if (serial && t->id)
		return;   /* thread 0 replays every CPU's events in file order */
	for (uint64_t i = 0; i < nr_tevs; i++) {
		const struct tev *e = &tevs[i];
		if (serial)
			me = &T[e->cpu % nr_threads];
		else if (e->cpu % nr_threads != t->id)
			continue;
		if (e->op == 0) {
			uint64_t p = lab_alloc(e->order);
			__atomic_store_n(&tslot[e->id], p, __ATOMIC_RELEASE);
			__atomic_fetch_add(p == ALLOC_NO_PFN ? &replay_failed : &replayed, 1,
					   __ATOMIC_RELAXED);
		} else {
			uint64_t p;
			/* Its allocation came earlier in the trace, maybe on
			 * another CPU's thread: wait for it. */
			while ((p = __atomic_load_n(&tslot[e->id], __ATOMIC_ACQUIRE)) == SLOT_EMPTY)
				lab_relax();
			if (p != ALLOC_NO_PFN) {
				lab_free(p, e->order);
				__atomic_store_n(&tslot[e->id], ALLOC_NO_PFN, __ATOMIC_RELEASE);
				__atomic_fetch_add(&replayed, 1, __ATOMIC_RELAXED);
			}
		}
	}
	me = t;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	me = t;
	if (pin && !serial)
		t->pinned = pin_thread(t);
	if (!serial)
		pthread_barrier_wait(&bar);
	if (stress_permille && !serial)
		stress_start(t);
	if (strcmp(workload, "bulk") == 0) {
		uint64_t *p = malloc(batch * sizeof(*p));
		for (uint64_t done = 0; done < n_ops; done += 2 * batch) {
			uint64_t n = 0;
			while (n < batch && (p[n] = lab_alloc(0)) != ALLOC_NO_PFN)
				n++;
			while (n)
				lab_free(p[--n], 0);
		}
		free(p);
	} else if (strcmp(workload, "repeat") == 0) {
		for (uint64_t done = 0; done < n_ops; done += 2) {
			uint64_t p = lab_alloc(repeat_order);
			if (p != ALLOC_NO_PFN)
				lab_free(p, repeat_order);
		}
	} else if (strcmp(workload, "random") == 0) {
		uint64_t cap = nr_pages / nr_threads / 4, held_pages = 0, nh = 0;
		struct { uint64_t pfn; unsigned order; } *h = malloc((cap + 1) * sizeof(*h));
		for (uint64_t done = 0; done < n_ops; done++) {
			uint64_t r = rnd(&t->seed);
			if (nh && (r % 100 < 48 || held_pages > cap)) {
				uint64_t i = (r >> 8) % nh;
				held_pages -= 1ULL << h[i].order;
				lab_free(h[i].pfn, h[i].order);
				h[i] = h[--nh];
			} else {
				unsigned order = r % 64 == 0 ? 9 : (unsigned)((r >> 16) % 4);
				uint64_t p = lab_alloc(order);
				if (p != ALLOC_NO_PFN && nh < cap) {
					h[nh].pfn = p;
					h[nh++].order = order;
					held_pages += 1ULL << order;
				} else if (p != ALLOC_NO_PFN) {
					lab_free(p, order);
				}
			}
		}
		while (nh--)
			lab_free(h[nh].pfn, h[nh].order);
		free(h);
	} else if (strcmp(workload, "frag") == 0) {
		/* LLFree's fragmenting pattern: fill this thread's share with
		 * order-0 pages, free three in four at random, then take 2 MiB
		 * blocks until none is left: what the scattered pages cost. */
		uint64_t cap = nr_pages * 9 / 10 / nr_threads, n = 0, big = 0;
		uint64_t *p = malloc((cap + 1) * sizeof(*p));
		while (n < cap && (p[n] = lab_alloc(0)) != ALLOC_NO_PFN)
			n++;
		me->failed -= n < cap;   /* the end of memory is the point, not a failure */
		me->failed_by_order[0] -= n < cap;
		for (uint64_t i = 0; i < n; i++) {
			if (rnd(&t->seed) % 4 == 0)
				continue;
			lab_free(p[i], 0);
			p[i] = ALLOC_NO_PFN;
		}
		lab_barrier();
		uint64_t *h = malloc((nr_pages / 512 + 1) * sizeof(*h));
		while ((h[big] = lab_alloc(9)) != ALLOC_NO_PFN)
			big++;
		me->failed--;
		me->failed_by_order[9]--;
		__atomic_fetch_add(&frag_huge, big, __ATOMIC_RELAXED);
		lab_barrier();
		while (big)
			lab_free(h[--big], 9);
		for (uint64_t i = 0; i < n; i++)
			if (p[i] != ALLOC_NO_PFN)
				lab_free(p[i], 0);
		free(h);
		free(p);
	} else if (strcmp(workload, "trace") == 0) {
		run_trace(t);
	} else {
		churn_worker_run(&churn, t->id, NULL);
		lab_barrier();
		churn_worker_finish(&churn, t->id, NULL);
	}
	stress_stop();
	if (serial) {
		co_done[t->id] = true;
		co_switch(t->id);
	}
	return NULL;
}

/* ---- report ---- */

static int cmp_lat(const void *a, const void *b)
{
	uint32_t x = ((const struct lat *)a)->cycles, y = ((const struct lat *)b)->cycles;
	return x < y ? -1 : x > y;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void calibrate(void)
{
	double t0 = now_s();
	uint64_t c0 = lab_ticks();
	while (now_s() - t0 < 0.05)
		;
	ns_per_cycle = (now_s() - t0) * 1e9 / (double)(lab_ticks() - c0);
}

/* Percentiles by the shared histogram (mm/alloc/lab_stats.c), as the
 * guest's replay computes them; @v is left sorted for the CDF. */
static struct lab_hist hist;
static void print_pcts(struct lat *v, uint64_t n)
{
	if (!n) {
		printf("{\"n\":0}");
		return;
	}
	qsort(v, n, sizeof(*v), cmp_lat);
	memset(&hist, 0, sizeof(hist));
	for (uint64_t i = 0; i < n; i++)
		lab_hist_add(&hist, v[i].cycles);
#define C(q) lab_hist_pct(&hist, (q))
#define P(q) (C(q) * ns_per_cycle)
	printf("{\"n\":%llu,\"p50_ns\":%.0f,\"p99_ns\":%.0f,\"p999_ns\":%.0f,\"max_ns\":%.0f,"
	       "\"p50_ticks\":%llu,\"p99_ticks\":%llu,\"p999_ticks\":%llu,\"max_ticks\":%llu}",
	       (unsigned long long)n, P(LAB_P50), P(LAB_P99), P(LAB_P999), P(LAB_Q_ONE),
	       (unsigned long long)C(LAB_P50), (unsigned long long)C(LAB_P99),
	       (unsigned long long)C(LAB_P999), (unsigned long long)C(LAB_Q_ONE));
#undef P
#undef C
}

/* Free blocks by order, and Linux's two indices at every order (unusable
 * free space, debugfs extfrag/unusable_index; fragmentation,
 * extfrag/extfrag_index), in thousandths as Linux prints them. */
static void print_frag(const uint64_t *blocks)
{
	printf("\"unusable_9\":%.4f,\"blocks\":[",
	       lab_unusable_index(blocks, ALLOC_NR_ORDERS, 9, 10000) / 10000.0);
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		printf("%s%llu", k ? "," : "", (unsigned long long)blocks[k]);
	printf("],\"unusable\":[");
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		printf("%s%.3f", k ? "," : "",
		       lab_unusable_index(blocks, ALLOC_NR_ORDERS, k, 1000) / 1000.0);
	printf("],\"extfrag\":[");
	for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++)
		printf("%s%.3f", k ? "," : "",
		       (double)lab_extfrag_index(blocks, ALLOC_NR_ORDERS, k, 1000) / 1000.0);
	printf("]");
}

/* Memory init's part for one zone of one node: the descriptors (eager or
 * lazy), then the allocator takes them (timed: init ns per page). */
static double give_ns;
static void give_zone(void *ctx, enum page_zone zone, uint64_t s, uint64_t e)
{
	uint32_t nd = (uint32_t)(uintptr_t)ctx;

	if (lazy)
		memmap_init_heads(&mm.nodes[nd], s, e, PAGE_RESERVED, zone, ALLOC_MAX_ORDER);
	else
		memmap_init_range(&mm.nodes[nd], s, e, PAGE_RESERVED, zone);
	double t0 = now_s();
	lab_counted_free_range(nd, zone, s, e);
	give_ns += (now_s() - t0) * 1e9;
}

/* A whole decimal number of ASCII digits, at most @max: anything else
 * ("-5", "1x", "", "1,,2") is a usage error naming the option. */
static uint64_t arg_uint(const char *opt, const char *v, uint64_t max)
{
	uint64_t n = 0;

	if (!*v)
		goto bad;
	for (const char *c = v; *c; c++) {
		uint64_t d = (uint64_t)(*c - '0');
		if (*c < '0' || *c > '9' || d > max || n > (max - d) / 10)
			goto bad;
		n = n * 10 + d;
	}
	return n;
bad:
	fprintf(stderr, "lab: %s %s: not a whole number from 0 to %llu\n", opt, v,
		(unsigned long long)max);
	exit(64);
}

int main(int argc, char **argv)
{
	const char *name = "buddy", *events = NULL;

	host_shim_configure(&shim_run);
	uint64_t mib = 256, seed = 1;
	bool split = false;

	nr_threads = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			goto usage;
		if (!strcmp(a, "--alloc")) name = v;
		else if (!strcmp(a, "--threads")) nr_threads = (uint32_t)arg_uint("--threads", v, UINT32_MAX);
		else if (!strcmp(a, "--workload")) workload = v;
		else if (!strcmp(a, "--ops")) n_ops = arg_uint("--ops", v, UINT64_MAX >> 1);
		else if (!strcmp(a, "--mib")) mib = arg_uint("--mib", v, UINT64_MAX >> 1);
		else if (!strcmp(a, "--seed")) seed = arg_uint("--seed", v, UINT64_MAX >> 1);
		else if (!strcmp(a, "--sample")) sample_every = arg_uint("--sample", v, UINT64_MAX >> 1);
		else if (!strcmp(a, "--batch")) batch = arg_uint("--batch", v, UINT64_MAX >> 1);
		else if (!strcmp(a, "--order")) repeat_order = (unsigned)arg_uint("--order", v, UINT32_MAX);
		else if (!strcmp(a, "--events")) events = v;
		else if (!strcmp(a, "--nodes")) nr_nodes = (uint32_t)arg_uint("--nodes", v, UINT32_MAX);
		else if (!strcmp(a, "--lazy")) lazy = arg_uint("--lazy", v, 1) != 0;
		else if (!strcmp(a, "--split")) split = arg_uint("--split", v, 1) != 0;
		else if (!strcmp(a, "--serial")) serial = arg_uint("--serial", v, 1) != 0;
		else if (!strcmp(a, "--pin")) pin = arg_uint("--pin", v, 1) != 0;
		else if (!strcmp(a, "--stress")) stress_permille = (uint32_t)arg_uint("--stress", v, 1000);
		else if (!strcmp(a, "--stress-us")) stress_us = (uint32_t)arg_uint("--stress-us", v, 1000000);
		else goto usage;
		i++;
	}
	ops = alloc_find(name);
	alloc_name = name;
	if (split)
		base_pfn = ZONE_LINE_PFN - (mib << 8) / 2;
	if (!ops || !nr_threads || nr_threads > MAX_THREADS || mib < 16 || mib > (1 << 20) ||
	    !sample_every || repeat_order > ALLOC_MAX_ORDER || !batch || !nr_nodes ||
	    nr_nodes > LAB_MAX_NODES || (mib << 8) / nr_nodes < ALLOC_MAX_ORDER_PAGES ||
	    (stress_permille && (serial || !stress_us))) {
		fprintf(stderr, "lab: bad arguments (allocator %s%s)\n", name, ops ? "" : " unknown");
		return 64;
	}
	if (!strcmp(workload, "trace")) {
		FILE *f = events ? fopen(events, "rb") : NULL;
		if (!f) {
			fprintf(stderr, "lab: --workload trace needs --events FILE\n");
			return 64;
		}
		fseek(f, 0, SEEK_END);
		nr_tevs = (uint64_t)ftell(f) / sizeof(struct tev);
		fseek(f, 0, SEEK_SET);
		tevs = malloc(nr_tevs * sizeof(*tevs) + 1);
		if (fread(tevs, sizeof(*tevs), nr_tevs, f) != nr_tevs) {
			fprintf(stderr, "lab: %s: short read\n", events);
			return 1;
		}
		fclose(f);
		for (uint64_t i = 0; i < nr_tevs; i++)
			if (tevs[i].id + 1 > nr_ids)
				nr_ids = tevs[i].id + 1;
		tslot = malloc((nr_ids + 1) * sizeof(*tslot));
		for (uint64_t i = 0; i < nr_ids; i++)
			tslot[i] = SLOT_EMPTY;
	}
	calibrate();
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		nr_allowed = (uint32_t)CPU_COUNT(&allowed);
	/* The machine: --nodes equal nodes of 4 MiB multiples, from 4 GiB up
	 * (one Normal zone each) or, with --split, from mib/2 below the line
	 * (node 0 then has a DMA32 and a Normal zone); descriptors written
	 * eagerly or, with --lazy, block heads only (memory init's two
	 * policies). */
	per_node = (mib << 8) / nr_nodes & ~(ALLOC_MAX_ORDER_PAGES - 1);
	nr_pages = per_node * nr_nodes;
	memmap_nid_t *table = malloc(memmap_nid_table_bytes(base_pfn + nr_pages));
	memmap_init(&mm, table, base_pfn + nr_pages);
	for (uint32_t nd = 0; nd < nr_nodes; nd++) {
		struct memmap_node node;
		uint64_t s0 = base_pfn + nd * per_node;
		struct page *pages = aligned_alloc(64, memmap_desc_bytes(per_node));
		memmap_node_init(&node, nd, s0, per_node, pages);
		memmap_add_node(&mm, &node);
		memmap_set_nid(&mm, s0, s0 + per_node, nd);
	}
	mm.nr_nodes = nr_nodes;
	owner_bits = calloc((nr_pages + 63) / 64, sizeof(*owner_bits));
	struct alloc_setup setup = { .mm = &mm, .nr_nodes = nr_nodes, .reserve = lab_reserve,
				     .this_cpu = lab_cpu };
	double ti = now_s();
	self = ops->create(&setup);
	if (!self) {
		fprintf(stderr, "lab: %s could not start\n", name);
		return 1;
	}
	double init_ns = (now_s() - ti) * 1e9;
	for (uint32_t nd = 0; nd < nr_nodes; nd++)
		page_zone_split(base_pfn + nd * per_node, base_pfn + (nd + 1) * per_node,
				give_zone, (void *)(uintptr_t)nd);
	init_ns = give_ns + init_ns;

	if (strcmp(workload, "bulk") && strcmp(workload, "repeat") && strcmp(workload, "random") &&
	    strcmp(workload, "trace") && strcmp(workload, "frag")) {
		static void *mem[CHURN_MAX_WORKERS];
		struct churn_params p = {
			.seed = seed, .nr_workers = nr_threads,
			.pages_per_worker = nr_pages / nr_threads / 2,
			.allocs_per_worker = n_ops / nr_threads,
			.mix = churn_find_mix(workload),
		};
		if (!p.mix) {
			fprintf(stderr, "lab: unknown workload %s (bulk, repeat, random, trace, %s)\n",
				workload, churn_mix_names());
			return 64;
		}
		for (uint32_t i = 0; i < nr_threads; i++)
			mem[i] = aligned_alloc(64, (churn_worker_bytes(&p) + 63) & ~(size_t)63);
		if (!churn_init(&churn, &p, &churn_ops, mem))
			return 1;
	}
	struct alloc_lock_stats ls0 = { 0 }, ls1 = { 0 };
	if (ops->lock_stats)
		ops->lock_stats(self, &ls0);
	pthread_barrier_init(&bar, NULL, nr_threads + 1);
	uint64_t per = (strcmp(workload, "trace") ? n_ops * 2 : 2 * nr_tevs / nr_threads + 16) + 64;
	if (stress_permille) {
		struct sigaction sa = { .sa_handler = on_stress_timer, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGRTMIN, &sa, NULL);
	}
	for (uint32_t i = 0; i < nr_threads; i++) {
		T[i].id = i;
		T[i].seed = seed * 0x9e3779b97f4a7c15ULL + i + 1;
		T[i].stress_seed = (seed + 0x5bd1e995ULL) * 0xff51afd7ed558ccdULL + 2 * i + 1;
		T[i].max_lat = per;
		T[i].lat = malloc(per * sizeof(struct lat));
	}
	/* Every thread's state first: in a --serial trace replay thread 0
	 * records into the others' (it acts as every trace CPU) from its start. */
	for (uint32_t i = 0; i < nr_threads && !serial; i++)
		pthread_create(&T[i].th, NULL, worker, &T[i]);
	int churny = !strcmp(workload, "kbuild") || !strcmp(workload, "deep") ||
		     !strcmp(workload, "net");
	double t0 = now_s();
	if (serial) {
		serial_run();
	} else {
		pthread_barrier_wait(&bar);
		t0 = now_s();
		if (churny)
			pthread_barrier_wait(&bar);
		if (!strcmp(workload, "frag")) {
			pthread_barrier_wait(&bar);
			pthread_barrier_wait(&bar);
		}
	}
	for (uint32_t i = 0; i < nr_threads && !serial; i++)
		pthread_join(T[i].th, NULL);
	me = NULL;
	double wall = now_s() - t0;
	if (ops->lock_stats)
		ops->lock_stats(self, &ls1);
	uint64_t end_blocks[ALLOC_NR_ORDERS] = { 0 };
	for (uint32_t nd = 0; nd < nr_nodes; nd++)
		ops->free_blocks(self, nd, end_blocks);
	end_checks(!strcmp(workload, "trace"));
	bool ok = true;
	uint64_t total = 0, failed = 0, all_lat = 0;
	for (uint32_t i = 0; i < nr_threads; i++) {
		total += T[i].ops;
		failed += T[i].failed;
		all_lat += T[i].nr_lat;
	}
	struct lat *v = malloc((all_lat + 1) * sizeof(*v));
	uint64_t n = 0;
	for (uint32_t i = 0; i < nr_threads; i++) {
		memcpy(v + n, T[i].lat, T[i].nr_lat * sizeof(*v));
		n += T[i].nr_lat;
	}
	printf("{\"nodes\":%u,\"lazy\":%s,\"split\":%s,", nr_nodes, lazy ? "true" : "false",
	       base_pfn < ZONE_LINE_PFN ? "true" : "false");
	bool pinned = pin;
	for (uint32_t i = 0; i < nr_threads; i++)
		pinned = pinned && T[i].pinned;
	printf("\"serial\":%s,\"pinned\":%s,\"cpus_allowed\":%u,\"clock\":\"%s\","
	       "\"ns_per_tick\":%.6f,", serial ? "true" : "false", pinned ? "true" : "false",
	       nr_allowed, LAB_CLOCK, ns_per_cycle);
	printf("\"stress\":{\"permille\":%u,\"us\":%u,\"lock_points\":%s},", stress_permille,
	       stress_us, stress_hooks ? "true" : "false");
	for (int f = 0; f < 2; f++) {
		printf("\"%s_by_order\":[", f ? "failed" : "allocs");
		for (unsigned k = 0; k < ALLOC_NR_ORDERS; k++) {
			uint64_t c = 0;
			for (uint32_t i = 0; i < nr_threads; i++)
				c += f ? T[i].failed_by_order[k] : T[i].allocs_by_order[k];
			printf("%s%llu", k ? "," : "", (unsigned long long)c);
		}
		printf("],");
	}
	printf("\"allocator\":\"%s\",\"workload\":\"%s\",\"threads\":%u,\"pages\":%llu,"
	       "\"ops\":%llu,\"failed\":%llu,\"wall_s\":%.6f,\"mops\":%.4f,\"check\":%s,"
	       "\"init_ns_per_page\":%.3f,\"bookkeeping_bytes_per_page\":%.4f,"
	       "\"lock\":{\"acquired\":%llu,\"contended\":%llu,\"spin_ns\":%.0f},",
	       name, workload, nr_threads, (unsigned long long)nr_pages, (unsigned long long)total,
	       (unsigned long long)failed, wall, total / wall / 1e6, ok ? "true" : "false",
	       init_ns / nr_pages, (double)reserved_bytes / nr_pages,
	       (unsigned long long)(ls1.acquired - ls0.acquired),
	       (unsigned long long)(ls1.contended - ls0.contended),
	       (ls1.spin_cycles - ls0.spin_cycles) * ns_per_cycle);
	if (!strcmp(workload, "trace"))
		printf("\"replayed\":%llu,\"replay_alloc_failed\":%llu,",
		       (unsigned long long)replayed, (unsigned long long)replay_failed);
	if (!strcmp(workload, "frag"))
		printf("\"huge_after_scatter\":%llu,\"huge_ideal\":%llu,",
		       (unsigned long long)frag_huge,
		       (unsigned long long)(nr_pages - nr_pages * 9 / 10 / nr_threads * nr_threads / 4) / 512);
	/* Latency by op and order, then a CDF of each op (100 points). */
	printf("\"latency\":{");
	int first = 1;
	for (unsigned op = 0; op < 2; op++) {
		for (unsigned k = 0; k <= ALLOC_MAX_ORDER + 1; k++) {
			uint64_t m = 0;
			struct lat *w = malloc((n + 1) * sizeof(*w));
			for (uint64_t i = 0; i < n; i++)
				if (v[i].op == op && (k == ALLOC_MAX_ORDER + 1 || v[i].order == k))
					w[m++] = v[i];
			if (m) {
				if (k == ALLOC_MAX_ORDER + 1)
					printf("%s\"%s_all\":", first ? "" : ",", op ? "free" : "alloc");
				else
					printf("%s\"%s_o%u\":", first ? "" : ",", op ? "free" : "alloc", k);
				first = 0;
				print_pcts(w, m);
				if (k == ALLOC_MAX_ORDER + 1) {
					printf(",\"cdf_%s_ns\":[", op ? "free" : "alloc");
					for (int q = 0; q <= 100; q++)
						printf("%s%.0f", q ? "," : "",
						       w[(uint64_t)((double)(m - 1) * q / 100.0)].cycles *
							       ns_per_cycle);
					printf("]");
				}
			}
			free(w);
		}
	}
	printf("},\"frag\":[");
	for (uint32_t s = 0; s < nr_samples; s++) {
		printf("%s{\"ops\":%llu,", s ? "," : "", (unsigned long long)samples[s].at_ops);
		print_frag(samples[s].blocks);
		printf("}");
	}
	/* At the end of the run: what a replayed trace still holds is held. */
	printf("],\"frag_end\":{");
	print_frag(end_blocks);
	printf("}");
	printf("}\n");
	return ok ? 0 : 3;
usage:
	fprintf(stderr, "usage: lab --alloc NAME [--threads N] [--workload W] [--ops N] [--mib M] "
		"[--seed S] [--sample N] [--batch N] [--order K] [--events FILE] [--nodes N] "
		"[--lazy 0|1] [--split 0|1] [--serial 0|1] [--pin 0|1] [--stress PERMILLE] "
		"[--stress-us US]\n");
	return 64;
}

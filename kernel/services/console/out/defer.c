/*
 * defer.c: deferred reports (console_defer(), console_defer_copy()). The
 * memory map, ACPI and NUMA reports are output only, and their first run
 * is milliseconds of a TCG boot's path to usable memory (translation of
 * code that runs once). A RING_DEFER entry holds the report's place; the
 * first drain that reaches it runs the report with this CPU's writes
 * captured into defer_capture[], and every console prints the captured
 * entries there, stamped with the entry's time.
 *
 * Apart from the drain (render.c) because it is a store of its own, with
 * its own budget: the reports, the copies of what they read, and what they
 * made, which every console replays.
 */
#include "kernel/services/console.h"

#include <string.h>

#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"

/* Every report made late before memory is usable fits: the phase records,
 * the calibration's and the other records of the phases before it
 * (about 25 at 2 x 2; the count does not grow with CPUs or nodes). */
#define DEFER_MAX 48
#define DEFER_CAPTURE_BYTES (256u << 10)
enum { DEFER_PENDING, DEFER_RUNNING, DEFER_DONE };
struct deferred {
	void (*fn)(void *arg);
	void *arg;
	uint32_t start, end;            /* its entries in defer_capture[] */
	uint8_t state;
	struct console_out *runner;     /* the console whose drain ran it */
	uint64_t counter;                   /* its place's stamp */
};
/* A captured entry: this header, then len bytes, padded to 8. */
struct capture_hdr {
	uint8_t kind, level, flags, pad;
	uint32_t len;
};
static struct deferred defers[DEFER_MAX];
static uint32_t nr_defers;
/* console_defer_copy()'s copies of what the reports read: their callers
 * keep no copy of their own (a phase holds no state between calls). */
#define DEFER_ARGS_BYTES (16u << 10)
static uint8_t defer_args[DEFER_ARGS_BYTES] __attribute__((aligned(16)));
static uint32_t defer_args_used;
static uint64_t defer_promised;       /* bytes the pending reports may take */
static uint32_t capture_used;
static uint64_t capture_overflow;     /* entries that did not fit: written to the ring after */
static char defer_capture[DEFER_CAPTURE_BYTES] __attribute__((aligned(8)));
/* The report running now; only its CPU's writes are captured. */
static struct deferred *capturing;
static const struct cpu_state *capturing_cpu;

bool con_this_cpu_captures(void)
{
	return __atomic_load_n(&capturing, __ATOMIC_ACQUIRE) && capturing_cpu == this_cpu_state();
}

bool con_capture(enum ring_kind kind, unsigned level, unsigned flags, const void *data,
		 size_t len)
{
	struct capture_hdr h = { (uint8_t)kind, (uint8_t)level, (uint8_t)flags, 0, (uint32_t)len };
	size_t bytes = sizeof(h) + ((len + 7) & ~(size_t)7);

	if (len > RING_MAX_PAYLOAD || bytes > DEFER_CAPTURE_BYTES - capture_used) {
		capture_overflow++;
		return false;
	}
	memcpy(defer_capture + capture_used, &h, sizeof(h));
	memcpy(defer_capture + capture_used + sizeof(h), data, len);
	capture_used += (uint32_t)bytes;
	/* As it goes: a report that faults still shows what it made. */
	capturing->end = capture_used;
	return true;
}

/* Run deferred report @d with this CPU's console writes captured. Called
 * with con_drain_lock held, never from inside a report (capturing is NULL). */
static void run_deferred(struct deferred *d)
{
	d->state = DEFER_RUNNING;
	d->start = d->end = capture_used;
	capturing_cpu = this_cpu_state();
	__atomic_store_n(&capturing, d, __ATOMIC_RELEASE);
	d->fn(d->arg);
	__atomic_store_n(&capturing, NULL, __ATOMIC_RELEASE);
	d->end = capture_used;
	d->state = DEFER_DONE;
}

/* What report @d made, to @c, stamped with its place's time. */
static void out_capture(struct console_out *c, const struct deferred *d)
{
	for (uint32_t at = d->start; at + sizeof(struct capture_hdr) <= d->end;) {
		struct capture_hdr h;
		struct ring_entry ce;

		memcpy(&h, defer_capture + at, sizeof(h));
		at += sizeof(h);
		ce = (struct ring_entry){ .counter = d->counter, .kind = h.kind, .level = h.level,
					  .flags = h.flags, .len = h.len };
		con_out_copy(c, &ce, defer_capture + at);
		at += (h.len + 7) & ~7u;
	}
}

/* A report that faulted while running (the exit drains from the fault
 * handler) prints what it made; the console whose drain ran it gets that
 * from console_flush() (con_defer_out_cut()). */
void con_out_deferred(struct console_out *c, const struct ring_entry *e, const void *data)
{
	uint32_t k;
	struct deferred *d;

	if (e->len != sizeof(k))
		return;
	memcpy(&k, data, sizeof(k));
	if (k >= nr_defers)
		return;
	d = &defers[k];
	d->counter = e->counter;
	if (d->state == DEFER_PENDING && !capturing) {
		d->runner = c;
		run_deferred(d);
	}
	out_capture(c, d);
}

struct deferred *con_defer_cut(void)
{
	struct deferred *cut = con_this_cpu_captures() ? capturing : NULL;

	if (cut)
		__atomic_store_n(&capturing, NULL, __ATOMIC_RELEASE);
	return cut;
}

void con_defer_out_cut(const struct deferred *d)
{
	if (d->runner)
		out_capture(d->runner, d);
}

void con_defer_rec(struct record *r)
{
	rec_u64(r, "deferred_reports", nr_defers);
	rec_u64(r, "deferred_bytes", capture_used);
	rec_u64(r, "deferred_overflow", capture_overflow);
}

void console_defer(void (*fn)(void *arg), void *arg, size_t bytes)
{
	uint32_t k = nr_defers;

	if (con_sync_mode || con_this_cpu_captures() || k >= DEFER_MAX ||
	    bytes > DEFER_CAPTURE_BYTES - defer_promised) {
		fn(arg);
		return;
	}
	defers[k] = (struct deferred){ .fn = fn, .arg = arg, .state = DEFER_PENDING };
	defer_promised += bytes;
	nr_defers = k + 1;
	con_ring_put(RING_DEFER, LOG_INFO, &k, sizeof(k));
}

void console_defer_copy(void (*fn)(void *arg), const void *data, size_t data_bytes, size_t bytes)
{
	size_t at = (defer_args_used + 15u) & ~(size_t)15u;
	void *copy;

	if (con_sync_mode || con_this_cpu_captures() || nr_defers >= DEFER_MAX ||
	    data_bytes > DEFER_ARGS_BYTES - at || bytes > DEFER_CAPTURE_BYTES - defer_promised) {
		/* Runs now: the caller's @data is whole until it returns. */
		fn((void *)(uintptr_t)data);
		return;
	}
	copy = &defer_args[at];
	memcpy(copy, data, data_bytes);
	defer_args_used = (uint32_t)(at + data_bytes);
	console_defer(fn, copy, bytes);
}

bool console_defers_pending(void)
{
	for (uint32_t k = 0; k < nr_defers; k++)
		if (defers[k].state == DEFER_PENDING)
			return true;
	return false;
}

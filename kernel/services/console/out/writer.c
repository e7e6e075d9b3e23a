/*
 * writer.c: the log ring's writer side. Every line and record goes into
 * the ring (kernel/services/console/ring.h) first, whole, with the raw counter value of
 * the moment: a writer only copies. The consoles are drained between boot
 * phases (console_drain(), called by kernel/init/phase.c after a phase's
 * clock has stopped), so a 115200-baud line never makes a phase look
 * slower than its work; the drain time is counted per console and
 * reported on its own (console_report()).
 *
 * A ring with no room left over unread entries makes the writer drain on
 * the spot (that wait is console time too): nothing is dropped, no record
 * cut. After an error line every line is drained at once, so the lines
 * before a crash are out; kernel_exit() drains everything before the
 * machine stops.
 *
 * Apart from the drain (render.c) because a writer never renders: it
 * holds the ring, its size and what waiting on it cost.
 */
#include "kernel/services/console.h"

#include "arch/counter.h"
#include "arch/cpu.h"
#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/spinlock.h"
#include "kernel/services/clock/time.h"

static char early_ring_buf[RING_EARLY_BYTES];
static struct log_ring early_ring;
static struct log_ring big_ring;
struct log_ring *con_ring = &early_ring;
bool con_sync_mode;                   /* after an error: drain every line at once */
static volatile unsigned always_depth; /* console_always_begin() nesting */
static uint64_t wait_cycles;          /* writers waiting on a full ring */
static uint64_t lost_entries;         /* only when the ring could not drain (a fault in a drain) */

void con_ring_start(void)
{
	ring_init(&early_ring, early_ring_buf, sizeof(early_ring_buf));
}

void con_ring_put(enum ring_kind kind, unsigned level, const void *data, size_t len)
{
	uint64_t counter = arch_counter(), start = 0;
	unsigned flags = always_depth ? RING_F_ALWAYS : 0;

	/* An error in a report (a fault, a panic) goes to the ring at once:
	 * the drain that runs the report may never get to print it. */
	if (level > LOG_ERR && con_this_cpu_captures()) {
		if (con_capture(kind, level, flags, data, len))
			return;
		/* More than the report said it would make: the rest goes to the
		 * ring (after the report's place, never lost); we are inside a
		 * drain, which reads it next. */
		if (!ring_write(con_ring, kind, level, flags, counter, data, len))
			__atomic_fetch_add(&lost_entries, 1, __ATOMIC_RELAXED);
		return;
	}
	while (!ring_write(con_ring, kind, level, flags, counter, data, len)) {
		uint64_t now = arch_counter();

		if (!start)
			start = now;
		if (len > RING_MAX_PAYLOAD ||
		    now - start > (counter_hz ? counter_hz : 4000000000ULL) * 10) {
			/* Too long for any entry, or no drain made room in ten
			 * seconds (a CPU faulted while it held the consoles). */
			__atomic_fetch_add(&lost_entries, 1, __ATOMIC_RELAXED);
			break;
		}
		if (spin_trylock(&con_drain_lock)) {
			con_drain_locked();
			spin_unlock(&con_drain_lock);
		} else {
			arch_cpu_relax();
		}
	}
	if (start)
		__atomic_fetch_add(&wait_cycles, arch_counter() - start, __ATOMIC_RELAXED);
	if (con_sync_mode || level <= LOG_ERR)
		con_drain_now();
}

void console_write(const char *s, size_t len)
{
	while (len) {
		size_t n = len < RING_MAX_PAYLOAD ? len : RING_MAX_PAYLOAD;
		con_ring_put(RING_RAW, LOG_INFO, s, n);
		s += n;
		len -= n;
	}
}

void console_always_begin(void)
{
	__atomic_fetch_add(&always_depth, 1, __ATOMIC_RELAXED);
}

void console_always_end(void)
{
	__atomic_fetch_sub(&always_depth, 1, __ATOMIC_RELAXED);
}

void console_ring_resize(void *buf, uint64_t bytes)
{
	static struct log_ring *const old = &early_ring;

	if (con_ring != old || bytes <= early_ring.size_bytes)
		return;
	ring_init(&big_ring, buf, (size_t)bytes);
	spin_lock(&con_drain_lock);
	if (ring_move(&big_ring, &early_ring))
		con_ring = &big_ring;
	spin_unlock(&con_drain_lock);
}

uint64_t console_ring_bytes(void)
{
	return con_ring->size_bytes;
}

void console_report(void)
{
	uint64_t total_cycles = 0;

	console_flush();
	for (unsigned i = 0; i < MAX_OUTS; i++) {
		struct console_out *c = &con_outs[i];
		struct record r;

		if (!c->used)
			continue;
		total_cycles += c->cycles;
		rec_begin(&r, "console_drain");
		rec_str(&r, "name", c->name);
		rec_u64(&r, "baud", c->is_screen ? 0 : c->baud_known);
		rec_u64(&r, "bytes", c->bytes);
		rec_u64(&r, "lines", c->lines);
		rec_u64(&r, "ns", cycles_to_ns(c->cycles));
		rec_u64(&r, "dropped", c->dropped);
		rec_u64(&r, "missed", c->missed);
		rec_bool(&r, "answering", !c->dead);
		record_report(&r, LOG_INFO, "console {name}: {bytes} bytes, {lines} lines in {ns:ms} ms "
			      "outside the phases, {dropped} dropped");
	}
	struct record r;
	rec_begin(&r, "console_ring");
	rec_u64(&r, "bytes", con_ring->size_bytes);
	rec_u64(&r, "entries", con_ring->head_seq);
	rec_u64(&r, "evicted", con_ring->evicted);
	rec_u64(&r, "lost", lost_entries);
	rec_u64(&r, "drain_ns", cycles_to_ns(total_cycles));
	rec_u64(&r, "full_wait_ns", cycles_to_ns(wait_cycles));
	con_defer_rec(&r);
	record_report(&r, LOG_INFO, "console: log ring {bytes:KiB} KiB, {entries} entries, "
		      "{full_wait_ns:ms} ms waiting on a full ring, {lost} lost");
}

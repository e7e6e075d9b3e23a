/*
 * log.c: log_printf(), behind pr_err() .. pr_debug() (kernel/services/log.h): a
 * formatted, escaped line into the ring, and for a warning or an error a
 * record carrying its message too; the counts of both for the done record.
 *
 * Apart from the ring (writer.c) because formatting is the writer's own
 * work, with its own buffers and lock; the host has its own log_printf()
 * (tests/host/host_support.c).
 */
#include "kernel/services/console.h"

#include <stdarg.h>
#include <stdio.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/spinlock.h"
#include "kernel/services/clock/time.h"

static unsigned nr_warnings, nr_errors;
static struct spinlock format_lock;   /* the shared formatting buffers of log_printf() */

/*
 * The formatting buffers' lock, taken for at most two seconds: a CPU that
 * faults while it holds it (an exception while a full ring drains) then
 * prints its own report instead of hanging; the lines may interleave.
 */
bool con_lock_bounded(struct spinlock *l)
{
	uint64_t start = arch_counter(), limit = (counter_hz ? counter_hz : 4000000000ULL) * 2;

	while (!spin_trylock(l)) {
		if (arch_counter() - start > limit)
			return false;
		arch_cpu_relax();
	}
	return true;
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	/* A second set for a deferred report, which runs inside a drain that
	 * may have started inside a writer holding the first. */
	static char texts[2][LINE_MAX_BYTES];
	static char escapeds[2][ESCAPED_MAX_BYTES];
	static struct record rs[2];
	const bool in_report = con_this_cpu_captures();
	char *text = texts[in_report], *escaped = escapeds[in_report];
	struct record *rp = &rs[in_report];
	va_list ap;
	size_t n;

	bool locked = !in_report && con_lock_bounded(&format_lock);
	if (level <= LOG_ERR)
		nr_errors++;
	else if (level == LOG_WARN)
		nr_warnings++;
	va_start(ap, fmt);
	vsnprintf(text, LINE_MAX_BYTES, fmt, ap);
	va_end(ap);
	/* Messages quote the command line and firmware strings: their
	 * control bytes (an ESC, a bell) are shown, never sent raw. */
	n = rec_escape_text(escaped, ESCAPED_MAX_BYTES, text);
	con_ring_put(RING_LINE, level, escaped, n);
	if (level <= LOG_WARN && !con_done_emitted) {
		/* Tools read records, not prose: every warning and error is
		 * also a record carrying its message (docs/records.md). After
		 * done none: done stays the last record. */
		rec_begin(rp, level <= LOG_ERR ? "error" : "warning");
		rec_str_cut(rp, "msg", text, 0);
		rec_finish(rp);
		con_ring_put(RING_RECORD, level, rp->buf, rp->len);
	}
	if (level <= LOG_ERR)
		con_sync_mode = true;
	if (locked)
		spin_unlock(&format_lock);
}

unsigned console_warnings(void)
{
	return nr_warnings;
}

unsigned console_errors(void)
{
	return nr_errors;
}

/*
 * render.c: the drain. Each console reads the ring from its own place;
 * an entry becomes the text that console shows (a stamped line, a record
 * line, both for a report, or nothing) and is sent to it. Timestamps and
 * Counter values in records (rec_cycles_ns()) become nanoseconds here, when
 * printed, with the calibration known then.
 *
 * Apart from the writers (writer.c) because this runs only when the
 * consoles drain, between phases, after memory is usable: its cost is
 * console time, never a phase's.
 */
#include "kernel/services/console.h"

#include <stdio.h>
#include <string.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/spinlock.h"
#include "kernel/services/clock/time.h"

struct spinlock con_drain_lock;

/* quiet, loglevel=, memboot.records= (docs/cmdline.md). */
static unsigned console_loglevel(void)
{
	if (console_levels.loglevel != CONSOLE_LOGLEVEL_UNSET)
		return (unsigned)console_levels.loglevel;
	return console_levels.quiet ? 4 : 7;
}

const struct rec_counter_clock con_boot_clock = { cycles_to_ns, counter_to_boot_ns };

/*
 * With no clock reference at all (nothing gave the counter's rate:
 * tsc_method "assumed", kernel/init/main.c) every time is a guess: each
 * line's stamp ends in '?' and each record carries "clock_assumed":true,
 * so that no figure of such a boot passes for a measurement.
 */
static bool clock_assumed(void)
{
	return counter_hz && counter_uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM;
}

static size_t stamp(char *out, size_t cap, uint64_t counter)
{
	uint64_t ns = counter_to_boot_ns(counter);

	return (size_t)snprintf(out, cap, "[%5llu.%06llu%s] ", (unsigned long long)(ns / 1000000000ULL),
				(unsigned long long)(ns % 1000000000ULL / 1000),
				clock_assumed() ? "?" : "");
}

/* Record text @rec (@len bytes, "MEMBOOT {...}") and a newline into @out
 * (@cap bytes, at least @len + 1), marked when the clock is assumed. */
static size_t put_record(char *out, size_t cap, const char *rec, size_t len)
{
	static const char mark[] = ",\"clock_assumed\":true}";

	if (clock_assumed() && len && rec[len - 1] == '}' && len + sizeof(mark) <= cap) {
		memcpy(out, rec, len - 1);
		memcpy(out + len - 1, mark, sizeof(mark) - 1);
		len += sizeof(mark) - 2;
	} else {
		memcpy(out, rec, len);
	}
	out[len] = '\n';
	return len + 1;
}

/* The drain's buffers (under con_drain_lock). */
static char entry_data[RING_MAX_PAYLOAD + 1];
static char text_out[RING_MAX_PAYLOAD + RECORD_LINE_BYTES + 64];
static struct record resolved;

/* A record entry with counter values: resolved when printed. */
static size_t render_record_counter(const struct ring_entry *e)
{
	struct record raw;

	raw.len = e->len < RECORD_MAX_BYTES ? e->len : RECORD_MAX_BYTES - 1;
	memcpy(raw.buf, entry_data, raw.len);
	raw.safe_len = raw.len;
	rec_resolve_counter(&raw, &resolved, &con_boot_clock);
	return put_record(text_out, sizeof(text_out), resolved.buf, resolved.len);
}

/*
 * Render entry @e for console @c into text_out: the bytes to send, or 0
 * when this console does not show it (records on the screen, lines above
 * the loglevel, records with memboot.records=off).
 */
static size_t render(const struct console_out *c, const struct ring_entry *e)
{
	bool always = e->flags & RING_F_ALWAYS;
	bool line_ok = always || e->level < console_loglevel();
	bool record_ok = !c->is_screen && (always || console_levels.records);
	size_t n = 0, cap = sizeof(text_out);

	entry_data[e->len] = '\0';
	switch (e->kind) {
	case RING_RAW:
		if (!line_ok)
			return 0;
		memcpy(text_out, entry_data, e->len);
		return e->len;
	case RING_LINE:
		if (!line_ok)
			return 0;
		n = stamp(text_out, cap, e->counter);
		memcpy(text_out + n, entry_data, e->len);
		n += e->len;
		text_out[n++] = '\n';
		return n;
	case RING_RECORD:
		if (!record_ok)
			return 0;
		if (memchr(entry_data, '\x01', e->len))
			return render_record_counter(e);
		return put_record(text_out, cap, entry_data, e->len);
	case RING_REPORT: {
		/* "template\0MEMBOOT {...}": the record's counter values resolved
		 * now, then the line rendered from it. */
		size_t tlen = strlen(entry_data);
		struct record raw;

		if (tlen + 1 > e->len)
			return 0;
		raw.len = e->len - tlen - 1;
		if (raw.len >= RECORD_MAX_BYTES)
			return 0;
		memcpy(raw.buf, entry_data + tlen + 1, raw.len);
		raw.safe_len = raw.len;
		rec_resolve_counter(&raw, &resolved, &con_boot_clock);
		if (line_ok) {
			char esc[ESCAPED_MAX_BYTES];
			char line[RECORD_LINE_BYTES];

			rec_render(&resolved, entry_data, line, sizeof(line));
			rec_escape_text(esc, sizeof(esc), line);
			n = stamp(text_out, cap, e->counter);
			size_t l = strlen(esc);
			if (l > cap - n - 1)
				l = cap - n - 1;
			memcpy(text_out + n, esc, l);
			n += l;
			text_out[n++] = '\n';
		}
		if (record_ok && resolved.len + 1 <= cap - n)
			n += put_record(text_out + n, cap - n, resolved.buf, resolved.len);
		return n;
	}
	default:
		return 0;
	}
}

/* Render @e (its payload in entry_data) and send it to @c. */
static void out_entry(struct console_out *c, const struct ring_entry *e)
{
	size_t n;

	if (c->dead) {
		c->dropped++;
		return;
	}
	n = render(c, e);
	if (n == 0)
		return;
	if (con_out_write(c, text_out, n) < n) {
		c->dropped++;
		return;
	}
	c->bytes += n;
	c->lines++;
}

void con_out_copy(struct console_out *c, const struct ring_entry *e, const void *data)
{
	memcpy(entry_data, data, e->len);
	out_entry(c, e);
}

/* Send everything @c has not read yet. Called with con_drain_lock held. */
static void drain_out_locked(struct console_out *c)
{
	struct ring_entry e;
	uint64_t start = arch_counter();

	while (ring_read(con_ring, c->reader, &e, entry_data, sizeof(entry_data) - 1)) {
		if (e.kind == RING_DEFER)
			con_out_deferred(c, &e, entry_data);
		else
			out_entry(c, &e);
	}
	c->cycles += arch_counter() - start;
}

void con_drain_locked(void)
{
	for (unsigned i = 0; i < MAX_OUTS; i++)
		if (con_outs[i].used)
			drain_out_locked(&con_outs[i]);
}

void con_drain_now(void)
{
	if (!spin_trylock(&con_drain_lock))
		return;
	con_drain_locked();
	spin_unlock(&con_drain_lock);
}

void console_drain(void)
{
	con_drain_now();
	con_report_dead();
}

void console_flush(void)
{
	/* The exit from inside a report (it faulted): what follows, the
	 * summary and done, goes to the ring, and the console whose drain ran
	 * the report, which had passed its place, gets what it made after. */
	struct deferred *cut = con_defer_cut();
	/* Wait for a drain on another CPU, up to a few seconds; after that
	 * (a CPU faulted inside a drain) take the consoles over. */
	uint64_t start = arch_counter(), limit = (counter_hz ? counter_hz : 4000000000ULL) * 5;
	bool locked = true;

	while (!spin_trylock(&con_drain_lock)) {
		if (arch_counter() - start > limit) {
			locked = false;
			break;
		}
		arch_cpu_relax();
	}
	con_drain_locked();
	if (cut)
		con_defer_out_cut(cut);
	if (locked) {
		spin_unlock(&con_drain_lock);
		con_report_dead();
	}
}

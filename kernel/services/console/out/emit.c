/*
 * emit.c: the kernel's record_emit() and record_report() (declared in
 * kernel/services/report/record.h, which builds the records): a finished record
 * goes into the ring as it is, or with its line's template, to be
 * rendered when the consoles drain (render.c); each is also kept for the
 * UEFI results store (kernel/services/report/efivars.h).
 *
 * Apart from log.c because records are the tools' side of the output and
 * have rules of their own: only known events, done always printed and
 * last, counter values resolved when printed. The host has its own
 * (record_emit() in tests/host/host_support.c, record_report() in
 * kernel/services/report/record.c).
 */
#include "kernel/services/console.h"

#include <string.h>

#include "kernel/services/console/out/internal.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/report/efivars.h"
#include "kernel/services/report/record.h"
#include "kernel/services/spinlock.h"

bool con_done_emitted;                /* no warning records after done */

void record_emit(struct record *r)
{
	static const char done_start[] = RECORD_PREFIX "{\"event\":\"done\"";
	const char *line;

	/* A name outside kernel/services/report/events.h is a tool-visible typo: say so
	 * (a warning fails the guest tests) but print the record anyway. */
	if (!record_event_known(r->event))
		pr_warn("record: event '%s' is not in kernel/services/report/events.h", r->event);
	line = rec_finish(r);
	rec_check_whole(r);
	efivars_capture(line, r->len);
	if (strncmp(line, done_start, sizeof(done_start) - 1) == 0) {
		con_done_emitted = true;
		console_always_begin();   /* done is always printed */
		con_ring_put(RING_RECORD, LOG_INFO, line, r->len);
		console_always_end();
		return;
	}
	con_ring_put(RING_RECORD, LOG_INFO, line, r->len);
}

void record_report(struct record *r, enum log_level level, const char *tmpl)
{
	/* Two sets, as in log_printf(): a deferred report's, and everyone's. */
	static char entries[2][RING_MAX_PAYLOAD];
	static struct record nows[2];
	static struct spinlock report_lock;
	const bool in_report = con_this_cpu_captures();
	char *entry = entries[in_report];
	struct record *now = &nows[in_report];
	size_t tlen = strlen(tmpl);

	/* Every line is rendered when drained, after memory is usable, not
	 * on the phase's time (the template engine's first run under QEMU's
	 * TCG was a millisecond of the boot's path); counter values then also use
	 * the final clock. Now only: a warning (counted and turned into a
	 * warning record at once), done (the last record, always printed). */
	if (level <= LOG_WARN || tlen + 1 + RECORD_MAX_BYTES > RING_MAX_PAYLOAD ||
	    !strcmp(r->event, "done")) {
		if (rec_has_counter(r)) {
			rec_resolve_counter(r, now, &con_boot_clock);
			*r = *now;
		}
		record_report_now(r, level, tmpl);
		return;
	}
	if (!record_event_known(r->event))
		pr_warn("record: event '%s' is not in kernel/services/report/events.h", r->event);
	rec_finish(r);
	rec_check_whole(r);
	efivars_capture(r->buf, r->len);
	bool locked = !in_report && con_lock_bounded(&report_lock);
	memcpy(entry, tmpl, tlen + 1);
	memcpy(entry + tlen + 1, r->buf, r->len);
	con_ring_put(RING_REPORT, level, entry, tlen + 1 + r->len);
	if (locked)
		spin_unlock(&report_lock);
}

/*
 * record.h: machine-readable records, one line each: `MEMBOOT {json}`.
 *
 * Tools read these, never the prose (docs/records.md is the contract). The
 * builder writes into a fixed buffer; the JSON it makes is always well formed:
 * strings are escaped, addresses are hex strings ("0x100000"), counts and
 * nanoseconds are integers. A record that would not fit is cut at a value
 * boundary and gets "truncated":true, never a broken line.
 *
 *   struct record r;
 *   rec_begin(&r, "mem_range");
 *   rec_hex(&r, "start", start);
 *   rec_hex(&r, "end", end);
 *   rec_str(&r, "type", "usable");
 *   record_emit(&r);          // kernel: prints "MEMBOOT {...}"
 *
 * Arrays and nested objects: rec_key() then rec_open('['), values with the
 * rec_v_*() calls, rec_close(']').
 *
 * A measurement people read too is printed with record_report() instead of
 * record_emit(): one call renders the Linux-style line from the record's own
 * values, prints it, then prints the record. The values are given once, so
 * the line and the record cannot disagree:
 *
 *   rec_begin(&r, "phase");
 *   rec_str(&r, "name", name);
 *   rec_u64(&r, "ns", ns);
 *   record_report(&r, LOG_INFO, "phase {name}: {ns:ms} ms");
 *   // [    0.041234] phase acpi: 1.234 ms
 *   // MEMBOOT {"event":"phase","name":"acpi","ns":1234000}
 *
 * The line template names top-level keys of the record in braces:
 *   {key}        the value as the record holds it (strings without quotes)
 *   {key:ms}     nanoseconds as milliseconds, three decimals: "1.848"
 *   {key:ms1}    the same with one decimal (cut, not rounded): "1.8"
 *   {key:us}     nanoseconds as whole microseconds (cut): "4564"
 *   {key:.N}     the value over 10^N with N decimals (N 1..9): {x:.2} of
 *                1234 gives "12.34", {ppm:.4} a share in parts per million
 *                as a percentage
 *   {key:MHz}    hertz as MHz, three decimals: "2596.142"
 *   {key:KiB}    bytes in KiB, {key:MiB} bytes in MiB (both rounded down)
 *   {key:xN}     a number or hex string as N zero-padded hex digits (N 1..16)
 *   {key:xN-1}   the same less one: the inclusive end of a half-open range,
 *                the way Linux prints [mem start-end]
 *   {key:s}      "s" unless the value is 1, for plurals
 *   {key:given U} a figure firmware may leave out: "12 U" (the text after
 *                "given", its space included), or "not given" for 0
 *   {key:F[SEP]} an array: each element with format F (empty: as held),
 *                SEP between two, e.g. {busy_ns:ms1[+]} gives "3.1+3.0";
 *                an empty array gives "", a value not an array "?"
 *   {key:F,W}    any of the above (F may be empty) in a column of W
 *                characters, right-aligned; {key:F,-W} left-aligned
 *                (printf's %Ws and %-Ws): "{row:,-13} {ns:ms,10}"
 *   {{ and }}    literal braces
 * A key the record does not hold renders as "{key?}" and a value a format
 * cannot read as "?", so a mistake shows in the line and never stops a boot.
 *
 * Durations and moments measured with the cycle counter (arch/counter.h):
 * rec_cycles_ns() and rec_counter_stamp() keep the raw cycles in the record
 * and the console turns them into nanoseconds when it prints the record
 * (kernel/services/console/out/render.c), with the best figure of the
 * counter's rate known by then: a record made while the clock still runs on its quick first
 * estimate prints with the precise figure if that arrives before the
 * console drains it. In the record they are plain integers, as rec_u64()
 * writes them:
 *
 *   rec_cycles_ns(&r, "ns", end - start);       // a duration
 *   rec_counter_stamp(&r, "start_ns", start);   // ns since boot entry
 *
 * Until printed the value is a fixed-width placeholder (a 0x01 byte, 'd' or
 * 's', 18 hex digits: 20 bytes, as long as the longest decimal u64), which
 * no other builder call writes, as strings escape control bytes. A line
 * template may format it like any number ({ns:ms}).
 */
#ifndef MEMBOOT_KERNEL_RECORD_H
#define MEMBOOT_KERNEL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/log.h"

#define RECORD_PREFIX "MEMBOOT "
#define RECORD_MAX_BYTES 2048
#define RECORD_MAX_DEPTH 8
#define RECORD_LINE_BYTES 512   /* a rendered human line, NUL included */

struct record {
	const char *event;   /* the name given to rec_begin() */
	char buf[RECORD_MAX_BYTES];
	size_t len;          /* bytes used in buf, no NUL counted */
	size_t safe_len;     /* length at the last complete value */
	int depth;           /* open containers beyond the record itself */
	char closers[RECORD_MAX_DEPTH];
	bool need_comma;
	bool truncated;
};

void rec_begin(struct record *r, const char *event);
void rec_key(struct record *r, const char *key);
void rec_v_str(struct record *r, const char *s);
void rec_v_u64(struct record *r, uint64_t v);
void rec_v_i64(struct record *r, int64_t v);
void rec_v_hex(struct record *r, uint64_t v);
void rec_v_bool(struct record *r, bool v);
void rec_open(struct record *r, char bracket);   /* '[' or '{' */
void rec_close(struct record *r);

void rec_str(struct record *r, const char *key, const char *s);
void rec_u64(struct record *r, const char *key, uint64_t v);
void rec_i64(struct record *r, const char *key, int64_t v);
void rec_hex(struct record *r, const char *key, uint64_t v);
void rec_bool(struct record *r, const char *key, bool v);
/* Counter values converted when printed (above). */
void rec_cycles_ns(struct record *r, const char *key, uint64_t cycles);
void rec_counter_stamp(struct record *r, const char *key, uint64_t counter);
void rec_v_cycles_ns(struct record *r, uint64_t cycles);
/* Whether @r holds a counter placeholder. */
bool rec_has_counter(const struct record *r);

struct rec_counter_clock {
	uint64_t (*cycles_to_ns)(uint64_t cycles);
	uint64_t (*counter_to_boot_ns)(uint64_t counter);
};
/*
 * Copy @in to @out with every counter placeholder replaced by its value in
 * nanoseconds from @clock. The result is never longer than @in.
 */
void rec_resolve_counter(const struct record *in, struct record *out,
			 const struct rec_counter_clock *clock);

/*
 * A string that may be long (a command line): as much of @s as fits with
 * @reserve_bytes left for the keys after it; returns true if @s was cut.
 * The record itself stays whole, so the keys after it are not lost.
 */
bool rec_str_cut(struct record *r, const char *key, const char *s, size_t reserve_bytes);
/* The bytes @r can still take before it is cut (closing brackets already
 * kept back); 0 once it is truncated. For a record that lists a variable
 * number of items and leaves out, by count, those that do not fit. */
size_t rec_room_bytes(const struct record *r);

/* Close everything and return the full line "MEMBOOT {...}" (no newline). */
const char *rec_finish(struct record *r);

/*
 * Copy @src to @dst (@dst_bytes, NUL included) with every byte that is not
 * printable ASCII written as \xNN, and a backslash as \\: bytes from the
 * command line or firmware tables (an ESC, a bell) must not reach a
 * terminal raw. Stops at a whole escape when @dst is full. Returns the
 * length written.
 */
size_t rec_escape_text(char *dst, size_t dst_bytes, const char *src);

/* Kernel only: finish @r and print it as one console line. */
void record_emit(struct record *r);

/*
 * A record is never cut silently: when @r did not fit (r->truncated), an
 * error line names its event and the buffer's size, so a guest test fails
 * and a reader knows the record is incomplete. Every record_emit() calls
 * it before printing. Returns true when @r was whole.
 */
bool rec_check_whole(const struct record *r);

/*
 * The CPUs @has() says yes to among [0, @n), in the form Linux gives in
 * /sys/devices/system/cpu/online: ascending, runs of consecutive ids as
 * "first-last" (both included), separated by commas ("0-3,5,8-511"; "" for
 * none), so 512 CPUs take 5 bytes, not 2,000. Written to @dst (@cap bytes,
 * NUL included); returns false, with @dst cut at a whole item, when it does
 * not fit.
 */
bool rec_format_cpulist(char *dst, size_t cap, uint32_t n,
			bool (*has)(uint32_t id, const void *ctx), const void *ctx);

/*
 * Render @tmpl (see the top of this file) with @r's values into @out, always
 * NUL terminated (cut at @out_bytes - 1). Returns the length written.
 */
size_t rec_render(const struct record *r, const char *tmpl, char *out, size_t out_bytes);

/* Print the human line rendered from @tmpl at @level, then the record. */
void record_report(struct record *r, enum log_level level, const char *tmpl);
/* record_report() with the line rendered at once (counter values must have
 * been resolved already): record.c's, on the host and the kernel alike. */
void record_report_now(struct record *r, enum log_level level, const char *tmpl);

/* Whether @event is one of kernel/services/report/events.h. */
bool record_event_known(const char *event);

#endif

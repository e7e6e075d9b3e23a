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
 */
#ifndef MEMBOOT_KERNEL_RECORD_H
#define MEMBOOT_KERNEL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_PREFIX "MEMBOOT "
#define RECORD_MAX_BYTES 2048
#define RECORD_MAX_DEPTH 8

struct record {
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

/*
 * A string that may be long (a command line): as much of @s as fits with
 * @reserve_bytes left for the keys after it; returns true if @s was cut.
 * The record itself stays whole, so the keys after it are not lost.
 */
bool rec_str_cut(struct record *r, const char *key, const char *s, size_t reserve_bytes);

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

#endif

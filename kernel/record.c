/*
 * record.c: the JSON record builder (pure C, host-tested).
 */
#include "kernel/record.h"

#include <stdio.h>
#include <string.h>

/* Room kept back so closing brackets always fit. */
#define CLOSE_RESERVE (RECORD_MAX_DEPTH + 24)

static void put(struct record *r, const char *s, size_t n)
{
	if (r->truncated)
		return;
	if (r->len + n > RECORD_MAX_BYTES - CLOSE_RESERVE) {
		r->truncated = true;
		r->len = r->safe_len;   /* drop the partial value */
		return;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void puts_raw(struct record *r, const char *s)
{
	put(r, s, strlen(s));
}

static void value_start(struct record *r)
{
	if (r->need_comma)
		put(r, ",", 1);
}

static void value_end(struct record *r)
{
	r->need_comma = true;
	if (!r->truncated)
		r->safe_len = r->len;
}

static void put_escaped(struct record *r, const char *s)
{
	put(r, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(r, esc, 2);
		} else if (*p < 0x20 || *p >= 0x7f) {
			/* Control and non-ASCII bytes: \u00XX keeps the line valid
			 * JSON whatever firmware put in a string. */
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put(r, esc, 6);
		} else {
			put(r, (const char *)p, 1);
		}
	}
	put(r, "\"", 1);
}

void rec_begin(struct record *r, const char *event)
{
	r->len = 0;
	r->safe_len = 0;
	r->depth = 0;
	r->need_comma = false;
	r->truncated = false;
	puts_raw(r, RECORD_PREFIX "{");
	r->safe_len = r->len;
	rec_str(r, "event", event);
}

void rec_key(struct record *r, const char *key)
{
	value_start(r);
	put_escaped(r, key);
	put(r, ":", 1);
	r->need_comma = false;
}

void rec_v_str(struct record *r, const char *s)
{
	value_start(r);
	put_escaped(r, s ? s : "");
	value_end(r);
}

void rec_v_u64(struct record *r, uint64_t v)
{
	char num[24];
	value_start(r);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	puts_raw(r, num);
	value_end(r);
}

void rec_v_i64(struct record *r, int64_t v)
{
	char num[24];
	value_start(r);
	snprintf(num, sizeof(num), "%lld", (long long)v);
	puts_raw(r, num);
	value_end(r);
}

void rec_v_hex(struct record *r, uint64_t v)
{
	char num[24];
	value_start(r);
	snprintf(num, sizeof(num), "\"0x%llx\"", (unsigned long long)v);
	puts_raw(r, num);
	value_end(r);
}

void rec_v_bool(struct record *r, bool v)
{
	value_start(r);
	puts_raw(r, v ? "true" : "false");
	value_end(r);
}

void rec_open(struct record *r, char bracket)
{
	if (r->depth >= RECORD_MAX_DEPTH || r->truncated) {
		r->truncated = true;
		return;
	}
	value_start(r);
	put(r, &bracket, 1);
	if (r->truncated)
		return;
	r->closers[r->depth++] = bracket == '[' ? ']' : '}';
	r->need_comma = false;
	r->safe_len = r->len;
}

void rec_close(struct record *r)
{
	if (r->depth == 0 || r->truncated)
		return;
	put(r, &r->closers[r->depth - 1], 1);
	if (r->truncated)
		return;     /* rec_finish() closes it from safe_len */
	r->depth--;
	value_end(r);
}

void rec_str(struct record *r, const char *key, const char *s)
{
	rec_key(r, key);
	rec_v_str(r, s);
}

void rec_u64(struct record *r, const char *key, uint64_t v)
{
	rec_key(r, key);
	rec_v_u64(r, v);
}

void rec_i64(struct record *r, const char *key, int64_t v)
{
	rec_key(r, key);
	rec_v_i64(r, v);
}

void rec_hex(struct record *r, const char *key, uint64_t v)
{
	rec_key(r, key);
	rec_v_hex(r, v);
}

void rec_bool(struct record *r, const char *key, bool v)
{
	rec_key(r, key);
	rec_v_bool(r, v);
}

const char *rec_finish(struct record *r)
{
	if (r->truncated) {
		/* Back to the last complete value; a dangling key is dropped with it. */
		r->len = r->safe_len;
		while (r->len > 0 && r->buf[r->len - 1] == ',')
			r->len--;
	}
	/* The reserve guarantees room for the closers and the marker. */
	while (r->depth > 0)
		r->buf[r->len++] = r->closers[--r->depth];
	if (r->truncated) {
		static const char mark[] = ",\"truncated\":true";
		/* No comma right after the opening brace (nothing survived). */
		size_t skip = r->buf[r->len - 1] == '{';
		memcpy(r->buf + r->len, mark + skip, sizeof(mark) - 1 - skip);
		r->len += sizeof(mark) - 1 - skip;
	}
	r->buf[r->len++] = '}';
	r->buf[r->len] = '\0';
	return r->buf;
}

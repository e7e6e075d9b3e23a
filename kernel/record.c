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

/* The JSON form of byte @c in a string: returns its length in @esc. */
static size_t escape_byte(unsigned char c, char esc[8])
{
	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (c < 0x20 || c >= 0x7f) {
		/* Control and non-ASCII bytes: \u00XX keeps the line valid JSON
		 * whatever firmware put in a string. */
		snprintf(esc, 8, "\\u%04x", c);
		return 6;
	}
	esc[0] = (char)c;
	return 1;
}

/*
 * Put @s as a JSON string. With @limit (the length the closing quote must
 * end at or before), stop before the byte that would pass it and return
 * true: the string was cut, the record stays whole.
 */
static bool put_escaped_upto(struct record *r, const char *s, size_t limit)
{
	bool cut = false;

	put(r, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		size_t n = escape_byte(*p, esc);

		if (limit && r->len + n + 1 > limit) {
			cut = true;
			break;
		}
		put(r, esc, n);
	}
	put(r, "\"", 1);
	return cut;
}

static void put_escaped(struct record *r, const char *s)
{
	put_escaped_upto(r, s, 0);
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

size_t rec_escape_text(char *dst, size_t dst_bytes, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (dst_bytes == 0)
		return 0;
	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		char esc[4];
		size_t len = 1;

		esc[0] = (char)*p;
		if (*p == '\\') {
			esc[1] = '\\';
			len = 2;
		} else if (*p < 0x20 || *p >= 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[*p >> 4];
			esc[3] = hex[*p & 15];
			len = 4;
		}
		if (n + len + 1 > dst_bytes)
			break;
		memcpy(dst + n, esc, len);
		n += len;
	}
	dst[n] = '\0';
	return n;
}

bool rec_str_cut(struct record *r, const char *key, const char *s, size_t reserve_bytes)
{
	size_t limit = RECORD_MAX_BYTES - CLOSE_RESERVE;
	bool cut;

	limit = reserve_bytes < limit ? limit - reserve_bytes : 0;
	rec_key(r, key);
	value_start(r);
	if (r->truncated || r->len + 2 > limit) {
		/* Not even "" fits before the reserve: the key goes too. */
		r->truncated = true;
		r->len = r->safe_len;
		return true;
	}
	cut = put_escaped_upto(r, s ? s : "", limit);
	value_end(r);
	return cut;
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

/*
 * record.c: the JSON record builder and the line renderer of record_report()
 * (pure C, host-tested).
 */
#include "kernel/services/report/record.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/report/events.h"

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
	r->event = event;
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

size_t rec_room_bytes(const struct record *r)
{
	const size_t limit = RECORD_MAX_BYTES - CLOSE_RESERVE;

	return r->truncated || r->len >= limit ? 0 : limit - r->len;
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

/* ---- counter values converted when printed ---- */

#define COUNTER_MARK '\x01'
#define COUNTER_HEX_DIGITS 18
#define COUNTER_PLACEHOLDER_BYTES (2 + COUNTER_HEX_DIGITS)   /* >= 20, the longest u64 */

static void put_counter(struct record *r, char kind, uint64_t v)
{
	char ph[COUNTER_PLACEHOLDER_BYTES + 1];

	value_start(r);
	snprintf(ph, sizeof(ph), "%c%c%0*llx", COUNTER_MARK, kind, COUNTER_HEX_DIGITS,
		 (unsigned long long)v);
	put(r, ph, COUNTER_PLACEHOLDER_BYTES);
	value_end(r);
}

void rec_v_cycles_ns(struct record *r, uint64_t cycles)
{
	put_counter(r, 'd', cycles);
}

void rec_cycles_ns(struct record *r, const char *key, uint64_t cycles)
{
	rec_key(r, key);
	put_counter(r, 'd', cycles);
}

void rec_counter_stamp(struct record *r, const char *key, uint64_t counter)
{
	rec_key(r, key);
	put_counter(r, 's', counter);
}

bool rec_has_counter(const struct record *r)
{
	return memchr(r->buf, COUNTER_MARK, r->len) != NULL;
}

void rec_resolve_counter(const struct record *in, struct record *out,
		     const struct rec_counter_clock *clock)
{
	size_t o = 0;

	*out = *in;
	out->len = 0;
	for (size_t i = 0; i < in->len;) {
		uint64_t v = 0;
		bool ok = in->buf[i] == COUNTER_MARK && i + COUNTER_PLACEHOLDER_BYTES <= in->len &&
			  (in->buf[i + 1] == 'd' || in->buf[i + 1] == 's');

		for (size_t k = 0; ok && k < COUNTER_HEX_DIGITS; k++) {
			char c = in->buf[i + 2 + k];
			unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
				     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
			ok = d < 16;
			v = v << 4 | d;
		}
		if (!ok) {
			out->buf[o++] = in->buf[i++];
			continue;
		}
		v = in->buf[i + 1] == 'd' ? clock->cycles_to_ns(v) : clock->counter_to_boot_ns(v);
		char num[24];
		int n = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
		memcpy(out->buf + o, num, (size_t)n);
		o += (size_t)n;
		i += COUNTER_PLACEHOLDER_BYTES;
	}
	out->len = o;
	out->safe_len = in->safe_len < o ? in->safe_len : o;
	if (o < RECORD_MAX_BYTES)
		out->buf[o] = '\0';
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

bool rec_check_whole(const struct record *r)
{
	if (!r->truncated)
		return true;
	log_printf(LOG_ERR, "record: %s did not fit in its %u-byte buffer: cut at a value boundary "
		   "(\"truncated\":true), values are missing", r->event ? r->event : "(none)",
		   (unsigned)RECORD_MAX_BYTES);
	return false;
}

static bool put_item(char *dst, size_t cap, size_t *len, uint32_t first, uint32_t last)
{
	char item[24];
	int n = first == last ? snprintf(item, sizeof(item), "%s%u", *len ? "," : "", first)
			      : snprintf(item, sizeof(item), "%s%u-%u", *len ? "," : "", first, last);

	if (*len + (size_t)n + 1 > cap)
		return false;
	memcpy(dst + *len, item, (size_t)n + 1);
	*len += (size_t)n;
	return true;
}

bool rec_format_cpulist(char *dst, size_t cap, uint32_t n,
			bool (*has)(uint32_t id, const void *ctx), const void *ctx)
{
	size_t len = 0;

	if (cap == 0)
		return false;
	dst[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		uint32_t first = i;

		if (!has(i, ctx))
			continue;
		while (i + 1 < n && has(i + 1, ctx))
			i++;
		if (!put_item(dst, cap, &len, first, i))
			return false;
	}
	return true;
}

bool record_event_known(const char *event)
{
#define RECORD_EVENT_CMP_(name) if (event && strcmp(event, #name) == 0) return true;
	RECORD_EVENT_TABLE(RECORD_EVENT_CMP_)
#undef RECORD_EVENT_CMP_
	return false;
}

/* ---- rendering the human line from the record ---- */

/* Index just past the JSON string starting at buf[i] == '"'. */
static size_t skip_string(const char *buf, size_t i, size_t len)
{
	for (i++; i < len; i++) {
		if (buf[i] == '\\')
			i++;
		else if (buf[i] == '"')
			return i + 1;
	}
	return len;
}

/* Index just past the JSON value starting at buf[i]. */
static size_t skip_value(const char *buf, size_t i, size_t len)
{
	int depth = 0;

	while (i < len) {
		char c = buf[i];
		if (c == '"') {
			i = skip_string(buf, i, len);
			if (depth == 0)
				return i;
			continue;
		}
		if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (depth == 0)
				return i;       /* the record's own closing brace */
			if (--depth == 0)
				return i + 1;
		} else if (c == ',' && depth == 0) {
			return i;
		}
		i++;
	}
	return len;
}

/*
 * Find top-level @key (@key_len bytes) in the record built so far, finished
 * or not. The builder writes keys as plain escaped strings, so the raw bytes
 * between the quotes compare directly.
 */
static bool lookup(const struct record *r, const char *key, size_t key_len,
		   const char **val, size_t *val_len)
{
	const char *buf = r->buf;
	size_t len = r->len;
	size_t i = sizeof(RECORD_PREFIX "{") - 1;

	while (i < len && buf[i] == '"') {
		size_t kstart = i + 1, kend = skip_string(buf, i, len) - 1;
		if (kend >= len || buf[kend + 1] != ':')
			return false;
		i = kend + 2;
		size_t vend = skip_value(buf, i, len);
		if (kend - kstart == key_len && memcmp(buf + kstart, key, key_len) == 0) {
			*val = buf + i;
			*val_len = vend - i;
			return true;
		}
		i = vend;
		if (i < len && buf[i] == ',')
			i++;
	}
	return false;
}

/* A JSON integer or a "0x..." hex string as an unsigned number. */
static bool value_u64(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
		if (n < 3 || v[0] != '0' || v[1] != 'x')
			return false;
		base = 16;
		i = 2;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		char c = v[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*out = x;
	return true;
}

struct out {
	char *buf;
	size_t cap;   /* bytes usable for text: out_bytes - 1 */
	size_t len;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->len)
		n = o->cap - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void emit_str(struct out *o, const char *s)
{
	emit(o, s, strlen(s));
}

/* A record string as line text: quotes dropped, \" and \\ undone; the
 * builder's \u00XX escapes (control and non-ASCII bytes from firmware) are
 * shown as \xXX, never as the raw byte. */
static void emit_json_string(struct out *o, const char *v, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++) {
		if (v[i] != '\\' || i + 2 >= n) {
			emit(o, v + i, 1);
		} else if (v[i + 1] == 'u' && i + 6 < n) {
			emit(o, "\\x", 2);
			emit(o, v + i + 4, 2);
			i += 5;
		} else {
			emit(o, v + i + 1, 1);
			i++;
		}
	}
}

static void render_value(struct out *o, const char *v, size_t n, const char *fmt, size_t fmt_len);

/*
 * An array as text: each element rendered with @fmt (@fmt_len bytes; none:
 * as the record holds it), @sep (@sep_len bytes) between two. A value that
 * is not an array renders as "?".
 */
static void render_list(struct out *o, const char *v, size_t n, const char *fmt, size_t fmt_len,
			const char *sep, size_t sep_len)
{
	if (n < 2 || v[0] != '[' || v[n - 1] != ']') {
		emit(o, "?", 1);
		return;
	}
	for (size_t i = 1; i < n - 1;) {
		/* skip_value() stops at the comma after the element, or at the
		 * array's own closing bracket. */
		size_t end = skip_value(v, i, n - 1);
		render_value(o, v + i, end - i, fmt, fmt_len);
		if (end >= n - 1 || v[end] != ',')
			break;
		emit(o, sep, sep_len);
		i = end + 1;
	}
}

static void render_value(struct out *o, const char *v, size_t n, const char *fmt, size_t fmt_len)
{
	char num[48];
	uint64_t x;
	const char *lb = fmt_len ? memchr(fmt, '[', fmt_len) : NULL;

	if (lb && fmt[fmt_len - 1] == ']') {
		render_list(o, v, n, fmt, (size_t)(lb - fmt), lb + 1,
			    (size_t)(fmt + fmt_len - 1 - (lb + 1)));
		return;
	}
	if (fmt_len == 0) {
		if (n >= 2 && v[0] == '"')
			emit_json_string(o, v, n);
		else
			emit(o, v, n);
		return;
	}
	if (!value_u64(v, n, &x)) {
		emit(o, "?", 1);
		return;
	}
	if (fmt_len >= 5 && memcmp(fmt, "given", 5) == 0) {
		/* A figure firmware may leave out, 0 meaning "not given" (HMAT's
		 * entry 0): the number and the unit after "given", or the words. */
		if (!x) {
			emit_str(o, "not given");
			return;
		}
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x);
		emit_str(o, num);
		emit(o, fmt + 5, fmt_len - 5);
		return;
	}
	if (fmt_len == 2 && memcmp(fmt, "ms", 2) == 0) {
		snprintf(num, sizeof(num), "%llu.%03llu", (unsigned long long)(x / 1000000),
			 (unsigned long long)(x / 1000 % 1000));
	} else if (fmt_len == 3 && memcmp(fmt, "ms1", 3) == 0) {
		snprintf(num, sizeof(num), "%llu.%llu", (unsigned long long)(x / 1000000),
			 (unsigned long long)(x / 100000 % 10));
	} else if (fmt_len == 2 && fmt[0] == '.' && fmt[1] >= '1' && fmt[1] <= '9') {
		unsigned digits = (unsigned)(fmt[1] - '0');
		uint64_t unit = 1;
		for (unsigned d = 0; d < digits; d++)
			unit *= 10;
		snprintf(num, sizeof(num), "%llu.%0*llu", (unsigned long long)(x / unit), (int)digits,
			 (unsigned long long)(x % unit));
	} else if (fmt_len == 2 && memcmp(fmt, "us", 2) == 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)(x / 1000));
	} else if (fmt_len == 3 && memcmp(fmt, "MHz", 3) == 0) {
		snprintf(num, sizeof(num), "%llu.%03llu", (unsigned long long)(x / 1000000),
			 (unsigned long long)(x / 1000 % 1000));
	} else if (fmt_len == 3 && memcmp(fmt, "KiB", 3) == 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)(x >> 10));
	} else if (fmt_len == 3 && memcmp(fmt, "MiB", 3) == 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)(x >> 20));
	} else if (fmt_len == 1 && fmt[0] == 's') {
		snprintf(num, sizeof(num), "%s", x == 1 ? "" : "s");
	} else if (fmt[0] == 'x') {
		unsigned width = 0;
		size_t i = 1;
		while (i < fmt_len && fmt[i] >= '0' && fmt[i] <= '9' && width <= 16)
			width = width * 10 + (unsigned)(fmt[i++] - '0');
		bool less_one = fmt_len - i == 2 && fmt[i] == '-' && fmt[i + 1] == '1';
		if (width < 1 || width > 16 || (i != fmt_len && !less_one)) {
			emit(o, "?", 1);
			return;
		}
		snprintf(num, sizeof(num), "%0*llx", (int)width,
			 (unsigned long long)(less_one ? x - 1 : x));
	} else {
		emit(o, "?", 1);
		return;
	}
	emit_str(o, num);
}

/*
 * A column width at the end of a format, ",W" (right-aligned) or ",-W"
 * (left-aligned), W 1..RECORD_LINE_BYTES: stored in @width and @left; returns
 * the length of the format without it.
 */
static size_t take_width(const char *fmt, size_t fmt_len, unsigned *width, bool *left)
{
	size_t i = fmt_len;
	unsigned w = 0, scale = 1;

	while (i > 0 && fmt[i - 1] >= '0' && fmt[i - 1] <= '9' && scale <= 1000) {
		w += (unsigned)(fmt[i - 1] - '0') * scale;
		scale *= 10;
		i--;
	}
	if (i == fmt_len || w == 0 || w > RECORD_LINE_BYTES)
		return fmt_len;
	bool minus = i > 0 && fmt[i - 1] == '-';
	if (minus)
		i--;
	if (i == 0 || fmt[i - 1] != ',')
		return fmt_len;
	*width = w;
	*left = minus;
	return i - 1;
}

/* Pad the text written since @from to @width columns, with spaces after it
 * (@left) or before it; cut at the end of the buffer as printf would be. */
static void pad(struct out *o, size_t from, unsigned width, bool left)
{
	size_t len = o->len - from;

	if (len >= width)
		return;
	size_t spaces = width - len, room = o->cap - from;
	size_t total = width < room ? width : room;
	if (left) {
		memset(o->buf + o->len, ' ', total - len);
	} else {
		size_t kept = total > spaces ? total - spaces : 0;
		memmove(o->buf + from + spaces, o->buf + from, kept);
		memset(o->buf + from, ' ', total < spaces ? total : spaces);
	}
	o->len = from + total;
}

size_t rec_render(const struct record *r, const char *tmpl, char *out, size_t out_bytes)
{
	struct out o = { .buf = out, .cap = out_bytes ? out_bytes - 1 : 0, .len = 0 };

	if (!out_bytes)
		return 0;
	for (const char *p = tmpl; *p;) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			emit(&o, p, 1);
			p += 2;
			continue;
		}
		const char *close = p[0] == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			emit(&o, p++, 1);
			continue;
		}
		const char *key = p + 1, *colon = memchr(key, ':', (size_t)(close - key));
		size_t key_len = (size_t)((colon ? colon : close) - key);
		const char *fmt = colon ? colon + 1 : close;
		const char *v;
		size_t n;

		size_t fmt_len = (size_t)(close - fmt);
		unsigned width = 0;
		bool left = false;
		fmt_len = take_width(fmt, fmt_len, &width, &left);
		if (lookup(r, key, key_len, &v, &n)) {
			size_t from = o.len;
			render_value(&o, v, n, fmt, fmt_len);
			pad(&o, from, width, left);
		} else {
			emit(&o, p, (size_t)(close - p));
			emit(&o, "?}", 2);
		}
		p = close + 1;
	}
	out[o.len] = '\0';
	return o.len;
}

#ifdef MEMBOOT_HOST
/* The kernel's record_report() is the console's (kernel/services/console/out/emit.c):
 * it keeps the record for the log ring and renders the line when it is
 * printed. On the host counter values are taken as nanoseconds. */
static uint64_t host_counter_identity(uint64_t v)
{
	return v;
}

void record_report(struct record *r, enum log_level level, const char *tmpl)
{
	if (rec_has_counter(r)) {
		static const struct rec_counter_clock same = { host_counter_identity, host_counter_identity };
		static struct record resolved;

		rec_resolve_counter(r, &resolved, &same);
		*r = resolved;
	}
	record_report_now(r, level, tmpl);
}
#endif

void record_report_now(struct record *r, enum log_level level, const char *tmpl)
{
	char line[RECORD_LINE_BYTES];

	rec_render(r, tmpl, line, sizeof(line));
	log_printf(level, "%s", line);
	record_emit(r);
}

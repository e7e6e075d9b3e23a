/*
 * test_record.c: the JSON record builder (kernel/services/report/record.c).
 *
 * Whole lines are compared byte for byte; records that overflow the buffer
 * are checked with a small strict JSON validator written here, at every
 * possible cut point of a few record shapes.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/services/report/record.h"
#include "tests/host/host_support.h"

#define PREFIX_LEN (sizeof(RECORD_PREFIX) - 1)
#define TRUNC_MARK ",\"truncated\":true}"

static struct record r;

/* ---- a strict JSON validator (RFC 8259 grammar, no extensions) --------- */

struct js {
	const char *p;
	int depth;
};

static bool js_value(struct js *j);

static void js_ws(struct js *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool js_string(struct js *j)
{
	if (*j->p != '"')
		return false;
	j->p++;
	for (;;) {
		unsigned char c = (unsigned char)*j->p;
		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)   /* also the terminating NUL */
			return false;
		if (c >= 0x80)  /* the builder promises ASCII only */
			return false;
		if (c == '\\') {
			j->p++;
			switch (*j->p) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				j->p++;
				break;
			case 'u':
				for (int i = 1; i <= 4; i++)
					if (!is_hex(j->p[i]))
						return false;
				j->p += 5;
				break;
			default:
				return false;
			}
			continue;
		}
		j->p++;
	}
}

static bool js_digits(struct js *j)
{
	if (!(*j->p >= '0' && *j->p <= '9'))
		return false;
	while (*j->p >= '0' && *j->p <= '9')
		j->p++;
	return true;
}

static bool js_number(struct js *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (!js_digits(j))
		return false;
	if (*j->p == '.') {
		j->p++;
		if (!js_digits(j))
			return false;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!js_digits(j))
			return false;
	}
	return true;
}

static bool js_word(struct js *j, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool js_container(struct js *j, char close, bool object)
{
	j->p++;
	if (++j->depth > 64)
		return false;
	js_ws(j);
	if (*j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		js_ws(j);
		if (object) {
			if (!js_string(j))
				return false;
			js_ws(j);
			if (*j->p++ != ':')
				return false;
		}
		if (!js_value(j))
			return false;
		js_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return false;
		j->p++;
		j->depth--;
		return true;
	}
}

static bool js_value(struct js *j)
{
	js_ws(j);
	switch (*j->p) {
	case '{': return js_container(j, '}', true);
	case '[': return js_container(j, ']', false);
	case '"': return js_string(j);
	case 't': return js_word(j, "true");
	case 'f': return js_word(j, "false");
	case 'n': return js_word(j, "null");
	default:  return js_number(j);
	}
}

/* True if @s is exactly one JSON object and nothing else. */
static bool json_object_valid(const char *s)
{
	struct js j = { .p = s, .depth = 0 };
	js_ws(&j);
	if (*j.p != '{' || !js_value(&j))
		return false;
	js_ws(&j);
	return *j.p == '\0';
}

static void test_validator_itself(void **state)
{
	assert_true(json_object_valid("{}"));
	assert_true(json_object_valid("{\"a\":[1,-2,3.5e+2,\"x\\u00e9\",true,false,null,{}]}"));
	assert_false(json_object_valid("{,\"a\":1}"));
	assert_false(json_object_valid("{\"a\":[1,\"b\":2}"));
	assert_false(json_object_valid("{\"a\":1,}"));
	assert_false(json_object_valid("{\"a\":[1,]}"));
	assert_false(json_object_valid("{\"a\":01}"));
	assert_false(json_object_valid("{\"a\":\"\\x\"}"));
	assert_false(json_object_valid("{\"a\":\"\x01\"}"));
	assert_false(json_object_valid("{\"a\":1}}"));
	assert_false(json_object_valid("{\"a\":1"));
	assert_false(json_object_valid("[1]"));
}

/* Finish @r and check the line: prefix, valid JSON, within the buffer. */
static const char *finish_checked(struct record *rec)
{
	const char *line = rec_finish(rec);
	size_t len = strlen(line);

	assert_ptr_equal(line, rec->buf);
	assert_int_equal(len, rec->len);
	assert_true(len < RECORD_MAX_BYTES);
	assert_memory_equal(line, RECORD_PREFIX, PREFIX_LEN);
	if (!json_object_valid(line + PREFIX_LEN))
		fail_msg("not valid JSON (%zu bytes): ...%s", len,
			 len > 120 ? line + len - 120 : line);
	return line;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- exact output ----------------------------------------------------- */

static void test_simple_record(void **state)
{
	rec_begin(&r, "mem_range");
	rec_hex(&r, "start", 0x100000);
	rec_hex(&r, "end", 0x7ffdf000);
	rec_str(&r, "type", "usable");
	assert_string_equal(finish_checked(&r),
		"MEMBOOT {\"event\":\"mem_range\",\"start\":\"0x100000\",\"end\":\"0x7ffdf000\",\"type\":\"usable\"}");
	assert_false(r.truncated);
}

static void test_every_kind_and_nesting(void **state)
{
	rec_begin(&r, "all");
	rec_str(&r, "s", "hi");
	rec_str(&r, "empty", "");
	rec_str(&r, "null", NULL);
	rec_u64(&r, "u0", 0);
	rec_u64(&r, "umax", UINT64_MAX);
	rec_i64(&r, "imin", INT64_MIN);
	rec_i64(&r, "imax", INT64_MAX);
	rec_i64(&r, "ineg", -1);
	rec_hex(&r, "h0", 0);
	rec_hex(&r, "hmax", UINT64_MAX);
	rec_bool(&r, "t", true);
	rec_bool(&r, "f", false);
	rec_key(&r, "arr");
	rec_open(&r, '[');
	rec_v_u64(&r, 1);
	rec_v_str(&r, "x");
	rec_v_hex(&r, 0xabc);
	rec_v_bool(&r, false);
	rec_v_i64(&r, -5);
	rec_open(&r, '{');
	rec_u64(&r, "a", 1);
	rec_close(&r);
	rec_open(&r, '[');
	rec_close(&r);
	rec_open(&r, '[');
	rec_open(&r, '[');
	rec_v_u64(&r, 2);
	rec_close(&r);
	rec_close(&r);
	rec_close(&r);
	rec_key(&r, "obj");
	rec_open(&r, '{');
	rec_key(&r, "inner");
	rec_open(&r, '{');
	rec_str(&r, "k", "v");
	rec_close(&r);
	rec_key(&r, "e");
	rec_open(&r, '{');
	rec_close(&r);
	rec_close(&r);
	rec_u64(&r, "after", 7);
	assert_string_equal(finish_checked(&r),
		"MEMBOOT {\"event\":\"all\",\"s\":\"hi\",\"empty\":\"\",\"null\":\"\","
		"\"u0\":0,\"umax\":18446744073709551615,"
		"\"imin\":-9223372036854775808,\"imax\":9223372036854775807,\"ineg\":-1,"
		"\"h0\":\"0x0\",\"hmax\":\"0xffffffffffffffff\",\"t\":true,\"f\":false,"
		"\"arr\":[1,\"x\",\"0xabc\",false,-5,{\"a\":1},[],[[2]]],"
		"\"obj\":{\"inner\":{\"k\":\"v\"},\"e\":{}},\"after\":7}");
	assert_int_equal(r.depth, 0);
	assert_false(r.truncated);
}

static void test_finish_closes_open_containers(void **state)
{
	rec_begin(&r, "open");
	rec_key(&r, "a");
	rec_open(&r, '[');
	rec_v_u64(&r, 1);
	rec_open(&r, '{');
	rec_bool(&r, "b", true);
	assert_string_equal(finish_checked(&r),
			    "MEMBOOT {\"event\":\"open\",\"a\":[1,{\"b\":true}]}");

	/* An extra close at top level is ignored. */
	rec_begin(&r, "x");
	rec_close(&r);
	rec_close(&r);
	assert_string_equal(finish_checked(&r), "MEMBOOT {\"event\":\"x\"}");
}

static void test_begin_resets(void **state)
{
	memset(&r, 0x5a, sizeof(r));
	rec_begin(&r, "a");
	rec_key(&r, "l");
	rec_open(&r, '[');
	rec_begin(&r, "b");
	rec_u64(&r, "n", 3);
	assert_string_equal(finish_checked(&r), "MEMBOOT {\"event\":\"b\",\"n\":3}");
}

static void test_escaping(void **state)
{
	rec_begin(&r, "esc");
	rec_str(&r, "q", "say \"hi\"");
	rec_str(&r, "b", "C:\\path\\");
	rec_str(&r, "c", "\n\t\r\x01\x1f");
	rec_str(&r, "d", "\x7f");
	rec_str(&r, "u", "caf\xc3\xa9 \xff");
	rec_str(&r, "k\"ey\\", "v");
	rec_str(&r, "slash", "a/b");
	assert_string_equal(finish_checked(&r),
		"MEMBOOT {\"event\":\"esc\",\"q\":\"say \\\"hi\\\"\",\"b\":\"C:\\\\path\\\\\","
		"\"c\":\"\\u000a\\u0009\\u000d\\u0001\\u001f\",\"d\":\"\\u007f\","
		"\"u\":\"caf\\u00c3\\u00a9 \\u00ff\",\"k\\\"ey\\\\\":\"v\",\"slash\":\"a/b\"}");

	/* Every byte value 1..255 in one string: valid JSON, ASCII only. */
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	rec_begin(&r, "bytes");
	rec_str(&r, "all", all);
	const char *line = finish_checked(&r);
	assert_false(r.truncated);
	for (const char *p = line; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

/* ---- overflow --------------------------------------------------------- */

static void test_overflow_many_fields(void **state)
{
	char key[16];
	rec_begin(&r, "big");
	for (int i = 0; i < 400; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		rec_u64(&r, key, 1000000 + i);
	}
	const char *line = finish_checked(&r);
	assert_true(r.truncated);
	assert_true(ends_with(line, "," TRUNC_MARK + 1) || ends_with(line, TRUNC_MARK));
	assert_true(ends_with(line, TRUNC_MARK));
	/* Only whole fields are kept: the last one is complete. */
	const char *last = strrchr(line, ',');
	assert_non_null(last);
	assert_memory_equal(last, ",\"truncated\":true}", 18);
	assert_true(strlen(line) > RECORD_MAX_BYTES - 100);
	/* k0 .. kN in order, nothing after the cut. */
	assert_non_null(strstr(line, "\"k0\":1000000,\"k1\":1000001"));
	assert_null(strstr(line, "\"k399\""));
}

static void test_overflow_long_string(void **state)
{
	char *s = malloc(5000);
	assert_non_null(s);
	memset(s, 'x', 4999);
	s[4999] = '\0';

	rec_begin(&r, "long");
	rec_u64(&r, "before", 1);
	rec_str(&r, "s", s);
	rec_u64(&r, "after", 2);
	/* The string does not fit: it is dropped whole, with its key. */
	assert_string_equal(finish_checked(&r),
			    "MEMBOOT {\"event\":\"long\",\"before\":1" TRUNC_MARK);

	/* A string of escapes: each \u00XX is six bytes. */
	memset(s, '\x01', 4999);
	rec_begin(&r, "esc");
	rec_str(&r, "s", s);
	assert_string_equal(finish_checked(&r), "MEMBOOT {\"event\":\"esc\"" TRUNC_MARK);

	/* A long key. */
	memset(s, 'k', 4999);
	rec_begin(&r, "key");
	rec_key(&r, s);
	rec_open(&r, '[');
	rec_v_u64(&r, 1);
	rec_close(&r);
	assert_string_equal(finish_checked(&r), "MEMBOOT {\"event\":\"key\"" TRUNC_MARK);
	free(s);
}

/* A command line of any length in the boot record: cut inside its string,
 * the keys after it kept, the line valid JSON. */
static void test_str_cut_keeps_later_keys(void **state)
{
	char *s = malloc(5000);
	const char *line;
	assert_non_null(s);

	for (int esc = 0; esc < 2; esc++) {
		memset(s, esc ? '\x1b' : 'c', 4999);
		s[4999] = '\0';
		rec_begin(&r, "boot");
		rec_u64(&r, "tsc_hz", 2100000000);
		assert_true(rec_str_cut(&r, "cmdline", s, 32));
		rec_bool(&r, "cmdline_record_cut", true);
		line = finish_checked(&r);
		assert_null(strstr(line, "truncated"));
		assert_true(ends_with(line, ",\"cmdline_record_cut\":true}"));
		assert_non_null(strstr(line, "\"tsc_hz\":2100000000,\"cmdline\":\""));
		assert_true(strlen(line) > RECORD_MAX_BYTES - 100);
		/* No escape cut in two: the string ends on a whole \u001b. */
		if (esc)
			assert_non_null(strstr(line, "\\u001b\",\"cmdline_record_cut\""));
	}

	/* A short one is whole and says so. */
	rec_begin(&r, "boot");
	assert_false(rec_str_cut(&r, "cmdline", "a \"b\" c", 32));
	rec_u64(&r, "after", 1);
	assert_string_equal(finish_checked(&r),
			    "MEMBOOT {\"event\":\"boot\",\"cmdline\":\"a \\\"b\\\" c\",\"after\":1}");
	free(s);
}

/* A list of more items than fit (the summary's phases): each item added
 * while rec_room_bytes() says its exact bytes and the count's fit, the rest
 * counted; the record is whole, never cut, and the count is exact. */
static void test_room_lists_what_fits_and_counts_the_rest(void **state)
{
	const unsigned items = 80;
	unsigned listed;
	char item[128];
	const char *line;

	(void)state;
	rec_begin(&r, "summary");
	rec_u64(&r, "total_ns", 123456789012ULL);
	assert_int_equal(rec_room_bytes(&r), RECORD_MAX_BYTES - (RECORD_MAX_DEPTH + 24) - r.len);
	rec_key(&r, "phases");
	rec_open(&r, '[');
	for (listed = 0; listed < items; listed++) {
		size_t bytes = (size_t)snprintf(item, sizeof(item),
						"{\"name\":\"phase%02u\",\"ns\":%llu},", listed,
						123456789012ULL + listed);

		bytes += listed + 1 < items ? sizeof("],\"phases_omitted\":4294967295") : 1;
		if (rec_room_bytes(&r) < bytes)
			break;
		rec_open(&r, '{');
		snprintf(item, sizeof(item), "phase%02u", listed);
		rec_str(&r, "name", item);
		rec_u64(&r, "ns", 123456789012ULL + listed);
		rec_close(&r);
	}
	rec_close(&r);
	assert_true(listed > 10 && listed < items);
	rec_u64(&r, "phases_omitted", items - listed);
	line = finish_checked(&r);
	assert_null(strstr(line, "truncated"));
	snprintf(item, sizeof(item), "}],\"phases_omitted\":%u}", items - listed);
	assert_true(ends_with(line, item));
	/* Tight: the next item would not have fitted with the count after it. */
	assert_true(strlen(line) > RECORD_MAX_BYTES - (RECORD_MAX_DEPTH + 24) - 64);
	/* A truncated record has no room. */
	rec_begin(&r, "x");
	for (unsigned i = 0; i < 400; i++)
		rec_u64(&r, "key", 1234567890);
	assert_true(r.truncated);
	assert_int_equal(rec_room_bytes(&r), 0);
}

static void test_escape_text_for_the_console(void **state)
{
	char out[64];

	assert_int_equal(rec_escape_text(out, sizeof(out), "plain text 0-9 ~"), 16);
	assert_string_equal(out, "plain text 0-9 ~");
	rec_escape_text(out, sizeof(out), "a\x1b[2Jb\x07" "c\\d\xff\x7f\te");
	assert_string_equal(out, "a\\x1b[2Jb\\x07c\\\\d\\xff\\x7f\\x09e");
	/* A full buffer ends on a whole escape, never half of one. */
	assert_int_equal(rec_escape_text(out, 6, "ab\x1b"), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(rec_escape_text(out, 1, "x"), 0);
	assert_string_equal(out, "");
}

static void test_overflow_inside_nesting(void **state)
{
	rec_begin(&r, "nest");
	rec_key(&r, "a");
	rec_open(&r, '[');
	rec_open(&r, '{');
	rec_key(&r, "b");
	rec_open(&r, '[');
	for (int i = 0; i < 1000; i++)
		rec_v_hex(&r, 0x1000 * (uint64_t)i);
	const char *line = finish_checked(&r);
	assert_true(r.truncated);
	assert_true(ends_with(line, "\"]}]" TRUNC_MARK));
}

static void test_depth_limit(void **state)
{
	rec_begin(&r, "deep");
	rec_key(&r, "d");
	for (int i = 0; i < RECORD_MAX_DEPTH; i++)
		rec_open(&r, '[');
	rec_v_u64(&r, 1);
	assert_false(r.truncated);
	rec_open(&r, '[');   /* one too many */
	assert_true(r.truncated);
	assert_string_equal(finish_checked(&r),
			    "MEMBOOT {\"event\":\"deep\",\"d\":[[[[[[[[1]]]]]]]]" TRUNC_MARK);

	/* Objects as deep as allowed, all closed by hand: not truncated. */
	rec_begin(&r, "deep");
	for (int i = 0; i < RECORD_MAX_DEPTH; i++) {
		rec_key(&r, "o");
		rec_open(&r, '{');
	}
	for (int i = 0; i < RECORD_MAX_DEPTH; i++)
		rec_close(&r);
	assert_string_equal(finish_checked(&r),
		"MEMBOOT {\"event\":\"deep\",\"o\":{\"o\":{\"o\":{\"o\":{\"o\":{\"o\":{\"o\":{\"o\":{}}}}}}}}}");
	assert_false(r.truncated);
}

/*
 * Every cut point: a filler string of each length from 1900 up to past the
 * buffer, followed by a few shapes of value. Whatever the builder had to
 * drop, the line is valid JSON, ends with the marker when cut, and stays in
 * the buffer.
 */
static void build_shape(int shape, size_t filler, char *fill)
{
	memset(fill, 'f', filler);
	fill[filler] = '\0';
	rec_begin(&r, "sweep");
	switch (shape) {
	case 0:   /* filler inside an array, then close it */
		rec_key(&r, "a");
		rec_open(&r, '[');
		rec_v_str(&r, fill);
		rec_close(&r);
		rec_u64(&r, "n", 1);
		break;
	case 1:   /* filler at top level, then a nested object */
		rec_str(&r, "s", fill);
		rec_key(&r, "o");
		rec_open(&r, '{');
		rec_bool(&r, "b", true);
		rec_close(&r);
		break;
	case 2:   /* two levels, closing both */
		rec_key(&r, "o");
		rec_open(&r, '{');
		rec_key(&r, "a");
		rec_open(&r, '[');
		rec_v_str(&r, fill);
		rec_close(&r);
		rec_close(&r);
		break;
	case 3:   /* filler then numbers inside an array */
		rec_str(&r, "s", fill);
		rec_key(&r, "a");
		rec_open(&r, '[');
		for (int i = 0; i < 10; i++)
			rec_v_u64(&r, (uint64_t)i);
		rec_close(&r);
		break;
	}
}

static void check_sweep(int shape)
{
	static char fill[RECORD_MAX_BYTES + 64];
	unsigned cut = 0;
	for (size_t filler = 1900; filler < RECORD_MAX_BYTES + 40; filler++) {
		build_shape(shape, filler, fill);
		const char *line = rec_finish(&r);
		size_t len = strlen(line);
		if (len >= RECORD_MAX_BYTES || len != r.len)
			fail_msg("shape %d filler %zu: length %zu", shape, filler, len);
		if (!json_object_valid(line + PREFIX_LEN))
			fail_msg("shape %d filler %zu: not valid JSON: ...%s", shape, filler,
				 line + (len > 60 ? len - 60 : 0));
		if (r.truncated) {
			cut++;
			if (!ends_with(line, TRUNC_MARK))
				fail_msg("shape %d filler %zu: cut without the marker", shape, filler);
		} else if (strstr(line, "truncated")) {
			fail_msg("shape %d filler %zu: marker without a cut", shape, filler);
		}
	}
	assert_true(cut > 0);
}

static void test_sweep_array_close(void **state) { check_sweep(0); }
static void test_sweep_top_level(void **state) { check_sweep(1); }
static void test_sweep_two_levels(void **state) { check_sweep(2); }
static void test_sweep_numbers(void **state) { check_sweep(3); }

/*
 * The close of a container that comes exactly at the limit: the array's last
 * string ends where the usable room ends, so only the ']' does not fit.
 */
static void test_close_at_limit(void **state)
{
	/* "MEMBOOT {" 9 + "\"event\":\"e\"" 11 + ",\"a\":" 5 + "[" 1 + string + 2 */
	size_t room = RECORD_MAX_BYTES - (RECORD_MAX_DEPTH + 24);
	size_t n = room - (9 + 11 + 5 + 1 + 2);
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, 's', n);
	s[n] = '\0';
	rec_begin(&r, "e");
	rec_key(&r, "a");
	rec_open(&r, '[');
	rec_v_str(&r, s);
	assert_false(r.truncated);
	assert_int_equal(r.len, room);
	rec_close(&r);
	const char *line = rec_finish(&r);
	free(s);
	if (!json_object_valid(line + PREFIX_LEN))
		fail_msg("not valid JSON: ...%s", line + strlen(line) - 40);
	assert_true(ends_with(line, "\"]" TRUNC_MARK) || ends_with(line, "\"]}"));
}

/* An event name too long for the buffer: still one valid JSON object. */
static void test_event_too_long(void **state)
{
	char *ev = malloc(3000);
	assert_non_null(ev);
	memset(ev, 'e', 2999);
	ev[2999] = '\0';
	rec_begin(&r, ev);
	rec_u64(&r, "n", 1);
	const char *line = rec_finish(&r);
	free(ev);
	assert_true(r.truncated);
	assert_true(ends_with(line, "\"truncated\":true}"));
	if (!json_object_valid(line + PREFIX_LEN))
		fail_msg("not valid JSON: %s", line);
}

/* ---- record_report(): the human line rendered from the record ---------- */

static const char *render(const char *tmpl)
{
	static char out[RECORD_LINE_BYTES];
	size_t n = rec_render(&r, tmpl, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	return out;
}

static void test_render_values_and_formats(void **state)
{
	rec_begin(&r, "node_init");
	rec_u64(&r, "node", 1);
	rec_str(&r, "policy", "deferred");
	rec_u64(&r, "ns", 4704123);
	rec_u64(&r, "pages", 261067);
	rec_u64(&r, "threads", 2);
	rec_bool(&r, "ok", true);
	rec_i64(&r, "delta", -5);
	assert_string_equal(render("node {node} {policy} pages initialised in {ns:ms}ms "
				   "({pages} pages, {threads} thread{threads:s})"),
			    "node 1 deferred pages initialised in 4.704ms (261067 pages, 2 threads)");
	assert_string_equal(render("{ok} {delta} {node} thread{node:s}"), "true -5 1 thread");
	/* Milliseconds keep three digits, also below one. */
	rec_begin(&r, "phase");
	rec_u64(&r, "a", 999);
	rec_u64(&r, "b", 1000000);
	rec_u64(&r, "c", 12345678901ULL);
	assert_string_equal(render("{a:ms} {b:ms} {c:ms}"), "0.000 1.000 12345.678");
	/* Hundredths (a share in 1/10000 as a percentage) and one-decimal ms. */
	assert_string_equal(render("{a:.2}% {b:.2} {a:ms1} {c:ms1}"),
			    "9.99% 10000.00 0.0 12345.6");
	assert_string_equal(render("{a:.4}% {c:.9} {a:.1} {c:MHz} MHz"),
			    "0.0999% 12.345678901 99.9 12345.678 MHz");
	assert_string_equal(render("{a:.0} {a:.10} {a:.}"), "? ? ?");
	assert_string_equal(render("{a:us} {b:us} {c:us} us"), "0 1000 12345678 us");
}

static void test_render_sizes_and_hex(void **state)
{
	rec_begin(&r, "mem_range");
	rec_hex(&r, "start", 0x100000);
	rec_hex(&r, "end", 0x3ffdf000);
	rec_u64(&r, "bytes", 1073217536ULL);
	rec_u64(&r, "big", UINT64_MAX);
	rec_str(&r, "type", "usable");
	assert_string_equal(render("[mem 0x{start:x16}-0x{end:x16-1}] {type}"),
			    "[mem 0x0000000000100000-0x000000003ffdefff] usable");
	assert_string_equal(render("{start} {start:x8} {bytes:KiB}K {bytes:MiB} MiB"),
			    "0x100000 00100000 1048064K 1023 MiB");
	assert_string_equal(render("{big:x16} {big}"), "ffffffffffffffff 18446744073709551615");
	/* A decimal number in hex and a hex string in decimal formats. */
	assert_string_equal(render("{bytes:x1} {end:KiB}"), "3ff80000 1048444");
}

static void test_render_lists(void **state)
{
	rec_begin(&r, "node_init");
	rec_u64(&r, "ns", 1848999);
	rec_key(&r, "busy_ns");
	rec_open(&r, '[');
	rec_v_u64(&r, 3199999);
	rec_v_u64(&r, 40000);
	rec_v_u64(&r, 12000000);
	rec_close(&r);
	rec_key(&r, "none");
	rec_open(&r, '[');
	rec_close(&r);
	rec_key(&r, "names");
	rec_open(&r, '[');
	rec_v_str(&r, "a,b");
	rec_v_str(&r, "c]");
	rec_close(&r);
	rec_hex(&r, "addr", 0x1000);
	/* One decimal, cut: 3.19 ms is "3.1", as the busy times always were. */
	assert_string_equal(render("{ns:ms1} busy {busy_ns:ms1[+]} ms"), "1.8 busy 3.1+0.0+12.0 ms");
	assert_string_equal(render("{busy_ns:[, ]}|{none:ms[+]}|{names:[ / ]}"),
			    "3199999, 40000, 12000000||a,b / c]");
	assert_string_equal(render("{busy_ns:x4[ ]}"), "30d3ff 9c40 b71b00");
	/* Not an array, or elements a format cannot read: "?", never a crash. */
	assert_string_equal(render("{ns:[+]} {names:ms[+]} {addr:ms1[+]}"), "? ?+? ?");
}

static void test_render_columns(void **state)
{
	rec_begin(&r, "pt_bench");
	rec_str(&r, "label", "4K (THP off)");
	rec_str(&r, "locks", "split");
	rec_u64(&r, "ns", 12345678);
	rec_u64(&r, "faults", 512);
	rec_key(&r, "l");
	rec_open(&r, '[');
	rec_v_u64(&r, 1);
	rec_v_u64(&r, 2);
	rec_close(&r);
	/* As printf's "%-13s %-6s %10s %8llu" would set them. */
	assert_string_equal(render("|{label:,-13}|{locks:,-6}|{ns:ms,10}|{faults:,8}|"),
			    "|4K (THP off) |split |    12.345|     512|");
	/* A value wider than its column is never cut; a list takes one. */
	assert_string_equal(render("{label:,3}|{l:[+],5}|{l:[,]}"), "4K (THP off)|  1+2|1,2");
	/* Not a width: a comma without digits, zero, or no comma. */
	assert_string_equal(render("{faults:,} {faults:,0} {faults:-3}"), "? ? ?");
	/* Padding stops at the end of the buffer. */
	char small[8];
	assert_int_equal(rec_render(&r, "{faults:,20}", small, sizeof(small)), 7);
	assert_string_equal(small, "       ");
}

static void test_render_mistakes_show(void **state)
{
	rec_begin(&r, "phase");
	rec_str(&r, "name", "acpi");
	rec_u64(&r, "ns", 5);
	rec_key(&r, "list");
	rec_open(&r, '[');
	rec_v_u64(&r, 1);
	rec_v_str(&r, "a,b}");
	rec_close(&r);
	rec_u64(&r, "after", 7);
	/* Missing keys, unknown formats and non-numbers never pass silently. */
	assert_string_equal(render("{nope} {ns:parsecs} {name:ms} {ns:x17} {ns:x4-2} {ns:x}"),
			    "{nope?} ? ? ? ? ?");
	/* Values after a nested one are found; the nested one prints as JSON. */
	assert_string_equal(render("{list} {after}"), "[1,\"a,b}\"] 7");
	/* Braces: doubled ones are literal, a lone one is copied. */
	assert_string_equal(render("{{x}} {name} { } }"), "{x} acpi { ?} }");
	/* A key is matched whole, not as a prefix of another. */
	assert_string_equal(render("{n} {na}"), "{n?} {na?}");
}

static void test_render_strings_stay_printable(void **state)
{
	rec_begin(&r, "boot");
	rec_str(&r, "loader", "GRUB \"2\"\\x\x01\xff");
	assert_string_equal(render("'{loader}'"), "'GRUB \"2\"\\x\\x01\\xff'");
}

static void test_render_cuts_at_buffer(void **state)
{
	char small[8];
	rec_begin(&r, "phase");
	rec_str(&r, "name", "a long name");
	assert_int_equal(rec_render(&r, "phase {name}", small, sizeof(small)), 7);
	assert_string_equal(small, "phase a");
	assert_int_equal(rec_render(&r, "x", small, 1), 0);
	assert_string_equal(small, "");
}

static void test_render_after_finish_and_truncation(void **state)
{
	rec_begin(&r, "phase");
	rec_u64(&r, "ns", 42);
	for (int i = 0; i < 400; i++)
		rec_u64(&r, "filler", (uint64_t)i);
	rec_u64(&r, "late", 1);   /* cut off: the record is full */
	rec_finish(&r);
	assert_true(r.truncated);
	assert_string_equal(render("{ns} {late} {truncated}"), "42 {late?} true");
}

static void test_report_prints_line_then_record(void **state)
{
	host_log_reset();
	rec_begin(&r, "phase");
	rec_str(&r, "name", "acpi");
	rec_u64(&r, "start_ns", 10);
	rec_u64(&r, "ns", 1234000);
	record_report(&r, LOG_WARN, "phase {name}: {ns:ms} ms");
	assert_int_equal(host_log_total(), 2);
	assert_string_equal(host_log_line(0), "phase acpi: 1.234 ms");
	assert_string_equal(host_log_line(1),
		"MEMBOOT {\"event\":\"phase\",\"name\":\"acpi\",\"start_ns\":10,\"ns\":1234000}");
	assert_int_equal(host_log_count(LOG_WARN), 1);
}

/* TSC values stay cycles until printed; then each becomes nanoseconds by
 * the clock given, and the line renders from the converted record. */
static uint64_t half(uint64_t cycles)
{
	return cycles / 2;
}

static uint64_t since_100(uint64_t counter)
{
	return counter > 100 ? (counter - 100) * 10 : 0;
}

static void test_tsc_values_convert_when_printed(void **state)
{
	static struct record out;
	const struct rec_counter_clock clock = { half, since_100 };
	char line[128];

	rec_begin(&r, "phase");
	rec_str(&r, "name", "acpi\x01" "d");        /* a string with the marker byte */
	rec_counter_stamp(&r, "start_ns", 150);
	rec_cycles_ns(&r, "ns", 2468000);
	rec_key(&r, "busy_ns");
	rec_open(&r, '[');
	rec_v_cycles_ns(&r, UINT64_MAX);
	rec_v_cycles_ns(&r, 0);
	rec_close(&r);
	assert_true(rec_has_counter(&r));
	rec_finish(&r);
	rec_resolve_counter(&r, &out, &clock);
	assert_false(rec_has_counter(&out));
	assert_string_equal(out.buf, "MEMBOOT {\"event\":\"phase\",\"name\":\"acpi\\u0001d\","
			    "\"start_ns\":500,\"ns\":1234000,\"busy_ns\":[9223372036854775807,0]}");
	assert_true(out.len < r.len);
	assert_true(json_object_valid(out.buf + PREFIX_LEN));
	rec_render(&out, "phase {name}: {ns:ms} ms at {start_ns}", line, sizeof(line));
	assert_string_equal(line, "phase acpi\\x01d: 1.234 ms at 500");
	/* On the host, record_report() takes cycles as nanoseconds. */
	host_log_reset();
	rec_begin(&r, "phase");
	rec_cycles_ns(&r, "ns", 1234000);
	record_report(&r, LOG_INFO, "{ns:ms} ms");
	assert_string_equal(host_log_line(0), "1.234 ms");
	assert_string_equal(host_log_line(1), "MEMBOOT {\"event\":\"phase\",\"ns\":1234000}");
}

static void test_event_names_known(void **state)
{
	assert_true(record_event_known("done"));
	assert_true(record_event_known("node_init"));
	assert_true(record_event_known("boot"));
	assert_false(record_event_known("don"));
	assert_false(record_event_known("done "));
	assert_false(record_event_known(""));
	assert_false(record_event_known(NULL));
}

/* ---- a record at the limit; CPU lists as ranges --------------------------- */

/* The largest value that fits leaves a whole record; one byte more is cut,
 * and the cut is never silent: an error line names the event. */
static void test_record_at_the_limit(void **state)
{
	static char big[RECORD_MAX_BYTES];
	size_t len0, fit;

	rec_begin(&r, "limit");
	len0 = r.len;
	/* ,"s":"..." ends where put() stops: RECORD_MAX_BYTES less the reserve
	 * kept for the closers (RECORD_MAX_DEPTH + 24). */
	fit = RECORD_MAX_BYTES - (RECORD_MAX_DEPTH + 24) - len0 - strlen(",\"s\":\"\"");
	memset(big, 'x', fit);
	big[fit] = '\0';
	rec_str(&r, "s", big);
	assert_false(r.truncated);
	host_log_reset();
	record_emit(&r);
	assert_int_equal(host_log_count(LOG_ERR), 0);
	assert_true(ends_with(r.buf, "xx\"}"));

	rec_begin(&r, "limit");
	big[fit] = 'x';
	big[fit + 1] = '\0';
	rec_str(&r, "s", big);
	assert_true(r.truncated);
	host_log_reset();
	record_emit(&r);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	assert_true(host_log_contains("record: limit did not fit in its 2048-byte buffer"));
	assert_true(host_log_contains("MEMBOOT {\"event\":\"limit\",\"truncated\":true}"));
}

static bool in_set(uint32_t id, const void *ctx)
{
	const uint8_t *set = ctx;
	return set[id];
}

static void test_cpulist_ranges(void **state)
{
	static uint8_t set[8192];
	char out[64];

	memset(set, 1, 512);
	assert_true(rec_format_cpulist(out, sizeof(out), 512, in_set, set));
	assert_string_equal(out, "0-511");
	set[4] = set[6] = set[7] = 0;
	assert_true(rec_format_cpulist(out, sizeof(out), 512, in_set, set));
	assert_string_equal(out, "0-3,5,8-511");
	memset(set, 0, 512);
	assert_true(rec_format_cpulist(out, sizeof(out), 512, in_set, set));
	assert_string_equal(out, "");
	set[511] = 1;
	assert_true(rec_format_cpulist(out, sizeof(out), 512, in_set, set));
	assert_string_equal(out, "511");
	/* Too small: cut at a whole item, and said so. */
	memset(set, 0, sizeof(set));
	for (uint32_t i = 0; i < 40; i += 2)
		set[i] = 1;
	assert_false(rec_format_cpulist(out, 10, 40, in_set, set));
	assert_string_equal(out, "0,2,4,6,8");

	/* An smp record of 512 CPUs in 4 nodes, with every other key, fits
	 * whole (a list of 512 ids is about 2,000 bytes and did not). */
	memset(set, 1, 512);
	static char list[RECORD_MAX_BYTES / 2];
	assert_true(rec_format_cpulist(list, sizeof(list), 512, in_set, set));
	rec_begin(&r, "smp");
	rec_u64(&r, "nodes", 4);
	rec_u64(&r, "cpus", 512);
	rec_u64(&r, "failed", 0);
	rec_u64(&r, "skipped", 0);
	rec_str(&r, "bringup", "parallel");
	rec_u64(&r, "ns", 123456789012ULL);
	rec_str(&r, "online", list);
	assert_false(r.truncated);
	assert_non_null(strstr(rec_finish(&r), "\"online\":\"0-511\"}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator_itself),
		cmocka_unit_test(test_simple_record),
		cmocka_unit_test(test_every_kind_and_nesting),
		cmocka_unit_test(test_finish_closes_open_containers),
		cmocka_unit_test(test_begin_resets),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_overflow_many_fields),
		cmocka_unit_test(test_overflow_long_string),
		cmocka_unit_test(test_str_cut_keeps_later_keys),
		cmocka_unit_test(test_room_lists_what_fits_and_counts_the_rest),
		cmocka_unit_test(test_escape_text_for_the_console),
		cmocka_unit_test(test_overflow_inside_nesting),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_sweep_array_close),
		cmocka_unit_test(test_sweep_top_level),
		cmocka_unit_test(test_sweep_two_levels),
		cmocka_unit_test(test_sweep_numbers),
		cmocka_unit_test(test_close_at_limit),
		cmocka_unit_test(test_event_too_long),
		cmocka_unit_test(test_render_values_and_formats),
		cmocka_unit_test(test_render_sizes_and_hex),
		cmocka_unit_test(test_render_lists),
		cmocka_unit_test(test_render_columns),
		cmocka_unit_test(test_render_mistakes_show),
		cmocka_unit_test(test_render_strings_stay_printable),
		cmocka_unit_test(test_render_cuts_at_buffer),
		cmocka_unit_test(test_render_after_finish_and_truncation),
		cmocka_unit_test(test_report_prints_line_then_record),
		cmocka_unit_test(test_event_names_known),
		cmocka_unit_test(test_tsc_values_convert_when_printed),
		cmocka_unit_test(test_record_at_the_limit),
		cmocka_unit_test(test_cpulist_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

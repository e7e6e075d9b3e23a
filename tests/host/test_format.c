/*
 * test_format.c: the kernel's snprintf (kernel/services/report/format.c) against the host C
 * library's, conversion by conversion and on generated directives: the same
 * text and the same return value, at every buffer size.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "kernel/services/report/format.h"

/* Both formatters on one directive and argument list; every truncation
 * of the output too (size 0 writes nothing, size 1 only the NUL). */
static void check_v(const char *fmt, va_list ap)
{
	char want[512], got[512];
	va_list a1, a2;
	int wn, gn;

	va_copy(a1, ap);
	wn = vsnprintf(want, sizeof(want), fmt, a1);
	va_end(a1);
	va_copy(a2, ap);
	gn = format_vsnprintf(got, sizeof(got), fmt, a2);
	va_end(a2);
	if (wn != gn || strcmp(want, got) != 0)
		fail_msg("format \"%s\": libc \"%s\" (%d), kernel \"%s\" (%d)", fmt, want, wn, got, gn);
	for (size_t size = 0; size <= (size_t)wn + 1 && size < sizeof(got); size++) {
		memset(got, 'Z', sizeof(got));
		va_copy(a2, ap);
		gn = format_vsnprintf(got, size, fmt, a2);
		va_end(a2);
		assert_int_equal(gn, wn);
		if (size == 0) {
			assert_int_equal(got[0], 'Z');
			continue;
		}
		assert_int_equal(strlen(got), size - 1 < (size_t)wn ? size - 1 : (size_t)wn);
		assert_memory_equal(got, want, strlen(got));
		assert_int_equal(got[size], 'Z');   /* nothing past the buffer */
	}
}

static void check(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_v(fmt, ap);
	va_end(ap);
}

static void test_literals_and_percent(void **state)
{
	check("");
	check("plain text");
	check("100%% free");
	check("%%%%%d%%", 5);
}

static void test_signed(void **state)
{
	check("%d %i %d %d", 0, -1, INT_MAX, INT_MIN);
	check("%hhd %hd %ld %lld", 300, 70000, LONG_MIN, LLONG_MIN);
	check("%jd %zd %td", (intmax_t)-5, (ssize_t)-7, (ptrdiff_t)-9);
	check("[%5d] [%-5d] [%05d] [%+d] [% d] [%+05d] [% 05d]", 42, 42, -42, 42, 42, -42, 42);
	check("[%.3d] [%8.3d] [%-8.3d] [%08.3d] [%.0d] [%5.0d] [%+.0d]", 7, -7, 7, 7, 0, 0, 0);
}

static void test_unsigned_bases(void **state)
{
	check("%u %u %lu %llu", 0u, UINT_MAX, ULONG_MAX, ULLONG_MAX);
	check("%x %X %lx %llX %016llx %#llx %#X", 0xbeefu, 0xbeefu, 0xdeadbeefUL,
	      0x0123456789abcdefULL, 0x12ULL, 0x1234ULL, 0xabu);
	check("[%#x] [%#o] [%#.0o] [%#5o] [%o] [%#08x] [%#-8x]", 0u, 0u, 0u, 8u, 8u, 0x1fu, 0x1fu);
	check("%hhu %hu %zu %zx %ju", 300u, 70000u, (size_t)123456789, (size_t)0xffff, (uintmax_t)1);
	check("[%.5x] [%8.5X] [%-8.2u] [%08.5u] [%.0x] [%#.3o]", 0xabu, 0xabu, 3u, 3u, 0u, 7u);
}

static void test_width_and_precision_from_arguments(void **state)
{
	check("[%*d] [%-*d] [%*d]", 6, 12, 6, 12, -6, 12);
	check("[%.*d] [%.*d] [%*.*u]", 4, 3, -1, 3, 7, 5, 9u);
	check("[%0*llx]", 16, 0x1234ULL);
	check("[%.*s] [%.*s] [%-*.*s]", 3, "abcdef", -2, "abc", 6, 2, "xyz");
}

static void test_chars_and_strings(void **state)
{
	check("%c%c%c", 'a', 'b', 'c');
	check("[%3c] [%-3c]", 'x', 'y');
	check("[%s] [%10s] [%-10s] [%.2s] [%8.3s] [%-6.6s]", "str", "str", "str", "str", "string",
	      "abcdefgh");
	check("[%s]", "");
}

static void test_precision_bounds_the_read(void **state)
{
	/* A string without its NUL, read no further than the precision. */
	char four[4] = { 'a', 'b', 'c', 'd' };
	char out[16];

	assert_int_equal(format_snprintf(out, sizeof(out), "%.4s|%.2s", four, four), 7);
	assert_string_equal(out, "abcd|ab");
}

/* The directives below are wrong on purpose: the compiler's format check
 * is off for them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"
/* What the host library prints differently by design (format.h): newlib's
 * forms, which the kernel keeps. */
static void test_pointer_null_and_unsupported(void **state)
{
	char out[64];

	format_snprintf(out, sizeof(out), "%p %p", (void *)0, (void *)0x1000);
	assert_string_equal(out, "0x0 0x1000");
	format_snprintf(out, sizeof(out), "[%12p] [%-8p]", (void *)0xabc, (void *)0x1);
	assert_string_equal(out, "[       0xabc] [0x1     ]");
	format_snprintf(out, sizeof(out), "%s", (char *)NULL);
	assert_string_equal(out, "(null)");
	/* Not supported: the directive shows as written, and no argument is
	 * taken for it. */
	assert_int_equal(format_snprintf(out, sizeof(out), "a %5.2f b %d", 7), 11);
	assert_string_equal(out, "a %5.2f b 7");
	format_snprintf(out, sizeof(out), "end %");
	assert_string_equal(out, "end %");
	format_snprintf(out, sizeof(out), "%Lq|%u", 3u);
	assert_string_equal(out, "%Lq|3");
}
#pragma GCC diagnostic pop

/* A small deterministic generator: the same directives every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_generated_directives(void **state)
{
	static const char *const flag_sets[] = { "", "-", "+", " ", "#", "0", "-+", "+0", " 0",
						 "#0", "-#", "#+ 0" };
	static const char *const lengths[] = { "", "hh", "h", "l", "ll", "j", "z", "t" };
	static const char convs[] = "diuxXo";

	for (int i = 0; i < 20000; i++) {
		char fmt[64];
		const char *flags = flag_sets[rnd() % (sizeof(flag_sets) / sizeof(flag_sets[0]))];
		const char *len = lengths[rnd() % (sizeof(lengths) / sizeof(lengths[0]))];
		char conv = convs[rnd() % (sizeof(convs) - 1)];
		int width = (int)(rnd() % 4 == 0 ? -1 : (int)(rnd() % 30));
		int prec = (int)(rnd() % 3 == 0 ? -1 : (int)(rnd() % 25));
		char wbuf[8] = "", pbuf[8] = "";

		/* Signed flags only where C gives them a meaning. */
		if (conv != 'd' && conv != 'i' && (strchr(flags, '+') || strchr(flags, ' ')))
			flags = "";
		if ((conv == 'd' || conv == 'i' || conv == 'u') && strchr(flags, '#'))
			flags = "";
		if (width >= 0)
			snprintf(wbuf, sizeof(wbuf), "%d", width);
		if (prec >= 0)
			snprintf(pbuf, sizeof(pbuf), ".%d", prec);
		snprintf(fmt, sizeof(fmt), "<%%%s%s%s%s%c>", flags, wbuf, pbuf, len, conv);

		uint64_t v = rnd();
		switch (rnd() % 4) {       /* small, edge and any values */
		case 0: v %= 1000; break;
		case 1: v = (rnd() & 1) ? 0 : UINT64_MAX; break;
		case 2: v = (uint64_t)INT64_MIN; break;
		default: break;
		}
		if (!strcmp(len, "") || !strcmp(len, "hh") || !strcmp(len, "h"))
			check(fmt, (int)v);
		else
			check(fmt, (long long)v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals_and_percent),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_unsigned_bases),
		cmocka_unit_test(test_width_and_precision_from_arguments),
		cmocka_unit_test(test_chars_and_strings),
		cmocka_unit_test(test_precision_bounds_the_read),
		cmocka_unit_test(test_pointer_null_and_unsupported),
		cmocka_unit_test(test_generated_directives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

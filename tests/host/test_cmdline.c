/*
 * test_cmdline.c: the command-line parser (kernel/services/cmdline.c) against a local
 * table with one parameter of every type, and every subsystem's own table of
 * keys (each in its subsystem's pure file: docs/cmdline.md's table), all pure
 * sources the kernel links too.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arch/smp.h"
#include "x86/apic_mode.h"
#include "kernel/services/console/options.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/exit.h"
#include "kernel/services/log.h"
#include "kernel/services/report/bootreport_keys.h"
#include "mm/meminit_settings.h"
#include "mm/mminit.h"
#include "mm/memtest.h"
#include "mm/alloc/pcp.h"
#include "kernel/selftest/select.h"
#include "kernel/selftest/list.h"
#include "kernel/services/smp_settings.h"
#include "mm/pt/pt.h"
#include "kernel/vm/vm_settings.h"
#include "kernel/bench/bench.h"
#include "mm/alloc/alloc.h"
#include "mm/hugetlb/hugetlb.h"
#include "kernel/services/watchdog/watchdog.h"
#include "tests/host/host_support.h"

/* ---- a local table of every type -------------------------------------- */

static bool v_flag, v_opt;
static uint64_t v_count, v_big, v_mem, v_even;
static unsigned v_mode;
static char v_name[16], v_long[1024];

static const char *const modes[] = { "fast", "slow", "off", NULL };

static bool parse_even(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t v;
	if (!value) {
		snprintf(err, err_bytes, "an even number");
		return false;
	}
	if (!cmdline_parse_u64(value, &v) || v % 2) {
		snprintf(err, err_bytes, "an even number, not %s", value);
		return false;
	}
	*(uint64_t *)ptr = v;
	return true;
}

static const struct param table[] = {
	{ .key = "t.flag", .type = PARAM_BOOL, .ptr = &v_flag, .help = "a flag" },
	{ .key = "t.opt", .type = PARAM_BOOL, .ptr = &v_opt, .help = "on by default" },
	{ .key = "t.count", .type = PARAM_U64, .ptr = &v_count, .min = 1, .max = 100 },
	{ .key = "t.big", .type = PARAM_U64, .ptr = &v_big, .min = 0, .max = UINT64_MAX },
	{ .key = "t.mem", .type = PARAM_SIZE, .ptr = &v_mem, .min = 4096, .max = 1ULL << 40 },
	{ .key = "t.mode", .type = PARAM_ENUM, .ptr = &v_mode, .choices = modes },
	{ .key = "t.name", .type = PARAM_STR, .ptr = v_name, .max = sizeof(v_name) },
	{ .key = "t.long", .type = PARAM_STR, .ptr = v_long, .max = sizeof(v_long) },
	{ .key = "t.even", .type = PARAM_FUNC, .ptr = &v_even, .fn = parse_even },
};
#define NT (sizeof(table) / sizeof(table[0]))

/* Every subsystem's settings as the kernel starts, restored before each test. */
static struct hugetlb_settings hugetlb_default;
static struct console_options console_default;
static struct selftest_settings selftest_default;
static struct smp_settings smp_default;
static struct meminit_settings meminit_default;
static struct pcp_settings pcp_default;
static struct vm_settings vm_default;
static struct bootreport_settings bootreport_default;

/* Every table of keys, as main.c's cmdline_tables[] lists them. */
static const struct param_table *const all_tables[] = {
	&console_param_table, &console_levels_param_table, &exit_param_table, &bootreport_param_table,
	&smp_param_table, &arch_smp_param_table,
	&alloc_param_table, &meminit_param_table, &hugetlb_param_table, &pcp_param_table,
	&selftest_param_table, &vm_param_table, &bench_param_table, &memtest_param_table,
	&watchdog_param_table,
};
#define NTABLES (sizeof(all_tables) / sizeof(all_tables[0]))

/* The kernel's tables, as main.c parses them. */
static struct cmdline_result params_parse(const char *line)
{
	return cmdline_parse_tables(line, all_tables, NTABLES);
}

static int setup(void **state)
{
	(void)state;
	host_log_reset();
	v_flag = false;
	v_opt = true;
	v_count = 10;
	v_big = 0;
	v_mem = 1 << 20;
	v_even = 2;
	v_mode = 0;
	strcpy(v_name, "default");
	strcpy(v_long, "default");
	hugetlb_settings = hugetlb_default;
	console_cmdline = console_default;
	selftest_settings = selftest_default;
	smp_settings = smp_default;
	meminit_settings = meminit_default;
	pcp_settings = pcp_default;
	vm_settings = vm_default;
	bootreport_settings = bootreport_default;
	watchdog_settings = (struct watchdog_settings){ .off = false, .seconds = 0 };
	exit_method = EXIT_METHOD_AUTO;
	apic_request = APIC_REQUEST_AUTO;
	/* memboot.alloc's name is private to mm/alloc/alloc.c: set it back through its key. */
	cmdline_parse_tables("memboot.alloc=buddy", all_tables, NTABLES);
	host_log_reset();
	return 0;
}

/* The test table alone, as one subsystem's. */
static struct cmdline_result parse(const char *line)
{
	static const struct param_table test_table = { .owner = "t", .params = table, .count = NT };
	const struct param_table *const tables[] = { &test_table };

	return cmdline_parse_tables(line, tables, 1);
}

static void assert_result(struct cmdline_result r, unsigned words, unsigned applied,
			  unsigned unknown, unsigned invalid)
{
	if (r.words != words || r.applied != applied || r.unknown != unknown ||
	    r.invalid != invalid)
		fail_msg("result words %u applied %u unknown %u invalid %u, expected %u %u %u %u",
			 r.words, r.applied, r.unknown, r.invalid, words, applied, unknown,
			 invalid);
}

/* ---- BOOL ------------------------------------------------------------- */

/* Keys spread over several subsystems' tables: each reaches its own table,
 * and a key unknown to all of them is still reported once. */
static void test_tables_of_several_subsystems(void **state)
{
	static bool a_on;
	static uint64_t b_n = 3;
	static const struct param a_params[] = {
		{ .key = "a.on", .type = PARAM_BOOL, .ptr = &a_on, .help = "a" },
	};
	static const struct param b_params[] = {
		{ .key = "b.n", .type = PARAM_U64, .ptr = &b_n, .min = 1, .max = 9, .help = "b" },
	};
	static PARAM_TABLE(a_table, "a", a_params);
	static PARAM_TABLE(b_table, "b", b_params);
	const struct param_table *const tables[] = { &a_table, &b_table };

	a_on = false;
	b_n = 3;
	assert_result(cmdline_parse_tables("b.n=7 a.on c.x=1 b.n=10", tables, 2), 4, 2, 1, 1);
	assert_true(a_on);
	assert_int_equal(b_n, 7);
	assert_int_equal(a_table.count, 1);
	assert_string_equal(b_table.owner, "b");
}

static void test_bool(void **state)
{
	assert_result(parse("t.flag"), 1, 1, 0, 0);
	assert_true(v_flag);

	static const struct { const char *word; bool want; } cases[] = {
		{ "t.opt=0", false }, { "t.opt=1", true }, { "t.opt=off", false },
		{ "t.opt=on", true }, { "t.opt=n", false }, { "t.opt=y", true },
		{ "t.opt=no", false }, { "t.opt=yes", true }, { "t.opt=false", false },
		{ "t.opt=true", true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v_opt = !cases[i].want;
		assert_result(parse(cases[i].word), 1, 1, 0, 0);
		if (v_opt != cases[i].want)
			fail_msg("'%s' gave %d", cases[i].word, v_opt);
	}
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);

	/* A bare flag sets even a flag that is on by default to true. */
	v_opt = false;
	assert_result(parse("t.opt"), 1, 1, 0, 0);
	assert_true(v_opt);
}

static void test_bool_bad(void **state)
{
	assert_result(parse("t.opt=maybe"), 1, 0, 0, 1);
	assert_true(v_opt);
	assert_true(host_log_contains("cmdline: bad value 'maybe' for 't.opt' (expected a boolean: 1/0, y/n, on/off, true/false); keeping the default"));
	assert_result(parse("t.opt="), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '' for 't.opt'"));
	assert_result(parse("t.opt=2"), 1, 0, 0, 1);
	assert_result(parse("t.opt=onn"), 1, 0, 0, 1);
	assert_true(v_opt);

	bool b = true;
	assert_true(cmdline_parse_bool("off", &b));
	assert_false(b);
	assert_false(cmdline_parse_bool("", &b));
	assert_false(cmdline_parse_bool("o", &b));
	assert_false(b);
}

/* ---- U64 -------------------------------------------------------------- */

static void test_u64_parser(void **state)
{
	static const struct { const char *s; bool ok; uint64_t v; } cases[] = {
		{ "0", true, 0 },
		{ "7", true, 7 },
		{ "007", true, 7 },                   /* decimal, never octal */
		{ "0x10", true, 16 },
		{ "0X1f", true, 31 },
		{ "0xABCdef", true, 0xabcdef },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 }, /* 2^64 */
		{ "99999999999999999999", false, 0 },
		{ "0xffffffffffffffff", true, UINT64_MAX },
		{ "0x0000000000000000000001", true, 1 },
		{ "0x10000000000000000", false, 0 },
		{ "", false, 0 },
		{ "0x", false, 0 },
		{ "x10", false, 0 },
		{ "-1", false, 0 },
		{ "+1", false, 0 },
		{ " 1", false, 0 },
		{ "1 ", false, 0 },
		{ "12a", false, 0 },
		{ "0xg", false, 0 },
		{ "1.5", false, 0 },
		{ "1K", false, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0x5555;
		bool ok = cmdline_parse_u64(cases[i].s, &v);
		if (ok != cases[i].ok || (ok && v != cases[i].v) || (!ok && v != 0x5555))
			fail_msg("cmdline_parse_u64(\"%s\") = %d, 0x%" PRIx64, cases[i].s, ok, v);
	}
}

static void test_u64_param(void **state)
{
	assert_result(parse("t.count=1"), 1, 1, 0, 0);
	assert_int_equal(v_count, 1);
	assert_result(parse("t.count=100"), 1, 1, 0, 0);
	assert_int_equal(v_count, 100);
	assert_result(parse("t.count=0x20"), 1, 1, 0, 0);
	assert_int_equal(v_count, 32);

	assert_result(parse("t.count=0"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '0' for 't.count' (expected an integer in 1..100); keeping the default"));
	assert_result(parse("t.count=101"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '101' for 't.count' (expected an integer in 1..100)"));
	assert_result(parse("t.count=18446744073709551616"), 1, 0, 0, 1);
	assert_result(parse("t.count=ten"), 1, 0, 0, 1);
	assert_int_equal(v_count, 32);

	host_log_reset();
	assert_result(parse("t.count"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: 't.count' needs a value (an integer in 1..100); keeping the default"));

	assert_result(parse("t.big=18446744073709551615"), 1, 1, 0, 0);
	assert_int_equal(v_big, UINT64_MAX);
	assert_result(parse("t.big=0"), 1, 1, 0, 0);
	assert_int_equal(v_big, 0);
	assert_result(parse("t.big=0x1ffffffffffffffff"), 1, 0, 0, 1);
	assert_int_equal(v_big, 0);
}

/* ---- SIZE ------------------------------------------------------------- */

static void test_size_parser(void **state)
{
	static const struct { const char *s; bool ok; uint64_t v; } cases[] = {
		{ "0", true, 0 },
		{ "4096", true, 4096 },
		{ "1k", true, 1024 },
		{ "4K", true, 4096 },
		{ "1m", true, 1 << 20 },
		{ "2M", true, 2 << 20 },
		{ "3g", true, 3ULL << 30 },
		{ "1G", true, 1ULL << 30 },
		{ "1t", true, 1ULL << 40 },
		{ "5T", true, 5ULL << 40 },
		{ "0x10K", true, 16 << 10 },
		{ "16777215T", true, 16777215ULL << 40 },
		{ "16777216T", false, 0 },            /* 2^64 */
		{ "17179869183G", true, 17179869183ULL << 30 },
		{ "17179869184G", false, 0 },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "0000000000000000000000000000001", true, 1 },   /* 31 bytes */
		{ "00000000000000000000000000000001", false, 0 }, /* 32 bytes */
		{ "", false, 0 },
		{ "K", false, 0 },
		{ "1KB", false, 0 },
		{ "1KK", false, 0 },
		{ "1P", false, 0 },
		{ "1 K", false, 0 },
		{ "-1K", false, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0x5555;
		bool ok = cmdline_parse_size(cases[i].s, &v);
		if (ok != cases[i].ok || (ok && v != cases[i].v) || (!ok && v != 0x5555))
			fail_msg("cmdline_parse_size(\"%s\") = %d, 0x%" PRIx64, cases[i].s, ok, v);
	}
}

static void test_size_param(void **state)
{
	assert_result(parse("t.mem=4K"), 1, 1, 0, 0);
	assert_int_equal(v_mem, 4096);
	assert_result(parse("t.mem=1T"), 1, 1, 0, 0);
	assert_int_equal(v_mem, 1ULL << 40);
	assert_result(parse("t.mem=512M"), 1, 1, 0, 0);
	assert_int_equal(v_mem, 512ULL << 20);

	assert_result(parse("t.mem=3k"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '3k' for 't.mem' (expected a size in 4096..1099511627776 bytes, suffix K/M/G/T allowed); keeping the default"));
	assert_result(parse("t.mem=1025G"), 1, 0, 0, 1);
	assert_result(parse("t.mem=16777216T"), 1, 0, 0, 1);
	assert_result(parse("t.mem=lots"), 1, 0, 0, 1);
	assert_int_equal(v_mem, 512ULL << 20);
}

/* ---- ENUM, STR, FUNC -------------------------------------------------- */

static void test_enum(void **state)
{
	assert_result(parse("t.mode=slow"), 1, 1, 0, 0);
	assert_int_equal(v_mode, 1);
	assert_result(parse("t.mode=off"), 1, 1, 0, 0);
	assert_int_equal(v_mode, 2);
	assert_result(parse("t.mode=fast"), 1, 1, 0, 0);
	assert_int_equal(v_mode, 0);

	v_mode = 1;
	assert_result(parse("t.mode=SLOW"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value 'SLOW' for 't.mode' (expected one of: fast slow off); keeping the default"));
	assert_result(parse("t.mode=fas"), 1, 0, 0, 1);
	assert_result(parse("t.mode="), 1, 0, 0, 1);
	assert_result(parse("t.mode"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: 't.mode' needs a value (one of: fast slow off)"));
	assert_int_equal(v_mode, 1);
}

static void test_string(void **state)
{
	assert_result(parse("t.name=hello"), 1, 1, 0, 0);
	assert_string_equal(v_name, "hello");
	assert_result(parse("t.name=123456789012345"), 1, 1, 0, 0);   /* 15 */
	assert_string_equal(v_name, "123456789012345");
	assert_result(parse("t.name=a=b"), 1, 1, 0, 0);   /* first '=' splits */
	assert_string_equal(v_name, "a=b");

	assert_result(parse("t.name=1234567890123456"), 1, 0, 0, 1);  /* 16 */
	assert_true(host_log_contains("cmdline: bad value '1234567890123456' for 't.name' (expected a string of at most 15 bytes); keeping the default"));
	assert_string_equal(v_name, "a=b");
	assert_result(parse("t.name"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: 't.name' needs a value (a string of at most 15 bytes)"));

	assert_result(parse("t.name="), 1, 1, 0, 0);
	assert_string_equal(v_name, "");
}

static void test_func(void **state)
{
	assert_result(parse("t.even=10"), 1, 1, 0, 0);
	assert_int_equal(v_even, 10);
	assert_result(parse("t.even=7"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '7' for 't.even' (expected an even number, not 7); keeping the default"));
	assert_int_equal(v_even, 10);
	assert_result(parse("t.even"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: 't.even' needs a value (an even number); keeping the default"));
	assert_int_equal(v_even, 10);
}

/* ---- words, quotes, counts -------------------------------------------- */

static void test_quotes(void **state)
{
	assert_result(parse("t.name=\"a b\" t.flag"), 2, 2, 0, 0);
	assert_string_equal(v_name, "a b");
	assert_true(v_flag);
	assert_result(parse("\"t.name=c d\""), 1, 1, 0, 0);
	assert_string_equal(v_name, "c d");
	assert_result(parse("t.name=a\"b c\"d"), 1, 1, 0, 0);
	assert_string_equal(v_name, "ab cd");
	assert_result(parse("t.name=\"\""), 1, 1, 0, 0);
	assert_string_equal(v_name, "");
	/* An unterminated quote runs to the end of the line. */
	assert_result(parse("t.name=\"x  y t.flag"), 1, 1, 0, 0);
	assert_string_equal(v_name, "x  y t.flag");
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
}

static void test_unknown_key(void **state)
{
	assert_result(parse("BOOT_IMAGE=/boot/memboot.elf t.count=5 quiet t.nope=1"), 4, 1, 3, 0);
	assert_true(host_log_contains("cmdline: unknown parameter 'BOOT_IMAGE' ignored"));
	assert_true(host_log_contains("cmdline: unknown parameter 'quiet' ignored"));
	assert_true(host_log_contains("cmdline: unknown parameter 't.nope' ignored"));
	assert_int_equal(host_log_count(LOG_WARN), 3);
	assert_int_equal(host_log_count(LOG_ERR), 0);
	assert_int_equal(v_count, 5);
	/* Keys match whole: no prefixes, no case folding. */
	assert_result(parse("t.coun=5 T.COUNT=6 t.count2=7 =8"), 4, 0, 4, 0);
	assert_true(host_log_contains("cmdline: unknown parameter '' ignored"));
	assert_int_equal(v_count, 5);
}

static void test_last_wins(void **state)
{
	assert_result(parse("t.count=5 t.count=7"), 2, 2, 0, 0);
	assert_int_equal(v_count, 7);
	/* A bad value later keeps the last good one. */
	assert_result(parse("t.count=9 t.count=1000"), 2, 1, 0, 1);
	assert_int_equal(v_count, 9);
	assert_result(parse("t.mode=slow t.mode=off t.mode=fast"), 3, 3, 0, 0);
	assert_int_equal(v_mode, 0);
}

static void test_empty_lines(void **state)
{
	assert_result(parse(""), 0, 0, 0, 0);
	assert_result(parse(NULL), 0, 0, 0, 0);
	assert_result(parse("   "), 0, 0, 0, 0);
	assert_result(parse(" \t\r\n \t"), 0, 0, 0, 0);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	/* An empty quoted word is a word: named, and not the end of the line. */
	assert_result(parse("\"\""), 1, 0, 1, 0);
	assert_true(host_log_contains("cmdline: empty word (\"\") ignored"));
	host_log_reset();
	/* Any whitespace separates words. */
	assert_result(parse("\tt.flag\nt.count=3\r\n t.mode=off  "), 3, 3, 0, 0);
	assert_true(v_flag);
	assert_int_equal(v_count, 3);
	assert_int_equal(v_mode, 2);
}

static void test_empty_quoted_word_does_not_end_the_line(void **state)
{
	assert_result(parse("t.flag \"\" t.count=7 \"\"\"\" t.mode=off"), 5, 3, 2, 0);
	assert_true(v_flag);
	assert_int_equal(v_count, 7);
	assert_int_equal(v_mode, 2);
	assert_int_equal(host_log_count(LOG_WARN), 2);
	assert_true(host_log_contains("cmdline: empty word (\"\") ignored"));
	/* A lone quote at the end is an empty word too, then the end. */
	host_log_reset();
	assert_result(parse("t.count=8 \""), 2, 1, 1, 0);
	assert_int_equal(v_count, 8);
}

static void test_long_word(void **state)
{
	char line[700];
	int n = snprintf(line, sizeof(line), "t.name=");
	memset(line + n, 'a', 600 - n);
	snprintf(line + 600, sizeof(line) - 600, " t.count=42");

	/* 600 bytes: a cut value would be another value, so the whole word is
	 * refused with an error, and the word after it is still read. */
	assert_result(parse(line), 2, 1, 0, 1);
	assert_true(host_log_contains("cmdline: word longer than 511 bytes ignored: 't.name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"));
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	assert_string_equal(v_name, "default");
	assert_int_equal(v_count, 42);

	/* A 600-byte key is refused the same way, before any lookup. */
	host_log_reset();
	memset(line, 'k', 600);
	line[600] = '\0';
	assert_result(parse(line), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: word longer than 511 bytes ignored: 'kkkkkkkkkk"));

	/* Exactly 511 bytes: no warning, accepted whole by a big string. */
	host_log_reset();
	n = snprintf(line, sizeof(line), "t.long=");
	memset(line + n, 'b', 511 - n);
	line[511] = '\0';
	assert_result(parse(line), 1, 1, 0, 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(strlen(v_long), 511 - 7);
}

static void test_mixed_counts(void **state)
{
	struct cmdline_result r =
		parse("t.flag t.count=0 x=1 t.mode=slow t.name=\"two words\" t.even=3 t.mem=1G");
	assert_result(r, 7, 4, 1, 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(host_log_count(LOG_ERR), 2);
	assert_true(v_flag);
	assert_int_equal(v_count, 10);
	assert_int_equal(v_mode, 1);
	assert_string_equal(v_name, "two words");
	assert_int_equal(v_even, 2);
	assert_int_equal(v_mem, 1ULL << 30);
}

/* ---- every subsystem's own table -------------------------------------- */

static void test_kernel_defaults(void **state)
{
	assert_int_equal(selftest_settings.selftests, 0);
	assert_int_equal(selftest_settings.clock_ms, 1000);
	assert_int_equal(selftest_settings.fault, FAULT_NONE);
	assert_false(bootreport_settings.dump_mmap);
	assert_false(bootreport_settings.dump_bootinfo);
	assert_false(bootreport_settings.dump_acpi);
	/* The defaults docs/cmdline.md gives. */
	assert_int_equal(smp_settings.maxcpus, 8192);
	assert_int_equal(smp_settings.bringup, SMP_BRINGUP_PARALLEL);
	assert_false(smp_settings.nosmp);
	assert_int_equal(smp_settings.timeout_ms, 10000);
	assert_int_equal(apic_request, APIC_REQUEST_AUTO);
	assert_int_equal(meminit_settings.policy, MMINIT_DEFERRED);
	assert_int_equal(meminit_settings.threads_mode, INIT_THREADS_NODE);
	assert_int_equal(meminit_settings.early_pages, 32768);
	assert_int_equal(meminit_settings.early_alloc_pages, 0);
	assert_false(meminit_settings.trace);
	assert_int_equal(pcp_settings.policy, PCP_AUTO);
	assert_int_equal(pcp_settings.steps, PCP_STEPS_MAINLINE);
	assert_int_equal(pcp_settings.high_fraction, 0);
	assert_string_equal(pcp_settings.churn_mix, "kbuild");
	assert_int_equal(pcp_settings.churn_allocs, 20000);
	assert_int_equal(vm_settings.ptlock, PT_LOCK_SPLIT);
	assert_true(vm_settings.pt_zero);
	assert_false(bench_settings.pt);
	assert_int_equal(bench_settings.ptbench_mib, 64);
	assert_int_equal(bench_settings.ptbench_reps, 3);
	assert_string_equal(alloc_requested(), "buddy");
	assert_false(console_cmdline.given);
	struct cmdline_result r = params_parse("");
	assert_result(r, 0, 0, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_AUTO);
	/* hugetlb's table is reached too (its values: tests/host/test_hugetlb.c). */
	assert_false(hugetlb_settings.zero);
	assert_result(params_parse("memboot.hugetlb_zero"), 1, 1, 0, 0);
	assert_true(hugetlb_settings.zero);
}

static void test_kernel_selftest(void **state)
{
	assert_result(params_parse("memboot.selftest=clock"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.selftests, SELFTEST_CLOCK);
	assert_result(params_parse("memboot.selftest=churn,jobs,pt"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.selftests, SELFTEST_CHURN | SELFTEST_JOBS | SELFTEST_PT);

	/* A name given twice is refused, not dropped (the list rule). */
	selftest_settings.selftests = 0;
	assert_result(params_parse("memboot.selftest=clock,clock"), 1, 0, 0, 1);
	assert_true(host_log_contains("'clock' is given twice"));
	assert_int_equal(selftest_settings.selftests, 0);

	selftest_settings.selftests = 0;
	assert_result(params_parse("memboot.selftest=clock,bogus"), 1, 0, 0, 1);
	/* The message is the table's own; it names the bad list item. */
	assert_true(host_log_contains("cmdline: bad value 'clock,bogus' for 'memboot.selftest' (expected "));
	assert_true(host_log_contains("'bogus' is not one); keeping the default"));
	assert_int_equal(selftest_settings.selftests, 0);

	assert_result(params_parse("memboot.selftest=clk"), 1, 0, 0, 1);
	assert_result(params_parse("memboot.selftest=clocks"), 1, 0, 0, 1);
	assert_result(params_parse("memboot.selftest=,clock"), 1, 0, 0, 1);
	assert_true(host_log_contains("item 1 is empty"));
	host_log_reset();
	assert_result(params_parse("memboot.selftest="), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '' for 'memboot.selftest' (expected "));
	assert_result(params_parse("memboot.selftest"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: 'memboot.selftest' needs a value ("));
	assert_int_equal(selftest_settings.selftests, 0);
	assert_false(selftest_settings.list);
}

/* The names the key accepts are the table's (kernel/selftest/list.h), bit i
 * for entry i, and `list` asks for the table instead of a run. */
static void test_kernel_selftest_table(void **state)
{
	/* The table's own names, in its order (a new self-test is one list.h
	 * line, and this test follows it). */
#define SELFTEST_NAME_(id, name, fn, needs, description) name,
	static const char *const names[] = { SELFTEST_LIST(SELFTEST_NAME_) };
#undef SELFTEST_NAME_
	char line[64], expected[256] = "names from: ";

	assert_int_equal(SELFTEST_COUNT, sizeof(names) / sizeof(names[0]));
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		assert_string_equal(selftest_name(i), names[i]);
		assert_true(selftest_needs(i) && *selftest_needs(i));
		assert_true(selftest_description(i) && *selftest_description(i));
		snprintf(line, sizeof(line), "memboot.selftest=%s", names[i]);
		assert_result(params_parse(line), 1, 1, 0, 0);
		assert_int_equal(selftest_settings.selftests, 1ull << i);
		assert_false(selftest_settings.list);
	}
	assert_null(selftest_name(SELFTEST_COUNT));
	assert_null(selftest_needs(SELFTEST_COUNT));
	assert_null(selftest_description(SELFTEST_COUNT));
	assert_int_equal(SELFTEST_PT, 1u << 3);
	assert_int_equal(SELFTEST_ALLOC, 1u << 4);

	assert_result(params_parse("memboot.selftest=list"), 1, 1, 0, 0);
	assert_true(selftest_settings.list);
	assert_int_equal(selftest_settings.selftests, 0);
	/* Among names too: the table is printed and nothing runs. */
	assert_result(params_parse("memboot.selftest=pt,list"), 1, 1, 0, 0);
	assert_true(selftest_settings.list);
	/* A later key without list clears it. */
	assert_result(params_parse("memboot.selftest=pt"), 1, 1, 0, 0);
	assert_false(selftest_settings.list);
	assert_int_equal(selftest_settings.selftests, SELFTEST_PT);
	host_log_reset();
	assert_result(params_parse("memboot.selftest=lists"), 1, 0, 0, 1);
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		strcat(expected, names[i]);
		strcat(expected, ", ");
	}
	strcat(expected, "or list; 'lists' is not one");
	assert_true(host_log_contains(expected));
	assert_int_equal(selftest_settings.selftests, SELFTEST_PT);
}

static void test_kernel_clock_ms(void **state)
{
	assert_result(params_parse("memboot.clock_ms=5"), 1, 0, 0, 1);
	assert_true(host_log_contains("cmdline: bad value '5' for 'memboot.clock_ms' (expected an integer in 10..60000); keeping the default"));
	assert_int_equal(selftest_settings.clock_ms, 1000);
	assert_result(params_parse("memboot.clock_ms=60001"), 1, 0, 0, 1);
	assert_int_equal(selftest_settings.clock_ms, 1000);
	assert_result(params_parse("memboot.clock_ms=10"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.clock_ms, 10);
	assert_result(params_parse("memboot.clock_ms=60000"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.clock_ms, 60000);
}

static void test_kernel_exit_and_fault(void **state)
{
	/* memboot.exit lands in exit_method itself: nothing copies it. */
	assert_result(params_parse("memboot.exit=halt"), 1, 1, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_HALT);
	assert_result(params_parse("memboot.exit=qemu"), 1, 1, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_QEMU);
	assert_result(params_parse("memboot.exit=reboot"), 1, 1, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_REBOOT);
	assert_result(params_parse("memboot.exit=poweroff"), 1, 1, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_POWEROFF);
	assert_result(params_parse("memboot.exit=auto"), 1, 1, 0, 0);
	assert_int_equal(exit_method, EXIT_METHOD_AUTO);
	exit_method = EXIT_METHOD_POWEROFF;
	assert_result(params_parse("memboot.exit=suspend"), 1, 0, 0, 1);
	assert_true(host_log_contains("(expected one of: auto qemu halt reboot poweroff)"));
	assert_int_equal(exit_method, EXIT_METHOD_POWEROFF);

	/* console=: every word adds a console; a bad one is refused alone. */
	assert_result(params_parse("console=ttyS0,9600 console=fb console=ttyS7 console=ttyS2"),
		      4, 3, 0, 1);
	assert_true(console_cmdline.given && console_cmdline.fb);
	assert_false(console_cmdline.text);
	assert_int_equal(console_cmdline.baud[0], 9600);
	assert_int_equal(console_cmdline.baud[1], 0);
	assert_int_equal(console_cmdline.baud[2], 115200);
	assert_true(host_log_contains("'ttyS7'"));

	assert_result(params_parse("memboot.fault=pf memboot.dump_mmap memboot.dump_bootinfo=1"),
		      3, 3, 0, 0);
	assert_int_equal(selftest_settings.fault, FAULT_PF);
	assert_true(bootreport_settings.dump_mmap);
	assert_true(bootreport_settings.dump_bootinfo);
	assert_false(bootreport_settings.dump_acpi);
	assert_result(params_parse("memboot.fault=assert"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.fault, FAULT_ASSERT);
	assert_string_equal(selftest_fault_name(FAULT_ASSERT), "assert");

	/* Every fault's name parses back to its number. */
	for (unsigned f = FAULT_NONE; f <= FAULT_ALLOC_LOOP; f++) {
		char line[64];
		snprintf(line, sizeof(line), "memboot.fault=%s", selftest_fault_name(f));
		assert_result(params_parse(line), 1, 1, 0, 0);
		assert_int_equal(selftest_settings.fault, f);
	}
	assert_string_equal(selftest_fault_name(FAULT_LOSE_PAGE), "lose-page");
	assert_string_equal(selftest_fault_name(FAULT_AP_PARK), "ap-park");
	assert_string_equal(selftest_fault_name(FAULT_NULL_WRITE), "null-write");
	assert_string_equal(selftest_fault_name(FAULT_AP_STALL), "ap-stall");
	assert_string_equal(selftest_fault_name(FAULT_HANG), "hang");
	assert_string_equal(selftest_fault_name(FAULT_ALLOC_LOOP), "alloc-loop");
	assert_string_equal(selftest_fault_name(FAULT_ALLOC_LOOP + 1), "?");
	assert_result(params_parse("memboot.fault=oops"), 1, 0, 0, 1);
	assert_int_equal(selftest_settings.fault, FAULT_ALLOC_LOOP);
}

/* memboot.watchdog and memboot.selftest_deadline_ms. */
static void test_kernel_watchdog_keys(void **state)
{
	assert_false(watchdog_settings.off);
	assert_int_equal(watchdog_settings.seconds, 0);
	assert_int_equal(selftest_settings.deadline_ms, 300000);
	assert_result(params_parse("memboot.watchdog=off"), 1, 1, 0, 0);
	assert_true(watchdog_settings.off);
	assert_result(params_parse("memboot.watchdog=90"), 1, 1, 0, 0);
	assert_false(watchdog_settings.off);
	assert_int_equal(watchdog_settings.seconds, 90);
	/* Refused: the setting before stays. */
	assert_result(params_parse("memboot.watchdog=0 memboot.watchdog=86401 memboot.watchdog=5s "
				   "memboot.watchdog=-1 memboot.watchdog="), 5, 0, 0, 5);
	assert_true(host_log_contains("(expected auto, off or seconds in 1..86400)"));
	assert_int_equal(watchdog_settings.seconds, 90);
	assert_result(params_parse("memboot.watchdog=auto"), 1, 1, 0, 0);
	assert_false(watchdog_settings.off);
	assert_int_equal(watchdog_settings.seconds, 0);
	assert_result(params_parse("memboot.selftest_deadline_ms=0"), 1, 1, 0, 0);
	assert_int_equal(selftest_settings.deadline_ms, 0);
	assert_result(params_parse("memboot.selftest_deadline_ms=3600001"), 1, 0, 0, 1);
	assert_int_equal(selftest_settings.deadline_ms, 0);
}

/* What a boot may take, and how a watchdog of a given range covers it. */
static void test_watchdog_budget_and_plan(void **state)
{
	struct watchdog_budget b = { .memory_bytes = 4ull << 30, .smp_timeout_ms = 2000,
				     .init_deadline_ms = 0 };
	struct watchdog_plan p;

	/* 60 + 2 (smp) + 2 x 600 (no init deadline) + 4 x 1 (4 GiB). */
	assert_int_equal(watchdog_budget_s(&b), 60 + 2 + 1200 + 4);
	b.init_deadline_ms = 10001;          /* 11 s, twice */
	assert_int_equal(watchdog_budget_s(&b), 60 + 2 + 22 + 4);
	b.memtest_passes = 2;                /* 4 GiB x 4 s x 2 */
	assert_int_equal(watchdog_budget_s(&b), 60 + 2 + 22 + 4 + 32);
	b.selftests = 3;
	b.selftest_deadline_ms = 300000;
	assert_int_equal(watchdog_budget_s(&b), 60 + 2 + 22 + 4 + 32 + 900);
	b.bench = true;
	assert_int_equal(watchdog_budget_s(&b), 60 + 2 + 22 + 4 + 32 + 900 + 600);
	b.memory_bytes = 1ull << 50;         /* capped */
	assert_int_equal(watchdog_budget_s(&b), WATCHDOG_MAX_S);

	/* Within the hardware's range: armed once for the boot, no pets. */
	p = watchdog_plan(100, 5, 1227);
	assert_int_equal(p.arm_s, 100);
	assert_false(p.pets);
	/* Shorter than the hardware's least: its least. */
	p = watchdog_plan(2, 5, 1227);
	assert_int_equal(p.arm_s, 5);
	assert_false(p.pets);
	/* Longer than its most: its most, petted at phase ends. */
	p = watchdog_plan(3000, 5, 1227);
	assert_int_equal(p.arm_s, 1227);
	assert_true(p.pets);
	/* No maximum given: as asked. */
	p = watchdog_plan(3000, 1, 0);
	assert_int_equal(p.arm_s, 3000);
	assert_false(p.pets);
}

/* memboot.init_threads fills two fields of memory init's settings. */
static void test_kernel_meminit_keys(void **state)
{
	static const struct { const char *word; bool ok; unsigned mode; uint64_t n; } cases[] = {
		{ "memboot.init_threads=1", true, INIT_THREADS_ONE, 1 },
		{ "memboot.init_threads=node", true, INIT_THREADS_NODE, 0 },
		{ "memboot.init_threads=all", true, INIT_THREADS_ALL, 0 },
		{ "memboot.init_threads=7", true, INIT_THREADS_N, 7 },
		{ "memboot.init_threads=256", true, INIT_THREADS_N, 256 },
		{ "memboot.init_threads=0", false, INIT_THREADS_NODE, 0 },
		{ "memboot.init_threads=257", false, INIT_THREADS_NODE, 0 },
		{ "memboot.init_threads=Node", false, INIT_THREADS_NODE, 0 },
		{ "memboot.init_threads", false, INIT_THREADS_NODE, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		meminit_settings = meminit_default;
		struct cmdline_result r = params_parse(cases[i].word);
		if (r.applied != cases[i].ok || meminit_settings.threads_mode != cases[i].mode ||
		    meminit_settings.threads != cases[i].n)
			fail_msg("'%s': applied %u, mode %u, threads %" PRIu64, cases[i].word,
				 r.applied, meminit_settings.threads_mode, meminit_settings.threads);
	}
	assert_true(host_log_contains("cmdline: bad value '257' for 'memboot.init_threads' (expected 1, node, all, or a thread count 1..256)"));

	assert_result(params_parse("memboot.init=lazy memboot.early_pages=0x1000 memboot.trace "
				   "memboot.early_alloc_pages=5"), 4, 4, 0, 0);
	assert_int_equal(meminit_settings.policy, MMINIT_LAZY);
	assert_int_equal(meminit_settings.early_pages, 4096);
	assert_int_equal(meminit_settings.early_alloc_pages, 5);
	assert_true(meminit_settings.trace);
	assert_result(params_parse("memboot.init=serial memboot.init=eager"), 2, 1, 0, 1);
	assert_int_equal(meminit_settings.policy, MMINIT_SERIAL);
}

/* CPU bring-up, the allocator's name, per-CPU lists and page tables. */
static void test_kernel_smp_alloc_pcp_vm_keys(void **state)
{
	assert_result(params_parse("maxcpus=4 nosmp memboot.smp_timeout_ms=50 "
				   "memboot.smp_skip_apic=3 memboot.apic=x2apic"), 5, 5, 0, 0);
	assert_int_equal(smp_settings.maxcpus, 4);
	assert_true(smp_settings.nosmp);
	assert_int_equal(smp_settings.timeout_ms, 50);
	assert_int_equal(smp_settings.skip_hwid, 3);
	assert_int_equal(apic_request, APIC_REQUEST_X2APIC);
	assert_result(params_parse("maxcpus=8193 memboot.smp_timeout_ms=0 memboot.apic=x3apic"),
		      3, 0, 0, 3);
	assert_result(params_parse("maxcpus=8192 memboot.smp_bringup=serial"), 2, 2, 0, 0);
	assert_int_equal(smp_settings.maxcpus, 8192);
	assert_int_equal(smp_settings.bringup, SMP_BRINGUP_SERIAL);
	assert_result(params_parse("maxcpus=4 memboot.smp_bringup=both"), 2, 1, 0, 1);
	assert_int_equal(smp_settings.bringup, SMP_BRINGUP_SERIAL);
	assert_int_equal(smp_settings.maxcpus, 4);
	assert_int_equal(smp_settings.timeout_ms, 50);
	assert_int_equal(apic_request, APIC_REQUEST_X2APIC);
	assert_result(params_parse("memboot.apic=xapic"), 1, 1, 0, 0);
	assert_int_equal(apic_request, APIC_REQUEST_XAPIC);

	/* The name is kept as given; memory init checks it against the table. */
	assert_result(params_parse("memboot.alloc=bitmap"), 1, 1, 0, 0);
	assert_string_equal(alloc_requested(), "bitmap");
	assert_result(params_parse("memboot.alloc=nosuch"), 1, 1, 0, 0);
	assert_string_equal(alloc_requested(), "nosuch");
	assert_null(alloc_find(alloc_requested()));
	assert_result(params_parse("memboot.alloc=a_name_far_too_long"), 1, 0, 0, 1);
	assert_string_equal(alloc_requested(), "nosuch");

	assert_result(params_parse("memboot.pcp=fixed memboot.pcp_steps=none "
				   "memboot.pcp_high_fraction=8 memboot.churn_mix=net "
				   "memboot.churn_allocs=99"), 5, 5, 0, 0);
	assert_int_equal(pcp_settings.policy, PCP_FIXED);
	assert_int_equal(pcp_settings.steps, 0);
	assert_int_equal(pcp_settings.high_fraction, 8);
	assert_string_equal(pcp_settings.churn_mix, "net");
	assert_int_equal(pcp_settings.churn_allocs, 99);
	/* Fractions below 8 are refused, as Linux's sysctl refuses them; 0 is auto. */
	for (const char *const *v = (const char *const[]){ "1", "7", "1000001", "x", NULL }; *v; v++) {
		char word[64];
		snprintf(word, sizeof(word), "memboot.pcp_high_fraction=%s", *v);
		host_log_reset();
		assert_result(params_parse(word), 1, 0, 0, 1);
		assert_true(host_log_contains("(expected 0 (high from the low watermark) or a fraction "
					      "8..1000000; below 8 one CPU's list could hold the node's "
					      "memory, and Linux refuses it too)"));
		assert_int_equal(pcp_settings.high_fraction, 8);
	}
	assert_result(params_parse("memboot.pcp_high_fraction=0"), 1, 1, 0, 0);
	assert_int_equal(pcp_settings.high_fraction, 0);
	assert_result(params_parse("memboot.pcp_high_fraction=1000000"), 1, 1, 0, 0);
	assert_int_equal(pcp_settings.high_fraction, 1000000);
	assert_result(params_parse("memboot.pcp=sometimes memboot.pcp_steps=mainline"), 2, 1, 0, 1);
	assert_int_equal(pcp_settings.policy, PCP_FIXED);
	assert_int_equal(pcp_settings.steps, PCP_STEPS_MAINLINE);

	assert_result(params_parse("memboot.ptlock=global memboot.pt_zero=0 memboot.bench=pt "
				   "memboot.ptbench_mib=128 memboot.ptbench_reps=5"), 5, 5, 0, 0);
	assert_int_equal(vm_settings.ptlock, PT_LOCK_GLOBAL);
	assert_false(vm_settings.pt_zero);
	assert_true(bench_settings.pt);
	assert_int_equal(bench_settings.ptbench_mib, 128);
	assert_int_equal(bench_settings.ptbench_reps, 5);
	bench_settings.pt = false;
	assert_result(params_parse("memboot.bench=fs memboot.ptbench_reps=16 memboot.ptbench_mib=1"),
		      3, 0, 0, 3);
	assert_true(host_log_contains("bad value 'fs' for 'memboot.bench' (expected benchmark "
				      "names from: pt (or all); 'fs' is not one)"));
	assert_false(bench_settings.pt);
	assert_int_equal(bench_settings.ptbench_reps, 5);
	assert_int_equal(bench_settings.ptbench_mib, 128);
}

/* ---- lists: one parser, one rule (docs/cmdline.md, "Lists") ----------- */

static const char *const letters[] = { "a", "b", "c", NULL };
static unsigned letter_calls;

struct letter_ctx {
	uint32_t plain, plus, minus;
};

static bool letter_item(void *ctx, const char *item, char sign, uint64_t *key, char *err,
			size_t err_bytes)
{
	struct letter_ctx *c = ctx;

	letter_calls++;
	for (unsigned i = 0; letters[i]; i++) {
		if (strcmp(item, letters[i]) == 0) {
			*(sign == '+' ? &c->plus : sign == '-' ? &c->minus : &c->plain) |= 1u << i;
			*key = i;
			return true;
		}
	}
	snprintf(err, err_bytes, "'%s' is not one", item);
	return false;
}

static bool letters_parse(const char *value, bool signs, unsigned max, struct letter_ctx *c)
{
	const struct cmdline_list l = { .what = "letters a, b, c", .signs = signs,
					.max_items = max, .item = letter_item, .ctx = c };
	char err[256];

	memset(c, 0, sizeof(*c));
	letter_calls = 0;
	err[0] = '\0';
	bool ok = cmdline_parse_list(value, &l, err, sizeof(err));
	host_log_reset();
	if (!ok)
		pr_err("%s", err);       /* so host_log_contains() can see it */
	return ok;
}

static void test_list_rule(void **state)
{
	struct letter_ctx c;

	assert_true(letters_parse("a", false, 0, &c));
	assert_int_equal(c.plain, 1);
	assert_true(letters_parse("c,a,b", false, 0, &c));
	assert_int_equal(c.plain, 7);

	/* No empty item anywhere, one message naming the item. */
	assert_false(letters_parse(NULL, false, 0, &c));
	assert_true(host_log_contains("letters a, b, c, separated by commas; the list is empty"));
	assert_false(letters_parse("", false, 0, &c));
	assert_true(host_log_contains("the list is empty"));
	const char *empty[][2] = { { "a,", "item 2 is empty" }, { ",a", "item 1 is empty" },
				   { "a,,b", "item 2 is empty" }, { ",", "item 1 is empty" },
				   { "a,b,", "item 3 is empty" } };
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		assert_false(letters_parse(empty[i][0], false, 0, &c));
		assert_true(host_log_contains("letters a, b, c, separated by single commas; "));
		assert_true(host_log_contains(empty[i][1]));
		assert_true(host_log_contains("(a leading, trailing or doubled comma)"));
		/* Nothing was handed over from a malformed list. */
		assert_int_equal(letter_calls, 0);
	}

	/* Duplicates are an error, wherever they stand. */
	assert_false(letters_parse("a,b,a", false, 0, &c));
	assert_true(host_log_contains("letters a, b, c, each at most once; 'a' is given twice"));
	assert_false(letters_parse("+a,-a", true, 0, &c));
	assert_true(host_log_contains("each at most once; '-a' repeats '+a'"));

	/* An unknown item: the item's own message after the list's. */
	assert_false(letters_parse("a,x", false, 0, &c));
	assert_true(host_log_contains("letters a, b, c; 'x' is not one"));
	/* Without signs, + is part of the item. */
	assert_false(letters_parse("+a", false, 0, &c));
	assert_true(host_log_contains("'+a' is not one"));

	/* With signs: all or none, in either order, the same message. */
	assert_true(letters_parse("+a,-b", true, 0, &c));
	assert_int_equal(c.plus, 1);
	assert_int_equal(c.minus, 2);
	assert_true(letters_parse("a,b", true, 0, &c));
	assert_int_equal(c.plain, 3);
	assert_false(letters_parse("a,-b", true, 0, &c));
	assert_true(host_log_contains("letters a, b, c, either all with a sign (+N/-N: relative to "
				      "the default) or none; 'a' has none, '-b' has one"));
	assert_int_equal(letter_calls, 0);
	assert_false(letters_parse("-b,a", true, 0, &c));
	assert_true(host_log_contains("'a' has none, '-b' has one"));

	/* Limits: items and item length. */
	assert_true(letters_parse("a,b", false, 2, &c));
	assert_false(letters_parse("a,b,c", false, 2, &c));
	assert_true(host_log_contains("letters a, b, c; at most 2 items"));
	char longer[CMDLINE_ITEM_MAX + 8];
	memset(longer, 'z', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_false(letters_parse(longer, false, 0, &c));
	assert_true(host_log_contains("item 1 ('zzzzzzzzzzzzzzzz...') is longer than 63 bytes"));
}

/* Every list-valued key follows the one rule with the one set of messages
 * (the cases of issue 25: each used to be read its own way). */
static void test_list_keys_share_the_rule(void **state)
{
	/* memboot.selftest: a trailing comma was accepted, a leading one not. */
	const char *st[][2] = {
		{ "memboot.selftest=alloc,", "item 2 is empty" },
		{ "memboot.selftest=,alloc", "item 1 is empty" },
		{ "memboot.selftest=alloc,,jobs", "item 2 is empty" },
		{ "memboot.selftest=alloc,jobs,alloc", "'alloc' is given twice" },
	};
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		host_log_reset();
		assert_result(params_parse(st[i][0]), 1, 0, 0, 1);
		assert_true(host_log_contains(st[i][1]));
		assert_int_equal(selftest_settings.selftests, 0);
	}

	/* memboot.pcp_steps: plain and signed items mixed were read in order. */
	const char *steps[][2] = {
		{ "memboot.pcp_steps=3,-3", "'3' has none, '-3' has one" },
		{ "memboot.pcp_steps=-3,3", "'3' has none, '-3' has one" },
		{ "memboot.pcp_steps=1,+9", "'1' has none, '+9' has one" },
		{ "memboot.pcp_steps=+3,-3", "'-3' repeats '+3'" },
		{ "memboot.pcp_steps=3,3", "'3' is given twice" },
		{ "memboot.pcp_steps=1,", "item 2 is empty" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		host_log_reset();
		assert_result(params_parse(steps[i][0]), 1, 0, 0, 1);
		assert_true(host_log_contains(steps[i][1]));
		assert_true(host_log_contains("(expected mainline, none, all, or step numbers"));
		assert_int_equal(pcp_settings.steps, PCP_STEPS_MAINLINE);
	}
	assert_result(params_parse("memboot.pcp_steps=+9,-10"), 1, 1, 0, 0);
	assert_int_equal(pcp_settings.steps, (PCP_STEPS_MAINLINE | PCP_STEP(9)) & ~PCP_STEP(10));
	assert_result(params_parse("memboot.pcp_steps=10,1"), 1, 1, 0, 0);
	assert_int_equal(pcp_settings.steps, PCP_STEP(1) | PCP_STEP(10));

	/* hugepages=: empty pairs were skipped, a node named twice took the last. */
	const char *hp[][2] = {
		{ "hugepages=0:2,,1:2,", "item 2 is empty" },
		{ "hugepages=0:2,1:2,", "item 3 is empty" },
		{ "hugepages=0:2,1:1,0:3", "'0:3' repeats '0:2'" },
	};
	for (size_t i = 0; i < sizeof(hp) / sizeof(hp[0]); i++) {
		host_log_reset();
		assert_result(params_parse(hp[i][0]), 1, 0, 0, 1);
		assert_true(host_log_contains(hp[i][1]));
		assert_true(host_log_contains("(expected node:count pairs, "));
		assert_false(hugetlb_settings.config.req[HUGETLB_2M].set);
	}

	/* memboot.bench: a list of benchmark names, or all. */
	assert_result(params_parse("memboot.bench=pt,pt"), 1, 0, 0, 1);
	assert_true(host_log_contains("'pt' is given twice"));
	assert_false(bench_settings.pt);
	host_log_reset();
	assert_result(params_parse("memboot.bench=all"), 1, 1, 0, 0);
	assert_true(bench_settings.pt);
	bench_settings.pt = false;
	assert_result(params_parse("memboot.bench=pt,"), 1, 0, 0, 1);
	assert_true(host_log_contains("item 2 is empty"));
	assert_false(host_log_contains("unknown benchmark"));
	assert_false(bench_settings.pt);
}

/* Every table: keys, types, bounds and help in order, and no key in two
 * tables (the parser would take the first and never reach the second). */
static void test_kernel_table_sane(void **state)
{
	size_t keys = 0;

	for (size_t t = 0; t < NTABLES; t++) {
		const struct param_table *tab = all_tables[t];
		assert_non_null(tab->owner);
		assert_true(tab->owner[0] != '\0');
		assert_true(tab->count >= 1);
		for (size_t i = 0; i < tab->count; i++, keys++) {
			const struct param *p = &tab->params[i];
			assert_non_null(p->key);
			assert_non_null(p->ptr);
			assert_non_null(p->help);
			assert_true(p->key[0] != '\0');
			assert_null(strchr(p->key, '='));
			assert_null(strchr(p->key, ' '));
			if (p->type == PARAM_ENUM)
				assert_non_null(p->choices);
			if (p->type == PARAM_FUNC)
				assert_non_null(p->fn);
			if (p->type == PARAM_U64 || p->type == PARAM_SIZE)
				assert_true(p->min <= p->max);
			if (p->type == PARAM_STR)
				assert_true(p->max >= 2);
			for (size_t u = 0; u <= t; u++)
				for (size_t j = 0; j < (u == t ? i : all_tables[u]->count); j++)
					if (strcmp(p->key, all_tables[u]->params[j].key) == 0)
						fail_msg("key %s is in table %s and table %s", p->key,
							 all_tables[u]->owner, tab->owner);
		}
	}
	/* At least the 33 keys memboot had when they moved to their subsystems
	 * (tests/tools/test_cmdline_keys.py checks every table is listed here). */
	assert_true(keys >= 33);
}

/* docs/cmdline.md must name every key the kernel accepts. */
static void test_kernel_keys_documented(void **state)
{
	const char *path = "docs/cmdline.md";
	size_t len;
	char *doc;

	if (access(path, R_OK) != 0) {
		print_message("%s does not exist yet; skipping the documentation check\n", path);
		skip();
	}
	doc = host_read_file(path, &len);
	doc = realloc(doc, len + 1);
	assert_non_null(doc);
	doc[len] = '\0';
	char missing[512] = "";
	for (size_t t = 0; t < NTABLES; t++) {
		for (size_t i = 0; i < all_tables[t]->count; i++) {
			const char *key = all_tables[t]->params[i].key;
			const char *at = doc;
			bool found = false;
			/* A whole key: not a prefix of a longer one. */
			while ((at = strstr(at, key)) != NULL) {
				char next = at[strlen(key)];
				char prev = at > doc ? at[-1] : ' ';
				bool word_char_before = prev == '_' || prev == '.' ||
					(prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9');
				if (!word_char_before &&
				    !(next == '_' || next == '.' || (next >= 'a' && next <= 'z') ||
				      (next >= '0' && next <= '9'))) {
					found = true;
					break;
				}
				at++;
			}
			if (!found)
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 " %s", key);
		}
	}
	free(doc);
	if (missing[0])
		fail_msg("%s does not document:%s", path, missing);
}

int main(void)
{
	hugetlb_default = hugetlb_settings;
	console_default = console_cmdline;
	selftest_default = selftest_settings;
	smp_default = smp_settings;
	meminit_default = meminit_settings;
	pcp_default = pcp_settings;
	vm_default = vm_settings;
	bootreport_default = bootreport_settings;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bool, setup),
		cmocka_unit_test_setup(test_bool_bad, setup),
		cmocka_unit_test_setup(test_u64_parser, setup),
		cmocka_unit_test_setup(test_u64_param, setup),
		cmocka_unit_test_setup(test_size_parser, setup),
		cmocka_unit_test_setup(test_size_param, setup),
		cmocka_unit_test_setup(test_enum, setup),
		cmocka_unit_test_setup(test_string, setup),
		cmocka_unit_test_setup(test_func, setup),
		cmocka_unit_test_setup(test_quotes, setup),
		cmocka_unit_test_setup(test_unknown_key, setup),
		cmocka_unit_test_setup(test_last_wins, setup),
		cmocka_unit_test_setup(test_empty_lines, setup),
		cmocka_unit_test_setup(test_empty_quoted_word_does_not_end_the_line, setup),
		cmocka_unit_test_setup(test_long_word, setup),
		cmocka_unit_test_setup(test_mixed_counts, setup),
		cmocka_unit_test_setup(test_kernel_defaults, setup),
		cmocka_unit_test_setup(test_kernel_selftest, setup),
		cmocka_unit_test_setup(test_kernel_selftest_table, setup),
		cmocka_unit_test_setup(test_kernel_clock_ms, setup),
		cmocka_unit_test_setup(test_kernel_exit_and_fault, setup),
		cmocka_unit_test_setup(test_kernel_watchdog_keys, setup),
		cmocka_unit_test_setup(test_watchdog_budget_and_plan, setup),
		cmocka_unit_test_setup(test_kernel_meminit_keys, setup),
		cmocka_unit_test_setup(test_kernel_smp_alloc_pcp_vm_keys, setup),
		cmocka_unit_test_setup(test_list_rule, setup),
		cmocka_unit_test_setup(test_list_keys_share_the_rule, setup),
		cmocka_unit_test_setup(test_kernel_table_sane, setup),
		cmocka_unit_test_setup(test_tables_of_several_subsystems, setup),
		cmocka_unit_test_setup(test_kernel_keys_documented, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

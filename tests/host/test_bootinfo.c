/*
 * test_bootinfo.c: the firmware-independent memory map (boot/bootinfo.c) and
 * the EFI type mapping (boot/efi_map.c), driven directly through
 * bootinfo_init(), bootinfo_add_raw() and bootinfo_normalize().
 *
 * Besides hand-written cases, a page-by-page reference model checks the
 * normalizer on a few thousand small pseudo-random maps (fixed seed).
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

#include "boot/bootinfo.h"
#include "boot/efi_map.h"
#include "tests/host/host_support.h"
#include "tests/host/map_check.h"

#define P PAGE_SIZE_BYTES
#define TOP_ALIGNED_END 0xfffffffffffff000ULL

static struct bootinfo bi;

static int setup(void **state)
{
	(void)state;
	host_log_reset();
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	return 0;
}

static void assert_range(uint32_t i, uint64_t start, uint64_t end, enum mem_type type)
{
	if (i >= bi.nr_ranges)
		fail_msg("range %u expected, only %u ranges", i, bi.nr_ranges);
	const struct mem_range *r = &bi.ranges[i];
	if (r->start != start || r->end != end || r->type != (uint32_t)type)
		fail_msg("range %u is [0x%" PRIx64 ", 0x%" PRIx64 ") %s, expected "
			 "[0x%" PRIx64 ", 0x%" PRIx64 ") %s", i, r->start, r->end,
			 mem_type_name((enum mem_type)r->type), start, end,
			 mem_type_name(type));
}

static uint32_t normalize(void)
{
	uint32_t n = bootinfo_normalize(&bi);
	assert_int_equal(n, bi.nr_ranges);
	check_map_invariants(&bi);
	return n;
}

static void test_init(void **state)
{
	memset(&bi, 0xa5, sizeof(bi));
	bootinfo_init(&bi, BOOT_PATH_PVH);
	assert_int_equal(bi.path, BOOT_PATH_PVH);
	assert_string_equal(bi.map_source, "none");
	assert_string_equal(bi.loader, "");
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.rsdp_len, 0);
	assert_int_equal(bi.raw.nr_ranges, 0);
	assert_int_equal(bi.raw.nr_entries, 0);
	assert_int_equal(bi.raw.nr_dropped, 0);
	assert_int_equal(bi.nr_ranges, 0);
	assert_int_equal(normalize(), 0);
}

static void test_zero_length(void **state)
{
	assert_true(bootinfo_add_raw(&bi, 0x1000, 0, MEM_USABLE));
	assert_true(bootinfo_add_raw(&bi, 0x5000, 0, MEM_RESERVED));
	assert_int_equal(bi.raw.nr_entries, 2);
	assert_int_equal(bi.raw.nr_ranges, 0);
	assert_int_equal(normalize(), 0);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
}

static const enum mem_type order[] = {
	MEM_USABLE, MEM_ACPI, MEM_NVS, MEM_UNUSABLE, MEM_RESERVED,
};
#define NR_TYPES (sizeof(order) / sizeof(order[0]))

/* For every pair of types, in both orders of addition: the larger wins. */
static void test_overlap_more_restrictive_wins(void **state)
{
	for (size_t a = 0; a < NR_TYPES; a++) {
		for (size_t b = 0; b < NR_TYPES; b++) {
			if (a == b)
				continue;
			enum mem_type outer = order[a], inner = order[b];
			enum mem_type mid = a > b ? outer : inner;
			for (int first_outer = 0; first_outer < 2; first_outer++) {
				bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
				if (first_outer)
					bootinfo_add_raw(&bi, 0x10000, 0x10000, outer);
				bootinfo_add_raw(&bi, 0x14000, 0x8000, inner);
				if (!first_outer)
					bootinfo_add_raw(&bi, 0x10000, 0x10000, outer);
				if (mid == outer) {
					assert_int_equal(normalize(), 1);
					assert_range(0, 0x10000, 0x20000, outer);
				} else {
					assert_int_equal(normalize(), 3);
					assert_range(0, 0x10000, 0x14000, outer);
					assert_range(1, 0x14000, 0x1c000, inner);
					assert_range(2, 0x1c000, 0x20000, outer);
				}
			}
		}
	}
}

static void test_partial_overlap(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x8000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x4000, 0x8000, MEM_ACPI);
	bootinfo_add_raw(&bi, 0xa000, 0x4000, MEM_NVS);
	assert_int_equal(normalize(), 3);
	assert_range(0, 0x0, 0x4000, MEM_USABLE);
	assert_range(1, 0x4000, 0xa000, MEM_ACPI);
	assert_range(2, 0xa000, 0xe000, MEM_NVS);
}

static void test_reserved_inside_usable_splits(void **state)
{
	bootinfo_add_raw(&bi, 0x100000, 0x100000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x180000, 0x2000, MEM_RESERVED);
	assert_int_equal(normalize(), 3);
	assert_range(0, 0x100000, 0x180000, MEM_USABLE);
	assert_range(1, 0x180000, 0x182000, MEM_RESERVED);
	assert_range(2, 0x182000, 0x200000, MEM_USABLE);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 0x100000 - 0x2000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_RESERVED), 0x2000);
}

static void test_unsorted_input(void **state)
{
	bootinfo_add_raw(&bi, 0x100000000ULL, 0x40000000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0xfffc0000, 0x40000, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x100000, 0x7ff00000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x9fc00, 0x400, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x0, 0x9fc00, MEM_USABLE);
	assert_int_equal(bi.raw.nr_ranges, 5);
	assert_int_equal(normalize(), 5);
	assert_range(0, 0x0, 0x9f000, MEM_USABLE);
	assert_range(1, 0x9f000, 0xa0000, MEM_RESERVED);
	assert_range(2, 0x100000, 0x80000000, MEM_USABLE);
	assert_range(3, 0xfffc0000, 0x100000000ULL, MEM_RESERVED);
	assert_range(4, 0x100000000ULL, 0x140000000ULL, MEM_USABLE);
}

static void test_usable_unaligned_shrinks(void **state)
{
	bootinfo_add_raw(&bi, 0x1001, 0x5fff - 0x1001, MEM_USABLE);    /* [0x1001, 0x5fff) */
	bootinfo_add_raw(&bi, 0x10800, 0x1000, MEM_USABLE);            /* no whole page */
	bootinfo_add_raw(&bi, 0x20001, 0xffe, MEM_USABLE);             /* inside one page */
	bootinfo_add_raw(&bi, 0x30000, 0x1fff, MEM_USABLE);            /* [0x30000, 0x31fff) */
	assert_int_equal(normalize(), 2);
	assert_range(0, 0x2000, 0x5000, MEM_USABLE);
	assert_range(1, 0x30000, 0x31000, MEM_USABLE);
}

static void test_reserved_unaligned_grows(void **state)
{
	bootinfo_add_raw(&bi, 0x1001, 1, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x8fff, 2, MEM_NVS);        /* straddles two pages */
	bootinfo_add_raw(&bi, 0x20800, 0x100, MEM_ACPI);
	assert_int_equal(normalize(), 3);
	assert_range(0, 0x1000, 0x2000, MEM_RESERVED);
	assert_range(1, 0x8000, 0xa000, MEM_NVS);
	assert_range(2, 0x20000, 0x21000, MEM_ACPI);
}

/* The partial page shared by RAM and a reserved range is reserved. */
static void test_reserved_wins_partial_page(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x10000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x3800, 0x100, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x20000, 0x2800, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x22800, 0x800, MEM_RESERVED);   /* SeaBIOS's 0x9fc00 case */
	assert_int_equal(normalize(), 5);
	assert_range(0, 0x0, 0x3000, MEM_USABLE);
	assert_range(1, 0x3000, 0x4000, MEM_RESERVED);
	assert_range(2, 0x4000, 0x10000, MEM_USABLE);
	assert_range(3, 0x20000, 0x22000, MEM_USABLE);
	assert_range(4, 0x22000, 0x23000, MEM_RESERVED);
}

static void test_touching_same_type_merge(void **state)
{
	/* Consecutive and touching: merged already in the raw list. */
	bootinfo_add_raw(&bi, 0x0, 0x1800, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x1800, 0x1800, MEM_USABLE);
	assert_int_equal(bi.raw.nr_entries, 2);
	assert_int_equal(bi.raw.nr_ranges, 1);
	assert_int_equal(bi.raw.ranges[0].end, 0x3000);
	/* Not consecutive: merged by the normalizer. */
	bootinfo_add_raw(&bi, 0x10000, 0x1000, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x3000, 0x1000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x11000, 0x1000, MEM_NVS);
	bootinfo_add_raw(&bi, 0x12000, 0x1000, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x4000, 0x4000, MEM_USABLE);
	assert_int_equal(bi.raw.nr_ranges, 6);
	/* Overlapping ranges of one type: one range. */
	bootinfo_add_raw(&bi, 0x30000, 0x3000, MEM_ACPI);
	bootinfo_add_raw(&bi, 0x31000, 0x3000, MEM_ACPI);
	assert_int_equal(normalize(), 5);
	assert_range(0, 0x0, 0x8000, MEM_USABLE);
	assert_range(1, 0x10000, 0x11000, MEM_RESERVED);
	assert_range(2, 0x11000, 0x12000, MEM_NVS);
	assert_range(3, 0x12000, 0x13000, MEM_RESERVED);
	assert_range(4, 0x30000, 0x34000, MEM_ACPI);
	/* Same-type neighbours split by an overlap of the other: still one. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	bootinfo_add_raw(&bi, 0x0, 0x4000, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x2000, 0x1000, MEM_USABLE);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0x0, 0x4000, MEM_RESERVED);
}

static void test_invalid_type_is_reserved(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x1000, MEM_NONE);
	bootinfo_add_raw(&bi, 0x1000, 0x1000, (enum mem_type)99);
	bootinfo_add_raw(&bi, 0x2000, 0x1000, MEM_TYPE_COUNT);
	assert_int_equal(bi.raw.nr_ranges, 1);   /* all reserved, all merged */
	assert_int_equal(bi.raw.ranges[0].type, MEM_RESERVED);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0x0, 0x3000, MEM_RESERVED);
}

static void test_wrapping_range(void **state)
{
	assert_true(bootinfo_add_raw(&bi, 0xffffffffffff0000ULL, 0x20000, MEM_RESERVED));
	assert_true(host_log_contains("e820: range at 0xffffffffffff0000 of length 0x20000 wraps past 2^64; clipped"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(bi.raw.ranges[0].end, UINT64_MAX);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0xffffffffffff0000ULL, TOP_ALIGNED_END, MEM_RESERVED);

	/* The largest length there is, from 1: RAM from page 1 to the top. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	bootinfo_add_raw(&bi, 1, UINT64_MAX, MEM_USABLE);
	assert_true(host_log_contains("range at 0x1 of length 0xffffffffffffffff wraps"));
	assert_int_equal(normalize(), 1);
	assert_range(0, 0x1000, TOP_ALIGNED_END, MEM_USABLE);
}

/*
 * A range that starts at 2^64 - 1 and wraps is clipped to [2^64 - 1, 2^64 - 1):
 * nothing is left of it, so it must not take a slot in the raw list (every
 * struct mem_range has start < end), and it must not break the merging of
 * the ranges around it.
 */
static void test_wrap_from_last_byte(void **state)
{
	bootinfo_add_raw(&bi, 0x100000, 0x100000, MEM_RESERVED);
	bootinfo_add_raw(&bi, UINT64_MAX, 0x1000, MEM_RESERVED);
	assert_true(host_log_contains("e820: range at 0xffffffffffffffff of length 0x1000 wraps past 2^64; clipped"));
	assert_int_equal(bi.raw.nr_entries, 2);
	for (uint32_t i = 0; i < bi.raw.nr_ranges; i++)
		if (bi.raw.ranges[i].start >= bi.raw.ranges[i].end)
			fail_msg("raw range %u is empty: [0x%" PRIx64 ", 0x%" PRIx64 ")", i,
				 bi.raw.ranges[i].start, bi.raw.ranges[i].end);
	assert_int_equal(bi.raw.nr_ranges, 1);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0x100000, 0x200000, MEM_RESERVED);
}

static void test_range_ending_at_top(void **state)
{
	/* Ends at 2^64 - 1 exactly: no wrap, no warning. */
	bootinfo_add_raw(&bi, 0xffffffff00000000ULL, UINT64_MAX - 0xffffffff00000000ULL, MEM_USABLE);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(bi.raw.ranges[0].end, UINT64_MAX);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0xffffffff00000000ULL, TOP_ALIGNED_END, MEM_USABLE);

	/* The whole space reserved, RAM inside it: reserved wins everywhere. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	bootinfo_add_raw(&bi, 0, UINT64_MAX, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x100000, 0x100000, MEM_USABLE);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0, TOP_ALIGNED_END, MEM_RESERVED);

	/* Only the last, partial, page: nothing a half-open range can name. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	bootinfo_add_raw(&bi, TOP_ALIGNED_END + 0x800, 0x7ff, MEM_USABLE);
	bootinfo_add_raw(&bi, TOP_ALIGNED_END, 0xfff, MEM_RESERVED);
	assert_int_equal(normalize(), 0);

	/* RAM up to the top next to a reserved last page. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	bootinfo_add_raw(&bi, 0xfffffffffff00000ULL, 0xff000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0xfffffffffffff800ULL, 0x7ff, MEM_RESERVED);
	assert_int_equal(normalize(), 1);
	assert_range(0, 0xfffffffffff00000ULL, TOP_ALIGNED_END, MEM_USABLE);
}

static void test_holes_not_emitted(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x1000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x3000, 0x1000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x10000000000ULL, 0x1000, MEM_RESERVED);
	assert_int_equal(normalize(), 3);
	assert_range(0, 0x0, 0x1000, MEM_USABLE);
	assert_range(1, 0x3000, 0x4000, MEM_USABLE);
	assert_range(2, 0x10000000000ULL, 0x10000001000ULL, MEM_RESERVED);
}

static void test_raw_capacity(void **state)
{
	for (uint32_t i = 0; i < BOOTINFO_MAX_RAW; i++)
		assert_true(bootinfo_add_raw(&bi, i * 2 * P, P, i % 3 ? MEM_USABLE : MEM_ACPI));
	assert_int_equal(host_log_count(LOG_ERR), 0);
	assert_int_equal(bi.raw.nr_ranges, BOOTINFO_MAX_RAW);
	/* Full: a new range is dropped (said once), a touching one still merges. */
	assert_false(bootinfo_add_raw(&bi, 0x10000000, P, MEM_USABLE));
	assert_false(bootinfo_add_raw(&bi, 0x20000000, P, MEM_USABLE));
	assert_false(bootinfo_add_raw(&bi, 0x30000000, P, MEM_NVS));
	assert_true(bootinfo_add_raw(&bi, (2 * BOOTINFO_MAX_RAW - 1) * P, P, MEM_ACPI));
	assert_int_equal(bi.raw.nr_dropped, 3);
	assert_int_equal(bi.raw.nr_entries, BOOTINFO_MAX_RAW + 4);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	assert_true(host_log_contains("e820: more than 1024 distinct firmware ranges; dropping [0x10000000-0x10001000) and any after it"));
	assert_int_equal(bi.raw.ranges[BOOTINFO_MAX_RAW - 1].end, 2 * BOOTINFO_MAX_RAW * P);
}

static void test_normalized_capacity(void **state)
{
	/* 600 separate ranges: the first 512 are kept, 88 dropped. */
	for (uint32_t i = 0; i < 600; i++)
		bootinfo_add_raw(&bi, i * 2 * P, P, MEM_USABLE);
	assert_int_equal(normalize(), BOOTINFO_MAX_RANGES);
	assert_true(host_log_contains("e820: normalized map needs more than 512 ranges; 88 dropped (treated as holes)"));
	assert_range(511, 1022 * P, 1023 * P, MEM_USABLE);

	/* Exactly 512: no error. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	for (uint32_t i = 0; i < BOOTINFO_MAX_RANGES; i++)
		bootinfo_add_raw(&bi, i * P, P, i % 2 ? MEM_RESERVED : MEM_USABLE);
	assert_int_equal(normalize(), BOOTINFO_MAX_RANGES);
	assert_int_equal(host_log_count(LOG_ERR), 0);

	/* 1024 raw ranges, all usable and overlapping: one range. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	for (uint32_t i = 0; i < BOOTINFO_MAX_RAW; i++)
		bootinfo_add_raw(&bi, (BOOTINFO_MAX_RAW - i) * P, 4 * P, MEM_USABLE);
	assert_int_equal(bi.raw.nr_ranges, BOOTINFO_MAX_RAW);
	assert_int_equal(normalize(), 1);
	assert_range(0, P, (BOOTINFO_MAX_RAW + 4) * P, MEM_USABLE);
}

static void test_normalize_twice(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x9fc00, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x9fc00, 0x400, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x100000, 0x100000, MEM_USABLE);
	assert_int_equal(normalize(), 3);
	struct mem_range first[3];
	memcpy(first, bi.ranges, sizeof(first));
	assert_int_equal(normalize(), 3);
	assert_memory_equal(first, bi.ranges, sizeof(first));
}

static void test_total_bytes(void **state)
{
	bootinfo_add_raw(&bi, 0x0, 0x9fc00, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x9fc00, 0x400, MEM_RESERVED);
	bootinfo_add_raw(&bi, 0x100000, 0x7ff00000, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x7ff00000, 0x100000, MEM_ACPI);
	bootinfo_add_raw(&bi, 0x80000000, 0x3000, MEM_NVS);
	bootinfo_add_raw(&bi, 0x100000000ULL, 0x200000000ULL, MEM_USABLE);
	bootinfo_add_raw(&bi, 0x300000000ULL, 0x1000, MEM_UNUSABLE);
	normalize();
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE),
			 0x9f000 + 0x7fe00000 + 0x200000000ULL);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_ACPI), 0x100000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_NVS), 0x3000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_UNUSABLE), 0x1000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_RESERVED), 0x1000);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_NONE), 0);
}

static void test_append_cmdline(void **state)
{
	bootinfo_append_cmdline(&bi, "");
	assert_string_equal(bi.cmdline, "");
	bootinfo_append_cmdline(&bi, "a");
	assert_string_equal(bi.cmdline, "a");
	bootinfo_append_cmdline(&bi, "b c");
	assert_string_equal(bi.cmdline, "a b c");
	bootinfo_append_cmdline(&bi, "");
	assert_string_equal(bi.cmdline, "a b c");
	assert_int_equal(host_log_count(LOG_WARN), 0);

	/* A word that does not fit is dropped whole, with one warning. */
	char big[3000];
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	bootinfo_append_cmdline(&bi, big);
	assert_string_equal(bi.cmdline, "a b c");
	assert_true(bi.cmdline_cut);
	assert_true(host_log_contains("cmdline: the command line does not fit in 2047 bytes; "
				      "its words from 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' on are dropped"));
	assert_int_equal(host_log_count(LOG_WARN), 1);

	/* Cut once: nothing more goes in, and no second warning. */
	host_log_reset();
	bootinfo_append_cmdline(&bi, "more");
	assert_string_equal(bi.cmdline, "a b c");
	assert_int_equal(host_log_count(LOG_WARN), 0);

	/* Exactly fitting: no warning. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	big[BOOTINFO_CMDLINE_BYTES - 3] = '\0';       /* 2045 bytes */
	bootinfo_append_cmdline(&bi, "y");
	bootinfo_append_cmdline(&bi, big);            /* "y " + 2045 = 2047 */
	assert_int_equal(strlen(bi.cmdline), BOOTINFO_CMDLINE_BYTES - 1);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_memory_equal(bi.cmdline, "y xx", 4);
}

/* Fill @buf with @pad spaces then @tail; returns the length. */
static size_t padded(char *buf, size_t pad, const char *tail)
{
	memset(buf, ' ', pad);
	strcpy(buf + pad, tail);
	return strlen(buf);
}

static void test_cmdline_cut_drops_whole_words(void **state)
{
	static char line[4096];
	const size_t full = BOOTINFO_CMDLINE_BYTES - 1;
	size_t n;

	/* "maxcpus=30" straddles the end: "maxcpus=3" must never be kept. */
	n = padded(line, full - 9 - 6, "nosmp maxcpus=30 memboot.trace");
	bootinfo_put_cmdline(&bi, 0, line, n, '\0', "the test line");
	assert_int_equal(strlen(bi.cmdline), full - 10);
	assert_string_equal(bi.cmdline + full - 15, "nosmp");
	assert_true(bi.cmdline_cut);
	assert_string_equal(bi.cmdline_dropped, "maxcpus=30");
	assert_true(host_log_contains("cmdline: the test line does not fit in 2047 bytes; "
				      "its words from 'maxcpus=30' on are dropped"));
	assert_int_equal(host_log_count(LOG_WARN), 1);

	/* A word that ends exactly at the end, a space after it: kept. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	n = padded(line, full - 10, "maxcpus=30 nosmp");
	bootinfo_put_cmdline(&bi, 0, line, n, '\0', "the test line");
	assert_int_equal(strlen(bi.cmdline), full);
	assert_string_equal(bi.cmdline + full - 10, "maxcpus=30");
	assert_string_equal(bi.cmdline_dropped, "nosmp");

	/* The same, but what follows is unknown: the last word may be cut. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	n = padded(line, full - 10, "maxcpus=30");
	bootinfo_put_cmdline(&bi, 0, line, n, -1, "the test line");
	assert_null(strstr(bi.cmdline, "maxcpus"));
	assert_true(host_log_contains("from 'maxcpus=30...' on"));

	/* A quoted value with spaces straddling the end is dropped whole. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	n = padded(line, full - 12, "x key=\"a b c d\" y");
	bootinfo_put_cmdline(&bi, 0, line, n, '\0', "the test line");
	assert_int_equal(strlen(bi.cmdline), full - 11);
	assert_int_equal(bi.cmdline[full - 12], 'x');
	assert_string_equal(bi.cmdline_dropped, "key=\"a");

	/* Appending after a cut adds nothing and says nothing more. */
	host_log_reset();
	bootinfo_append_cmdline(&bi, "nosmp");
	assert_int_equal(strlen(bi.cmdline), full - 11);
	assert_int_equal(host_log_count(LOG_WARN), 0);

	/* Appended words: the first that does not fit and all after it go. */
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	host_log_reset();
	n = padded(line, full - 8, "a");
	bootinfo_append_cmdline(&bi, line);
	bootinfo_append_cmdline_from(&bi, "b=1 maxcpus=30 c", "fw_cfg");
	assert_string_equal(bi.cmdline + strlen(bi.cmdline) - 5, "a b=1");
	assert_true(host_log_contains("cmdline: fw_cfg does not fit in 2047 bytes; its words from 'maxcpus=30' on are dropped"));
}

static void test_efi_mem_type(void **state)
{
	static const struct { uint32_t efi; enum mem_type want; } map[] = {
		{ 0, MEM_RESERVED },   /* reserved */
		{ 1, MEM_USABLE },     /* loader code */
		{ 2, MEM_USABLE },     /* loader data */
		{ 3, MEM_USABLE },     /* boot services code */
		{ 4, MEM_USABLE },     /* boot services data */
		{ 5, MEM_RESERVED },   /* runtime services code */
		{ 6, MEM_RESERVED },   /* runtime services data */
		{ 7, MEM_USABLE },     /* conventional */
		{ 8, MEM_UNUSABLE },   /* unusable */
		{ 9, MEM_ACPI },       /* ACPI reclaim */
		{ 10, MEM_NVS },       /* ACPI NVS */
		{ 11, MEM_RESERVED },  /* MMIO */
		{ 12, MEM_RESERVED },  /* MMIO port space */
		{ 13, MEM_RESERVED },  /* PAL code */
		{ 14, MEM_RESERVED },  /* persistent */
		{ 15, MEM_RESERVED },  /* unaccepted (UEFI 2.9+) */
		{ 20, MEM_RESERVED },
		{ 0x6fffffff, MEM_RESERVED },
		{ 0x70000000, MEM_RESERVED },
		{ 0x80000000, MEM_RESERVED },
		{ 0xffffffff, MEM_RESERVED },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (efi_mem_type(map[i].efi) != map[i].want)
			fail_msg("EFI type %u gives %s, expected %s", map[i].efi,
				 mem_type_name(efi_mem_type(map[i].efi)),
				 mem_type_name(map[i].want));
	assert_int_equal(EFI_CONVENTIONAL_MEMORY, 7);
	assert_int_equal(EFI_PERSISTENT_MEMORY, 14);
}

static void put_desc(uint8_t *p, uint32_t type, uint64_t start, uint64_t pages)
{
	/* Cacheability bits only: an all-ones attribute would set
	 * EFI_MEMORY_SP, which makes conventional memory soft-reserved. */
	uint64_t attribute = 0xf;

	memcpy(p, &type, 4);
	memcpy(p + 8, &start, 8);
	memcpy(p + 24, &pages, 8);
	memcpy(p + 32, &attribute, 8);
}

static void test_efi_map_add(void **state)
{
	uint8_t map[4 * 56 + 3];

	memset(map, 0xff, sizeof(map));
	put_desc(map + 0 * 56, EFI_CONVENTIONAL_MEMORY, 0x0, 0xa0);
	put_desc(map + 1 * 56, EFI_RUNTIME_SERVICES_CODE, 0x100000, 0x10);
	put_desc(map + 2 * 56, EFI_LOADER_DATA, 0x110000, 0xf0);
	put_desc(map + 3 * 56, EFI_ACPI_MEMORY_NVS, 0x200000, 1);
	/* Unaligned map pointer, stride 56, three trailing bytes. */
	uint8_t *buf = malloc(sizeof(map) + 1);
	assert_non_null(buf);
	memcpy(buf + 1, map, sizeof(map));
	assert_int_equal(efi_map_add(&bi, buf + 1, sizeof(map), 56), 4);
	assert_true(host_log_contains("efi: memory map size 227 is not a multiple of descriptor size 56; 3 trailing bytes ignored"));
	assert_int_equal(bi.raw.nr_entries, 4);
	assert_int_equal(normalize(), 4);
	assert_range(0, 0x0, 0xa0000, MEM_USABLE);
	assert_range(1, 0x100000, 0x110000, MEM_RESERVED);
	assert_range(2, 0x110000, 0x200000, MEM_USABLE);
	assert_range(3, 0x200000, 0x201000, MEM_NVS);

	/* Smaller than the structure: nothing added. */
	bootinfo_init(&bi, BOOT_PATH_EFI);
	host_log_reset();
	assert_int_equal(efi_map_add(&bi, buf + 1, sizeof(map), 32), -1);
	assert_true(host_log_contains("efi: memory map descriptor size 32 is smaller than the 40-byte descriptor"));
	assert_int_equal(bi.raw.nr_entries, 0);
	assert_int_equal(efi_map_add(&bi, buf + 1, sizeof(map), 0), -1);
	/* An empty map and a stride larger than the map: zero descriptors. */
	assert_int_equal(efi_map_add(&bi, buf + 1, 0, 48), 0);
	assert_int_equal(efi_map_add(&bi, buf + 1, 40, 48), 0);
	assert_int_equal(bi.raw.nr_entries, 0);
	free(buf);
}

static void test_names(void **state)
{
	assert_string_equal(mem_type_name(MEM_NONE), "none");
	assert_string_equal(mem_type_name(MEM_USABLE), "usable");
	assert_string_equal(mem_type_name(MEM_ACPI), "acpi");
	assert_string_equal(mem_type_name(MEM_NVS), "nvs");
	assert_string_equal(mem_type_name(MEM_UNUSABLE), "unusable");
	assert_string_equal(mem_type_name(MEM_RESERVED), "reserved");
	assert_string_equal(mem_type_name(MEM_TYPE_COUNT), "none");
	assert_string_equal(mem_type_name((enum mem_type)1000), "none");

	assert_string_equal(mem_type_linux_name(MEM_NONE), "hole");
	assert_string_equal(mem_type_linux_name(MEM_USABLE), "usable");
	assert_string_equal(mem_type_linux_name(MEM_ACPI), "ACPI data");
	assert_string_equal(mem_type_linux_name(MEM_NVS), "ACPI NVS");
	assert_string_equal(mem_type_linux_name(MEM_UNUSABLE), "unusable");
	assert_string_equal(mem_type_linux_name(MEM_RESERVED), "reserved");

	assert_string_equal(boot_path_name(BOOT_PATH_UNKNOWN), "unknown");
	assert_string_equal(boot_path_name(BOOT_PATH_MB2_BIOS), "mb2-bios");
	assert_string_equal(boot_path_name(BOOT_PATH_MB2_UEFI), "mb2-uefi");
	assert_string_equal(boot_path_name(BOOT_PATH_EFI), "efi");
	assert_string_equal(boot_path_name(BOOT_PATH_PVH), "pvh");
	assert_string_equal(boot_path_name((enum boot_path)77), "unknown");
}

/* ---- reference model -------------------------------------------------- */

#define MODEL_PAGES 64
#define MODEL_BYTES (MODEL_PAGES * P)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic across hosts. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/*
 * Page @p's type by definition, from the raw list: the most restrictive type
 * among non-usable ranges touching any byte of the page; else usable if the
 * usable ranges together cover all of it (touching entries may meet inside
 * a page without losing it); else a hole.
 */
static uint32_t model_page_type(const struct mem_map_raw *raw, uint64_t p)
{
	uint64_t ps = p * P, pe = ps + P, covered = ps;
	uint32_t t = MEM_NONE;
	bool progress = true;

	for (uint32_t i = 0; i < raw->nr_ranges; i++) {
		const struct mem_range *r = &raw->ranges[i];
		if (r->type != MEM_USABLE && r->start < pe && ps < r->end && r->type > t)
			t = r->type;
	}
	if (t != MEM_NONE)
		return t;
	/* Extend [ps, covered) with any usable range starting inside it. */
	while (progress && covered < pe) {
		progress = false;
		for (uint32_t i = 0; i < raw->nr_ranges; i++) {
			const struct mem_range *r = &raw->ranges[i];
			if (r->type == MEM_USABLE && r->start <= covered && r->end > covered) {
				covered = r->end;
				progress = true;
			}
		}
	}
	return covered >= pe ? MEM_USABLE : MEM_NONE;
}

static void test_against_model(void **state)
{
	for (int iter = 0; iter < 3000; iter++) {
		unsigned n = 1 + (unsigned)(rng() % 12);
		bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
		for (unsigned k = 0; k < n; k++) {
			/* Quarter-page granularity so partial pages are common. */
			uint64_t start = (rng() % (MODEL_PAGES * 4)) * (P / 4);
			uint64_t len = (rng() % (MODEL_PAGES * 2)) * (P / 4);
			if (start + len > MODEL_BYTES)
				len = MODEL_BYTES - start;
			if (rng() % 8 == 0)
				start += 1 + rng() % 100;   /* odd bytes too */
			enum mem_type t = order[rng() % NR_TYPES];
			if (rng() % 2)
				t = MEM_USABLE;             /* RAM is most of a map */
			bootinfo_add_raw(&bi, start, len, t);
		}
		normalize();
		for (uint64_t p = 0; p < MODEL_PAGES + 1; p++) {
			uint32_t want = model_page_type(&bi.raw, p), got = MEM_NONE;
			for (uint32_t i = 0; i < bi.nr_ranges; i++)
				if (bi.ranges[i].start <= p * P && p * P < bi.ranges[i].end)
					got = bi.ranges[i].type;
			if (want != got)
				fail_msg("iteration %d: page %" PRIu64 " is %s, expected %s",
					 iter, p, mem_type_name((enum mem_type)got),
					 mem_type_name((enum mem_type)want));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_init, setup),
		cmocka_unit_test_setup(test_zero_length, setup),
		cmocka_unit_test_setup(test_overlap_more_restrictive_wins, setup),
		cmocka_unit_test_setup(test_partial_overlap, setup),
		cmocka_unit_test_setup(test_reserved_inside_usable_splits, setup),
		cmocka_unit_test_setup(test_unsorted_input, setup),
		cmocka_unit_test_setup(test_usable_unaligned_shrinks, setup),
		cmocka_unit_test_setup(test_reserved_unaligned_grows, setup),
		cmocka_unit_test_setup(test_reserved_wins_partial_page, setup),
		cmocka_unit_test_setup(test_touching_same_type_merge, setup),
		cmocka_unit_test_setup(test_invalid_type_is_reserved, setup),
		cmocka_unit_test_setup(test_wrapping_range, setup),
		cmocka_unit_test_setup(test_range_ending_at_top, setup),
		cmocka_unit_test_setup(test_wrap_from_last_byte, setup),
		cmocka_unit_test_setup(test_holes_not_emitted, setup),
		cmocka_unit_test_setup(test_raw_capacity, setup),
		cmocka_unit_test_setup(test_normalized_capacity, setup),
		cmocka_unit_test_setup(test_normalize_twice, setup),
		cmocka_unit_test_setup(test_total_bytes, setup),
		cmocka_unit_test_setup(test_append_cmdline, setup),
		cmocka_unit_test_setup(test_cmdline_cut_drops_whole_words, setup),
		cmocka_unit_test_setup(test_efi_mem_type, setup),
		cmocka_unit_test_setup(test_efi_map_add, setup),
		cmocka_unit_test_setup(test_names, setup),
		cmocka_unit_test_setup(test_against_model, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

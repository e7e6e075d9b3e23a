/*
 * test_pvh.c: the hvm_start_info parser (boot/pvh/pvh.c).
 *
 * Physical memory is a set of regions, each in a buffer of exactly its size,
 * reached only through the parser's map callback, so any read past what the
 * "firmware" provided is caught by ASan. The captured fixtures in
 * tests/host/fixtures/pvh/ are snapshots of what QEMU's PVH boot put in guest
 * memory (start info, memory map, command line, RSDP; README.md there), with
 * the map the kernel printed in that boot.
 *
 * Run from the repository root (fixture paths are relative to it).
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

#include "boot/bootinfo.h"
#include "boot/pvh/pvh.h"
#include "tests/host/host_support.h"
#include "tests/host/map_check.h"

#define FIXTURE_DIR "tests/host/fixtures/pvh/"
#define PAGE PAGE_SIZE_BYTES
#define MAX_REGIONS 8

static struct bootinfo bi;

/* ---- fake physical memory ---------------------------------------------- */

struct region {
	uint64_t phys;
	size_t len;
	unsigned char *buf;
};

struct physmem_fake {
	struct region r[MAX_REGIONS];
	int n;
	unsigned long calls;
};

static struct physmem_fake mem;

static const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	struct physmem_fake *m = ctx;

	m->calls++;
	for (int i = 0; i < m->n; i++) {
		const struct region *r = &m->r[i];
		if (phys >= r->phys && phys - r->phys <= r->len && len <= r->len - (phys - r->phys))
			return r->buf + (phys - r->phys);
	}
	return NULL;
}

static unsigned char *add_region(uint64_t phys, const void *data, size_t len)
{
	struct region *r = &mem.r[mem.n++];

	assert_true(mem.n <= MAX_REGIONS);
	r->phys = phys;
	r->len = len;
	r->buf = malloc(len ? len : 1);
	assert_non_null(r->buf);
	if (data)
		memcpy(r->buf, data, len);
	return r->buf;
}

static void free_regions(void)
{
	for (int i = 0; i < mem.n; i++)
		free(mem.r[i].buf);
	memset(&mem, 0, sizeof(mem));
}

static int setup(void **state)
{
	(void)state;
	host_log_reset();
	memset(&mem, 0, sizeof(mem));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free_regions();
	return 0;
}

static enum pvh_status parse(uint64_t start_info)
{
	return pvh_parse(PVH_BOOT_MAGIC, start_info, fake_map, &mem, &bi);
}

static size_t warnings_and_errors(void)
{
	return host_log_count(LOG_WARN) + host_log_count(LOG_ERR);
}

static bool has_range(uint64_t start, uint64_t end, enum mem_type type)
{
	for (uint32_t i = 0; i < bi.nr_ranges; i++)
		if (bi.ranges[i].start == start && bi.ranges[i].end == end &&
		    bi.ranges[i].type == (uint32_t)type)
			return true;
	return false;
}

/* ---- captured snapshots ------------------------------------------------ */

/* Load snapshot NAME.bin into fake memory; returns the start info address. */
static uint64_t load_snapshot(const char *name)
{
	size_t len, off = 24;
	unsigned char *s = fixture_load(FIXTURE_DIR, name, ".bin", &len);
	uint64_t si;
	uint32_t count;

	assert_true(len >= 24 && memcmp(s, "MBPHYS01", 8) == 0);
	memcpy(&si, s + 8, 8);
	memcpy(&count, s + 16, 4);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t phys;
		uint32_t n;
		assert_true(off + 16 <= len);
		memcpy(&phys, s + off, 8);
		memcpy(&n, s + off + 8, 4);
		assert_true(off + 16 + n <= len);
		add_region(phys, s + off + 16, n);
		off += (16 + n + 7) & ~(size_t)7;
	}
	free(s);
	return si;
}

static void expect_fixture_map(const char *name)
{
	size_t len;
	char *text = fixture_load(FIXTURE_DIR, name, ".txt", &len), *save = NULL;
	uint32_t n = 0;

	text = realloc(text, len + 1);
	assert_non_null(text);
	text[len] = '\0';
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		uint64_t start, end;
		char type[16];
		if (sscanf(line, "{\"event\":\"mem_range\",\"start\":\"0x%" SCNx64
			   "\",\"end\":\"0x%" SCNx64 "\",\"type\":\"%15[a-z]\"}", &start, &end, type) != 3)
			fail_msg("%s.txt: cannot read '%s'", name, line);
		if (n >= bi.nr_ranges || bi.ranges[n].start != start || bi.ranges[n].end != end ||
		    bi.ranges[n].type != (uint32_t)fixture_mem_type(type))
			fail_msg("%s: range %u differs from the kernel's '%s'", name, n, line);
	}
	assert_int_equal(bi.nr_ranges, n);
	free(text);
}

static void parse_fixture(const char *name, uint32_t entries, const char *cmdline)
{
	uint64_t si = load_snapshot(name);

	assert_int_equal(parse(si), PVH_OK);
	assert_int_equal(warnings_and_errors(), 0);
	assert_int_equal(bi.path, BOOT_PATH_PVH);
	assert_string_equal(boot_path_name(bi.path), "pvh");
	assert_string_equal(bi.loader, "PVH");
	assert_string_equal(bi.map_source, "pvh-memmap");
	assert_string_equal(bi.cmdline, cmdline);
	assert_int_equal(bi.raw.nr_entries, entries);
	assert_int_equal(bi.rsdp_len, 20);            /* SeaBIOS: ACPI 1.0, RSDT */
	assert_int_equal(bi.rsdp_revision, 0);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	assert_int_equal(bi.loader_info_phys, si);
	assert_int_equal(bi.loader_info_bytes, PVH_START_INFO_V1_BYTES);
	check_map_invariants(&bi);
	expect_fixture_map(name);
}

static void test_fixture_q35_1g(void **state)
{
	parse_fixture("qemu-q35-1g", 9, "memboot.dump_mmap console=x");
	assert_true(has_range(0x100000, 0x3ffdf000, MEM_USABLE));
	assert_true(has_range(0xb0000000, 0xc0000000, MEM_RESERVED));
}

static void test_fixture_pc_512m(void **state)
{
	parse_fixture("qemu-pc-512m", 7, "");
	assert_true(has_range(0x100000, 0x1ffe0000, MEM_USABLE));
}

static void test_fixture_q35_2x2g(void **state)
{
	parse_fixture("qemu-q35-2x2g", 10, "");
	assert_true(has_range(0x100000000ULL, 0x180000000ULL, MEM_USABLE));
}

/* Every way of shrinking the start info's region is refused cleanly. */
static void test_fixture_start_info_cut(void **state)
{
	uint64_t si = load_snapshot("qemu-q35-1g");
	struct region *r = NULL;

	for (int i = 0; i < mem.n; i++)
		if (mem.r[i].phys == si)
			r = &mem.r[i];
	assert_non_null(r);
	for (size_t n = 0; n < PVH_START_INFO_V1_BYTES; n++) {
		unsigned char *cut = malloc(n ? n : 1), *orig = r->buf;
		size_t orig_len = r->len;
		memcpy(cut, orig, n);
		r->buf = cut;
		r->len = n;
		assert_int_equal(parse(si), PVH_ERR_MAP);
		r->buf = orig;
		r->len = orig_len;
		free(cut);
	}
}

/* ---- synthetic start info ---------------------------------------------- */

#define SI_PHYS 0x2000
#define MAP_PHYS 0x3000
#define CMD_PHYS 0x4000
#define RSDP_PHYS 0xf0000

static struct pvh_start_info make_si(uint32_t entries)
{
	return (struct pvh_start_info){
		.magic = PVH_START_MAGIC, .version = 1, .cmdline_paddr = CMD_PHYS,
		.rsdp_paddr = RSDP_PHYS, .memmap_paddr = MAP_PHYS, .memmap_entries = entries,
	};
}

static const struct pvh_memmap_entry basic_map[] = {
	{ 0, 0x9fc00, PVH_MEMMAP_RAM, 0 },
	{ 0x9fc00, 0x400, PVH_MEMMAP_RESERVED, 0 },
	{ 0x100000, 0x1ff00000, PVH_MEMMAP_RAM, 0 },
	{ 0x20000000, 0x10000, PVH_MEMMAP_ACPI, 0 },
	{ 0x20010000, 0x10000, PVH_MEMMAP_NVS, 0 },
};

static const unsigned char rsdp_v0[20] = "RSD PTR \x55" "BOCHS \x00\x00\x10\x00\x00";

static void add_standard(const struct pvh_start_info *si, const void *map, size_t map_bytes,
			 const char *cmdline)
{
	add_region(SI_PHYS, si, sizeof(*si));
	if (map)
		add_region(MAP_PHYS, map, map_bytes);
	if (cmdline)
		add_region(CMD_PHYS, cmdline, strlen(cmdline) + 1);
	add_region(RSDP_PHYS, rsdp_v0, sizeof(rsdp_v0));
}

static void test_basic(void **state)
{
	struct pvh_start_info si = make_si(5);

	add_standard(&si, basic_map, sizeof(basic_map), "a=1 b");
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_int_equal(warnings_and_errors(), 0);
	assert_string_equal(bi.cmdline, "a=1 b");
	assert_true(has_range(0, 0x9f000, MEM_USABLE));
	assert_true(has_range(0x9f000, 0xa0000, MEM_RESERVED));
	assert_true(has_range(0x20000000, 0x20010000, MEM_ACPI));
	assert_true(has_range(0x20010000, 0x20020000, MEM_NVS));
	check_map_invariants(&bi);
}

static void test_magics(void **state)
{
	struct pvh_start_info si = make_si(5);

	add_standard(&si, basic_map, sizeof(basic_map), "");
	assert_int_equal(pvh_parse(0x36d76289, SI_PHYS, fake_map, &mem, &bi), PVH_ERR_MAGIC);
	assert_int_equal(bi.path, BOOT_PATH_PVH);
	mem.r[0].buf[0] ^= 0x80;
	assert_int_equal(parse(SI_PHYS), PVH_ERR_MAGIC);
	assert_true(host_log_contains("has magic"));
	assert_false(host_log_contains("its bytes are text"));
	/* A command line written over the start info (QEMU's PVH option ROM
	 * with more than 4096 bytes of -append): the magic is text. */
	memcpy(mem.r[0].buf, "xxxx", 4);
	assert_int_equal(parse(SI_PHYS), PVH_ERR_MAGIC);
	assert_true(host_log_contains("has magic 0x78787878"));
	assert_true(host_log_contains("its bytes are text: QEMU's PVH option ROM"));
	assert_int_equal(parse(0), PVH_ERR_MAP);                  /* no start info */
	assert_int_equal(parse(0x123456), PVH_ERR_MAP);           /* not mapped */
	assert_int_equal(parse(UINT64_MAX - 8), PVH_ERR_MAP);     /* wraps */
}

static void test_version_0_has_no_map(void **state)
{
	struct pvh_start_info si = make_si(5);

	si.version = 0;
	/* Only the 40 bytes of version 0 exist: nothing past them is read. */
	add_region(SI_PHYS, &si, PVH_START_INFO_V0_BYTES);
	add_region(CMD_PHYS, "quiet", 6);
	add_region(RSDP_PHYS, rsdp_v0, sizeof(rsdp_v0));
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);
	assert_true(host_log_contains("version 0 has no memory map"));
	/* What version 0 does carry was still read. */
	assert_string_equal(bi.cmdline, "quiet");
	assert_int_equal(bi.rsdp_len, 20);
	assert_int_equal(bi.loader_info_bytes, PVH_START_INFO_V0_BYTES);
	assert_int_equal(bi.nr_ranges, 0);
}

static void test_version_1_needs_56_bytes(void **state)
{
	struct pvh_start_info si = make_si(5);

	add_region(SI_PHYS, &si, PVH_START_INFO_V0_BYTES + 8);
	assert_int_equal(parse(SI_PHYS), PVH_ERR_MAP);
	assert_true(host_log_contains("cannot be mapped"));
}

static void test_later_version_read_as_1(void **state)
{
	struct pvh_start_info si = make_si(5);

	si.version = 7;
	add_standard(&si, basic_map, sizeof(basic_map), "");
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_int_equal(warnings_and_errors(), 0);
	assert_true(host_log_contains("version 7"));
}

static void test_memmap_problems(void **state)
{
	struct pvh_start_info si = make_si(0);

	add_standard(&si, basic_map, sizeof(basic_map), "");
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);          /* no entries */
	assert_true(host_log_contains("memmap_entries 0"));
	free_regions();

	si = make_si(6);                                             /* one too many */
	add_standard(&si, basic_map, sizeof(basic_map), "");
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);
	assert_true(host_log_contains("cannot be mapped"));
	free_regions();

	si = make_si(0xffffffffu);                                   /* count overflows */
	add_standard(&si, basic_map, sizeof(basic_map), "");
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);
	assert_true(host_log_contains("implausible"));
	free_regions();

	si = make_si(5);
	si.memmap_paddr = UINT64_MAX - 24;                           /* wraps */
	add_standard(&si, basic_map, sizeof(basic_map), "");
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);
	free_regions();

	si = make_si(5);
	si.memmap_paddr = 0;                                         /* absent */
	add_standard(&si, basic_map, sizeof(basic_map), "");
	assert_int_equal(parse(SI_PHYS), PVH_ERR_NO_MMAP);
}

static void test_entry_types_and_alignment(void **state)
{
	const struct pvh_memmap_entry map[] = {
		{ 0x1234, 0x10000, PVH_MEMMAP_RAM, 0xdead },           /* unaligned RAM */
		{ 0x100000, 0x1000, PVH_MEMMAP_DISABLED, 0 },
		{ 0x101000, 0x1000, PVH_MEMMAP_PMEM, 0 },
		{ 0x102000, 0x1000, 99, 0 },                            /* unknown */
		{ 0x103000, 0x1000, PVH_MEMMAP_UNUSABLE, 0 },
		{ 0x104000, 0, PVH_MEMMAP_RAM, 0 },                     /* empty */
		{ 0x200001, 0x10, PVH_MEMMAP_RESERVED, 0 },             /* unaligned, grows */
		{ 0xfffffffffffff000ULL, 0x10000, PVH_MEMMAP_RESERVED, 0 },  /* wraps */
	};
	struct pvh_start_info si = make_si(8);

	add_standard(&si, map, sizeof(map), "");
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	check_map_invariants(&bi);
	assert_true(has_range(0x2000, 0x11000, MEM_USABLE));
	assert_true(has_range(0x100000, 0x103000, MEM_RESERVED));
	assert_true(has_range(0x103000, 0x104000, MEM_UNUSABLE));
	assert_true(has_range(0x200000, 0x201000, MEM_RESERVED));
	assert_int_equal(bi.raw.nr_entries, 8);
	assert_true(host_log_contains("wraps"));
}

static void test_cmdline_problems(void **state)
{
	struct pvh_start_info si = make_si(5);
	static char big[BOOTINFO_CMDLINE_BYTES + 100];

	/* No NUL before the mapped bytes end. */
	add_standard(&si, basic_map, sizeof(basic_map), NULL);
	add_region(CMD_PHYS, "abc", 3);
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_string_equal(bi.cmdline, "abc");
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("before its NUL"));
	free_regions();

	/* Longer than the kernel keeps. */
	memset(big, 'y', sizeof(big) - 1);
	add_standard(&si, basic_map, sizeof(basic_map), big);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	/* One word longer than the buffer: dropped whole, never cut. */
	assert_string_equal(bi.cmdline, "");
	assert_true(host_log_contains("the PVH command line does not fit in 2047 bytes"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	free_regions();

	/* Words: the one the buffer ends in is dropped, the ones before stay. */
	memset(big, ' ', sizeof(big) - 1);
	/* "maxcpus=3" ends exactly at the cut; "0" is beyond it. */
	memcpy(big + BOOTINFO_CMDLINE_BYTES - 1 - 15, "nosmp maxcpus=30 memboot.trace", 30);
	add_standard(&si, basic_map, sizeof(basic_map), big);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_int_equal(strlen(bi.cmdline), BOOTINFO_CMDLINE_BYTES - 1 - 10);
	assert_memory_equal(bi.cmdline + strlen(bi.cmdline) - 5, "nosmp", 5);
	assert_null(strstr(bi.cmdline, "maxcpus"));
	/* The PVH reader saw only "maxcpus=3" and a byte after it. */
	assert_true(host_log_contains("from 'maxcpus=3...' on are dropped"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	free_regions();

	/* Exactly the longest that fits: no warning. */
	memset(big, 'z', BOOTINFO_CMDLINE_BYTES - 1);
	big[BOOTINFO_CMDLINE_BYTES - 1] = '\0';
	add_standard(&si, basic_map, sizeof(basic_map), big);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_int_equal(strlen(bi.cmdline), BOOTINFO_CMDLINE_BYTES - 1);
	assert_int_equal(warnings_and_errors(), 0);
	free_regions();

	/* Not mapped at all; near 2^64; absent. */
	si.cmdline_paddr = 0x77777000;
	add_standard(&si, basic_map, sizeof(basic_map), NULL);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(host_log_count(LOG_WARN), 1);
	free_regions();
	si.cmdline_paddr = UINT64_MAX;
	add_standard(&si, basic_map, sizeof(basic_map), NULL);
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_string_equal(bi.cmdline, "");
	free_regions();
	si.cmdline_paddr = 0;
	add_standard(&si, basic_map, sizeof(basic_map), NULL);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
	assert_int_equal(warnings_and_errors(), 0);
}

/* Parse @si with the basic map and @rsdp_bytes of @rsdp at RSDP_PHYS (no
 * region there when 0), the log cleared first; the parse must succeed. */
static void parse_with_rsdp(const struct pvh_start_info *si, const void *rsdp, size_t rsdp_bytes)
{
	add_region(SI_PHYS, si, sizeof(*si));
	add_region(MAP_PHYS, basic_map, sizeof(basic_map));
	if (rsdp_bytes)
		add_region(RSDP_PHYS, rsdp, rsdp_bytes);
	host_log_reset();
	assert_int_equal(parse(SI_PHYS), PVH_OK);
}

static void test_rsdp_problems(void **state)
{
	struct pvh_start_info si = make_si(5);
	unsigned char v2[36];

	si.cmdline_paddr = 0;
	memset(v2, 0, sizeof(v2));
	memcpy(v2, "RSD PTR ", 8);
	v2[15] = 2;
	parse_with_rsdp(&si, v2, 36);
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp_revision, 2);
	free_regions();

	parse_with_rsdp(&si, v2, 20);                           /* revision 2, 20 bytes */
	assert_int_equal(bi.rsdp_len, 20);
	assert_true(host_log_contains("ACPI 1.0 part"));
	free_regions();

	v2[0] = 'r';                                            /* bad signature */
	parse_with_rsdp(&si, v2, 36);
	assert_int_equal(bi.rsdp_len, 0);
	assert_true(host_log_contains("signature"));
	free_regions();

	parse_with_rsdp(&si, NULL, 0);                          /* not mapped */
	assert_int_equal(bi.rsdp_len, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
}

static void test_status_names(void **state)
{
	for (int s = PVH_OK; s <= PVH_ERR_NO_MMAP; s++)
		assert_string_not_equal(pvh_status_name((enum pvh_status)s), "unknown");
	assert_string_equal(pvh_status_name((enum pvh_status)42), "unknown");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_fixture_q35_1g),
		T(test_fixture_pc_512m),
		T(test_fixture_q35_2x2g),
		T(test_fixture_start_info_cut),
		T(test_basic),
		T(test_magics),
		T(test_version_0_has_no_map),
		T(test_version_1_needs_56_bytes),
		T(test_later_version_read_as_1),
		T(test_memmap_problems),
		T(test_entry_types_and_alignment),
		T(test_cmdline_problems),
		T(test_rsdp_problems),
		T(test_status_names),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}

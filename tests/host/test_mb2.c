/*
 * test_mb2.c: the Multiboot2 information parser (boot/mb2/mb2.c) on boot
 * information captured from the kernel itself under QEMU (SeaBIOS and OVMF,
 * see tests/host/fixtures/mb2/README.md) and on hostile inputs built here with
 * a small tag builder.
 *
 * Each fixture NAME.bin comes with NAME.txt, the kernel's own mem_range
 * records from the boot that captured it: the parser must give exactly that
 * normalized map on the host.
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
#include "boot/efi_map.h"
#include "boot/mb2/mb2.h"
#include "tests/host/host_support.h"
#include "tests/host/map_check.h"

#define FIXTURE_DIR "tests/host/fixtures/mb2/"
#define GRUB_NAME "GRUB 2.06-13+deb12u2"
#define PAGE PAGE_SIZE_BYTES
#define TOP_ALIGNED_END 0xfffffffffffff000ULL

static struct bootinfo bi;   /* 40 KiB: kept off the stack */

static int reset_log(void **state)
{
	(void)state;
	host_log_reset();
	return 0;
}

/* ---- invariants of every normalized map ------------------------------- */

/* Index of the normalized range containing @addr, or -1. */
static int range_at(const struct bootinfo *b, uint64_t addr)
{
	for (uint32_t i = 0; i < b->nr_ranges; i++)
		if (b->ranges[i].start <= addr && addr < b->ranges[i].end)
			return (int)i;
	return -1;
}

static void assert_range(const struct bootinfo *b, uint32_t i, uint64_t start,
			 uint64_t end, enum mem_type type)
{
	if (i >= b->nr_ranges)
		fail_msg("range %u expected, only %u ranges", i, b->nr_ranges);
	const struct mem_range *r = &b->ranges[i];
	if (r->start != start || r->end != end || r->type != (uint32_t)type)
		fail_msg("range %u is [0x%" PRIx64 ", 0x%" PRIx64 ") %s, expected "
			 "[0x%" PRIx64 ", 0x%" PRIx64 ") %s", i, r->start, r->end,
			 mem_type_name((enum mem_type)r->type), start, end,
			 mem_type_name(type));
}

/* ---- fixtures --------------------------------------------------------- */

/* Parse NAME.txt (the kernel's mem_range records) into @out. */
struct fixture {
	const char *name;
	enum boot_path path;
	const char *map_source;
	uint8_t rsdp_revision;
	uint32_t rsdp_len;
	uint32_t total_size;
	uint32_t firmware_entries;
};

static const struct fixture fixtures[] = {
	{ "seabios-pc-512m",  BOOT_PATH_MB2_BIOS, "mb2-mmap",     0, 20, 1512,   7 },
	{ "seabios-pc-8g",    BOOT_PATH_MB2_BIOS, "mb2-mmap",     0, 20, 1536,   8 },
	{ "seabios-q35-512m", BOOT_PATH_MB2_BIOS, "mb2-mmap",     0, 20, 1560,   9 },
	{ "seabios-q35-8g",   BOOT_PATH_MB2_BIOS, "mb2-mmap",     0, 20, 1584,  10 },
	{ "ovmf-q35-512m",    BOOT_PATH_MB2_UEFI, "mb2-efi-mmap", 2, 36, 7864, 127 },
	{ "ovmf-pc-512m",     BOOT_PATH_MB2_UEFI, "mb2-efi-mmap", 2, 36, 7552, 121 },
};

static const struct fixture *fixture_named(const char *name)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		if (strcmp(fixtures[i].name, name) == 0)
			return &fixtures[i];
	fail_msg("no fixture %s", name);
	return NULL;
}

/* Parse fixture @name into bi and check everything common to all fixtures. */
static void parse_fixture(const char *name)
{
	const struct fixture *f = fixture_named(name);
	struct mem_range want[64];
	size_t len;
	void *buf = fixture_load(FIXTURE_DIR, name, ".bin", &len);
	uint32_t n = fixture_load_ranges(FIXTURE_DIR, name, ".txt", want, 64);

	assert_int_equal(len, f->total_size);
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &bi), MB2_OK);
	/* Real firmware: nothing to complain about. */
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(host_log_count(LOG_ERR), 0);

	assert_int_equal(bi.path, f->path);
	assert_string_equal(boot_path_name(bi.path),
			    f->path == BOOT_PATH_MB2_UEFI ? "mb2-uefi" : "mb2-bios");
	assert_string_equal(bi.map_source, f->map_source);
	assert_int_equal(bi.rsdp_len, f->rsdp_len);
	assert_int_equal(bi.rsdp_revision, f->rsdp_revision);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	assert_string_equal(bi.loader, GRUB_NAME);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.raw.nr_entries, f->firmware_entries);
	assert_int_equal(bi.raw.nr_dropped, 0);
	assert_int_equal(bi.loader_info_bytes, f->total_size);
	assert_true(bi.loader_info_phys == (uint64_t)(uintptr_t)buf);

	/* Exactly what the kernel printed in the boot that captured it. */
	if (bi.nr_ranges != n)
		fail_msg("%s: %u ranges, the kernel printed %u", name, bi.nr_ranges, n);
	for (uint32_t i = 0; i < n; i++)
		assert_range(&bi, i, want[i].start, want[i].end, (enum mem_type)want[i].type);
	check_map_invariants(&bi);
	free(buf);
}

static void test_fixture_seabios_pc_512m(void **state)
{
	parse_fixture("seabios-pc-512m");
	assert_int_equal(bi.nr_ranges, 7);
	assert_range(&bi, 0, 0, 0x9f000, MEM_USABLE);        /* 0x9fc00 shrinks */
	assert_range(&bi, 1, 0x9f000, 0xa0000, MEM_RESERVED); /* 0x9fc00 grows */
	assert_range(&bi, 3, 0x100000, 0x1ffe0000, MEM_USABLE);
	assert_range(&bi, 6, 0xfd00000000ULL, 0x10000000000ULL, MEM_RESERVED);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 536342528);
}

static void test_fixture_seabios_pc_8g(void **state)
{
	parse_fixture("seabios-pc-8g");
	assert_true(map_has_range(&bi, 0x100000, 0xbffe0000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0x100000000ULL, 0x240000000ULL, MEM_USABLE));
	assert_true(map_has_range(&bi, 0xfd00000000ULL, 0x10000000000ULL, MEM_RESERVED));
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 8589406208ULL);
}

static void test_fixture_seabios_q35_512m(void **state)
{
	parse_fixture("seabios-q35-512m");
	assert_true(map_has_range(&bi, 0x100000, 0x1ffdf000, MEM_USABLE));
	assert_true(map_has_range(&bi, 0xb0000000, 0xc0000000, MEM_RESERVED)); /* MMCONFIG */
	assert_true(map_has_range(&bi, 0xfed1c000, 0xfed20000, MEM_RESERVED));
	assert_true(map_has_range(&bi, 0xfd00000000ULL, 0x10000000000ULL, MEM_RESERVED));
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 536338432);
}

static void test_fixture_seabios_q35_8g(void **state)
{
	parse_fixture("seabios-q35-8g");
	assert_int_equal(bi.nr_ranges, 10);
	assert_range(&bi, 0, 0, 0x9f000, MEM_USABLE);
	assert_range(&bi, 3, 0x100000, 0x7ffdf000, MEM_USABLE);
	assert_range(&bi, 8, 0x100000000ULL, 0x280000000ULL, MEM_USABLE);
	assert_range(&bi, 9, 0xfd00000000ULL, 0x10000000000ULL, MEM_RESERVED);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE),
			 0x9f000 + (0x7ffdf000 - 0x100000) + 0x180000000ULL);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_ACPI), 0);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_NVS), 0);
	assert_int_equal(range_at(&bi, 0x80000000), -1);    /* PCI hole */
	assert_int_equal(range_at(&bi, 0x280000000ULL), -1);
}

static void check_ovmf_usable_against_seabios(const char *machine)
{
	char name[64];
	uint64_t ovmf = bootinfo_total_bytes(&bi, MEM_USABLE), seabios;
	size_t len;
	void *buf;

	snprintf(name, sizeof(name), "seabios-%s-512m", machine);
	buf = fixture_load(FIXTURE_DIR, name, ".bin", &len);
	static struct bootinfo other;
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &other), MB2_OK);
	seabios = bootinfo_total_bytes(&other, MEM_USABLE);
	free(buf);
	/* Same -m, different firmware: within 3% of each other. */
	if (ovmf * 100 < seabios * 97 || ovmf * 100 > seabios * 103)
		fail_msg("OVMF usable %" PRIu64 " vs SeaBIOS %" PRIu64, ovmf, seabios);
}

static void test_fixture_ovmf_q35_512m(void **state)
{
	parse_fixture("ovmf-q35-512m");
	assert_int_equal(bi.nr_ranges, 16);
	assert_range(&bi, 0, 0, 0xa0000, MEM_USABLE);
	assert_true(map_has_range(&bi, 0x1f76c000, 0x1f77e000, MEM_ACPI));
	assert_true(map_has_range(&bi, 0xb0000000, 0xc0000000, MEM_RESERVED));
	assert_true(map_has_range(&bi, 0xffc00000, 0x100000000ULL, MEM_RESERVED));
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 530112512);
	/* No HyperTransport hole under OVMF. */
	assert_int_equal(range_at(&bi, 0xfd00000000ULL), -1);
	check_ovmf_usable_against_seabios("q35");
}

static void test_fixture_ovmf_pc_512m(void **state)
{
	parse_fixture("ovmf-pc-512m");
	assert_int_equal(bi.nr_ranges, 15);
	assert_int_equal(range_at(&bi, 0xb0000000), -1);   /* no MMCONFIG on pc */
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE), 530112512);
	check_ovmf_usable_against_seabios("pc");
}

/* Offset of the first tag of @type in a well-formed info, or 0. */
static size_t find_tag(const uint8_t *buf, uint32_t type)
{
	uint32_t total, t, size;
	memcpy(&total, buf, 4);
	for (size_t off = 8; off + 8 <= total; off = (off + size + 7) & ~(size_t)7) {
		memcpy(&t, buf + off, 4);
		memcpy(&size, buf + off + 4, 4);
		if (t == type)
			return off;
		if (t == MB2_TAG_END)
			break;
	}
	return 0;
}

/*
 * OVMF's info without its tag 17: the parser falls back to GRUB's tag 6,
 * which contains a type 20 entry (EFI runtime services code, not a
 * Multiboot2 type) that must come out reserved.
 */
static void test_fixture_ovmf_tag6_fallback(void **state)
{
	size_t len;
	uint8_t *buf = fixture_load(FIXTURE_DIR, "ovmf-q35-512m", ".bin", &len);
	size_t efi = find_tag(buf, MB2_TAG_EFI_MMAP), mm = find_tag(buf, MB2_TAG_MMAP);
	uint32_t unknown = 0x7fff, entry_type;

	assert_int_equal(efi, 1744);
	assert_int_equal(mm, 72);
	/* The type-20 entry is there in tag 6 (entry 9 of 18). */
	memcpy(&entry_type, buf + mm + 16 + 9 * 24 + 16, 4);
	assert_int_equal(entry_type, 20);
	memcpy(buf + efi, &unknown, 4);   /* tag 17 becomes an unknown tag */

	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &bi), MB2_OK);
	assert_string_equal(bi.map_source, "mb2-mmap");
	assert_int_equal(bi.path, BOOT_PATH_MB2_UEFI);   /* tag 12 says EFI */
	assert_int_equal(bi.raw.nr_entries, 18);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	check_map_invariants(&bi);
	assert_true(map_has_range(&bi, 0x1f4ec000, 0x1f76c000, MEM_RESERVED));
	assert_int_equal(bi.ranges[range_at(&bi, 0x1f5ec000)].type, MEM_RESERVED);

	/* GRUB derived tag 6 from the same EFI map: same normalized map. */
	struct mem_range want[64];
	uint32_t n = fixture_load_ranges(FIXTURE_DIR, "ovmf-q35-512m", ".txt", want, 64);
	assert_int_equal(bi.nr_ranges, n);
	for (uint32_t i = 0; i < n; i++)
		assert_range(&bi, i, want[i].start, want[i].end, (enum mem_type)want[i].type);
	free(buf);
}

/* The whole info must lie within the bytes the caller says it may read. */
static void test_fixture_avail_bounds(void **state)
{
	size_t len;
	uint8_t *buf = fixture_load(FIXTURE_DIR, "seabios-pc-512m", ".bin", &len);
	uint8_t *big = calloc(1, len + 64);

	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len - 1, &bi), MB2_ERR_HEADER);
	assert_true(host_log_contains("total_size 1512 is implausible (16 to 1511 bytes allowed)"));
	memcpy(big, buf, len);
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, big, len + 64, &bi), MB2_OK);
	assert_int_equal(bi.nr_ranges, 7);

	/* total_size cut inside the end tag. */
	uint32_t cut = 1508;
	memcpy(buf, &cut, 4);
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &bi), MB2_ERR_TAG);
	assert_true(host_log_contains("truncated tag header at offset 1504 (total_size 1508)"));
	/* total_size cut inside the RSDP tag (28 bytes at 1472). */
	cut = 1496;
	memcpy(buf, &cut, 4);
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &bi), MB2_ERR_TAG);
	assert_true(host_log_contains("tag type 14 at offset 1472 has size 28, running past total_size 1496"));
	free(buf);
	free(big);
}

/* ---- a small builder for hostile information -------------------------- */

struct mb {
	uint8_t *buf;
	size_t cap, len;
};

struct ent {
	uint64_t base, len;
	uint32_t type;
};

static void mb_init(struct mb *b, size_t cap)
{
	b->buf = calloc(1, cap);
	assert_non_null(b->buf);
	b->cap = cap;
	b->len = 8;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Append a tag whose size field says @size; @n payload bytes are copied. */
static size_t mb_tag_sized(struct mb *b, uint32_t type, uint32_t size,
			   const void *payload, size_t n)
{
	size_t off = b->len;
	assert_true(off + 8 + n + 8 <= b->cap);
	put32(b->buf + off, type);
	put32(b->buf + off + 4, size);
	if (n)
		memcpy(b->buf + off + 8, payload, n);
	b->len = (off + 8 + n + 7) & ~(size_t)7;
	return off;
}

static size_t mb_tag(struct mb *b, uint32_t type, const void *payload, size_t n)
{
	return mb_tag_sized(b, type, (uint32_t)(8 + n), payload, n);
}

static void mb_set_total(struct mb *b, uint32_t total)
{
	put32(b->buf, total);
}

/* End tag, then total_size = length so far. */
static void mb_end(struct mb *b)
{
	mb_tag(b, MB2_TAG_END, NULL, 0);
	mb_set_total(b, (uint32_t)b->len);
}

/* Tag 6 with entries @stride bytes apart (extra bytes filled with 0xee). */
static size_t mb_mmap(struct mb *b, uint32_t stride, const struct ent *e, size_t n)
{
	size_t bytes = 8 + n * stride;
	uint8_t *p = malloc(bytes);
	assert_non_null(p);
	memset(p, 0xee, bytes);
	put32(p, stride);
	put32(p + 4, 0);
	for (size_t i = 0; i < n; i++) {
		uint8_t *q = p + 8 + i * stride;
		put64(q, e[i].base);
		put64(q + 8, e[i].len);
		put32(q + 16, e[i].type);
		if (stride >= 24)
			put32(q + 20, 0);
	}
	size_t off = mb_tag(b, MB2_TAG_MMAP, p, bytes);
	free(p);
	return off;
}

/*
 * Payload of tag 17: descriptors (type, start, pages) @desc_size bytes apart,
 * then @extra bytes of 0xcc. Returns a malloc()ed buffer of *bytes.
 */
static uint8_t *efi_payload(uint32_t desc_size, const struct ent *e, size_t n,
			    size_t extra, size_t *bytes)
{
	size_t stride = desc_size >= 40 ? desc_size : 40;
	uint8_t *p = malloc(8 + n * stride + extra);
	assert_non_null(p);
	memset(p, 0xcc, 8 + n * stride + extra);
	put32(p, desc_size);
	put32(p + 4, 1);
	for (size_t i = 0; i < n; i++) {
		uint8_t *q = p + 8 + i * desc_size;
		put32(q, e[i].type);
		put32(q + 4, 0);
		put64(q + 8, e[i].base);
		put64(q + 16, 0);
		put64(q + 24, e[i].len);   /* number of 4 KiB pages */
		if (desc_size >= 40)
			put64(q + 32, 0xf);
	}
	*bytes = 8 + n * desc_size + extra;
	return p;
}

static size_t mb_efi_mmap(struct mb *b, uint32_t desc_size, const struct ent *e, size_t n)
{
	size_t bytes;
	uint8_t *p = efi_payload(desc_size, e, n, 0, &bytes);
	size_t off = mb_tag(b, MB2_TAG_EFI_MMAP, p, bytes);
	free(p);
	return off;
}

static void mb_rsdp(struct mb *b, int revision)
{
	uint8_t r[36] = { 0 };
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "MEMBT ", 6);
	r[15] = (uint8_t)revision;
	if (revision >= 2) {
		put32(r + 20, 36);
		mb_tag(b, MB2_TAG_ACPI_NEW, r, 36);
	} else {
		mb_tag(b, MB2_TAG_ACPI_OLD, r, 20);
	}
}

static const struct ent small_map[] = {
	{ 0x0, 0x9fc00, MB2_MEM_AVAILABLE },
	{ 0x9fc00, 0x400, MB2_MEM_RESERVED },
	{ 0x100000, 0x3ff00000, MB2_MEM_AVAILABLE },
};

static enum mb2_status parse_mb(struct mb *b)
{
	return mb2_parse(MB2_BOOTLOADER_MAGIC, b->buf, b->len, &bi);
}

static void check_small_map(void)
{
	assert_int_equal(bi.nr_ranges, 3);
	assert_range(&bi, 0, 0, 0x9f000, MEM_USABLE);
	assert_range(&bi, 1, 0x9f000, 0xa0000, MEM_RESERVED);
	assert_range(&bi, 2, 0x100000, 0x40000000, MEM_USABLE);
}

/* ---- hostile inputs --------------------------------------------------- */

static void test_minimal_valid(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_LOADER_NAME, "test\0", 5);
	mb_tag(&b, MB2_TAG_CMDLINE, "a=1 b\0", 6);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	assert_int_equal(bi.path, BOOT_PATH_MB2_BIOS);
	assert_string_equal(bi.map_source, "mb2-mmap");
	assert_string_equal(bi.loader, "test");
	assert_string_equal(bi.cmdline, "a=1 b");
	assert_int_equal(bi.rsdp_len, 0);
	assert_int_equal(bi.raw.nr_entries, 3);
	check_small_map();
	free(b.buf);
}

static void test_wrong_magic(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	assert_int_equal(mb2_parse(0x2badb002, b.buf, b.len, &bi), MB2_ERR_MAGIC);
	assert_true(host_log_contains("boot magic is 0x2badb002, not 0x36d76289"));
	assert_int_equal(mb2_parse(MB2_HEADER_MAGIC, b.buf, b.len, &bi), MB2_ERR_MAGIC);
	assert_int_equal(mb2_parse(0, NULL, 0, &bi), MB2_ERR_MAGIC);
	assert_int_equal(bi.nr_ranges, 0);
	free(b.buf);
}

static void test_null_and_short_buffer(void **state)
{
	uint8_t tiny[8] = { 16, 0, 0, 0, 0, 0, 0, 0 };

	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, NULL, 4096, &bi), MB2_ERR_HEADER);
	assert_true(host_log_contains("no boot information (4096 bytes available)"));
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, tiny, 7, &bi), MB2_ERR_HEADER);
	assert_true(host_log_contains("no boot information (7 bytes available)"));
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, tiny, 0, &bi), MB2_ERR_HEADER);
	/* 8 bytes: a header claiming 16, with no room for them. */
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, tiny, 8, &bi), MB2_ERR_HEADER);
	assert_true(host_log_contains("total_size 16 is implausible (16 to 8 bytes allowed)"));
}

static void test_total_size_bad(void **state)
{
	struct mb b;
	static const uint32_t bad[] = { 0, 7, 8, 15 };

	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[96];
		host_log_reset();
		mb_set_total(&b, bad[i]);
		assert_int_equal(parse_mb(&b), MB2_ERR_HEADER);
		snprintf(msg, sizeof(msg), "total_size %u is implausible (16 to %zu bytes allowed)",
			 bad[i], b.len);
		assert_true(host_log_contains(msg));
	}
	/* More than the buffer holds. */
	host_log_reset();
	mb_set_total(&b, (uint32_t)b.len + 8);
	assert_int_equal(parse_mb(&b), MB2_ERR_HEADER);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	mb_set_total(&b, 0xffffffffu);
	assert_int_equal(parse_mb(&b), MB2_ERR_HEADER);
	/* 16: just the end tag, which is well formed but has no map. */
	host_log_reset();
	memset(b.buf + 8, 0, 8);
	put32(b.buf + 12, 8);
	mb_set_total(&b, 16);
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, b.buf, 16, &bi), MB2_ERR_NO_MMAP);
	free(b.buf);

	/* Over 1 MiB, even with the bytes there to read. */
	size_t big = MB2_INFO_MAX_BYTES + 64;
	uint8_t *p = calloc(1, big);
	assert_non_null(p);
	put32(p, MB2_INFO_MAX_BYTES + 8);
	host_log_reset();
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, p, big, &bi), MB2_ERR_HEADER);
	assert_true(host_log_contains("total_size 1048584 is implausible (16 to 1048576 bytes allowed)"));
	free(p);
}

static void test_tag_size_below_header(void **state)
{
	for (uint32_t size = 0; size < 8; size++) {
		struct mb b;
		char msg[96];
		mb_init(&b, 4096);
		mb_tag(&b, MB2_TAG_LOADER_NAME, "x\0", 2);
		mb_tag_sized(&b, 77, size, NULL, 0);
		mb_mmap(&b, 24, small_map, 3);
		mb_end(&b);
		host_log_reset();
		assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
		snprintf(msg, sizeof(msg), "tag type 77 at offset 24 has size %u, below its 8-byte header", size);
		assert_true(host_log_contains(msg));
		free(b.buf);
	}
}

static void test_tag_past_total(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);           /* 88 bytes at 8 */
	mb_tag_sized(&b, MB2_TAG_CMDLINE, 4000, "abc\0", 4);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
	assert_true(host_log_contains("tag type 1 at offset 96 has size 4000, running past total_size 120"));
	free(b.buf);

	/* A map tag whose size reaches one byte past total_size. */
	mb_init(&b, 4096);
	size_t off = mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	put32(b.buf + off + 4, (uint32_t)(b.len - off + 1));
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
	assert_true(host_log_contains("tag type 6 at offset 8 has size 97, running past total_size 104"));
	free(b.buf);
}

static void test_truncated_no_end_tag(void **state)
{
	struct mb b;

	/* The map is the last tag: no end tag at all. */
	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);
	mb_set_total(&b, (uint32_t)b.len);
	assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
	assert_true(host_log_contains("no end tag within total_size 96: boot information truncated"));
	free(b.buf);

	/* A last tag of 12 bytes: its padding runs past total_size. */
	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);
	mb_tag(&b, 99, "abcd", 4);
	mb_set_total(&b, (uint32_t)b.len - 4);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
	assert_true(host_log_contains("no end tag within total_size 108"));
	free(b.buf);

	/* Four stray bytes where the end tag should be. */
	mb_init(&b, 4096);
	mb_mmap(&b, 24, small_map, 3);
	b.len += 4;
	mb_set_total(&b, (uint32_t)b.len);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_ERR_TAG);
	assert_true(host_log_contains("truncated tag header at offset 96 (total_size 100)"));
	free(b.buf);
}

static void test_no_mmap(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_LOADER_NAME, "x\0", 2);
	mb_rsdp(&b, 0);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_ERR_NO_MMAP);
	assert_true(host_log_contains("no usable memory map tag (6 or 17) in the boot information"));
	assert_int_equal(bi.nr_ranges, 0);
	free(b.buf);
}

static void test_mmap_entry_size_small(void **state)
{
	static const uint32_t sizes[] = { 0, 8, 16, 20, 23 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct mb b;
		char msg[96];
		uint8_t payload[8 + 3 * 24] = { 0 };
		mb_init(&b, 4096);
		put32(payload, sizes[i]);
		mb_tag(&b, MB2_TAG_MMAP, payload, sizeof(payload));
		mb_end(&b);
		host_log_reset();
		assert_int_equal(parse_mb(&b), MB2_ERR_NO_MMAP);
		snprintf(msg, sizeof(msg), "memory map entry_size %u is below the 24 bytes of an entry",
			 sizes[i]);
		assert_true(host_log_contains(msg));
		free(b.buf);
	}
}

static void test_mmap_entry_size_32(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_mmap(&b, 32, small_map, 3);   /* 8 bytes of 0xee after each entry */
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	assert_int_equal(bi.raw.nr_entries, 3);
	check_small_map();

	/* A stride of 40 too, with an odd tail: entries still where they are. */
	free(b.buf);
	mb_init(&b, 4096);
	mb_mmap(&b, 40, small_map, 3);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	check_small_map();
	free(b.buf);
}

static void test_mmap_size_not_multiple(void **state)
{
	struct mb b;
	uint8_t payload[8 + 3 * 24 + 10];
	mb_init(&b, 4096);
	memset(payload, 0x5a, sizeof(payload));
	put32(payload, 24);
	put32(payload + 4, 0);
	for (int i = 0; i < 3; i++) {
		put64(payload + 8 + i * 24, small_map[i].base);
		put64(payload + 16 + i * 24, small_map[i].len);
		put32(payload + 24 + i * 24, small_map[i].type);
	}
	mb_tag(&b, MB2_TAG_MMAP, payload, sizeof(payload));
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("memory map tag size 98 is not header + n * 24; trailing bytes ignored"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(bi.raw.nr_entries, 3);
	check_small_map();
	free(b.buf);

	/* Shorter than the tag's own 16-byte header. */
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_MMAP, "\x18\0\0\0", 4);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_ERR_NO_MMAP);
	assert_true(host_log_contains("memory map tag of 12 bytes is shorter than its header"));
	free(b.buf);
}

static const struct ent efi_small[] = {
	{ 0x0, 0xa0, EFI_CONVENTIONAL_MEMORY },
	{ 0x100000, 0x100, EFI_BOOT_SERVICES_CODE },
	{ 0x200000, 0x100, EFI_CONVENTIONAL_MEMORY },
	{ 0x300000, 0x10, EFI_ACPI_RECLAIM_MEMORY },
	{ 0x310000, 0x10, EFI_ACPI_MEMORY_NVS },
	{ 0x320000, 0x10, EFI_RUNTIME_SERVICES_DATA },
};

static void test_efi_desc_size_39_fallback(void **state)
{
	struct mb b;
	mb_init(&b, 8192);
	mb_efi_mmap(&b, 39, efi_small, 6);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("efi: memory map descriptor size 39 is smaller than the 40-byte descriptor"));
	assert_true(host_log_contains("EFI memory map unusable; falling back to the Multiboot2 memory map"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(host_log_count(LOG_ERR), 1);
	assert_int_equal(bi.path, BOOT_PATH_MB2_UEFI);
	assert_string_equal(bi.map_source, "mb2-mmap");
	assert_int_equal(bi.raw.nr_entries, 3);
	check_small_map();
	free(b.buf);

	/* No tag 6 to fall back on. */
	mb_init(&b, 8192);
	mb_efi_mmap(&b, 39, efi_small, 6);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_ERR_NO_MMAP);
	assert_true(host_log_contains("descriptor size 39 is smaller"));
	assert_true(host_log_contains("no usable memory map tag"));
	assert_false(host_log_contains("falling back"));
	free(b.buf);

	/* Tag 17 too short for its own header, tag 6 after it. */
	mb_init(&b, 8192);
	mb_tag(&b, MB2_TAG_EFI_MMAP, "\x30\0\0\0", 4);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("EFI memory map tag of 12 bytes is shorter than its header"));
	assert_true(host_log_contains("falling back to the Multiboot2 memory map"));
	check_small_map();
	free(b.buf);
}

static void test_efi_desc_size_48(void **state)
{
	static const struct ent e[] = {
		{ 0x0, 0xa0, EFI_CONVENTIONAL_MEMORY },
		{ 0x100000, 0x100, EFI_LOADER_CODE },     /* usable, merges on */
		{ 0x200000, 0x100, EFI_BOOT_SERVICES_DATA },
		{ 0x300000, 0x10, 15 },                   /* not in UEFI 2.10's table */
		{ 0x310000, 0x10, 20 },
		{ 0x320000, 0x10, 0x6fffffff },           /* OEM */
		{ 0x330000, 0x10, 0x80000000 },           /* OS vendor */
		{ 0x400000, 0x10, EFI_PERSISTENT_MEMORY },
		{ 0x500000, 0x10, EFI_UNUSABLE_MEMORY },
		{ 0x600000, 0x10, EFI_ACPI_RECLAIM_MEMORY },
		{ 0x700000, 0x10, EFI_ACPI_MEMORY_NVS },
	};
	struct mb b;
	mb_init(&b, 8192);
	mb_mmap(&b, 24, small_map, 3);   /* ignored: tag 17 wins */
	mb_efi_mmap(&b, 48, e, sizeof(e) / sizeof(e[0]));
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	assert_int_equal(bi.path, BOOT_PATH_MB2_UEFI);
	assert_string_equal(bi.map_source, "mb2-efi-mmap");
	assert_int_equal(bi.raw.nr_entries, 11);
	check_map_invariants(&bi);
	assert_int_equal(bi.nr_ranges, 7);
	assert_range(&bi, 0, 0x0, 0xa0000, MEM_USABLE);
	assert_range(&bi, 1, 0x100000, 0x300000, MEM_USABLE);
	assert_range(&bi, 2, 0x300000, 0x340000, MEM_RESERVED);
	assert_range(&bi, 3, 0x400000, 0x410000, MEM_RESERVED);
	assert_range(&bi, 4, 0x500000, 0x510000, MEM_UNUSABLE);
	assert_range(&bi, 5, 0x600000, 0x610000, MEM_ACPI);
	assert_range(&bi, 6, 0x700000, 0x710000, MEM_NVS);
	free(b.buf);
}

static void test_efi_pages_huge(void **state)
{
	static const struct ent e[] = {
		{ 0x0, 0xa0, EFI_CONVENTIONAL_MEMORY },
		{ 0x100000, 1ULL << 60, EFI_RESERVED_MEMORY },
	};
	struct mb b;
	mb_init(&b, 8192);
	mb_efi_mmap(&b, 48, e, 2);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("efi: descriptor 1 at 0x100000 claims 0x1000000000000000 pages; clipped"));
	assert_true(host_log_contains("e820: range at 0x100000 of length 0xffffffffffffffff wraps past 2^64; clipped"));
	assert_int_equal(host_log_count(LOG_WARN), 2);
	check_map_invariants(&bi);
	assert_int_equal(bi.nr_ranges, 2);
	assert_range(&bi, 0, 0, 0xa0000, MEM_USABLE);
	assert_range(&bi, 1, 0x100000, TOP_ALIGNED_END, MEM_RESERVED);
	free(b.buf);

	/* The largest page count that does not overflow, from 0: no clipping. */
	static const struct ent e2[] = {
		{ 0x0, UINT64_MAX >> PAGE_SHIFT, EFI_CONVENTIONAL_MEMORY },
	};
	mb_init(&b, 8192);
	mb_efi_mmap(&b, 48, e2, 1);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(bi.nr_ranges, 1);
	assert_range(&bi, 0, 0, TOP_ALIGNED_END, MEM_USABLE);
	free(b.buf);
}

static void test_efi_trailing_bytes(void **state)
{
	struct mb b;
	size_t bytes;
	uint8_t *p = efi_payload(48, efi_small, 6, 20, &bytes);

	mb_init(&b, 8192);
	mb_tag(&b, MB2_TAG_EFI_MMAP, p, bytes);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("efi: memory map size 308 is not a multiple of descriptor size 48; 20 trailing bytes ignored"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_int_equal(bi.raw.nr_entries, 6);
	assert_string_equal(bi.map_source, "mb2-efi-mmap");
	free(p);
	free(b.buf);
}

static void test_unknown_tags_skipped(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_tag(&b, 3, "module", 6);        /* a module tag with no module */
	mb_tag(&b, 0x1234, "z", 1);         /* size 9: padding to 16 */
	mb_tag(&b, 0xffffffff, NULL, 0);
	mb_tag(&b, MB2_TAG_BASIC_MEMINFO, "\x80\x02\0\0\0\0\x10\0", 8);
	mb_tag(&b, MB2_TAG_LOAD_BASE, "\0\0\x10\0", 4);
	mb_mmap(&b, 24, small_map, 3);
	mb_tag(&b, 0x55, "trailing", 8);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(host_log_count(LOG_WARN) + host_log_count(LOG_ERR), 0);
	assert_int_equal(bi.path, BOOT_PATH_MB2_BIOS);
	check_small_map();
	free(b.buf);
}

static void test_strings(void **state)
{
	struct mb b;
	char longname[100];

	/* Command line without its NUL: all its bytes, then a warning. */
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_CMDLINE, "hello", 5);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	b.buf[8 + 8 + 5] = 'X';   /* padding byte right after: must not be read */
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_string_equal(bi.cmdline, "hello");
	assert_true(host_log_contains("mb2: command line tag is not NUL-terminated; using its 5 bytes"));
	free(b.buf);

	/* NUL inside: only the part before it. */
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_CMDLINE, "ab\0cd\0", 6);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_string_equal(bi.cmdline, "ab");
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(b.buf);

	/* A loader name longer than the 63 bytes kept. */
	memset(longname, 'L', sizeof(longname));
	longname[99] = '\0';
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_LOADER_NAME, longname, sizeof(longname));
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(strlen(bi.loader), BOOTINFO_LOADER_BYTES - 1);
	assert_memory_equal(bi.loader, longname, BOOTINFO_LOADER_BYTES - 1);
	assert_true(host_log_contains("mb2: loader name is 99 bytes; truncated to 63"));
	free(b.buf);
}

static void test_duplicate_maps(void **state)
{
	static const struct ent other[] = { { 0x0, 0x1000000, MB2_MEM_AVAILABLE } };
	struct mb b;

	mb_init(&b, 8192);
	mb_mmap(&b, 24, small_map, 3);
	size_t second = mb_mmap(&b, 24, other, 1);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	char msg[80];
	snprintf(msg, sizeof(msg), "mb2: second memory map tag at offset %zu ignored", second);
	assert_true(host_log_contains(msg));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	check_small_map();
	free(b.buf);

	/* Two tag 17s: the first wins, the second is named. */
	static const struct ent efi_other[] = { { 0x0, 0x1000, EFI_CONVENTIONAL_MEMORY } };
	mb_init(&b, 8192);
	mb_efi_mmap(&b, 48, efi_small, 6);
	second = mb_efi_mmap(&b, 48, efi_other, 1);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	snprintf(msg, sizeof(msg), "mb2: second EFI memory map tag at offset %zu ignored", second);
	assert_true(host_log_contains(msg));
	assert_int_equal(bi.raw.nr_entries, 6);
	assert_range(&bi, 0, 0, 0xa0000, MEM_USABLE);
	assert_range(&bi, 1, 0x100000, 0x300000, MEM_USABLE);
	free(b.buf);
}

static void test_mmap_entry_wraps(void **state)
{
	static const struct ent e[] = {
		{ 0x100000, 0x1000000, MB2_MEM_AVAILABLE },
		{ 0xfffffffffff00000ULL, 0x200000, MB2_MEM_AVAILABLE },
	};
	struct mb b;
	mb_init(&b, 4096);
	mb_mmap(&b, 24, e, 2);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("e820: range at 0xfffffffffff00000 of length 0x200000 wraps past 2^64; clipped"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	check_map_invariants(&bi);
	assert_int_equal(bi.nr_ranges, 2);
	assert_range(&bi, 0, 0x100000, 0x1100000, MEM_USABLE);
	assert_range(&bi, 1, 0xfffffffffff00000ULL, TOP_ALIGNED_END, MEM_USABLE);
	free(b.buf);
}

static void test_absurd_entry_count(void **state)
{
	enum { N = 5000 };
	struct ent *e = calloc(N, sizeof(*e));
	struct mb b;

	assert_non_null(e);
	for (int i = 0; i < N; i++)
		e[i] = (struct ent){ .base = (uint64_t)i * PAGE, .len = PAGE,
				     .type = i % 2 ? MB2_MEM_RESERVED : MB2_MEM_AVAILABLE };
	mb_init(&b, 16 + 8 + N * 24 + 64);
	mb_mmap(&b, 24, e, N);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(bi.raw.nr_entries, N);
	assert_int_equal(bi.raw.nr_ranges, BOOTINFO_MAX_RAW);
	assert_int_equal(bi.raw.nr_dropped, N - BOOTINFO_MAX_RAW);
	assert_true(host_log_contains("e820: more than 1024 distinct firmware ranges; dropping [0x400000-0x401000) and any after it"));
	assert_true(host_log_contains("e820: normalized map needs more than 512 ranges; 512 dropped (treated as holes)"));
	assert_int_equal(host_log_count(LOG_ERR), 2);   /* each said once */
	check_map_invariants(&bi);
	assert_int_equal(bi.nr_ranges, BOOTINFO_MAX_RANGES);
	assert_range(&bi, 0, 0, PAGE, MEM_USABLE);
	assert_range(&bi, 511, 511 * PAGE, 512 * PAGE, MEM_RESERVED);
	free(b.buf);
	free(e);
}

static void test_rsdp_tags(void **state)
{
	struct mb b;

	/* Both: the 2.0 one wins. */
	mb_init(&b, 4096);
	mb_rsdp(&b, 0);
	mb_rsdp(&b, 2);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp_revision, 2);
	assert_memory_equal(bi.rsdp + 9, "MEMBT ", 6);
	free(b.buf);

	/* A short tag 15 is ignored with a warning; tag 14 is used instead. */
	uint8_t r[20] = { 0 };
	memcpy(r, "RSD PTR ", 8);
	r[15] = 2;
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_ACPI_NEW, r, 20);
	mb_rsdp(&b, 0);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("mb2: RSDP tag 15 holds 20 bytes, fewer than the 36 of its RSDP; ignored"));
	assert_int_equal(bi.rsdp_len, 20);
	assert_int_equal(bi.rsdp_revision, 0);
	free(b.buf);

	/* Wrong signature. */
	memcpy(r, "RSD PTX ", 8);
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_ACPI_OLD, r, 20);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	host_log_reset();
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("mb2: RSDP tag 14 lacks the 'RSD PTR ' signature; ignored"));
	assert_int_equal(bi.rsdp_len, 0);
	free(b.buf);
}

static void test_efi_boot_services_tag(void **state)
{
	struct mb b;
	mb_init(&b, 4096);
	mb_tag(&b, MB2_TAG_EFI_BS, NULL, 0);
	mb_tag(&b, MB2_TAG_EFI64, "\0\0\0\0\0\0\0\0", 8);
	mb_mmap(&b, 24, small_map, 3);
	mb_end(&b);
	assert_int_equal(parse_mb(&b), MB2_OK);
	assert_true(host_log_contains("mb2: loader left EFI boot services running; memory map may be stale"));
	assert_int_equal(bi.path, BOOT_PATH_MB2_UEFI);
	assert_string_equal(bi.map_source, "mb2-mmap");
	free(b.buf);
}

static void test_status_names(void **state)
{
	assert_string_equal(mb2_status_name(MB2_OK), "ok");
	assert_string_equal(mb2_status_name(MB2_ERR_MAGIC), "bad magic");
	assert_string_equal(mb2_status_name(MB2_ERR_HEADER), "bad header");
	assert_string_equal(mb2_status_name(MB2_ERR_TAG), "bad tag");
	assert_string_equal(mb2_status_name(MB2_ERR_NO_MMAP), "no memory map");
	assert_string_equal(mb2_status_name((enum mb2_status)42), "unknown");
}

/* Every single-byte corruption of a real fixture: no crash, sane result. */
static void test_fixture_byte_flips(void **state)
{
	size_t len;
	uint8_t *orig = fixture_load(FIXTURE_DIR, "seabios-q35-8g", ".bin", &len);
	uint8_t *buf = malloc(len);
	unsigned ok = 0;

	assert_non_null(buf);
	for (size_t i = 0; i < len; i++) {
		memcpy(buf, orig, len);
		buf[i] ^= 0x80;
		enum mb2_status st = mb2_parse(MB2_BOOTLOADER_MAGIC, buf, len, &bi);
		if (st == MB2_OK) {
			check_map_invariants(&bi);
			ok++;
		}
	}
	/* Most bytes (the ELF section tag, the padding) do not matter. */
	assert_true(ok > len / 2);
	assert_true(ok < len);
	free(buf);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fixture_seabios_pc_512m, reset_log),
		cmocka_unit_test_setup(test_fixture_seabios_pc_8g, reset_log),
		cmocka_unit_test_setup(test_fixture_seabios_q35_512m, reset_log),
		cmocka_unit_test_setup(test_fixture_seabios_q35_8g, reset_log),
		cmocka_unit_test_setup(test_fixture_ovmf_q35_512m, reset_log),
		cmocka_unit_test_setup(test_fixture_ovmf_pc_512m, reset_log),
		cmocka_unit_test_setup(test_fixture_ovmf_tag6_fallback, reset_log),
		cmocka_unit_test_setup(test_fixture_avail_bounds, reset_log),
		cmocka_unit_test_setup(test_fixture_byte_flips, reset_log),
		cmocka_unit_test_setup(test_minimal_valid, reset_log),
		cmocka_unit_test_setup(test_wrong_magic, reset_log),
		cmocka_unit_test_setup(test_null_and_short_buffer, reset_log),
		cmocka_unit_test_setup(test_total_size_bad, reset_log),
		cmocka_unit_test_setup(test_tag_size_below_header, reset_log),
		cmocka_unit_test_setup(test_tag_past_total, reset_log),
		cmocka_unit_test_setup(test_truncated_no_end_tag, reset_log),
		cmocka_unit_test_setup(test_no_mmap, reset_log),
		cmocka_unit_test_setup(test_mmap_entry_size_small, reset_log),
		cmocka_unit_test_setup(test_mmap_entry_size_32, reset_log),
		cmocka_unit_test_setup(test_mmap_size_not_multiple, reset_log),
		cmocka_unit_test_setup(test_efi_desc_size_39_fallback, reset_log),
		cmocka_unit_test_setup(test_efi_desc_size_48, reset_log),
		cmocka_unit_test_setup(test_efi_pages_huge, reset_log),
		cmocka_unit_test_setup(test_efi_trailing_bytes, reset_log),
		cmocka_unit_test_setup(test_unknown_tags_skipped, reset_log),
		cmocka_unit_test_setup(test_strings, reset_log),
		cmocka_unit_test_setup(test_duplicate_maps, reset_log),
		cmocka_unit_test_setup(test_mmap_entry_wraps, reset_log),
		cmocka_unit_test_setup(test_absurd_entry_count, reset_log),
		cmocka_unit_test_setup(test_rsdp_tags, reset_log),
		cmocka_unit_test_setup(test_efi_boot_services_tag, reset_log),
		cmocka_unit_test(test_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

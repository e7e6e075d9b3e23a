/*
 * test_smbios.c: kernel/firmware/smbios.c on entry points and structure tables
 * built here byte by byte at the offsets DSP0134 gives (not through the
 * parser's own constants), whole and then broken as firmware breaks them:
 * truncated structures, string numbers past a structure's strings, a table
 * longer than what can be read, handles met twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/firmware/smbios.h"
#include "mm/machine.h"
#include "tests/host/host_support.h"

/* ---- builders ---- */

struct tbl {
	uint8_t b[16384];
	size_t len;
};

static void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, 2); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

/* A structure of @type with @length formatted bytes (header included)
 * copied from @fields (its header is written here), then @strings: each
 * NUL-terminated, the set ended by one more NUL ("" gives the two NULs of
 * a structure without strings). Returns its offset. */
static size_t add(struct tbl *t, uint8_t type, uint8_t length, uint16_t handle,
		  const uint8_t *fields, const char *const *strings, size_t nr_strings)
{
	size_t at = t->len;
	uint8_t *p = t->b + at;

	memset(p, 0, length);
	if (fields)
		memcpy(p, fields, length);
	p[0] = type;
	p[1] = length;
	put16(p, 2, handle);
	t->len += length;
	for (size_t i = 0; i < nr_strings; i++) {
		size_t n = strlen(strings[i]) + 1;
		memcpy(t->b + t->len, strings[i], n);
		t->len += n;
	}
	if (!nr_strings)
		t->b[t->len++] = 0;
	t->b[t->len++] = 0;
	return at;
}

static void end_of_table(struct tbl *t, uint16_t handle)
{
	add(t, 127, 4, handle, NULL, NULL, 0);
}

static void fix_sum(uint8_t *p, size_t at, size_t n)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

static void ep3(uint8_t ep[24], uint64_t table, uint32_t max)
{
	memset(ep, 0, 24);
	memcpy(ep, "_SM3_", 5);
	ep[6] = 0x18;
	ep[7] = 3;
	ep[8] = 2;
	ep[10] = 1;
	put32(ep, 0x0c, max);
	put64(ep, 0x10, table);
	fix_sum(ep, 5, 0x18);
}

static void ep2(uint8_t ep[31], uint32_t table, uint16_t len, uint16_t count)
{
	memset(ep, 0, 31);
	memcpy(ep, "_SM_", 4);
	ep[5] = 0x1f;
	ep[6] = 2;
	ep[7] = 8;
	memcpy(ep + 0x10, "_DMI_", 5);
	put16(ep, 0x16, len);
	put32(ep, 0x18, table);
	put16(ep, 0x1c, count);
	ep[0x1e] = 0x28;
	fix_sum(ep + 0x10, 5, 0x0f);   /* intermediate: over 0x10-0x1e */
	fix_sum(ep, 4, 0x1f);
}

static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	assert_non_null(c);
	memcpy(c, p, n);
	return c;
}

static struct smbios_entry entry_for(const struct tbl *t)
{
	return (struct smbios_entry){ .v3 = true, .major = 3, .minor = 2,
				      .table_phys = 0x7000000, .table_bytes = (uint32_t)t->len };
}

static struct smbios_info info;

/* A QEMU-like table with a DDR5 server's devices: types 0, 1, 2, 4, 16,
 * 17 x 3 (one empty slot), 19, 20 x 2, 127. */
static void server_table(struct tbl *t)
{
	uint8_t f[0x60];
	static const char *const bios[] = { "Acme Firmware", "2.14.1 ", "03/15/2024" };
	static const char *const sys[] = { "Acme", "R760", "v1" };
	static const char *const board[] = { "Acme", "0XYZ12", "A03" };
	static const char *const cpu[] = { "CPU0", "Intel(R) Corporation", "Xeon Gold 6430" };
	static const char *const dimm[] = { "DIMM A1", "P0 CHANNEL A", "Hynix", "SN1", "AT1",
					     "HMCG94AEBRA" };
	static const char *const empty[] = { "DIMM B1", "P0 CHANNEL B" };

	memset(t, 0, sizeof(*t));
	memset(f, 0, sizeof(f));
	f[4] = 1; f[5] = 2; f[8] = 3;
	add(t, 0, 0x1a, 0x0000, f, bios, 3);
	memset(f, 0, sizeof(f));
	f[4] = 1; f[5] = 2; f[6] = 3;
	add(t, 1, 0x1b, 0x0100, f, sys, 3);
	add(t, 2, 0x0f, 0x0200, f, board, 3);
	memset(f, 0, sizeof(f));
	f[4] = 1; f[7] = 2; f[0x10] = 3;
	put16(f, 0x14, 4000);
	put16(f, 0x16, 2100);
	f[0x18] = 0x41;              /* populated, enabled */
	f[0x23] = 32;                /* cores */
	f[0x25] = 64;                /* threads */
	add(t, 4, 0x30, 0x0400, f, cpu, 3);
	add(t, 16, 0x17, 0x1000, NULL, NULL, 0);
	memset(f, 0, sizeof(f));
	put16(f, 0x04, 0x1000);      /* array */
	put16(f, 0x0c, 0x7fff);      /* size in the extended field */
	f[0x0e] = 0x09;              /* DIMM */
	f[0x10] = 1; f[0x11] = 2;
	f[0x12] = 0x22;              /* DDR5 */
	put16(f, 0x15, 4800);
	f[0x17] = 3; f[0x18] = 4; f[0x19] = 5; f[0x1a] = 6;
	put32(f, 0x1c, 32768);       /* MiB */
	put16(f, 0x20, 4400);
	add(t, 17, 0x28, 0x1100, f, dimm, 6);
	put32(f, 0x1c, 32768);
	add(t, 17, 0x28, 0x1101, f, dimm, 6);
	memset(f, 0, sizeof(f));
	put16(f, 0x04, 0x1000);
	f[0x10] = 1; f[0x11] = 2;
	f[0x12] = 0x02;
	add(t, 17, 0x28, 0x1102, f, empty, 2);    /* size 0: an empty slot */
	memset(f, 0, sizeof(f));
	put32(f, 0x04, 0);                        /* KiB */
	put32(f, 0x08, (64u << 20) - 1);          /* 64 GiB, inclusive end in KiB */
	put16(f, 0x0c, 0x1000);
	add(t, 19, 0x1f, 0x1300, f, NULL, 0);
	memset(f, 0, sizeof(f));
	put32(f, 0x04, 0xffffffffu);              /* extended addresses */
	put32(f, 0x08, 0xffffffffu);
	put16(f, 0x0c, 0x1100);
	put64(f, 0x13, 0);
	put64(f, 0x1b, (32ull << 30) - 1);
	add(t, 20, 0x23, 0x1400, f, NULL, 0);
	put16(f, 0x0c, 0x1101);
	put64(f, 0x13, 32ull << 30);
	put64(f, 0x1b, (64ull << 30) - 1);
	add(t, 20, 0x23, 0x1401, f, NULL, 0);
	end_of_table(t, 0xfeff);
}

/* ---- entry points ---- */

static void test_entry_30(void **state)
{
	uint8_t ep[24];
	struct smbios_entry e;

	(void)state;
	ep3(ep, 0x7fe00000ull, 0x1234);
	assert_true(smbios_entry_parse(ep, sizeof(ep), &e));
	assert_true(e.v3);
	assert_int_equal(e.major, 3);
	assert_int_equal(e.minor, 2);
	assert_int_equal(e.table_phys, 0x7fe00000ull);
	assert_int_equal(e.table_bytes, 0x1234);
	assert_int_equal(e.nr_structures, 0);
}

static void test_entry_21(void **state)
{
	uint8_t ep[31];
	struct smbios_entry e;

	(void)state;
	ep2(ep, 0xf0120, 0x1a0, 9);
	assert_true(smbios_entry_parse(ep, sizeof(ep), &e));
	assert_false(e.v3);
	assert_int_equal(e.major, 2);
	assert_int_equal(e.minor, 8);
	assert_int_equal(e.table_phys, 0xf0120);
	assert_int_equal(e.table_bytes, 0x1a0);
	assert_int_equal(e.nr_structures, 9);
}

static void test_entry_rejected(void **state)
{
	uint8_t ep[31], bad[31];
	struct smbios_entry e;

	(void)state;
	host_log_reset();
	ep2(ep, 0xf0120, 0x1a0, 9);
	memcpy(bad, ep, 31);
	bad[0x1e] ^= 1;                     /* breaks both checksums */
	assert_false(smbios_entry_parse(bad, 31, &e));
	assert_true(host_log_contains("2.x entry point: checksum"));
	memcpy(bad, ep, 31);
	bad[0x11] = 'X';                    /* "_XMI_" */
	fix_sum(bad, 4, 0x1f);
	assert_false(smbios_entry_parse(bad, 31, &e));
	assert_true(host_log_contains("'_DMI_' missing"));
	assert_false(smbios_entry_parse(ep, 20, &e));      /* copy too short */
	assert_int_equal(e.table_phys, 0);
	assert_false(smbios_entry_parse("_SX_", 4, &e));
	assert_false(smbios_entry_parse(NULL, 0, &e));

	uint8_t e3[24];
	ep3(e3, 0x1000, 100);
	e3[6] = 0x40;                       /* a length beyond the copy */
	fix_sum(e3, 5, 0x18);
	assert_false(smbios_entry_parse(e3, 24, &e));
	ep3(e3, 0, 100);                    /* table at 0 */
	assert_false(smbios_entry_parse(e3, 24, &e));
	ep3(e3, UINT64_MAX - 10, 100);      /* wraps */
	assert_false(smbios_entry_parse(e3, 24, &e));
	assert_true(host_log_contains("wraps past 2^64"));
	ep3(e3, 0x1000, 100);
	e3[7] ^= 1;
	assert_false(smbios_entry_parse(e3, 24, &e));
	assert_true(host_log_contains("3.0 entry point: checksum"));
}

/* ---- tables ---- */

static void test_server_table(void **state)
{
	static struct tbl t;
	struct smbios_entry e;
	struct smbios_range r[4];

	(void)state;
	server_table(&t);
	e = entry_for(&t);
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_true(info.ended);
	assert_false(info.truncated);
	assert_int_equal(info.nr_structures, 12);   /* 127 counted */
	assert_string_equal(info.bios_vendor, "Acme Firmware");
	assert_string_equal(info.bios_version, "2.14.1");   /* trailing blank dropped */
	assert_string_equal(info.bios_date, "03/15/2024");
	assert_string_equal(info.sys_vendor, "Acme");
	assert_string_equal(info.sys_product, "R760");
	assert_string_equal(info.board_product, "0XYZ12");
	assert_string_equal(info.board_version, "A03");
	assert_int_equal(info.nr_sockets, 1);
	assert_true(info.sockets[0].populated);
	assert_int_equal(info.sockets[0].cores, 32);
	assert_int_equal(info.sockets[0].threads, 64);
	assert_int_equal(info.sockets[0].max_speed_mhz, 4000);
	assert_string_equal(info.sockets[0].version, "Xeon Gold 6430");
	assert_int_equal(info.nr_devices, 3);
	assert_int_equal(info.nr_populated, 2);
	assert_int_equal(info.devices[0].size_bytes, 32ull << 30);
	assert_string_equal(info.devices[0].locator, "DIMM A1");
	assert_string_equal(info.devices[0].bank, "P0 CHANNEL A");
	assert_string_equal(info.devices[0].manufacturer, "Hynix");
	assert_string_equal(info.devices[0].part, "HMCG94AEBRA");
	assert_string_equal(smbios_mem_type_name(info.devices[0].type), "DDR5");
	assert_int_equal(info.devices[0].speed_mts, 4800);
	assert_int_equal(info.devices[0].configured_mts, 4400);
	assert_int_equal(info.devices[2].size_bytes, 0);
	assert_int_equal(info.nr_array_ranges, 1);
	assert_int_equal(info.array_ranges[0].end, 64ull << 30);
	assert_int_equal(info.nr_device_ranges, 2);
	/* Each device's own type 20 range. */
	assert_int_equal(smbios_device_ranges(&info, 1, r, 4), 1);
	assert_int_equal(r[0].start, 32ull << 30);
	assert_int_equal(r[0].end, 64ull << 30);
	assert_int_equal(smbios_device_ranges(&info, 9, r, 4), 0);
}

static void test_device_ranges_from_array(void **state)
{
	static struct tbl t;
	struct smbios_entry e;
	struct smbios_range r[4];

	(void)state;
	server_table(&t);
	/* Drop the type 20 structures: end the table after the type 19. */
	e = entry_for(&t);
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	info.nr_device_ranges = 0;
	/* Two populated devices share the array: which part is whose is unsaid. */
	assert_int_equal(smbios_device_ranges(&info, 0, r, 4), 0);
	info.devices[1].size_bytes = 0;
	assert_int_equal(smbios_device_ranges(&info, 0, r, 4), 1);
	assert_int_equal(r[0].start, 0);
	assert_int_equal(r[0].end, 64ull << 30);
}

static void test_sizes_and_speeds(void **state)
{
	static struct tbl t;
	uint8_t f[0x5c];
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	put16(f, 0x0c, 0x8000 | 512);       /* 512 KiB */
	f[0x12] = 0x1a;
	add(&t, 17, 0x15, 0x10, f, NULL, 0); /* 2.1 length: no speed fields */
	put16(f, 0x0c, 0xffff);              /* installed, size unknown */
	put16(f, 0x15, 0xffff);              /* speed in the 3.3 fields */
	put16(f, 0x20, 0xffff);
	put32(f, 0x54, 8800);
	put32(f, 0x58, 8000);
	add(&t, 17, 0x5c, 0x11, f, NULL, 0);
	put16(f, 0x0c, 0x7fff);              /* extended size, but too short for it */
	put16(f, 0x15, 0xffff);
	add(&t, 17, 0x1b, 0x12, f, NULL, 0);
	e = entry_for(&t);
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_false(info.ended);
	assert_int_equal(info.nr_devices, 3);
	assert_int_equal(info.devices[0].size_bytes, 512 << 10);
	assert_int_equal(info.devices[0].speed_mts, 0);
	assert_string_equal(smbios_mem_type_name(info.devices[0].type), "DDR4");
	assert_true(info.devices[1].size_unknown);
	assert_int_equal(info.devices[1].speed_mts, 8800);
	assert_int_equal(info.devices[1].configured_mts, 8000);
	assert_int_equal(info.devices[2].size_bytes, 0x7fffull << 20);
	assert_int_equal(info.devices[2].speed_mts, 0);   /* 0xffff is not a speed */
	assert_int_equal(info.nr_populated, 3);
	assert_string_equal(smbios_mem_type_name(0x15), "unknown");
	assert_string_equal(smbios_mem_type_name(0xff), "unknown");
}

static void test_string_past_count(void **state)
{
	static struct tbl t;
	uint8_t f[0x1b];
	static const char *const one[] = { "Only" };
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	f[4] = 1; f[5] = 2; f[6] = 200;      /* product and version: strings it lacks */
	add(&t, 1, 0x1b, 0x100, f, one, 1);
	end_of_table(&t, 0x101);
	e = entry_for(&t);
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_string_equal(info.sys_vendor, "Only");
	assert_string_equal(info.sys_product, "");
	assert_string_equal(info.sys_version, "");
	assert_int_equal(info.nr_bad_strings, 2);
	assert_true(host_log_contains("string 2 named at 0x5, but it has 1"));
	assert_true(info.ended);
}

static void test_truncated_structures(void **state)
{
	static struct tbl t;
	uint8_t f[0x28];
	static const char *const s[] = { "DIMM 0" };
	struct smbios_entry e;
	size_t at;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	f[4] = 1;
	add(&t, 1, 0x1b, 0x100, f, s, 1);
	at = t.len;
	put16(f, 0x0c, 1024);
	f[0x10] = 1;
	add(&t, 17, 0x28, 0x1100, f, s, 1);
	e = entry_for(&t);

	/* The formatted part runs past the end: cut inside it. Each cut is
	 * a heap copy of exactly that many bytes, so a read past it is
	 * AddressSanitizer's to see. */
	for (size_t cut = at; cut < at + 0x28 + 2; cut++) {
		uint8_t *copy = exact_copy(t.b, cut);
		host_log_reset();
		e.table_bytes = (uint32_t)cut;
		assert_true(smbios_parse(copy, cut, &e, &info));
		free(copy);
		assert_int_equal(info.nr_structures, 1);
		assert_int_equal(info.nr_devices, 0);
		assert_true(cut == at ? !info.truncated : info.truncated);
	}
	/* Strings without their double NUL before the end. */
	for (size_t cut = at + 0x28 + 2; cut < t.len; cut++) {
		uint8_t *copy = exact_copy(t.b, cut);
		host_log_reset();
		e.table_bytes = (uint32_t)cut;
		assert_true(smbios_parse(copy, cut, &e, &info));
		free(copy);
		assert_int_equal(info.nr_devices, 0);
		assert_true(info.truncated);
		assert_true(host_log_contains("without a double NUL"));
	}
	e.table_bytes = (uint32_t)t.len;
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_devices, 1);
	assert_false(info.truncated);

	/* A length below the 4-byte header. */
	t.b[at + 1] = 3;
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_true(info.truncated);
	assert_true(host_log_contains("below its 4-byte header"));
	/* A structure too short for its type's fields. */
	t.b[at + 1] = 0x10;
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_devices, 0);
	assert_int_equal(info.nr_short, 1);
	/* Nothing readable at all. */
	assert_false(smbios_parse(t.b, 3, &e, &info));
	assert_false(smbios_parse(NULL, 0, &e, &info));
}

static void test_table_beyond_mapping(void **state)
{
	static struct tbl t;
	struct smbios_entry e;

	(void)state;
	server_table(&t);
	e = entry_for(&t);
	e.table_bytes = 0x100000;      /* a 3.0 maximum far beyond what maps */
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_true(info.cut_by_mapping);
	assert_true(host_log_contains("only"));
	assert_true(info.ended);       /* all of it was there */
	assert_int_equal(info.nr_devices, 3);
	/* Half of it readable: what lies inside is read, nothing beyond. */
	uint8_t *half = exact_copy(t.b, t.len / 2);
	assert_true(smbios_parse(half, t.len / 2, &e, &info));
	assert_true(info.cut_by_mapping && info.truncated);
	assert_true(info.table_bytes_read <= t.len / 2);
	free(half);
}

static void test_duplicate_handles(void **state)
{
	static struct tbl t;
	uint8_t f[0x28];
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	put16(f, 0x0c, 1024);
	/* A table that repeats itself (a loop in the firmware's copy). */
	for (int i = 0; i < 200; i++)
		add(&t, 17, 0x28, (uint16_t)(0x1100 + i % 2), f, NULL, 0);
	end_of_table(&t, 0x1100);
	e = entry_for(&t);
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_devices, 2);
	assert_int_equal(info.nr_duplicate_handles, 199);   /* 198 and the 127 */
	assert_true(host_log_contains("handle seen before"));
	assert_true(host_log_contains("more structure warnings not shown"));
	assert_false(info.ended);
}

static void test_structure_count_21(void **state)
{
	static struct tbl t;
	uint8_t f[0x28];
	struct smbios_entry e = { .major = 2, .minor = 8, .table_phys = 0xf0000 };

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	put16(f, 0x0c, 1024);
	for (int i = 0; i < 5; i++)
		add(&t, 17, 0x28, (uint16_t)i, f, NULL, 0);
	e.table_bytes = (uint32_t)t.len;
	e.nr_structures = 3;
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_structures, 3);
	assert_int_equal(info.nr_devices, 3);
}

static void test_capacity(void **state)
{
	static struct tbl t;
	uint8_t f[0x15];
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	for (int i = 0; i < SMBIOS_MAX_DEVICES + 3; i++)
		add(&t, 17, 0x15, (uint16_t)i, f, NULL, 0);
	e = entry_for(&t);
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_devices, SMBIOS_MAX_DEVICES);
	assert_int_equal(info.nr_dropped, 3);
	assert_true(host_log_contains("more memory devices than memboot keeps"));
	assert_int_equal(info.nr_structures, SMBIOS_MAX_DEVICES + 3);
}

/* The fuzz seeds (tests/fuzz/make_seeds.py builds them as QEMU lays its
 * tables out): the entry point slot, then the table, as fuzz_smbios reads. */
static uint8_t *seed(const char *name, size_t *len)
{
	static const char *const dirs[] = { "tests/fuzz/seeds/fuzz_smbios",
					    "../tests/fuzz/seeds/fuzz_smbios" };
	char path[512];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (access(path, R_OK) == 0)
			return host_read_file(path, len);
	}
	fail_msg("seed %s not found; run from the repository root", name);
	return NULL;
}

static void test_seeds(void **state)
{
	struct smbios_entry e;
	size_t len;
	uint8_t *b;

	(void)state;
	host_log_reset();
	b = seed("qemu-30", &len);
	assert_true(smbios_entry_parse(b, SMBIOS_EP_MAX_BYTES, &e));
	assert_true(e.v3);
	assert_true(smbios_parse(b + SMBIOS_EP_MAX_BYTES, len - SMBIOS_EP_MAX_BYTES, &e, &info));
	assert_true(info.ended);
	assert_string_equal(info.sys_vendor, "Acme");
	assert_string_equal(info.bios_vendor, "SeaBIOS");
	assert_int_equal(info.nr_sockets, 1);
	assert_int_equal(info.nr_populated, 1);
	assert_int_equal(info.devices[0].size_bytes, 2ull << 30);
	assert_int_equal(info.devices[0].speed_mts, 3200);
	assert_string_equal(info.devices[0].locator, "DIMM 0");
	free(b);
	b = seed("qemu-21", &len);
	assert_true(smbios_entry_parse(b, SMBIOS_EP_MAX_BYTES, &e));
	assert_false(e.v3);
	assert_int_equal(e.nr_structures, 8);
	assert_true(smbios_parse(b + SMBIOS_EP_MAX_BYTES, len - SMBIOS_EP_MAX_BYTES, &e, &info));
	assert_int_equal(info.nr_structures, 8);
	free(b);
	b = seed("four-dimms-extended-size", &len);
	assert_true(smbios_entry_parse(b, SMBIOS_EP_MAX_BYTES, &e));
	assert_true(smbios_parse(b + SMBIOS_EP_MAX_BYTES, len - SMBIOS_EP_MAX_BYTES, &e, &info));
	assert_true(info.cut_by_mapping);    /* a 64 KiB maximum, less there */
	assert_int_equal(info.nr_populated, 4);
	assert_int_equal(info.devices[3].size_bytes, 64ull << 30);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	free(b);
}

/* mm/machine.c: each device on the node its ranges lie on. */
static void test_devices_on_nodes(void **state)
{
	static struct tbl t;
	static struct machine_info m;
	static struct numa_topology topo;
	struct smbios_entry e;

	(void)state;
	server_table(&t);      /* DIMM A1 at [0, 32 GiB), the second at [32, 64 GiB) */
	e = entry_for(&t);
	memset(&m, 0, sizeof(m));
	assert_true(smbios_parse(t.b, t.len, &e, &m.smbios));
	memset(&topo, 0, sizeof(topo));
	topo.nr_nodes = 2;
	topo.nr_ranges = 2;
	topo.ranges[0] = (struct numa_mem_range){ 1u << 20, 32ull << 30, 0 };
	topo.ranges[1] = (struct numa_mem_range){ 32ull << 30, 64ull << 30, 1 };
	machine_place(&m, &topo);
	assert_int_equal(m.device_node[0], 0);
	assert_int_equal(m.device_node[1], 1);
	/* One node's memory across the line between the two DIMMs: the first
	 * DIMM spans both nodes. */
	topo.ranges[0].end = 16ull << 30;
	topo.ranges[1].start = 16ull << 30;
	machine_place(&m, &topo);
	assert_int_equal(m.device_node[0], MACHINE_NODE_SPANS);
	assert_int_equal(m.device_node[1], 1);
	/* No type 20, two devices in the array: no node said. */
	m.smbios.nr_device_ranges = 0;
	machine_place(&m, &topo);
	assert_int_equal(m.device_node[0], MACHINE_NODE_UNKNOWN);
	/* One node: every device on it. */
	topo.nr_nodes = 1;
	machine_place(&m, &topo);
	assert_int_equal(m.device_node[0], 0);
	assert_int_equal(m.device_node[1], 0);
	/* The per-node line counts alike devices together. */
	host_log_reset();
	topo.nr_nodes = 2;
	m.smbios.nr_device_ranges = 2;
	topo.ranges[0].end = 64ull << 30;
	topo.nr_ranges = 1;
	machine_place(&m, &topo);
	machine_report(&m);
	assert_true(host_log_contains("DMI: node 0: 2 x 32 GiB DDR5-4800, 4400 configured"));
	assert_true(host_log_contains("DMI: Acme R760, BIOS 2.14.1 03/15/2024"));
}

/* Sizes no machine could hold, against the memory it has (issue: a type
 * 17 with size 0x7fff and extended size 0x7fffffff printed "2147483647 MiB
 * DDR4" on a 512 MiB guest, with no warning). */
static void test_impossible_size_not_believed(void **state)
{
	static struct tbl t;
	static struct machine_info m;
	static struct numa_topology topo;
	uint8_t f[0x28];
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	put16(f, 0x0c, 0x7fff);
	put32(f, 0x1c, 0x7fffffff);          /* 2 PiB in MiB */
	f[0x12] = 0x1a;
	add(&t, 17, 0x28, 0x20, f, NULL, 0);
	put16(f, 0x0c, 512);                 /* 512 MiB: fine */
	add(&t, 17, 0x28, 0x21, f, NULL, 0);
	end_of_table(&t, 0xfeff);
	e = entry_for(&t);
	memset(&m, 0, sizeof(m));
	assert_true(smbios_parse(t.b, t.len, &e, &m.smbios));
	assert_int_equal(m.smbios.devices[0].size_bytes, 0x7fffffffull << 20);
	memset(&topo, 0, sizeof(topo));
	topo.nr_nodes = 1;
	topo.nr_ranges = 1;
	topo.ranges[0] = (struct numa_mem_range){ 1u << 20, 512u << 20, 0 };
	host_log_reset();
	machine_place(&m, &topo);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("says 2147483647 MiB, more than a machine with 511 MiB"));
	assert_true(m.smbios.devices[0].size_unknown);
	assert_int_equal(m.smbios.devices[0].size_bytes, 0);
	assert_int_equal(m.smbios.devices[1].size_bytes, 512u << 20);
	assert_int_equal(m.nr_bad_sizes, 1);
}

/* A length byte that swallows the next structures is said to (issue: a
 * type 17 of 26 bytes whose length said 0xff gave "257 MiB other" and
 * "0 of 0 sockets" with no warning). */
static void test_length_far_past_the_layout(void **state)
{
	static struct tbl t;
	uint8_t f[0xff];
	struct smbios_entry e;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(f, 0, sizeof(f));
	put16(f, 0x0c, 1024);
	f[0x12] = 0x1a;
	add(&t, 17, 0xff, 0x30, f, NULL, 0);
	add(&t, 17, 0x5c + 0x20, 0x31, f, NULL, 0);  /* within the slack: a newer version's */
	end_of_table(&t, 0xfeff);
	e = entry_for(&t);
	host_log_reset();
	assert_true(smbios_parse(t.b, t.len, &e, &info));
	assert_int_equal(info.nr_bad_lengths, 1);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("type 17 (handle 0x0030) at offset 0x0: length 0xff, far beyond "
				      "the 0x5c SMBIOS 3.7 defines"));
	assert_int_equal(info.nr_devices, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_impossible_size_not_believed),
		cmocka_unit_test(test_length_far_past_the_layout),
#define T(f) cmocka_unit_test(f)
		T(test_entry_30),
		T(test_entry_21),
		T(test_entry_rejected),
		T(test_server_table),
		T(test_device_ranges_from_array),
		T(test_sizes_and_speeds),
		T(test_string_past_count),
		T(test_truncated_structures),
		T(test_table_beyond_mapping),
		T(test_duplicate_handles),
		T(test_structure_count_21),
		T(test_capacity),
		T(test_seeds),
		T(test_devices_on_nodes),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

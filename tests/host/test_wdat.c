/*
 * test_wdat.c: kernel/firmware/acpi/wdat.c on tables built here, field by
 * field at the offsets the WDAT's specification gives (not through the
 * parser's own enums), run over a register file of this test's: the
 * actions' reads and writes are checked against what the table says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/firmware/acpi/wdat.h"
#include "tests/host/host_support.h"

/* ---- a table ---- */

struct wdat {
	uint8_t b[68 + 24 * 80];
	size_t len;
};

static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

static void wdat_finish(struct wdat *t)
{
	uint8_t s = 0;

	put32(t->b, 4, (uint32_t)t->len);
	t->b[9] = 0;
	for (size_t i = 0; i < t->len; i++)
		s = (uint8_t)(s + t->b[i]);
	t->b[9] = (uint8_t)-s;
}

/* A WDAT with no entries yet: @period_ms a count, counts @min..@max. */
static void wdat_begin(struct wdat *t, uint32_t period_ms, uint32_t min, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, "WDAT", 4);
	t->b[8] = 1;
	memcpy(t->b + 10, "BOCHS ", 6);
	put32(t->b, 36, 32);                /* watchdog header length */
	t->b[42] = 0xff;                    /* PCI segment etc.: not a PCI device */
	put32(t->b, 48, period_ms);
	put32(t->b, 52, max);
	put32(t->b, 56, min);
	t->b[60] = 1;                       /* enabled */
	t->len = 68;
	wdat_finish(t);
}

/* One instruction entry: @space 0 memory, 1 I/O; @access 1..3. */
static void wdat_entry(struct wdat *t, uint8_t action, uint8_t instruction, uint8_t space,
		       uint8_t bit_offset, uint8_t access, uint64_t address, uint32_t value,
		       uint32_t mask)
{
	uint8_t *e = t->b + t->len;

	memset(e, 0, 24);
	e[0] = action;
	e[1] = instruction;
	e[4] = space;
	e[5] = access ? (uint8_t)(8u << (access - 1)) : 0;    /* bit width */
	e[6] = bit_offset;
	e[7] = access;
	put64(e, 8, address);
	put32(e, 16, value);
	put32(e, 20, mask);
	t->len += 24;
	put32(t->b, 64, t->b[64] + 1u);
	wdat_finish(t);
}

/* ---- a register file: I/O ports 0x400.. and memory 0xfed00000.. ---- */

#define IO_BASE 0x400
#define MEM_BASE 0xfed00000ull
static uint8_t io_regs[64], mem_regs[64];
static unsigned nr_writes;
static uint64_t last_write;

static uint8_t *reg_at(uint8_t space, uint64_t address, unsigned bytes)
{
	uint64_t base = space ? IO_BASE : MEM_BASE;

	if (address < base || address + bytes > base + 64)
		return NULL;
	return (space ? io_regs : mem_regs) + (address - base);
}

static bool reg_read(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value)
{
	uint8_t *r = reg_at(space, address, bytes);

	if (!r)
		return false;
	*value = 0;
	memcpy(value, r, bytes);
	return true;
}

static bool reg_write(uint8_t space, uint64_t address, unsigned bytes, uint64_t value)
{
	uint8_t *r = reg_at(space, address, bytes);

	if (!r)
		return false;
	memcpy(r, &value, bytes);
	nr_writes++;
	last_write = value;
	return true;
}

static const struct acpi_wdat_io io = { .read = reg_read, .write = reg_write };

static uint16_t io16(unsigned off)
{
	uint16_t v;

	memcpy(&v, io_regs + off, 2);
	return v;
}

static int reset(void **state)
{
	(void)state;
	host_log_reset();
	memset(io_regs, 0, sizeof(io_regs));
	memset(mem_regs, 0, sizeof(mem_regs));
	nr_writes = 0;
	return 0;
}

/*
 * A watchdog shaped like a chipset's: a 100 ms count in I/O 0x404 (10
 * bits), a control register at 0x408 (bit 0 run, bit 1 reboot on expiry),
 * a reload register at 0x400, a status bit in memory.
 */
static void chipset_wdat(struct wdat *t)
{
	wdat_begin(t, 100, 20, 1023);
	wdat_entry(t, 0x11, 0x82, 1, 1, 2, 0x408, 1, 1);        /* SET_REBOOT: bit 1, preserve */
	wdat_entry(t, 0x06, 0x83, 1, 0, 2, 0x404, 0, 0x3ff);    /* SET_COUNTDOWN_PERIOD */
	wdat_entry(t, 0x01, 0x02, 1, 0, 1, 0x400, 1, 0xff);     /* RESET: write 1 */
	wdat_entry(t, 0x09, 0x82, 1, 0, 2, 0x408, 1, 1);        /* SET_RUNNING_STATE */
	wdat_entry(t, 0x0b, 0x82, 1, 0, 2, 0x408, 0, 1);        /* SET_STOPPED_STATE */
	wdat_entry(t, 0x20, 0x00, 0, 4, 3, MEM_BASE + 8, 1, 1); /* QUERY_WATCHDOG_STATUS: bit 4 */
	wdat_entry(t, 0x21, 0x82, 0, 4, 3, MEM_BASE + 8, 0, 1); /* SET_WATCHDOG_STATUS: clear it */
}

static void test_parse_and_arm(void **state)
{
	static struct wdat t;
	static struct acpi_wdat_info w;
	char why[128] = "";

	chipset_wdat(&t);
	assert_true(acpi_wdat_parse(t.b, t.len, &w));
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(w.period_ms, 100);
	assert_int_equal(w.min_count, 20);
	assert_int_equal(w.max_count, 1023);
	assert_true(w.enabled);
	assert_int_equal(w.nr_entries, 7);
	assert_int_equal(w.entries[1].bytes, 2);
	assert_int_equal(w.entries[5].space, 0);
	assert_int_equal(w.entries[5].address, MEM_BASE + 8);
	assert_null(acpi_wdat_missing(&w));
	assert_int_equal(acpi_wdat_min_seconds(&w), 2);
	assert_int_equal(acpi_wdat_max_seconds(&w), 102);
	assert_int_equal(acpi_wdat_count(&w, 30), 300);
	assert_int_equal(acpi_wdat_count(&w, 1), 20);
	assert_int_equal(acpi_wdat_count(&w, 1000), 1023);

	/* Nothing fired: the status is read, nothing written. */
	assert_false(acpi_wdat_fired(&w, &io));
	assert_int_equal(nr_writes, 0);

	/* Other bits of the control register survive the preserving writes. */
	io_regs[8] = 0xf0;
	io_regs[5] = 0xfc;                  /* above the count's 10 bits */
	assert_int_equal(acpi_wdat_arm(&w, 30, &io, why, sizeof(why)), 30);
	assert_int_equal(io16(4), 0xfc00 | 300);
	assert_int_equal(io_regs[0], 1);
	assert_int_equal(io16(8), 0xf3);   /* reboot and run, 0xf0 kept */
	io_regs[0] = 0;
	assert_true(acpi_wdat_pet(&w, &io));
	assert_int_equal(io_regs[0], 1);
	assert_true(acpi_wdat_disarm(&w, &io));
	assert_int_equal(io16(8), 0xf2);   /* stopped; reboot and the rest kept */

	/* The status says it fired: reported, then cleared. */
	mem_regs[8] = 0x31;
	assert_true(acpi_wdat_fired(&w, &io));
	assert_int_equal(mem_regs[8], 0x21);
	assert_false(acpi_wdat_fired(&w, &io));
}

/* A register the machine does not have: the step is named, 0 returned. */
static void test_arm_unreachable(void **state)
{
	static struct wdat t;
	static struct acpi_wdat_info w;
	char why[128] = "";

	wdat_begin(&t, 1000, 1, 255);
	wdat_entry(&t, 0x06, 0x03, 1, 0, 1, 0x410, 0, 0xff);
	wdat_entry(&t, 0x01, 0x02, 1, 0, 1, 0x900, 1, 0xff);    /* outside the file */
	wdat_entry(&t, 0x09, 0x02, 1, 0, 1, 0x411, 1, 0xff);
	wdat_entry(&t, 0x0b, 0x02, 1, 0, 1, 0x411, 0, 0xff);
	assert_true(acpi_wdat_parse(t.b, t.len, &w));
	assert_int_equal(acpi_wdat_arm(&w, 2000, &io, why, sizeof(why)), 0);
	assert_string_equal(why, "its RESET action could not reach a register");
	assert_int_equal(io_regs[0x10], 255);     /* the count went out, capped */
	assert_int_equal(io_regs[0x11], 0);       /* never started */
	assert_false(acpi_wdat_fired(&w, &io));   /* no QUERY_WATCHDOG_STATUS */
}

/* An action the boot needs is missing; an unknown action is skipped. */
static void test_missing_and_unknown(void **state)
{
	static struct wdat t;
	static struct acpi_wdat_info w;

	wdat_begin(&t, 100, 1, 100);
	wdat_entry(&t, 0x01, 0x02, 1, 0, 1, 0x400, 1, 0xff);
	wdat_entry(&t, 0x77, 0x02, 1, 0, 1, 0x400, 1, 0xff);
	wdat_entry(&t, 0x06, 0x03, 1, 0, 1, 0x404, 0, 0xff);
	assert_true(acpi_wdat_parse(t.b, t.len, &w));
	assert_int_equal(w.nr_entries, 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("entry 1 has action 0x77, which memboot does not know"));
	assert_string_equal(acpi_wdat_missing(&w), "SET_RUNNING_STATE");
	assert_false(acpi_wdat_run(&w, ACPI_WDAT_SET_STOPPED_STATE, 0, NULL, &io));
}

/* Each table memboot must not run is refused whole, with one warning
 * naming what is wrong, and nothing kept. */
static void test_refused(void **state)
{
	static const struct {
		uint8_t instruction, space, bit_offset, access;
		uint64_t address;
		uint32_t mask;
		const char *says;
	} bad[] = {
		{ 0x04, 1, 0, 1, 0x400, 0xff, "has instruction 0x4, not one of the four kinds" },
		{ 0x02, 2, 0, 1, 0x400, 0xff, "names address space 2" },
		{ 0x02, 1, 0, 4, 0x400, 0xff, "has access size 4" },
		{ 0x02, 1, 0, 0, 0x400, 0xff, "has access size 0" },
		{ 0x02, 1, 0, 2, 0xffff, 0xff, "names register 0xffff, not a 16-bit I/O address" },
		{ 0x02, 0, 0, 3, 0, 0xff, "names register 0x0, not a memory address" },
		{ 0x02, 1, 4, 1, 0x400, 0xff, "mask 0xff at bit 4 does not fit its 1-byte register" },
		{ 0x02, 1, 8, 1, 0x400, 1, "mask 0x1 at bit 8 does not fit" },
		{ 0x02, 1, 0, 1, 0x400, 0, "mask 0x0 at bit 0 does not fit" },
	};
	static struct wdat t;
	static struct acpi_wdat_info w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		host_log_reset();
		wdat_begin(&t, 100, 1, 100);
		wdat_entry(&t, 0x01, 0x02, 1, 0, 1, 0x400, 1, 0xff);
		wdat_entry(&t, 0x09, bad[i].instruction, bad[i].space, bad[i].bit_offset,
			   bad[i].access, bad[i].address, 1, bad[i].mask);
		memset(&w, 0xa5, sizeof(w));
		if (acpi_wdat_parse(t.b, t.len, &w))
			fail_msg("case %zu accepted", i);
		assert_int_equal(w.nr_entries, 0);
		assert_int_equal(host_log_count(LOG_WARN), 1);
		if (!host_log_contains(bad[i].says))
			fail_msg("case %zu: no warning saying '%s'", i, bad[i].says);
	}

	/* The header's numbers. */
	host_log_reset();
	wdat_begin(&t, 0, 1, 100);
	assert_false(acpi_wdat_parse(t.b, t.len, &w));
	assert_true(host_log_contains("timer period 0 ms is outside 1..60000"));
	wdat_begin(&t, 100, 200, 100);
	assert_false(acpi_wdat_parse(t.b, t.len, &w));
	assert_true(host_log_contains("counts 200..100 are no range"));
	wdat_begin(&t, 100, 1, 100);
	put32(t.b, 64, 3);                  /* 3 entries announced, none there */
	wdat_finish(&t);
	assert_false(acpi_wdat_parse(t.b, t.len, &w));
	assert_true(host_log_contains("3 instruction entries need 72 bytes; the table has 0"));
	put32(t.b, 64, ACPI_WDAT_MAX_ENTRIES + 1);
	wdat_finish(&t);
	assert_false(acpi_wdat_parse(t.b, t.len, &w));
	assert_true(host_log_contains("65 instruction entries, more than the 64 memboot keeps"));
	/* Shorter than its fixed part, and a length beyond the bytes. */
	host_log_reset();
	wdat_begin(&t, 100, 1, 100);
	assert_false(acpi_wdat_parse(t.b, 60, &w));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	host_log_reset();
	t.len = 40;
	wdat_finish(&t);
	assert_false(acpi_wdat_parse(t.b, 68, &w));
	assert_int_equal(host_log_count(LOG_WARN), 1);
}

/* A header length other than 32 is said, and the entries are read where
 * the specification puts them. */
static void test_header_length(void **state)
{
	static struct wdat t;
	static struct acpi_wdat_info w;

	chipset_wdat(&t);
	put32(t.b, 36, 28);
	wdat_finish(&t);
	assert_true(acpi_wdat_parse(t.b, t.len, &w));
	assert_int_equal(w.nr_entries, 7);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("watchdog header length 28, not 32"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_and_arm, reset),
		cmocka_unit_test_setup(test_arm_unreachable, reset),
		cmocka_unit_test_setup(test_missing_and_unknown, reset),
		cmocka_unit_test_setup(test_refused, reset),
		cmocka_unit_test_setup(test_header_length, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

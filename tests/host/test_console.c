/*
 * test_console.c: the consoles' pure parts: console= values, the screen
 * grid drawn into plain memory (framebuffer pixels read back and matched to
 * the font, VGA cells), scrolling, the SPCR table, the Multiboot2
 * framebuffer tag, and the soft-off values of the FADT and the DSDT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/bootinfo.h"
#include "boot/mb2/mb2.h"
#include "kernel/firmware/acpi/sleep.h"
#include "kernel/firmware/acpi/spcr.h"
#include "kernel/firmware/mmio.h"
#include "kernel/services/console/font.h"
#include "kernel/services/console/options.h"
#include "kernel/services/console/screen.h"
#include "tests/host/host_support.h"

/* ---- console= -------------------------------------------------------------- */

static void test_options_serial_ports_and_speeds(void **state)
{
	struct console_options o = { 0 };
	char err[160];

	assert_true(console_parse_option(&o, "ttyS0", err, sizeof(err)));
	assert_true(console_parse_option(&o, "ttyS1,9600", err, sizeof(err)));
	assert_true(console_parse_option(&o, "ttyS3,57600n8", err, sizeof(err)));
	assert_true(o.given);
	assert_int_equal(o.baud[0], 115200);
	assert_int_equal(o.baud[1], 9600);
	assert_int_equal(o.baud[2], 0);
	assert_int_equal(o.baud[3], 57600);
	assert_false(o.fb || o.text || o.screen);
}

static void test_options_screens(void **state)
{
	struct console_options o = { 0 };
	char err[160];

	assert_true(console_parse_option(&o, "fb", err, sizeof(err)));
	assert_true(o.fb && !o.text);
	assert_true(console_parse_option(&o, "vga", err, sizeof(err)));
	assert_true(console_parse_option(&o, "tty0", err, sizeof(err)));
	assert_true(o.text && o.screen);
}

static void test_options_refused(void **state)
{
	static const char *const bad[] = { "", "ttyS4", "ttyS", "ttyS0,", "ttyS0,abc",
					   "ttyS0,7", "ttyS0,230400", "ttyS0,9600e7", "lp0",
					   "ttyS01", "FB" };
	struct console_options o = { 0 };
	char err[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(console_parse_option(&o, bad[i], err, sizeof(err)));
		assert_true(err[0] != '\0');
	}
	assert_false(o.given);
	assert_int_equal(console_baud_divisor(115200), 1);
	assert_int_equal(console_baud_divisor(9600), 12);
	assert_int_equal(console_baud_divisor(7), 0);
}

/* 115200 / 1 does not fit the 16550's 16-bit divisor latch; 115200 / 2 does. */
static void test_baud_divisor_fits_the_latch(void **state)
{
	struct console_options o = { 0 };
	char err[256];

	assert_int_equal(console_baud_divisor(1), 0);
	assert_int_equal(console_baud_divisor(2), 57600);
	assert_int_equal(console_baud_divisor(3), 38400);
	assert_int_equal(console_baud_divisor(50000), 0);   /* 2.304: not whole */
	err[0] = '\0';
	assert_false(console_parse_option(&o, "ttyS0,1", err, sizeof(err)));
	assert_non_null(strstr(err, "16-bit latch"));
	assert_non_null(strstr(err, "65535"));
	assert_int_equal(o.baud[0], 0);
	assert_true(console_parse_option(&o, "ttyS0,2", err, sizeof(err)));
	assert_int_equal(o.baud[0], 2);
}

/* ---- the screen ------------------------------------------------------------- */

#define W 128
#define H 64

static uint32_t pixels[W * H];

static const struct fb_info fb32 = {
	.phys = 0x1000, .width_px = W, .height_px = H, .pitch_bytes = W * 4, .bpp = 32,
	.red_pos = 16, .red_bits = 8, .green_pos = 8, .green_bits = 8, .blue_pos = 0, .blue_bits = 8,
};

/* The character drawn in cell (col, row), by matching the font; '\0' if
 * none matches. */
static char cell_char(const struct screen *s, uint32_t col, uint32_t row)
{
	uint8_t rows[FONT_HEIGHT];

	for (uint32_t y = 0; y < FONT_HEIGHT; y++) {
		rows[y] = 0;
		for (uint32_t x = 0; x < FONT_WIDTH; x++) {
			uint32_t v = pixels[(row * FONT_HEIGHT + y) * W + col * FONT_WIDTH + x];
			if (v == s->fg_pixel)
				rows[y] |= (uint8_t)(0x80 >> x);
			else
				assert_int_equal(v, s->bg_pixel);
		}
	}
	for (int c = FONT_FIRST; c <= FONT_LAST; c++)
		if (memcmp(font_glyph((char)c), rows, FONT_HEIGHT) == 0)
			return (char)c;
	return '\0';
}

static void row_text(const struct screen *s, uint32_t row, char *out)
{
	for (uint32_t c = 0; c < s->cols; c++)
		out[c] = cell_char(s, c, row);
	out[s->cols] = '\0';
	for (int32_t c = (int32_t)s->cols - 1; c >= 0 && out[c] == ' '; c--)
		out[c] = '\0';
}

static void test_fb_draws_the_font(void **state)
{
	static struct screen s;
	char text[W / FONT_WIDTH + 1];

	memset(pixels, 0x5a, sizeof(pixels));
	assert_null(screen_init_fb(&s, &fb32, pixels));
	assert_int_equal(s.cols, 16);
	assert_int_equal(s.rows, 4);
	assert_int_equal(s.fg_pixel, 0xaaaaaa);
	screen_clear(&s);
	screen_write(&s, "memboot: ok\n\tx\x01", 15);
	row_text(&s, 0, text);
	assert_string_equal(text, "memboot: ok");
	row_text(&s, 1, text);
	assert_string_equal(text, "        x?");
	row_text(&s, 2, text);
	assert_string_equal(text, "");
}

static void test_fb_wraps_and_scrolls(void **state)
{
	static struct screen s;
	char text[W / FONT_WIDTH + 1];

	assert_null(screen_init_fb(&s, &fb32, pixels));
	screen_clear(&s);
	/* 16 columns: the first line wraps onto the second. */
	screen_write(&s, "0123456789abcdefWRAP\nline2\n", 27);
	row_text(&s, 0, text);
	assert_string_equal(text, "0123456789abcdef");
	row_text(&s, 1, text);
	assert_string_equal(text, "WRAP");
	/* Four rows: each newline on the last row scrolls by scroll_rows (one
	 * for a 4-row screen). */
	screen_write(&s, "line3\nline4\nline5", 17);
	row_text(&s, 0, text);
	assert_string_equal(text, "line2");
	row_text(&s, 2, text);
	assert_string_equal(text, "line4");
	row_text(&s, 3, text);
	assert_string_equal(text, "line5");
}

static void test_fb_16bpp_and_bad_layouts(void **state)
{
	static struct screen s;
	static uint16_t px16[W * H];
	struct fb_info fb = { .phys = 1, .width_px = W, .height_px = H, .pitch_bytes = W * 2,
			      .bpp = 16, .red_pos = 11, .red_bits = 5, .green_pos = 5,
			      .green_bits = 6, .blue_pos = 0, .blue_bits = 5 };

	assert_null(screen_init_fb(&s, &fb, px16));
	assert_int_equal(screen_fb_pixel(&fb, 0xff, 0xff, 0xff), 0xffff);
	assert_int_equal(screen_fb_pixel(&fb, 0xff, 0, 0), 0xf800);
	screen_write(&s, "|", 1);
	/* '|' lights some pixel in the first cell, and nothing past it. */
	int lit = 0;
	for (int y = 0; y < FONT_HEIGHT; y++)
		for (int x = 0; x < W; x++)
			if (px16[y * W + x]) {
				assert_true(x < FONT_WIDTH);
				lit++;
			}
	assert_true(lit > 0);

	struct fb_info bad = fb32;
	bad.bpp = 8;
	assert_non_null(screen_init_fb(&s, &bad, pixels));
	bad = fb32;
	bad.pitch_bytes = W * 4 - 4;
	assert_non_null(screen_init_fb(&s, &bad, pixels));
	bad = fb32;
	bad.red_pos = 30;
	assert_non_null(screen_init_fb(&s, &bad, pixels));
	bad = fb32;
	bad.width_px = 4;
	assert_non_null(screen_init_fb(&s, &bad, pixels));
	bad = fb32;
	bad.text = true;
	assert_non_null(screen_init_fb(&s, &bad, pixels));
	assert_non_null(screen_init_fb(&s, &fb32, NULL));
}

static void test_vga_cells_and_scroll(void **state)
{
	static struct screen s;
	static uint16_t cells[80 * 25];

	assert_null(screen_init_text(&s, cells, 80, 25));
	screen_clear(&s);
	assert_int_equal(cells[0], 0x0720);
	for (int i = 0; i < 25; i++) {
		char line[16];
		int n = snprintf(line, sizeof(line), "row %d\n", i);
		screen_write(&s, line, (size_t)n);
	}
	/* 25 lines and a newline after the last: one line scrolled off. */
	assert_int_equal(cells[0], 0x0700 | 'r');
	assert_int_equal(cells[4], 0x0700 | '1');
	assert_int_equal(cells[23 * 80 + 4], 0x0700 | '2');
	assert_int_equal(cells[23 * 80 + 5], 0x0700 | '4');
	assert_int_equal(cells[24 * 80], 0x0720);
	assert_non_null(screen_init_text(&s, cells, 0, 25));
	assert_non_null(screen_init_text(&s, NULL, 80, 25));
}

/* ---- SPCR ------------------------------------------------------------------- */

static void make_spcr(uint8_t *t, uint8_t type, uint8_t space, uint8_t access, uint64_t addr,
		      uint8_t baud)
{
	memset(t, 0, 80);
	memcpy(t, "SPCR", 4);
	t[4] = 80;
	t[8] = 2;
	t[36] = type;
	t[40] = space;
	t[41] = 8;
	t[43] = access;
	memcpy(t + 44, &addr, 8);
	t[58] = baud;
}

static void test_spcr(void **state)
{
	uint8_t t[80];
	struct acpi_spcr_info info;

	make_spcr(t, 0, 1, 1, 0x2f8, 7);
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
	assert_true(info.io_port);
	assert_int_equal(info.address, 0x2f8);
	assert_int_equal(info.baud, 115200);

	make_spcr(t, 0x12, 0, 3, 0xfe030000ULL, 0);
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
	assert_false(info.io_port);
	assert_int_equal(info.access_bytes, 4);
	assert_int_equal(info.baud, 0);

	host_log_reset();
	make_spcr(t, 3, 0, 3, 0x9000000, 7);       /* an ARM PL011: its own kind */
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
	assert_int_equal(info.kind, ACPI_SPCR_PL011);
	make_spcr(t, 0xf, 0, 3, 0x9000000, 7);     /* an ARM DCC */
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	assert_true(host_log_contains("not a 16550"));
	make_spcr(t, 0, 2, 1, 0x3f8, 7);           /* PCI config space */
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	make_spcr(t, 0, 1, 1, 0, 7);
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	make_spcr(t, 0, 1, 1, 0x3f8, 7);
	assert_false(acpi_spcr_parse(t, 79, &info));
}

/* Register widths and strides: 8, 16 or 32 bits; anything else refused. */
static void test_spcr_register_widths(void **state)
{
	uint8_t t[80];
	struct acpi_spcr_info info;

	host_log_reset();
	make_spcr(t, 0, 0, 3, 0xfe030000ULL, 7);
	t[41] = 9;
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	assert_true(host_log_contains("bit width of 9"));
	t[41] = 64;
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	t[41] = 0;                                  /* MMIO needs a width */
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	t[41] = 32;
	t[43] = 1;                                  /* 32-bit registers read a byte at a time */
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	t[43] = 4;                                  /* no such access size */
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	t[43] = 2;
	t[41] = 16;
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
	assert_int_equal(info.access_bytes, 2);
	t[43] = 0;                                  /* legacy: the width decides */
	t[41] = 32;
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
	assert_int_equal(info.access_bytes, 4);
	make_spcr(t, 0, 1, 1, 0x2f8, 7);
	t[41] = 9;
	assert_false(acpi_spcr_parse(t, sizeof(t), &info));
	t[41] = 0;                                  /* I/O: the port decides */
	assert_true(acpi_spcr_parse(t, sizeof(t), &info));
}

/* An MMIO UART inside RAM of the memory map is refused; MMIO in reserved
 * ranges or holes, and I/O ports, pass (the probe decides). */
/* The block's base and length against the map: the first and last byte
 * count, reserved ranges and holes do not, a wrap is refused. */
static void test_mmio_block_clear_of_ram(void **state)
{
	const struct mem_range map[] = {
		{ 0x40000000, 0x80000000, MEM_USABLE },
		{ 0x80000000, 0x80010000, MEM_RESERVED },
		{ 0x80010000, 0x80020000, MEM_ACPI },
	};
	char why[160];

	(void)state;
	assert_true(fw_mmio_clear_of_ram(0x9000000, 0x1000, map, 3, why, sizeof(why)));
	assert_true(fw_mmio_clear_of_ram(0x3ffff000, 0x1000, map, 3, why, sizeof(why)));
	assert_false(fw_mmio_clear_of_ram(0x3ffff000, 0x1001, map, 3, why, sizeof(why)));
	assert_non_null(strstr(why, "usable memory [0x40000000-0x7fffffff]"));
	assert_true(fw_mmio_clear_of_ram(0x80000000, 0x10000, map, 3, why, sizeof(why)));
	assert_false(fw_mmio_clear_of_ram(0x80000000, 0x10001, map, 3, why, sizeof(why)));
	assert_non_null(strstr(why, "ACPI"));
	assert_false(fw_mmio_clear_of_ram(UINT64_MAX - 0xfff, 0x1001, map, 3, why, sizeof(why)));
	assert_non_null(strstr(why, "wrap"));
	assert_true(fw_mmio_clear_of_ram(0x40000000, 0x1000, map, 0, why, sizeof(why)));
}

static void test_spcr_address_against_the_map(void **state)
{
	const struct mem_range map[] = {
		{ 0, 0x9f000, MEM_USABLE },
		{ 0x100000, 0x7fe0000, MEM_USABLE },
		{ 0x7fe0000, 0x7ff0000, MEM_ACPI },
		{ 0x7ff0000, 0x8000000, MEM_NVS },
		{ 0xfe000000, 0xff000000, MEM_RESERVED },
		{ 0x100000000ULL, 0x140000000ULL, MEM_USABLE },
	};
	struct acpi_spcr_info io = { .io_port = true, .address = 0x3f8 };
	char why[160];

	assert_true(acpi_spcr_address_ok(&io, map, 6, why, sizeof(why)));
	struct acpi_spcr_info m = { .address = 0x8000000 - 8, .access_bytes = 1 };
	assert_false(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
	assert_non_null(strstr(why, "NVS"));
	m.address = 0x8000000;                      /* just past it: a hole */
	assert_true(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
	m.access_bytes = 4;
	m.address = 0x7fefff0;                      /* the last registers reach ACPI memory */
	assert_false(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
	m.address = 0x120000000ULL;
	assert_false(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
	assert_non_null(strstr(why, "usable"));
	m.address = 0xfe000000;
	assert_true(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
	m.address = UINT64_MAX - 4;
	assert_false(acpi_spcr_address_ok(&m, map, 6, why, sizeof(why)));
}

/* ---- the Multiboot2 framebuffer tag ----------------------------------------- */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* A boot information block: one memory map entry, a framebuffer tag, end. */
static size_t make_mb2(uint8_t *b, uint8_t fb_type, uint32_t fb_tag_size)
{
	size_t off = 8;

	memset(b, 0, 256);
	put32(b + off, 6); put32(b + off + 4, 16 + 24); put32(b + off + 8, 24);
	uint64_t base = 0x100000, len = 0x1000000;
	memcpy(b + off + 16, &base, 8); memcpy(b + off + 24, &len, 8); put32(b + off + 32, 1);
	off += 40;
	put32(b + off, 8); put32(b + off + 4, fb_tag_size);
	uint64_t fb = 0xfd000000;
	memcpy(b + off + 8, &fb, 8);
	put32(b + off + 16, 4096); put32(b + off + 20, 1024); put32(b + off + 24, 768);
	b[off + 28] = 32; b[off + 29] = fb_type;
	b[off + 32] = 16; b[off + 33] = 8; b[off + 34] = 8; b[off + 35] = 8;
	b[off + 36] = 0; b[off + 37] = 8;
	off += (fb_tag_size + 7) & ~7u;
	put32(b + off, 0); put32(b + off + 4, 8);
	off += 8;
	put32(b, (uint32_t)off);
	return off;
}

static void test_mb2_framebuffer_tag(void **state)
{
	static struct bootinfo bi;
	uint8_t b[256] __attribute__((aligned(8)));

	make_mb2(b, 1, 38);
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, b, sizeof(b), &bi), MB2_OK);
	assert_int_equal(bi.fb.phys, 0xfd000000);
	assert_int_equal(bi.fb.width_px, 1024);
	assert_int_equal(bi.fb.height_px, 768);
	assert_int_equal(bi.fb.pitch_bytes, 4096);
	assert_int_equal(bi.fb.bpp, 32);
	assert_int_equal(bi.fb.red_pos, 16);
	assert_int_equal(bi.fb.blue_bits, 8);
	assert_false(bi.fb.text);

	make_mb2(b, 2, 32);                    /* EGA text */
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, b, sizeof(b), &bi), MB2_OK);
	assert_true(bi.fb.text);

	host_log_reset();
	make_mb2(b, 0, 40);                    /* indexed colour: left out */
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, b, sizeof(b), &bi), MB2_OK);
	assert_int_equal(bi.fb.phys, 0);
	assert_true(host_log_contains("indexed colour"));

	make_mb2(b, 1, 34);                    /* RGB without its colour fields */
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, b, sizeof(b), &bi), MB2_OK);
	assert_int_equal(bi.fb.phys, 0);
}

/* ---- soft-off ----------------------------------------------------------------- */

static void test_s5_from_aml(void **state)
{
	/* Name(\_S5, Package(4) {0x05, Zero, Zero, Zero}) after some other bytes. */
	static const uint8_t aml[] = { 0x10, 0x20, '_', 'S', '5', '_', 0x08, '\\', '_', 'S', '5',
				       '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x00, 0x00, 0x00 };
	static const uint8_t no_pkg[] = { 0x08, '_', 'S', '5', '_', 0x0a, 0x05 };
	static const uint8_t short_pkg[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x04, 0x01, 0x00 };
	struct acpi_s5 s5 = { 0 };

	assert_true(acpi_find_s5(aml, sizeof(aml), &s5));
	assert_int_equal(s5.slp_typa, 5);
	assert_int_equal(s5.slp_typb, 0);
	assert_false(acpi_find_s5(no_pkg, sizeof(no_pkg), &s5));
	assert_false(acpi_find_s5(short_pkg, sizeof(short_pkg), &s5));
	/* Cut anywhere inside the package: never found, never read past. */
	for (size_t n = 0; n < sizeof(aml) - 3; n++)
		assert_false(acpi_find_s5(aml, n, &s5));
}

static void test_fadt_pm1(void **state)
{
	uint8_t f[244] = { 0 };
	struct acpi_s5 s5 = { 0 };

	memcpy(f, "FACP", 4);
	put32(f + 64, 0x604);
	assert_true(acpi_fadt_pm1(f, sizeof(f), &s5));
	assert_int_equal(s5.pm1a_cnt_port, 0x604);
	assert_int_equal(s5.pm1b_cnt_port, 0);
	put32(f + 112, 1u << 20);                /* hardware-reduced */
	assert_false(acpi_fadt_pm1(f, sizeof(f), &s5));
	put32(f + 112, 0);
	put32(f + 64, 0);                        /* only X_PM1a_CNT_BLK, in I/O space */
	f[172] = 1;
	uint64_t x = 0xb004;
	memcpy(f + 176, &x, 8);
	assert_true(acpi_fadt_pm1(f, sizeof(f), &s5));
	assert_int_equal(s5.pm1a_cnt_port, 0xb004);
	assert_false(acpi_fadt_pm1(f, 60, &s5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_serial_ports_and_speeds),
		cmocka_unit_test(test_options_screens),
		cmocka_unit_test(test_options_refused),
		cmocka_unit_test(test_baud_divisor_fits_the_latch),
		cmocka_unit_test(test_fb_draws_the_font),
		cmocka_unit_test(test_fb_wraps_and_scrolls),
		cmocka_unit_test(test_fb_16bpp_and_bad_layouts),
		cmocka_unit_test(test_vga_cells_and_scroll),
		cmocka_unit_test(test_spcr),
		cmocka_unit_test(test_spcr_register_widths),
		cmocka_unit_test(test_mmio_block_clear_of_ram),
		cmocka_unit_test(test_spcr_address_against_the_map),
		cmocka_unit_test(test_mb2_framebuffer_tag),
		cmocka_unit_test(test_s5_from_aml),
		cmocka_unit_test(test_fadt_pm1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

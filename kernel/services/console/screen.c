/*
 * screen.c: the character grid and the two cell drawers (screen.h).
 */
#include "kernel/services/console/screen.h"

#include <string.h>

#include "kernel/services/console/font.h"

/* A text cell's attribute: light grey on black, the BIOS default. */
#define TEXT_ATTR 0x07

static uint32_t channel(uint8_t v, uint8_t pos, uint8_t bits)
{
	if (bits == 0)
		return 0;
	if (bits > 8)
		bits = 8;
	return ((uint32_t)v >> (8 - bits)) << pos;
}

uint32_t screen_fb_pixel(const struct fb_info *fb, uint8_t r, uint8_t g, uint8_t b)
{
	return channel(r, fb->red_pos, fb->red_bits) | channel(g, fb->green_pos, fb->green_bits) |
	       channel(b, fb->blue_pos, fb->blue_bits);
}

static void put_pixel(uint8_t *p, uint32_t bytes, uint32_t v)
{
	switch (bytes) {
	case 4:
		*(volatile uint32_t *)p = v;
		break;
	case 3:
		((volatile uint8_t *)p)[0] = (uint8_t)v;
		((volatile uint8_t *)p)[1] = (uint8_t)(v >> 8);
		((volatile uint8_t *)p)[2] = (uint8_t)(v >> 16);
		break;
	default:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	}
}

static void draw_cell(struct screen *s, uint32_t col, uint32_t row, char c)
{
	if (s->kind == SCREEN_TEXT) {
		volatile uint16_t *cell = (volatile uint16_t *)s->base + row * s->cols + col;
		unsigned char u = (unsigned char)c;

		if (u < 0x20 || u > 0x7e)
			u = (c == ' ' || c == 0) ? ' ' : '?';
		*cell = (uint16_t)(TEXT_ATTR << 8 | u);
		return;
	}
	const uint8_t *glyph = font_glyph(c ? c : ' ');
	uint32_t bytes = (s->fb.bpp + 7) / 8;
	uint8_t *line = s->base + (uint64_t)row * FONT_HEIGHT * s->fb.pitch_bytes +
			(uint64_t)col * FONT_WIDTH * bytes;

	for (uint32_t y = 0; y < FONT_HEIGHT; y++, line += s->fb.pitch_bytes) {
		uint8_t bits = glyph[y];
		for (uint32_t x = 0; x < FONT_WIDTH; x++)
			put_pixel(line + x * bytes, bytes,
				  (bits & (0x80u >> x)) ? s->fg_pixel : s->bg_pixel);
	}
}

static void setup_grid(struct screen *s, uint32_t cols, uint32_t rows)
{
	s->cols = cols > SCREEN_MAX_COLS ? SCREEN_MAX_COLS : cols;
	s->rows = rows > SCREEN_MAX_ROWS ? SCREEN_MAX_ROWS : rows;
	s->cx = s->cy = 0;
	/* One row at a time on a text screen (4 KiB of cells); on a framebuffer a quarter
	 * of the screen, so a long boot redraws the glyphs a quarter as often. */
	s->scroll_rows = s->kind == SCREEN_TEXT || s->rows < 8 ? 1 : s->rows / 4;
	memset(s->shadow, ' ', sizeof(s->shadow));
}

const char *screen_init_fb(struct screen *s, const struct fb_info *fb, void *base)
{
	uint32_t bytes;

	memset(s, 0, sizeof(*s));
	if (!fb || fb->phys == 0 || !base)
		return "no framebuffer";
	if (fb->text)
		return "an EGA text buffer, not a framebuffer";
	if (fb->bpp != 15 && fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32)
		return "bits per pixel not 15, 16, 24 or 32 (indexed colour is not drawn)";
	bytes = (fb->bpp + 7u) / 8u;
	if (fb->width_px < FONT_WIDTH || fb->height_px < FONT_HEIGHT)
		return "smaller than one character";
	if (fb->width_px > 65536 || fb->height_px > 65536 ||
	    (uint64_t)fb->width_px * bytes > fb->pitch_bytes)
		return "pitch shorter than a row of pixels";
	if (fb->red_pos + fb->red_bits > fb->bpp || fb->green_pos + fb->green_bits > fb->bpp ||
	    fb->blue_pos + fb->blue_bits > fb->bpp)
		return "colour fields outside the pixel";
	s->kind = SCREEN_FB;
	s->base = base;
	s->fb = *fb;
	s->fg_pixel = screen_fb_pixel(fb, 0xaa, 0xaa, 0xaa);
	s->bg_pixel = screen_fb_pixel(fb, 0, 0, 0);
	setup_grid(s, fb->width_px / FONT_WIDTH, fb->height_px / FONT_HEIGHT);
	return NULL;
}

const char *screen_init_text(struct screen *s, void *base, uint32_t cols, uint32_t rows)
{
	memset(s, 0, sizeof(*s));
	if (!base)
		return "no text buffer";
	if (cols == 0 || rows == 0 || cols > SCREEN_MAX_COLS || rows > SCREEN_MAX_ROWS)
		return "text mode size out of range";
	s->kind = SCREEN_TEXT;
	s->base = base;
	setup_grid(s, cols, rows);
	return NULL;
}

void screen_clear(struct screen *s)
{
	if (s->kind == SCREEN_FB && s->bg_pixel == 0) {
		/* Black is all-zero bytes in every RGB layout: clear whole pixel
		 * rows at once, not glyph by glyph. */
		for (uint32_t y = 0; y < s->fb.height_px; y++)
			memset(s->base + (uint64_t)y * s->fb.pitch_bytes, 0,
			       (size_t)s->fb.width_px * ((s->fb.bpp + 7u) / 8u));
	} else {
		for (uint32_t r = 0; r < s->rows; r++)
			for (uint32_t c = 0; c < s->cols; c++)
				draw_cell(s, c, r, ' ');
	}
	memset(s->shadow, ' ', sizeof(s->shadow));
	s->cx = s->cy = 0;
}

/* Move the text up by scroll_rows: shift the shadow, draw what changed. */
static void scroll(struct screen *s)
{
	uint32_t n = s->scroll_rows;

	for (uint32_t r = 0; r < s->rows; r++) {
		for (uint32_t c = 0; c < s->cols; c++) {
			char now = r + n < s->rows ? s->shadow[r + n][c] : ' ';
			if (now != s->shadow[r][c]) {
				s->shadow[r][c] = now;
				draw_cell(s, c, r, now);
			}
		}
	}
	s->cy = s->rows - n;
}

static void newline(struct screen *s)
{
	s->cx = 0;
	if (++s->cy >= s->rows)
		scroll(s);
}

static void put(struct screen *s, char c)
{
	if (s->cx >= s->cols)
		newline(s);
	if (s->shadow[s->cy][s->cx] != c) {
		s->shadow[s->cy][s->cx] = c;
		draw_cell(s, s->cx, s->cy, c);
	}
	s->cx++;
}

void screen_write(struct screen *s, const char *text, size_t len)
{
	if (s->cols == 0)
		return;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n') {
			/* The rest of the line was blank or held older text: clear it. */
			while (s->cx < s->cols)
				put(s, ' ');
			newline(s);
		} else if (c == '\r') {
			s->cx = 0;
		} else if (c == '\t') {
			do
				put(s, ' ');
			while (s->cx % 8 && s->cx < s->cols);
		} else {
			unsigned char u = (unsigned char)c;
			put(s, u >= 0x20 && u <= 0x7e ? c : '?');
		}
	}
}

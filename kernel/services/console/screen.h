/*
 * screen.h: text on a screen, with no hardware in it: a character grid kept
 * in memory (the shadow) and a per-device "draw one cell" routine. Two
 * devices: a linear framebuffer (any 15/16/24/32-bit RGB layout, glyphs from
 * the built-in 8x16 font) and a text screen's buffer (80x25 cells of char and
 * attribute). The kernel points them at the hardware; host tests point them
 * at plain memory and read the pixels back.
 *
 * Scrolling never reads the device: framebuffer memory is uncached or
 * write-combined on real machines (reads crawl), so the shadow is shifted and
 * only the cells whose character changed are drawn again.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_SCREEN_H
#define MEMBOOT_KERNEL_CONSOLE_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/console/fb.h"

#define SCREEN_MAX_COLS 256
#define SCREEN_MAX_ROWS 128


enum screen_kind { SCREEN_FB, SCREEN_TEXT };

struct screen {
	enum screen_kind kind;
	uint8_t *base;              /* framebuffer or text cells */
	struct fb_info fb;          /* SCREEN_FB */
	uint32_t fg_pixel, bg_pixel;
	uint32_t cols, rows, cx, cy;
	uint32_t scroll_rows;       /* rows freed per scroll */
	char shadow[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
};

/*
 * Check @fb and set @s up on the memory at @base (the framebuffer's mapping).
 * Returns NULL on success, or why the framebuffer cannot be used (a layout
 * this console does not draw, sizes that do not add up).
 */
const char *screen_init_fb(struct screen *s, const struct fb_info *fb, void *base);
/* A text screen of @cols x @rows cells at @base (where arch_text_screen()
 * says). */
const char *screen_init_text(struct screen *s, void *base, uint32_t cols, uint32_t rows);

/* Blank the whole screen and put the cursor top left. */
void screen_clear(struct screen *s);
/* Write bytes: '\n' ends a line, '\r' returns, '\t' to the next 8th column;
 * long lines wrap; anything else unprintable shows as '?'. */
void screen_write(struct screen *s, const char *text, size_t len);

/* The pixel value of an 8-bit-per-channel colour in @fb's layout. */
uint32_t screen_fb_pixel(const struct fb_info *fb, uint8_t r, uint8_t g, uint8_t b);

#endif

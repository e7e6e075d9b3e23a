/*
 * font.h: the console's built-in bitmap font (printable ASCII, 8x16 pixels).
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_FONT_H
#define MEMBOOT_KERNEL_CONSOLE_FONT_H

#include <stdint.h>

#define FONT_WIDTH 8
#define FONT_HEIGHT 16
#define FONT_FIRST 0x20
#define FONT_LAST 0x7e
#define FONT_GLYPHS (FONT_LAST - FONT_FIRST + 1)

/* Row r of glyph c is font8x16[c - FONT_FIRST][r]; bit 7 is the left pixel. */
extern const uint8_t font8x16[FONT_GLYPHS][FONT_HEIGHT];

/* The glyph for @c; anything outside printable ASCII is drawn as '?'. */
static inline const uint8_t *font_glyph(char c)
{
	unsigned char u = (unsigned char)c;

	if (u < FONT_FIRST || u > FONT_LAST)
		u = '?';
	return font8x16[u - FONT_FIRST];
}

#endif

/*
 * fb.h: a linear framebuffer as a loader describes it (Multiboot2 tag 8,
 * UEFI GOP), the one thing boot/ hands the screen console.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_FB_H
#define MEMBOOT_KERNEL_CONSOLE_FB_H

#include <stdbool.h>
#include <stdint.h>

struct fb_info {
	uint64_t phys;          /* 0: none */
	uint32_t width_px, height_px;   /* cells, when text */
	uint32_t pitch_bytes;   /* bytes from one row of pixels to the next */
	uint8_t bpp;            /* bits per pixel: 15/16, 24 or 32 for RGB */
	bool text;              /* an EGA text buffer (16-bit cells) */
	uint8_t red_pos, red_bits, green_pos, green_bits, blue_pos, blue_bits;
};

#endif

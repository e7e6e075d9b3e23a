/*
 * console.h: the kernel consoles and their line discipline.
 *
 * Log lines get a Linux-style timestamp, "[    1.234567] ", from ktime_ns();
 * records (kernel/record.h) are printed bare so tools can match them at the
 * start of a line. A lock keeps lines from different CPUs whole.
 *
 * COM1 works from console_init() on. console_setup() then applies console=
 * (kernel/console/options.h) and starts the screen; console_add_uart() adds
 * a port found later (the ACPI SPCR table). A console that starts late is
 * first given every line printed so far.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_H
#define MEMBOOT_KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/serial.h"
#include "kernel/console/options.h"
#include "kernel/console/screen.h"

void console_init(void);
/*
 * Apply @opt: the serial ports it names (or COM1 alone without console=)
 * and a screen: the framebuffer @fb if there is one, else VGA text when
 * @legacy_vga (a BIOS boot). @mapped_top_bytes: the end of what the
 * kernel's page tables map; a framebuffer beyond it is refused.
 */
void console_setup(const struct console_options *opt, const struct fb_info *fb,
		   bool legacy_vga, uint64_t mapped_top_bytes);
/* Add a serial console; false if it is one already (or too many). */
bool console_add_uart(const struct uart *u, uint32_t baud, const char *name);
/* Print the line "console: writing to ttyS0 fb". */
void console_print_list(void);
/* Write bytes as they are (libc's write() to stdout/stderr lands here). */
void console_write(const char *s, size_t len);

/* Counts of warning and error lines so far (reported in the done record). */
unsigned console_warnings(void);
unsigned console_errors(void);

#endif

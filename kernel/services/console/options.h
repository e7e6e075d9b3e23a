/*
 * options.h: the console= command-line key, Linux style, one console per
 * word and several words at once:
 *
 *   console=ttyS0,115200 console=fb     COM1 at 115200 8N1 and the framebuffer
 *   console=ttyS1                       COM2 at 115200
 *   console=vga | console=tty0          VGA text | whichever screen there is
 *
 * Without any console= word memboot writes to COM1, the screen it finds, and
 * the serial port the ACPI SPCR table names (a server's BMC, for serial over
 * LAN). Pure parsing, tested on the host.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_OPTIONS_H
#define MEMBOOT_KERNEL_CONSOLE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSOLE_SERIAL_PORTS 4
#define CONSOLE_DEFAULT_BAUD 115200

struct console_options {
	bool given;                               /* any console= word */
	uint32_t baud[CONSOLE_SERIAL_PORTS];      /* ttyS<i>: 0 = not chosen */
	bool fb, vga, screen;                     /* screen: tty0, either one */
};

/* The console= words of the command line, parsed by console_param_table
 * (the console subsystem's keys); main.c hands them to console_setup(). */
extern struct console_options console_cmdline;
struct param_table;
extern const struct param_table console_param_table;

/* quiet, loglevel= and memboot.records= (docs/cmdline.md). */
#define CONSOLE_LOGLEVEL_UNSET UINT64_MAX
struct console_levels {
	bool quiet;
	uint64_t loglevel;        /* CONSOLE_LOGLEVEL_UNSET: from quiet, else 7 */
	bool records;
	bool keep_results;        /* the summary records into UEFI variables (kernel/services/report/efivars.h) */
};
extern struct console_levels console_levels;
struct param_table;
extern const struct param_table console_levels_param_table;

/* The legacy I/O ports of ttyS0..ttyS3 (COM1..COM4). */
extern const uint16_t console_serial_io[CONSOLE_SERIAL_PORTS];

/*
 * Add one console= value to @o. Returns false with @err filled (what was
 * expected) if the value names no console memboot has or a bad speed.
 */
bool console_parse_option(struct console_options *o, const char *value, char *err,
			  size_t err_bytes);

/* The 16550's divisor latch: 16 bits (DLM:DLL). */
#define CONSOLE_MAX_DIVISOR 65535u

/* The 16550 divisor for @baud from its 1.8432 MHz clock (115200 / baud),
 * or 0 if @baud is not one a whole divisor of 1..65535 reaches exactly. */
uint32_t console_baud_divisor(uint32_t baud);

#endif

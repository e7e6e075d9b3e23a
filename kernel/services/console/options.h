/*
 * options.h: the console= command-line key, Linux style, one console per
 * word and several words at once:
 *
 *   console=ttyS0,115200 console=fb     the first UART at 115200 8N1 and the
 *                                       framebuffer
 *   console=ttyS1                       the second UART at 115200
 *   console=vga | console=tty0          the text screen | whichever screen
 *                                       there is
 * (the UARTs' names are the architecture's: arch/uart.h).
 *
 * Without any console= word memboot writes to the first UART, the screen it
 * finds, and
 * the serial port the ACPI SPCR table names (a server's BMC, for serial over
 * LAN). Pure parsing, tested on the host.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_OPTIONS_H
#define MEMBOOT_KERNEL_CONSOLE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/uart.h"

/* The UARTs console= names (arch/uart.h's ARCH_UART_NAMES). */
#define CONSOLE_SERIAL_PORTS ARCH_UART_NAMED
#define CONSOLE_DEFAULT_BAUD 115200

struct console_options {
	bool given;                               /* any console= word */
	uint32_t baud[CONSOLE_SERIAL_PORTS];      /* UART i: 0 = not chosen */
	bool fb, text, screen;  /* console=fb, console=vga (the text screen), tty0 (either one) */
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

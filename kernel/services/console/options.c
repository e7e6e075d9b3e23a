/*
 * options.c: console= values (options.h).
 */
#include "kernel/services/console/options.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"

/* The console= words, the UARTs' first (arch/uart.h's names). */
#define CONSOLE_WORDS ARCH_UART_NAMES "[,BAUD], fb, vga or tty0"

uint32_t console_baud_divisor(uint32_t baud)
{
	/* A 16550 divides its 1.8432 MHz clock by 16 and by the divisor, a
	 * whole number its two 8-bit divisor latches (DLL, DLM) hold: 1 to
	 * 65535. A speed whose divisor is not whole would be another speed
	 * (rounding 115200 / 7 to 16457 gives 7.0000x, but 115200 / 50000 to
	 * 2 gives 57600), so only exact divisors are made. */
	if (baud == 0 || baud > 115200 || 115200 % baud != 0 ||
	    115200 / baud > CONSOLE_MAX_DIVISOR)
		return 0;
	return 115200 / baud;
}

/* ",BAUD" optionally followed by Linux's "n8" (no parity, 8 bits). */
static bool parse_serial_opts(const char *s, uint32_t *baud, char *err, size_t err_bytes)
{
	char digits[16];
	size_t n = strspn(s, "0123456789");
	uint64_t v;

	*baud = CONSOLE_DEFAULT_BAUD;
	if (*s == '\0')
		return true;
	if (n == 0 || n >= sizeof(digits)) {
		snprintf(err, err_bytes, ARCH_UART_NAMES " with an optional ,BAUD[n8] (e.g. "
			 ARCH_UART_NAME "0,115200)");
		return false;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (!cmdline_parse_u64(digits, &v) || v > 115200 || !console_baud_divisor((uint32_t)v)) {
		snprintf(err, err_bytes,
			 "a speed that divides 115200 exactly into a divisor the 16550's 16-bit "
			 "latch holds (115200 / BAUD from 1 to %u: 115200, 57600, 38400, 19200, "
			 "9600 ... down to 2)", CONSOLE_MAX_DIVISOR);
		return false;
	}
	if (s[n] != '\0' && strcmp(s + n, "n8") != 0) {
		snprintf(err, err_bytes, "8 data bits, no parity ('n8'): memboot drives 8N1 only");
		return false;
	}
	*baud = (uint32_t)v;
	return true;
}

bool console_parse_option(struct console_options *o, const char *value, char *err,
			  size_t err_bytes)
{
	const size_t name_len = strlen(ARCH_UART_NAME);
	/* After a UART's name (the whole of it matched), its one-digit number. */
	const char *num;

	if (!value || !*value) {
		snprintf(err, err_bytes, CONSOLE_WORDS);
		return false;
	}
	num = strncmp(value, ARCH_UART_NAME, name_len) == 0 ? value + name_len : NULL;
	if (num && num[0] >= '0' && num[0] < '0' + CONSOLE_SERIAL_PORTS &&
	    (num[1] == '\0' || num[1] == ',')) {
		uint32_t baud;
		/* "ttyS0," with nothing after the comma is a typo, not a default. */
		if (num[1] == ',' && num[2] == '\0') {
			snprintf(err, err_bytes, "a speed after the comma (e.g. " ARCH_UART_NAME
				 "0,115200)");
			return false;
		}
		if (!parse_serial_opts(num[1] ? num + 2 : "", &baud, err, err_bytes))
			return false;
		o->baud[num[0] - '0'] = baud;
	} else if (strcmp(value, "fb") == 0) {
		o->fb = true;
	} else if (strcmp(value, "vga") == 0) {
		o->text = true;
	} else if (strcmp(value, "tty0") == 0) {
		o->screen = true;
	} else {
		snprintf(err, err_bytes, CONSOLE_WORDS);
		return false;
	}
	o->given = true;
	return true;
}

/* console=: each word adds a console. */
struct console_options console_cmdline;

static bool parse_console(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return console_parse_option(ptr, value, err, err_bytes);
}

static const struct param console_params[] = {
	{ .key = "console", .type = PARAM_FUNC, .ptr = &console_cmdline,
	  .fn = parse_console, .help = "a console: " CONSOLE_WORDS },
};
PARAM_TABLE(console_param_table, "console", console_params);

/* quiet, loglevel=, memboot.records= (docs/cmdline.md): what reaches the
 * consoles; everything stays in the log ring either way. */
struct console_levels console_levels = { .loglevel = CONSOLE_LOGLEVEL_UNSET, .records = true,
					 .keep_results = true };

static const struct param console_level_params[] = {
	{ .key = "quiet", .type = PARAM_BOOL, .ptr = &console_levels.quiet,
	  .help = "only errors reach the consoles (loglevel 4); the summary and done still do" },
	{ .key = "loglevel", .type = PARAM_U64, .ptr = &console_levels.loglevel, .min = 0,
	  .max = 15, .help = "lines of a level below N reach the consoles (Linux's levels; default 7)" },
	{ .key = "memboot.records", .type = PARAM_BOOL, .ptr = &console_levels.records,
	  .help = "record lines on the serial consoles (off: prose only; done always)" },
	{ .key = "memboot.keep_results", .type = PARAM_BOOL, .ptr = &console_levels.keep_results,
	  .help = "on UEFI boots, keep the summary records in UEFI variables (docs/results.md)" },
};
PARAM_TABLE(console_levels_param_table, "console", console_level_params);

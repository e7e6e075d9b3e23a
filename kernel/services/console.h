/*
 * console.h: the kernel consoles and their line discipline.
 *
 * Log lines get a Linux-style timestamp, "[    1.234567] ", from the counter
 * value taken when the line was made, converted when it is printed; records
 * (kernel/services/report/record.h) are printed bare so tools can match them at the start of
 * a line. Lines and records go into the log ring first
 * (kernel/services/console/ring.h), whole; console_drain() sends them to the
 * consoles, between phases (kernel/init/phase.c), so printing never runs
 * inside a timed region. docs/console.md says why and what it costs.
 *
 * The first UART works from console_init() on. console_setup() then
 * applies console= (kernel/services/console/options.h) and starts the
 * screen; console_add_uart() adds a port found later (the ACPI SPCR table).
 * A console that starts late is first given every line printed so far.
 *
 * The code behind it is kernel/services/console/out/, one subject a file
 * (kernel/services/console/out/internal.h lists them).
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_H
#define MEMBOOT_KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/uart.h"
#include "kernel/services/console/options.h"
#include "kernel/services/console/screen.h"

void console_init(void);
/*
 * Apply @opt: the serial ports it names (or the first UART alone without
 * console=) and a screen: the framebuffer @fb if there is one, else the
 * architecture's text screen when @legacy_text (a BIOS boot). @mapped_top_bytes: the end of what the
 * kernel's page tables map; a framebuffer beyond it is refused.
 */
void console_setup(const struct console_options *opt, const struct fb_info *fb,
		   bool legacy_text, uint64_t mapped_top_bytes);
/* Add a serial console the caller has probed (console_probe_uart()); false
 * if it is one already (or too many). */
bool console_add_uart(const struct arch_uart *u, uint32_t baud, const char *name);
/* Whether a UART answers at @u (arch/uart.h's arch_uart_probe()). */
bool console_probe_uart(const struct arch_uart *u);
/* Send what the ring holds to the consoles, unless another CPU is at it. */
void console_drain(void);
/* The same, waiting for a drain on another CPU to end: everything made so
 * far is out when it returns (the end of a boot, a self-test that times
 * itself against the host). */
void console_flush(void);
/*
 * Move the log ring into @buf (@bytes), larger than the early static ring:
 * main.c sizes it for the machine once memory and CPUs are known
 * (ring_bytes_for()).
 */
void console_ring_resize(void *buf, uint64_t bytes);
uint64_t console_ring_bytes(void);
/* Lines and records made between these two calls reach the consoles
 * whatever quiet, loglevel= and memboot.records= say (the summary, done). */
void console_always_begin(void);
void console_always_end(void);
/* A `console_drain` record per console (bytes, lines, ns, dropped) and a
 * `console_ring` record, after draining everything. */
void console_report(void);


/*
 * A report that is output only: @fn(@arg) makes its lines and records when
 * the consoles next drain (after memory is usable, or at an error or the
 * exit), and they are printed in this place of the log with this moment's
 * time, as if made now. What @fn reads must not change until then. At most
 * @bytes of lines and records (an upper bound; they wait in a static area):
 * a report that does not fit, or any after an error line (every line is
 * then drained at once), runs now. Called on one CPU at a time.
 */
void console_defer(void (*fn)(void *arg), void *arg, size_t bytes);
/* console_defer() of @fn on a copy of @data (@data_bytes, kept by the
 * console until @fn has run): for a report of values the caller does not
 * keep. Beyond the copies' area (16 KiB in all), it runs now on @data. */
void console_defer_copy(void (*fn)(void *arg), const void *data, size_t data_bytes,
			size_t bytes);
/* Whether a report console_defer() holds has not run yet: what is made now
 * would then be captured (kernel/services/report/efivars.h) before it, out of the log's
 * order, unless it is deferred too. */
bool console_defers_pending(void);
/* What console_defer() allows for one line or record of a report. */
#define CONSOLE_DEFER_ITEM_BYTES 320

/* Print the line "console: writing to ttyS0 fb". */
void console_print_list(void);
/* Write bytes as they are (libc's write() to stdout/stderr lands here). */
void console_write(const char *s, size_t len);

/* Counts of warning and error lines so far (reported in the done record). */
unsigned console_warnings(void);
unsigned console_errors(void);

#endif

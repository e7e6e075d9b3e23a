/*
 * console.h: the kernel console (COM1) and its line discipline.
 *
 * Log lines get a Linux-style timestamp, "[    1.234567] ", from ktime_ns();
 * records (kernel/record.h) are printed bare so tools can match them at the
 * start of a line. A lock keeps lines from different CPUs whole.
 */
#ifndef MEMBOOT_KERNEL_CONSOLE_H
#define MEMBOOT_KERNEL_CONSOLE_H

#include <stddef.h>

void console_init(void);
/* Print one line exactly as given (a newline is added). */
void console_line(const char *s);
/* Write bytes as they are (libc's write() to stdout/stderr lands here). */
void console_write(const char *s, size_t len);

/* Counts of warning and error lines so far (reported in the done record). */
unsigned console_warnings(void);
unsigned console_errors(void);

#endif

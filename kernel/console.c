/*
 * console.c: timestamped log lines and bare record lines on COM1.
 */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/serial.h"
#include "kernel/log.h"
#include "kernel/record.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define LINE_MAX_BYTES 512

static struct spinlock console_lock;
static unsigned nr_warnings, nr_errors;

void console_init(void)
{
	serial_init();
}

void console_write(const char *s, size_t len)
{
	spin_lock(&console_lock);
	serial_write(s, len);
	spin_unlock(&console_lock);
}

void console_line(const char *s)
{
	spin_lock(&console_lock);
	serial_write(s, strlen(s));
	serial_write("\n", 1);
	spin_unlock(&console_lock);
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	uint64_t ns = ktime_ns();
	va_list ap;
	int n;

	if (level <= LOG_ERR)
		nr_errors++;
	else if (level == LOG_WARN)
		nr_warnings++;
	n = snprintf(line, sizeof(line), "[%5llu.%06llu] ",
		     (unsigned long long)(ns / 1000000000ULL),
		     (unsigned long long)(ns % 1000000000ULL / 1000));
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	console_line(line);
}

void record_emit(struct record *r)
{
	console_line(rec_finish(r));
}

unsigned console_warnings(void)
{
	return nr_warnings;
}

unsigned console_errors(void)
{
	return nr_errors;
}

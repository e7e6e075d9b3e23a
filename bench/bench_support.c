/*
 * bench_support.c: what the pure kernel sources need when built natively for
 * a benchmark: log lines go to stderr (warnings and errors only), panic
 * aborts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/log.h"
#include "kernel/panic.h"

void log_printf(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > LOG_WARN)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "panic: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/*
 * host_support.c: log capture and panic for host unit tests and fuzzers.
 */
#include "tests/host/host_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/panic.h"
#include "kernel/record.h"

static struct {
	enum log_level level;
	char text[256];
} lines[HOST_LOG_LINES];
static size_t nr_lines;     /* total since reset; ring index is nr % size */

void host_log_reset(void)
{
	nr_lines = 0;
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	size_t slot = nr_lines++ % HOST_LOG_LINES;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lines[slot].text, sizeof(lines[slot].text), fmt, ap);
	va_end(ap);
	lines[slot].level = level;
#ifndef MEMBOOT_FUZZ
	if (getenv("MEMBOOT_HOST_VERBOSE"))
		fprintf(stderr, "<%d> %s\n", level, lines[slot].text);
#endif
}

size_t host_log_count(enum log_level level)
{
	size_t n = nr_lines < HOST_LOG_LINES ? nr_lines : HOST_LOG_LINES, count = 0;
	for (size_t i = 0; i < n; i++)
		count += lines[i].level == level;
	return count;
}

size_t host_log_total(void)
{
	return nr_lines;
}

const char *host_log_line(size_t i)
{
	if (i >= nr_lines || nr_lines - i > HOST_LOG_LINES)
		return NULL;
	return lines[i % HOST_LOG_LINES].text;
}

bool host_log_contains(const char *needle)
{
	size_t n = nr_lines < HOST_LOG_LINES ? nr_lines : HOST_LOG_LINES;
	for (size_t i = 0; i < n; i++)
		if (strstr(lines[i].text, needle))
			return true;
	return false;
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "panic: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

void *host_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Records printed by pure code land in the captured log as INFO lines, so
 * tests can look for them with host_log_contains(). */
void record_emit(struct record *r)
{
	log_printf(LOG_INFO, "%s", rec_finish(r));
}

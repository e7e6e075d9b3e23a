/*
 * host_support.c: log_printf(), panic() and record_emit() for every host
 * build of the pure sources (tests, fuzzers, benchmarks, memboot-topo), and
 * the log capture the tests assert on. What each program needs differs only
 * by the options in host_support.h.
 */
#include "tests/host/host_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"

static struct host_shim_options shim = HOST_SHIM_DEFAULT;

static struct {
	enum log_level level;
	char text[256];
} lines[HOST_LOG_LINES];
static size_t nr_lines;     /* total since reset; ring index is nr % size */

void host_shim_configure(const struct host_shim_options *opts)
{
	shim = *opts;
}

void host_log_reset(void)
{
	nr_lines = 0;
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (shim.keep_lines) {
		size_t slot = nr_lines++ % HOST_LOG_LINES;

		va_start(ap, fmt);
		vsnprintf(lines[slot].text, sizeof(lines[slot].text), fmt, ap);
		va_end(ap);
		lines[slot].level = level;
		if (shim.echo == HOST_ECHO_ENV && getenv("MEMBOOT_HOST_VERBOSE"))
			fprintf(stderr, "<%d> %s\n", level, lines[slot].text);
	}
	if (shim.echo == HOST_ECHO_WARNINGS || shim.echo == HOST_ECHO_CONSOLE) {
		FILE *out = level <= LOG_WARN ? stderr : stdout;

		if (level > LOG_WARN && shim.echo == HOST_ECHO_WARNINGS)
			return;
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
		fputc('\n', out);
		/* A tool's stdout and stderr interleave in the order printed. */
		if (shim.echo == HOST_ECHO_CONSOLE)
			fflush(NULL);
	}
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
	fputs(shim.panic_prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (shim.panic_exit)
		exit(shim.panic_exit);
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
 * tests can look for them with host_log_contains(); a tool prints them. */
void record_emit(struct record *r)
{
	const char *line = rec_finish(r);

	rec_check_whole(r);
	switch (shim.records) {
	case HOST_RECORDS_STDOUT:
		puts(line);
		break;
	case HOST_RECORDS_JSON:
		puts(line + strlen(RECORD_PREFIX));
		break;
	default:
		log_printf(LOG_INFO, "%s", line);
		break;
	}
}

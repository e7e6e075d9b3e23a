/*
 * host_support.h: the one host shim of the pure kernel sources. Every host
 * build links it: the cmocka tests, the libFuzzer targets, the benchmarks
 * (bench/) and memboot-topo (tools/topo/). It supplies what the kernel's
 * console, panic and record code supply in a boot: log_printf(), panic() and
 * record_emit(), plus helpers for tests to assert on the log lines the code
 * printed.
 *
 * What it does with them is an option (host_shim_configure()), so each
 * program keeps the behaviour it needs from this one file:
 *
 *   tests      the default: log lines are kept in memory (the last
 *              HOST_LOG_LINES) for host_log_*(), echoed to stderr as
 *              "<level> text" only when MEMBOOT_HOST_VERBOSE is set;
 *              records are logged as INFO lines; panic() prints and aborts,
 *              so a failed ASSERT fails the test.
 *   fuzzers    the same, but built with -DMEMBOOT_FUZZ the default never
 *              echoes: parsers warn about bad input on purpose, and printing
 *              every warning would slow the fuzzer down, not find a bug.
 *              panic() still aborts: that is the crash libFuzzer reports.
 *   benchmarks warnings and errors on stderr, nothing kept (a benchmark's
 *              timed loop formats no line it drops).
 *   tools      Linux-style lines: warnings and errors on stderr, the rest and
 *              the records on stdout (or only the records' JSON); panic()
 *              names the tool and exits with a status of its own.
 */
#ifndef MEMBOOT_TESTS_HOST_SUPPORT_H
#define MEMBOOT_TESTS_HOST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/services/log.h"

#define HOST_LOG_LINES 1024

/* Where a log line goes besides (or instead of) the in-memory ring. */
enum host_echo {
	HOST_ECHO_ENV,          /* "<level> text" on stderr when MEMBOOT_HOST_VERBOSE is set */
	HOST_ECHO_NONE,         /* nowhere */
	HOST_ECHO_WARNINGS,     /* warnings and errors on stderr, the rest dropped */
	HOST_ECHO_CONSOLE,      /* warnings and errors on stderr, the rest on stdout */
};

/* Where record_emit() puts a finished record. */
enum host_records {
	HOST_RECORDS_LOG,       /* into the log, at LOG_INFO (host_log_contains() finds it) */
	HOST_RECORDS_STDOUT,    /* the whole "MEMBOOT {json}" line on stdout */
	HOST_RECORDS_JSON,      /* the JSON alone on stdout */
};

struct host_shim_options {
	enum host_echo echo;
	bool keep_lines;        /* keep lines in the ring for host_log_*() */
	enum host_records records;
	const char *panic_prefix;       /* printed before a panic message */
	int panic_exit;         /* 0: abort(); else exit() with this status */
};

/* The options in force until host_shim_configure() is called. */
#define HOST_SHIM_DEFAULT ((struct host_shim_options){                  \
	.echo = HOST_SHIM_DEFAULT_ECHO, .keep_lines = true,             \
	.records = HOST_RECORDS_LOG, .panic_prefix = "panic: ",          \
	.panic_exit = 0 })
#ifdef MEMBOOT_FUZZ
#define HOST_SHIM_DEFAULT_ECHO HOST_ECHO_NONE
#else
#define HOST_SHIM_DEFAULT_ECHO HOST_ECHO_ENV
#endif

/* Benchmarks: warnings and errors on stderr; panic() aborts. */
#define HOST_SHIM_BENCH ((struct host_shim_options){                    \
	.echo = HOST_ECHO_WARNINGS, .keep_lines = false,                \
	.records = HOST_RECORDS_LOG, .panic_prefix = "panic: ",          \
	.panic_exit = 0 })

void host_shim_configure(const struct host_shim_options *opts);

void host_log_reset(void);
/* Lines logged at exactly @level since the last reset. */
size_t host_log_count(enum log_level level);
/* Lines logged since the last reset, and the @i-th of them (NULL when it is
 * out of range or has left the ring). */
size_t host_log_total(void);
const char *host_log_line(size_t i);
/* True if any line since the last reset contains @needle. */
bool host_log_contains(const char *needle);
/* Read a whole file into a malloc()ed buffer; aborts on error. */
void *host_read_file(const char *path, size_t *len);

#endif

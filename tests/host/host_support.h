/*
 * host_support.h: what the pure kernel sources need when built on the host,
 * plus helpers for tests to assert on the log lines the code printed.
 *
 * log_printf() keeps the last HOST_LOG_LINES lines in memory. They are echoed
 * to stderr when MEMBOOT_HOST_VERBOSE is set in the environment; fuzz builds
 * never echo. panic() prints and aborts, so a failed ASSERT fails the test.
 * record_emit() logs the finished record line at LOG_INFO.
 */
#ifndef MEMBOOT_TESTS_HOST_SUPPORT_H
#define MEMBOOT_TESTS_HOST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/log.h"

#define HOST_LOG_LINES 1024

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

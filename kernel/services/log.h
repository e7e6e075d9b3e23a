/*
 * log.h: leveled, subsystem-prefixed log lines.
 *
 * The kernel prints each line to the serial console behind a Linux-style
 * timestamp ("[    0.012345] "). Code that also builds on the host (parsers,
 * allocators) logs through the same calls; the host test harness supplies its
 * own log_printf() that captures the lines so tests can assert on warnings.
 */
#ifndef MEMBOOT_KERNEL_LOG_H
#define MEMBOOT_KERNEL_LOG_H

enum log_level {
	LOG_ERR = 3,
	LOG_WARN = 4,
	LOG_DETAIL = 5,   /* the registers and call trace of an error already
			     counted: printed, not counted again */
	LOG_INFO = 6,
	LOG_DEBUG = 7,
};

__attribute__((format(printf, 2, 3)))
void log_printf(enum log_level level, const char *fmt, ...);

#define pr_err(...)   log_printf(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  log_printf(LOG_WARN, __VA_ARGS__)
#define pr_detail(...) log_printf(LOG_DETAIL, __VA_ARGS__)
#define pr_info(...)  log_printf(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log_printf(LOG_DEBUG, __VA_ARGS__)

#endif

/*
 * panic.c: fatal kernel errors.
 */
#include "kernel/services/panic.h"

#include <stdarg.h>
#include <stdio.h>

#include "arch/fault.h"
#include "kernel/services/exit.h"
#include "kernel/services/log.h"

void panic(const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("Kernel panic: %s", msg);
	arch_backtrace((uint64_t)__builtin_return_address(0),
		       (uint64_t)__builtin_frame_address(0));
	kernel_exit(EXIT_PANIC, msg);
}

void panic_exception(const char *what)
{
	kernel_exit(EXIT_EXCEPTION, what);
}

void panic_exception_nested(void)
{
	exit_now(EXIT_EXCEPTION);
}

/*
 * exit.c: the end of every boot: the `done` record, then QEMU's
 * isa-debug-exit or a halt.
 */
#include "kernel/exit.h"

#include "arch/cpu.h"
#include "arch/io.h"
#include "kernel/console.h"
#include "kernel/log.h"
#include "kernel/record.h"
#include "kernel/time.h"

enum exit_method exit_method = EXIT_METHOD_AUTO;

const char *exit_status_name(enum exit_status status)
{
	switch (status) {
	case EXIT_OK:        return "ok";
	case EXIT_PANIC:     return "panic";
	case EXIT_EXCEPTION: return "exception";
	case EXIT_BOOTINFO:  return "bad boot information";
	case EXIT_SELFTEST:  return "self-test failed";
	case EXIT_CENSUS:    return "pages lost";
	default:             return "unknown";
	}
}

void exit_now(enum exit_status status)
{
	/* Only under a hypervisor is port 0xf4 known to be QEMU's exit device;
	 * on real hardware an unknown port is better left alone. */
	if (exit_method == EXIT_METHOD_QEMU ||
	    (exit_method == EXIT_METHOD_AUTO && cpu_features.has_hypervisor))
		outl(EXIT_QEMU_PORT, EXIT_QEMU_BASE + (uint32_t)status);
	cpu_halt_forever();
}

void kernel_exit(enum exit_status status, const char *why)
{
	static volatile int exiting;
	struct record r;

	if (exiting++)
		exit_now(status);   /* a failure while exiting */
	if (why)
		pr_err("memboot: %s", why);
	pr_info("memboot: boot %s, status %d (%s), %u warnings, %u errors",
		status == EXIT_OK ? "done" : "FAILED", status, exit_status_name(status),
		console_warnings(), console_errors());
	rec_begin(&r, "done");
	rec_bool(&r, "ok", status == EXIT_OK);
	rec_u64(&r, "status", status);
	rec_str(&r, "reason", why ? why : exit_status_name(status));
	rec_u64(&r, "warnings", console_warnings());
	rec_u64(&r, "errors", console_errors());
	rec_u64(&r, "total_ns", ktime_ns());
	record_emit(&r);
	if (exit_method == EXIT_METHOD_HALT ||
	    (exit_method == EXIT_METHOD_AUTO && !cpu_features.has_hypervisor))
		pr_info("memboot: halting with status %d", status);
	exit_now(status);
}

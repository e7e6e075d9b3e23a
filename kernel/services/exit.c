/*
 * exit.c: the end of every boot: the `done` record, then the machine's
 * watchdog disarmed, then the emulator's exit, a reset, a power-off or a
 * halt (memboot.exit=; the machine's ways are arch/machine.h's).
 */
#include "kernel/services/exit.h"

#include <stdio.h>

#include "arch/cpu.h"
#include "arch/machine.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/report/efivars.h"
#include "kernel/services/report/summary.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/watchdog/watchdog.h"

static struct arch_acpi_s5 exit_s5;

void exit_set_poweroff(const struct arch_acpi_s5 *s5)
{
	exit_s5 = *s5;
}

const char *exit_status_name(enum exit_status status)
{
	switch (status) {
#define EXIT_STATUS_CASE_(value, sym, name) case sym: return name;
	EXIT_STATUS_TABLE(EXIT_STATUS_CASE_)
#undef EXIT_STATUS_CASE_
	default:
		return "unknown";
	}
}

void exit_now(enum exit_status status)
{
	/* The boot ended (`done` is out, or nothing more can be): the
	 * machine's watchdog must not reset it now. */
	watchdog_disarm();
	/* Only under a hypervisor is the emulator's exit device known to be
	 * there; on real hardware its address is better left alone. */
	if (exit_method == EXIT_METHOD_QEMU ||
	    (exit_method == EXIT_METHOD_AUTO && arch_cpu_info.has_hypervisor))
		arch_machine_emulator_exit(EXIT_QEMU_BASE + (uint32_t)status);
	if (exit_method == EXIT_METHOD_REBOOT)
		arch_machine_reset();
	if (exit_method == EXIT_METHOD_POWEROFF)
		arch_machine_poweroff(&exit_s5);
	arch_halt_forever();
}

void kernel_exit(enum exit_status status, const char *why)
{
	static volatile int exiting;
	struct record r;
	uint64_t total_ns;
	char line[128];

	if (exiting++)
		exit_now(status);   /* a failure while exiting */
	/* The failure itself was reported (and counted) where it happened;
	 * this line and done's reason only repeat it. */
	if (why)
		pr_detail("memboot: %s", why);
	/* Everything out first, then what it cost, each console on its own. */
	console_report();
	/* The summary and done reach the consoles whatever quiet says. */
	console_always_begin();
	total_ns = ktime_ns();
	summary_print(total_ns);
	rec_begin(&r, "done");
	rec_bool(&r, "ok", status == EXIT_OK);
	rec_u64(&r, "status", status);
	rec_str(&r, "reason", why ? why : exit_status_name(status));
	rec_u64(&r, "warnings", console_warnings());
	rec_u64(&r, "errors", console_errors());
	rec_u64(&r, "total_ns", total_ns);
	rec_u64(&r, "usable_ns", summary_usable_ns());
	if (!summary_usable_reliable())
		rec_bool(&r, "usable_reliable", false);   /* summary's line says why */
	/* The reason may be a panic message; the line names the status. */
	snprintf(line, sizeof(line),
		 "memboot: boot %s, status {status} (%s), {warnings} warnings, {errors} errors",
		 status == EXIT_OK ? "done" : "FAILED", exit_status_name(status));
	record_report(&r, LOG_INFO, line);
	/* Kept for a machine without a serial cable: UEFI boots only. */
	efivars_save();
	if (exit_method == EXIT_METHOD_HALT ||
	    (exit_method == EXIT_METHOD_AUTO && !arch_cpu_info.has_hypervisor))
		pr_info("memboot: halting with status %d (%s); the machine can be switched off",
			status, exit_status_name(status));
	else if (exit_method == EXIT_METHOD_REBOOT)
		pr_info("memboot: rebooting, status %d (%s)", status, exit_status_name(status));
	else if (exit_method == EXIT_METHOD_POWEROFF && !exit_s5.valid)
		pr_warn("memboot: cannot power off (no ACPI S5 found); halting with status %d (%s)",
			status, exit_status_name(status));
	else if (exit_method == EXIT_METHOD_POWEROFF)
		pr_info("memboot: powering off, status %d (%s)", status, exit_status_name(status));
	console_always_end();
	console_flush();
	exit_now(status);
}

/*
 * exit.c: the end of every boot: the `done` record, then QEMU's
 * isa-debug-exit or a halt.
 */
#include "kernel/services/exit.h"

#include <stdio.h>

#include "x86/cpu.h"
#include "x86/io.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/report/efivars.h"
#include "kernel/services/report/summary.h"
#include "kernel/services/clock/time.h"

static struct exit_acpi_s5 exit_s5;

void exit_set_poweroff(const struct exit_acpi_s5 *s5)
{
	exit_s5 = *s5;
}

/*
 * Reset the machine: the PCI reset control register at 0xcf9 (a full reset,
 * bits 1-3, on every Intel and AMD chipset since the PIIX), then the 8042
 * keyboard controller's pulse-reset command 0xfe, then a triple fault
 * (an empty IDT and an interrupt) as the last resort.
 */
static __attribute__((noreturn)) void exit_reboot(void)
{
	static const struct { uint16_t limit; uint64_t base; } __attribute__((packed)) no_idt;

	outb(0xcf9, 0x02);
	outb(0xcf9, 0x0e);
	for (volatile int i = 0; i < 1000000; i++)
		;
	outb(0x64, 0xfe);
	for (volatile int i = 0; i < 1000000; i++)
		;
	__asm__ volatile("lidt %0; int3" : : "m"(no_idt));
	cpu_halt_forever();
}

/* ACPI 6.5 section 7.4.2 and 4.8.3.2.1: write SLP_TYP (bits 10-12) with
 * SLP_EN (bit 13) to PM1a_CNT, and to PM1b_CNT if the FADT has one. */
static void exit_poweroff(void)
{
	if (!exit_s5.valid)
		return;
	outw(exit_s5.pm1a_cnt_port, (uint16_t)((exit_s5.slp_typa & 7) << 10 | 1 << 13));
	if (exit_s5.pm1b_cnt_port)
		outw(exit_s5.pm1b_cnt_port, (uint16_t)((exit_s5.slp_typb & 7) << 10 | 1 << 13));
	for (volatile int i = 0; i < 10000000; i++)
		;
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
	/* Only under a hypervisor is port 0xf4 known to be QEMU's exit device;
	 * on real hardware an unknown port is better left alone. */
	if (exit_method == EXIT_METHOD_QEMU ||
	    (exit_method == EXIT_METHOD_AUTO && cpu_features.has_hypervisor))
		outl(EXIT_QEMU_PORT, EXIT_QEMU_BASE + (uint32_t)status);
	if (exit_method == EXIT_METHOD_REBOOT)
		exit_reboot();
	if (exit_method == EXIT_METHOD_POWEROFF)
		exit_poweroff();
	cpu_halt_forever();
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
	    (exit_method == EXIT_METHOD_AUTO && !cpu_features.has_hypervisor))
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

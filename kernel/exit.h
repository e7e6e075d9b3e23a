/*
 * exit.h: how a boot ends. One status for success and one per failure class;
 * docs/exit-status.md is the table users read, keep the two in step.
 *
 * Under QEMU the status leaves through the isa-debug-exit device at port
 * 0xf4: the kernel writes 0x10 + status and QEMU exits with
 * ((0x10 + status) << 1) | 1, so success is 33. On real hardware the status
 * is printed and the CPU halts.
 */
#ifndef MEMBOOT_KERNEL_EXIT_H
#define MEMBOOT_KERNEL_EXIT_H

#include <stdbool.h>
#include <stdint.h>

enum exit_status {
	EXIT_OK = 0,
	EXIT_PANIC = 1,       /* assertion or fatal kernel error */
	EXIT_EXCEPTION = 2,   /* CPU exception */
	EXIT_BOOTINFO = 3,    /* boot information missing or corrupt */
	EXIT_SELFTEST = 4,    /* a self-test chosen on the command line failed */
	EXIT_CENSUS = 5,      /* pages unaccounted for */
};

#define EXIT_QEMU_PORT 0xf4
#define EXIT_QEMU_BASE 0x10

enum exit_method {
	EXIT_METHOD_AUTO,     /* isa-debug-exit under a hypervisor, else halt */
	EXIT_METHOD_QEMU,
	EXIT_METHOD_HALT,     /* the status stays on the screen */
	EXIT_METHOD_REBOOT,
	EXIT_METHOD_POWEROFF, /* ACPI S5 where the tables say how, else halt */
};

/* ACPI soft-off (S5): PM1a/PM1b control ports from the FADT and the SLP_TYP
 * values of the DSDT's \_S5 package; filled by discover_acpi(). */
struct exit_acpi_s5 {
	bool valid;
	uint16_t pm1a_cnt_port, pm1b_cnt_port;   /* 0: no PM1b block */
	uint8_t slp_typa, slp_typb;
};
extern struct exit_acpi_s5 exit_s5;

extern enum exit_method exit_method;

/*
 * Print the closing `done` record (and @why, if not NULL, as an error line)
 * and leave. Always the last thing a boot prints.
 */
__attribute__((noreturn)) void kernel_exit(enum exit_status status, const char *why);

/* Leave at once, printing nothing through the logger (for nested faults). */
__attribute__((noreturn)) void exit_now(enum exit_status status);

const char *exit_status_name(enum exit_status status);

#endif

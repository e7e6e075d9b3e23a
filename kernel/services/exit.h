/*
 * exit.h: how a boot ends. One status for success and one per failure class;
 * docs/exit-status.md is the table users read (a tool test keeps the two in
 * step).
 *
 * Under QEMU the status leaves through the emulator's exit device
 * (arch/machine.h): the kernel writes 0x10 + status
 * and QEMU exits with ((0x10 + status) << 1) | 1, so success is 33. On real
 * hardware the status is printed and the CPU halts.
 */
#ifndef MEMBOOT_KERNEL_EXIT_H
#define MEMBOOT_KERNEL_EXIT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The statuses, one X(value, enum name, name) per line. This table is the
 * one source: the kernel builds its enum and names from it,
 * tools/mbtools/facts.py reads these lines for the host tools and tests, and
 * tests/tools/test_facts.py checks docs/exit-status.md against it.
 */
#define EXIT_STATUS_TABLE(X)                                                            \
	X(0, EXIT_OK,        "ok")                   /* every phase and self-test passed */ \
	X(1, EXIT_PANIC,     "panic")                /* assertion or fatal kernel error */  \
	X(2, EXIT_EXCEPTION, "exception")            /* CPU exception */                    \
	X(3, EXIT_BOOTINFO,  "bad boot information") /* missing or corrupt */               \
	X(4, EXIT_SELFTEST,  "self-test failed")     /* one chosen on the command line */   \
	X(5, EXIT_CENSUS,    "pages lost")           /* pages unaccounted for */    \
	X(6, EXIT_CPU_LOST,  "cpu lost")             /* a CPU stopped answering; its work was redone */

enum exit_status {
#define EXIT_STATUS_ENUM_(value, sym, name) sym = value,
	EXIT_STATUS_TABLE(EXIT_STATUS_ENUM_)
#undef EXIT_STATUS_ENUM_
};

/* The emulator's exit device is written EXIT_QEMU_BASE + status
 * (arch_machine_emulator_exit()). */
#define EXIT_QEMU_BASE 0x10

enum exit_method {
	EXIT_METHOD_AUTO,     /* the emulator's exit under a hypervisor, else halt */
	EXIT_METHOD_QEMU,
	EXIT_METHOD_HALT,     /* the status stays on the screen */
	EXIT_METHOD_REBOOT,
	EXIT_METHOD_POWEROFF, /* ACPI S5 where the tables say how, else halt */
};

/* How memboot.exit=poweroff turns the machine off: ACPI S5 as phase acpi
 * found it (init_acpi(); arch/machine.h); until called (or with
 * !s5->valid), poweroff halts instead. */
struct arch_acpi_s5;
void exit_set_poweroff(const struct arch_acpi_s5 *s5);

/* memboot.exit=, parsed by exit_param_table (kernel/services/exit_method.c). */
extern enum exit_method exit_method;
struct param_table;
extern const struct param_table exit_param_table;

/*
 * Print the closing `done` record (and @why, if not NULL, as an error line)
 * and leave. Always the last thing a boot prints.
 */
__attribute__((noreturn)) void kernel_exit(enum exit_status status, const char *why);

/* Leave at once, printing nothing through the logger (for nested faults). */
__attribute__((noreturn)) void exit_now(enum exit_status status);

const char *exit_status_name(enum exit_status status);

#endif

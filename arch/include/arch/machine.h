/*
 * arch/machine.h: ending a boot: the emulator's exit, reset, power-off.
 *
 * kernel/services/exit.c keeps the policy (the statuses, memboot.exit=,
 * what is printed first); these are the machine's ways out:
 *
 *   emulator exit   x86_64: QEMU's isa-debug-exit device, I/O port 0xf4
 *                   (`-device isa-debug-exit,iobase=0xf4`), which ends QEMU
 *                   with ((value << 1) | 1); arm64: semihosting SYS_EXIT;
 *                   POWER: none known (the caller halts)
 *   reset           x86_64: the PCI reset control register 0xcf9, the 8042
 *                   keyboard controller, a triple fault; arm64: PSCI
 *                   SYSTEM_RESET; POWER: OPAL's opal_cec_reboot()
 *   power-off       ACPI S5 from the FADT's PM1 control registers and the
 *                   DSDT's \_S5 values (ACPI 6.5 7.4.2, 4.8.3.2.1); arm64:
 *                   PSCI SYSTEM_OFF; POWER: OPAL's opal_cec_power_down()
 */
#ifndef MEMBOOT_ARCH_MACHINE_H
#define MEMBOOT_ARCH_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

/* ACPI soft-off (S5): the PM1a/PM1b control blocks' addresses in system I/O
 * space from the FADT, and the SLP_TYP values of the DSDT's \_S5 package,
 * as phase acpi finds them (kernel/firmware/acpi/sleep.h). */
struct arch_acpi_s5 {
	bool valid;
	uint16_t pm1a_cnt_port, pm1b_cnt_port;   /* 0: no PM1b block */
	uint8_t slp_typa, slp_typb;
};

/* Ask the emulator to exit with @value (exit.h's EXIT_QEMU_BASE + status).
 * Only where the machine is known to be one (arch_cpu_info.has_hypervisor):
 * on hardware the device's address may be anything. Returns if nothing
 * took the value. */
void arch_machine_emulator_exit(uint32_t value);

/* Reset the machine, each of the architecture's ways in turn, the last of
 * which cannot fail (x86_64: a triple fault). */
__attribute__((noreturn)) void arch_machine_reset(void);

/* Power off by ACPI S5 (@s5 valid); returns when the machine is still
 * running after a while (the caller then halts). */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5);

#endif

/*
 * machine.c (arm64): the machine's ways out (arch/machine.h): semihosting's
 * SYS_EXIT under QEMU, PSCI SYSTEM_RESET and SYSTEM_OFF.
 */
#include "arch/machine.h"

#include "arch/cpu.h"
#include "a64/psci.h"

/*
 * Semihosting SYS_EXIT (operation 0x18) with the extended form's block
 * {ADP_Stopped_ApplicationExit (0x20026), status} (Arm's "Semihosting for
 * AArch32 and AArch64", SYS_EXIT): QEMU started with -semihosting-config
 * enable=on ends with the status. HLT #0xf000 is the A64 semihosting trap;
 * without semihosting enabled QEMU treats it as an undefined instruction,
 * so it is only used under a hypervisor (arch_cpu_info.has_hypervisor).
 * The status is ((value << 1) | 1), what x86_64's isa-debug-exit makes of
 * the same value, so the runner reads both architectures alike.
 */
void arch_machine_emulator_exit(uint32_t value)
{
	static volatile uint64_t block[2];

	block[0] = 0x20026;
	block[1] = ((uint64_t)value << 1) | 1;
	register uint64_t x0 __asm__("x0") = 0x18;
	register volatile uint64_t *x1 __asm__("x1") = block;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
}

/* PSCI SYSTEM_RESET and SYSTEM_OFF (a64/psci.h), through the conduit the
 * firmware names. */
void arch_machine_reset(void)
{
	a64_psci_call(PSCI_SYSTEM_RESET, 0, 0, 0);
	arch_halt_forever();
}

/* ACPI S5 is x86's; arm64 powers off through PSCI whatever @s5 says. */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5)
{
	(void)s5;
	a64_psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
}

/*
 * machine.c (arm64): the machine's ways out (arch/machine.h): semihosting's
 * SYS_EXIT under QEMU, PSCI SYSTEM_RESET and SYSTEM_OFF.
 */
#include "arch/machine.h"

#include "arch/cpu.h"

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

/* PSCI 1.1 (Arm DEN 0022), 5.1.9 SYSTEM_OFF 0x84000008, 5.1.10
 * SYSTEM_RESET 0x84000009, through HVC, the conduit QEMU virt's device
 * tree names (/psci method "hvc"). An SMC conduit (EL3 firmware) is the
 * UEFI and SMP work's: an SMC where no EL3 exists is undefined. */
static void psci_call(uint32_t fn)
{
	register uint64_t x0 __asm__("x0") = fn;
	__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
}

void arch_machine_reset(void)
{
	psci_call(0x84000009);
	arch_halt_forever();
}

/* ACPI S5 is x86's; arm64 powers off through PSCI whatever @s5 says. */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5)
{
	(void)s5;
	psci_call(0x84000008);
}

/*
 * machine.c: the machine's ways out (arch/machine.h): QEMU's
 * isa-debug-exit, reset, ACPI S5 power-off.
 */
#include "arch/machine.h"

#include "arch/cpu.h"
#include "x86/io.h"
#include "x86/machine.h"

void arch_machine_emulator_exit(uint32_t value)
{
	outl(X86_QEMU_EXIT_PORT, value);
}

/*
 * Reset the machine: the PCI reset control register at 0xcf9 (a full reset,
 * bits 1-3, on every Intel and AMD chipset since the PIIX), then the 8042
 * keyboard controller's pulse-reset command 0xfe, then a triple fault
 * (an empty IDT and an interrupt) as the last resort.
 */
void arch_machine_reset(void)
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
	arch_halt_forever();
}

/* ACPI 6.5 section 7.4.2 and 4.8.3.2.1: write SLP_TYP (bits 10-12) with
 * SLP_EN (bit 13) to PM1a_CNT, and to PM1b_CNT if the FADT has one. */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5)
{
	if (!s5->valid)
		return;
	outw(s5->pm1a_cnt_port, (uint16_t)((s5->slp_typa & 7) << 10 | 1 << 13));
	if (s5->pm1b_cnt_port)
		outw(s5->pm1b_cnt_port, (uint16_t)((s5->slp_typb & 7) << 10 | 1 << 13));
	for (volatile int i = 0; i < 10000000; i++)
		;
}

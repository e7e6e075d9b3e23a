/*
 * machine.c (ppc64le): the machine's ways out (arch/machine.h) through
 * RTAS (PAPR 7.3: "power-off", "system-reboot", tokens from the /rtas
 * node that boot/ofw kept). QEMU's and KVM's RTAS is entered with the
 * hypervisor call KVMPPC_H_RTAS and the argument block's real address in
 * r4 (what the firmware's RTAS blob does); a PowerVM LPAR's RTAS must be
 * instantiated and called in place instead: not done yet.
 *
 * pseries has no device that carries an exit status out of QEMU: the
 * emulator exit is a power-off (QEMU ends with 0), and the status is the
 * `done` record's, which the runner reads on the console (tools/memboot,
 * the architecture's EXIT_FROM console).
 */
#include "arch/machine.h"

#include <stddef.h>

#include "arch/cpu.h"
#include "p64/hcall.h"
#include "p64/ofw.h"
#include "p64/regs.h"

/* token, nargs, nret, then the arguments and the return values: big-endian
 * 32-bit cells. The first return value (the status); -1 (hardware error)
 * for a missing token. Called by the boot CPU only. */
int32_t ppc_rtas_call(uint32_t token, unsigned nargs, const uint32_t *argv)
{
	static volatile uint32_t block[16];

	if (token == 0 || nargs > 12)
		return -1;
	block[0] = __builtin_bswap32(token);
	block[1] = __builtin_bswap32(nargs);
	block[2] = __builtin_bswap32(1);
	for (unsigned i = 0; i < nargs && i < 12; i++)
		block[3 + i] = __builtin_bswap32(argv[i]);
	block[3 + nargs] = __builtin_bswap32((uint32_t)-1);
	ppc_hcall(KVMPPC_H_RTAS, (uint64_t)(uintptr_t)block, 0, 0, 0, 0);
	return (int32_t)__builtin_bswap32(block[3 + nargs]);
}

/* power-off(power_on_mask_hi, power_on_mask_lo): nothing wakes it. */
static void power_off(void)
{
	const uint32_t argv[2] = { 0, 0 };

	ppc_rtas_call(ppc_firmware.rtas_power_off, 2, argv);
}

void arch_machine_emulator_exit(uint32_t value)
{
	(void)value;
	power_off();
}

void arch_machine_reset(void)
{
	ppc_rtas_call(ppc_firmware.rtas_system_reboot, 0, NULL);
	arch_halt_forever();
}

/* ACPI S5 is x86's; POWER powers off through RTAS whatever @s5 says. */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5)
{
	(void)s5;
	power_off();
}

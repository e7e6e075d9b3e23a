/*
 * machine.c (ppc64le): RTAS calls, and the machine's ways out
 * (arch/machine.h) through RTAS (PAPR 7.3: "power-off", "system-reboot",
 * tokens from the /rtas node that boot/ofw kept). RTAS is entered where
 * boot/ofw instantiated it through the client interface (its entry, in
 * real mode, big-endian: ppc_rtas_enter() in entry.S), as PAPR asks and a
 * PowerVM LPAR requires. Where it could not be instantiated (or with
 * memboot.rtas=hcall), QEMU's and KVM's RTAS is entered with the
 * hypervisor call KVMPPC_H_RTAS and the argument block's real address in
 * r4 (what the blob QEMU's firmware instantiates does itself).
 *
 * pseries has no device that carries an exit status out of QEMU: the
 * emulator exit is a power-off (QEMU ends with 0), and the status is the
 * `done` record's, which the runner reads on the console (tools/memboot,
 * the architecture's EXIT_FROM console).
 *
 * On PowerNV the ways out are OPAL's: OPAL_CEC_POWER_DOWN and
 * OPAL_CEC_REBOOT ask the service processor (QEMU's BMC, through IPMI),
 * so OPAL is polled (OPAL_POLL_EVENTS) while the request goes out, as
 * Linux's PowerNV power-off does; QEMU then exits with 0 and the status
 * is the `done` record's, as on pseries.
 */
#include "arch/machine.h"

#include <stddef.h>

#include "arch/cpu.h"
#include "p64/hcall.h"
#include "p64/opal.h"
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
	if (ppc_rtas_hcall_why())
		ppc_hcall(KVMPPC_H_RTAS, (uint64_t)(uintptr_t)block, 0, 0, 0, 0);
	else
		ppc_rtas_enter(block, ppc_firmware.rtas_entry, ppc_firmware.rtas_base);
	return (int32_t)__builtin_bswap32(block[3 + nargs]);
}

const char *ppc_rtas_hcall_why(void)
{
	if (!ppc_firmware.rtas_entry)
		return ppc_firmware.rtas_why ? ppc_firmware.rtas_why : "RTAS was not instantiated";
	if (ppc_rtas_request == PPC_RTAS_HCALL)
		return "memboot.rtas=hcall";
	return NULL;
}

/* OPAL_CEC_POWER_DOWN or OPAL_CEC_REBOOT: asked again while OPAL is
 * busy, then OPAL polled until the machine goes (it does not return). */
static void opal_way_out(uint64_t token)
{
	int64_t rc;

	for (unsigned tries = 0; tries < 1000; tries++) {
		rc = ppc_opal_call(token, 0, 0, 0, 0);
		if (rc != OPAL_BUSY && rc != OPAL_BUSY_EVENT)
			break;
		ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0, 0);
	}
	for (;;)
		ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0, 0);
}

/* power-off(power_on_mask_hi, power_on_mask_lo): nothing wakes it. */
static void power_off(void)
{
	const uint32_t argv[2] = { 0, 0 };

	if (ppc_powernv())
		opal_way_out(OPAL_CEC_POWER_DOWN);
	ppc_rtas_call(ppc_firmware.rtas_power_off, 2, argv);
}

void arch_machine_emulator_exit(uint32_t value)
{
	(void)value;
	power_off();
}

void arch_machine_reset(void)
{
	if (ppc_powernv())
		opal_way_out(OPAL_CEC_REBOOT);
	ppc_rtas_call(ppc_firmware.rtas_system_reboot, 0, NULL);
	arch_halt_forever();
}

/* ACPI S5 is x86's; POWER powers off through RTAS whatever @s5 says. */
void arch_machine_poweroff(const struct arch_acpi_s5 *s5)
{
	(void)s5;
	power_off();
}

/*
 * watchdog.c (arm64): no watchdog and no watch tick yet (arch/watchdog.h).
 * Arm's SBSA generic watchdog (described by the ACPI GTDT, Arm DEN0029) and
 * a tick that reaches a CPU with interrupts masked (GICv3 pseudo-NMI
 * priorities) are not implemented: every call says so, and the service
 * reports "none" with the reason, as on a PC without a TCO.
 */
#include <stdio.h>

#include "arch/watchdog.h"

bool arch_watchdog_find(struct arch_watchdog *wd, char *why, size_t why_bytes)
{
	(void)wd;
	snprintf(why, why_bytes, "arm64's SBSA generic watchdog is not driven yet");
	return false;
}

uint32_t arch_watchdog_arm(struct arch_watchdog *wd, uint32_t seconds, char *why,
			   size_t why_bytes)
{
	(void)wd;
	(void)seconds;
	snprintf(why, why_bytes, "no watchdog on arm64 yet");
	return 0;
}

void arch_watchdog_pet(const struct arch_watchdog *wd)
{
	(void)wd;
}

void arch_watchdog_disarm(const struct arch_watchdog *wd)
{
	(void)wd;
}

/*
 * A WDAT's registers: system memory only (arm64 has no I/O space, ACPI 6.5
 * 5.2.3.2), and not even that until the kernel maps the table's addresses
 * as Device memory: refused, so a WDAT is reported unusable, never run.
 */
bool arch_watchdog_reg_read(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value)
{
	(void)space;
	(void)address;
	(void)bytes;
	(void)value;
	return false;
}

bool arch_watchdog_reg_write(uint8_t space, uint64_t address, unsigned bytes, uint64_t value)
{
	(void)space;
	(void)address;
	(void)bytes;
	(void)value;
	return false;
}

bool arch_watch_tick_start(const struct arch_tick_firmware *fw, void (*fn)(void), char *why,
			   size_t why_bytes)
{
	(void)fw;
	(void)fn;
	snprintf(why, why_bytes, "no watch tick on arm64 yet (a GICv3 pseudo-NMI timer)");
	return false;
}

void arch_watch_tick_stop(void)
{
}

/*
 * watchdog.c (ppc64le): no watchdog and no watch tick yet (arch/watchdog.h).
 * PAPR's watchdog (H_WATCHDOG, PAPR 2.12) and a tick that reaches a CPU
 * with interrupts masked (the decrementer under soft masking, as Linux's
 * lazy interrupt disabling) are not implemented: every call says so, and
 * the service reports "none" with the reason, as on a PC without a TCO.
 */
#include <stdio.h>

#include "arch/watchdog.h"

bool arch_watchdog_find(struct arch_watchdog *wd, char *why, size_t why_bytes)
{
	(void)wd;
	snprintf(why, why_bytes, "PAPR's H_WATCHDOG is not driven yet");
	return false;
}

uint32_t arch_watchdog_arm(struct arch_watchdog *wd, uint32_t seconds, char *why,
			   size_t why_bytes)
{
	(void)wd;
	(void)seconds;
	snprintf(why, why_bytes, "no watchdog on POWER yet");
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

/* A WDAT is ACPI's, and POWER machines have no ACPI: refused. */
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
	snprintf(why, why_bytes, "no watch tick on POWER yet");
	return false;
}

void arch_watch_tick_stop(void)
{
}

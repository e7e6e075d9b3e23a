/*
 * no_watchdog.c: arch/watchdog.h for a port that drives no watchdog and no
 * watch tick yet: every call refuses with the port's reasons
 * (port/no_watchdog.h), and an ACPI WDAT's registers are never touched.
 */
#include <stdio.h>

#include "arch/watchdog.h"
#include "port/no_watchdog.h"

bool arch_watchdog_find(struct arch_watchdog *wd, char *why, size_t why_bytes)
{
	(void)wd;
	snprintf(why, why_bytes, "%s", no_watchdog_reasons.find);
	return false;
}

uint32_t arch_watchdog_arm(struct arch_watchdog *wd, uint32_t seconds, char *why,
			   size_t why_bytes)
{
	(void)wd;
	(void)seconds;
	snprintf(why, why_bytes, "%s", no_watchdog_reasons.arm);
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

/* A WDAT is refused, so it is reported unusable and never run (the port's
 * reasons say why: no ACPI, or its registers not mapped as Device memory). */
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
	snprintf(why, why_bytes, "%s", no_watchdog_reasons.tick);
	return false;
}

void arch_watch_tick_stop(void)
{
}

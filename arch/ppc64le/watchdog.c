/*
 * watchdog.c (ppc64le): no watchdog and no watch tick yet (arch/common/
 * no_watchdog.c answers arch/watchdog.h). PAPR's watchdog (H_WATCHDOG,
 * PAPR 2.12) and a tick that reaches a CPU with interrupts masked (the
 * decrementer under soft masking, as Linux's lazy interrupt disabling) are
 * not implemented. A WDAT is ACPI's, and POWER machines have no ACPI.
 */
#include "port/no_watchdog.h"

const struct no_watchdog_reasons no_watchdog_reasons = {
	.find = "PAPR's H_WATCHDOG is not driven yet",
	.arm = "no watchdog on POWER yet",
	.tick = "no watch tick on POWER yet",
};

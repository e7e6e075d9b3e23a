/*
 * watchdog.c (arm64): no watchdog and no watch tick yet (arch/common/
 * no_watchdog.c answers arch/watchdog.h). Arm's SBSA generic watchdog
 * (described by the ACPI GTDT, Arm DEN0029) and a tick that reaches a CPU
 * with interrupts masked (GICv3 pseudo-NMI priorities) are not
 * implemented. A WDAT's registers would be system memory only (arm64 has
 * no I/O space, ACPI 6.5 5.2.3.2), and not even that until the kernel maps
 * the table's addresses as Device memory: refused.
 */
#include "port/no_watchdog.h"

const struct no_watchdog_reasons no_watchdog_reasons = {
	.find = "arm64's SBSA generic watchdog is not driven yet",
	.arm = "no watchdog on arm64 yet",
	.tick = "no watch tick on arm64 yet (a GICv3 pseudo-NMI timer)",
};

/*
 * fadt.c: the ACPI PM timer's port from the FADT, for the clock cross-check.
 *
 * Rules obeyed (ACPI 6.5, 5.2.9 and 4.8.3.3):
 *  - PM_TMR_BLK (offset 76, u32) is the timer's I/O port and PM_TMR_LEN
 *    (offset 91, u8) must be 4; the timer ticks at 3.579545 MHz;
 *  - X_PM_TMR_BLK (offset 208, a 12-byte Generic Address Structure, FADT
 *    revision 3 and later) supersedes PM_TMR_BLK when its address is
 *    nonzero; memboot reads the timer with port I/O, so only address space 1
 *    (system I/O) is usable;
 *  - flag TMR_VAL_EXT (bit 8 of Flags, offset 112) means 32 bits, else 24;
 *  - a hardware-reduced platform (flag HW_REDUCED_ACPI, bit 20) has no PM
 *    timer whatever the fields say;
 *  - ARM_BOOT_ARCH (offset 129, u16, FADT 5.1 and later): bit 0
 *    PSCI_COMPLIANT, bit 1 PSCI_USE_HVC (HVC is the conduit, else SMC).
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: FADT: "

#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_X_PM_TMR_BLK 208
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)
#define FADT_FLAG_HW_REDUCED (1u << 20)
#define GAS_SPACE_IO 1
#define FADT_ARM_BOOT_ARCH 129
#define FADT_ARM_PSCI_COMPLIANT (1u << 0)
#define FADT_ARM_PSCI_USE_HVC (1u << 1)

static uint32_t rd32(const uint8_t *p, uint32_t off)
{
	uint32_t v;
	memcpy(&v, p + off, 4);
	return v;
}

bool acpi_fadt_pm_timer(const void *table, size_t len, struct acpi_pm_timer *out)
{
	const uint8_t *p = table;
	uint32_t table_len, flags, port;
	uint64_t x_addr = 0;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "FACP", FADT_FLAGS + 4, PREFIX);
	if (!table_len)
		return false;
	flags = rd32(p, FADT_FLAGS);
	if (flags & FADT_FLAG_HW_REDUCED)
		return false;   /* no fixed hardware: not an error */
	port = rd32(p, FADT_PM_TMR_BLK);
	if (table_len >= FADT_X_PM_TMR_BLK + 12) {
		memcpy(&x_addr, p + FADT_X_PM_TMR_BLK + 4, 8);
		if (x_addr && p[FADT_X_PM_TMR_BLK] != GAS_SPACE_IO) {
			pr_warn(PREFIX "X_PM_TMR_BLK (offset 0xd0) is in address space %u, not I/O; %s",
				p[FADT_X_PM_TMR_BLK], port ? "using PM_TMR_BLK" : "no PM timer");
			x_addr = 0;
		}
	}
	if (x_addr) {
		if (port && port != x_addr)
			pr_warn(PREFIX "PM_TMR_BLK 0x%x and X_PM_TMR_BLK 0x%llx differ; using X_PM_TMR_BLK",
				port, (unsigned long long)x_addr);
		if (x_addr > 0xfffc) {
			pr_warn(PREFIX "X_PM_TMR_BLK 0x%llx is not an I/O port; no PM timer",
				(unsigned long long)x_addr);
			return false;
		}
		port = (uint32_t)x_addr;
	} else if (port) {
		if (p[FADT_PM_TMR_LEN] != 4) {
			pr_warn(PREFIX "PM_TMR_LEN (offset 0x5b) is %u, expected 4; no PM timer",
				p[FADT_PM_TMR_LEN]);
			return false;
		}
		if (port > 0xfffc) {
			pr_warn(PREFIX "PM_TMR_BLK 0x%x is not an I/O port; no PM timer", port);
			return false;
		}
	}
	if (!port)
		return false;
	out->port = (uint16_t)port;
	out->bits = flags & FADT_FLAG_TMR_VAL_EXT ? 32 : 24;
	return true;
}

bool acpi_fadt_arm_boot(const void *table, size_t len, struct acpi_arm_boot *out)
{
	uint32_t flags;

	memset(out, 0, sizeof(*out));
	if (!acpi_table_check(table, len, "FACP", FADT_ARM_BOOT_ARCH + 2, PREFIX))
		return false;
	flags = fw_le16((const uint8_t *)table + FADT_ARM_BOOT_ARCH);
	if (!(flags & FADT_ARM_PSCI_COMPLIANT)) {
		if (flags & FADT_ARM_PSCI_USE_HVC)
			pr_warn(PREFIX "ARM boot flags 0x%x: PSCI_USE_HVC without PSCI_COMPLIANT; no PSCI",
				flags);
		return false;
	}
	out->psci = true;
	out->psci_hvc = flags & FADT_ARM_PSCI_USE_HVC;
	return true;
}

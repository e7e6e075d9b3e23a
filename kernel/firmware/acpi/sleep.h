/*
 * sleep.h: what soft-off (S5) needs from ACPI: the PM1 control ports of the
 * FADT and the SLP_TYP values of the DSDT's \_S5 object. memboot.exit=poweroff
 * uses them to switch a real machine off at the end of a boot.
 */
#ifndef MEMBOOT_KERNEL_ACPI_SLEEP_H
#define MEMBOOT_KERNEL_ACPI_SLEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct acpi_s5 {
	uint16_t pm1a_cnt_port, pm1b_cnt_port;   /* pm1b 0: none */
	uint8_t slp_typa, slp_typb;
};

/* The PM1a/PM1b control block I/O ports from a FADT. False (with a warning)
 * for a hardware-reduced platform or one without a PM1a control block. */
bool acpi_fadt_pm1(const void *fadt, size_t len, struct acpi_s5 *out);

/* SLP_TYPa/b of the \_S5 package in AML (a DSDT or SSDT body). False if
 * there is no \_S5 name followed by a package of at least two integers. */
bool acpi_find_s5(const void *aml, size_t len, struct acpi_s5 *out);

#endif

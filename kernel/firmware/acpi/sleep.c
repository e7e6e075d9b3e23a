/*
 * sleep.c: soft-off values from the FADT and the DSDT (sleep.h).
 *
 * Rules obeyed (ACPI 6.5):
 *  - FADT (5.2.9): PM1a_CNT_BLK is the u32 I/O port at offset 64, PM1b at 68
 *    (0: absent); from revision 3 X_PM1a_CNT_BLK is a Generic Address at 172,
 *    used when the 32-bit field is 0. Flag HW_REDUCED_ACPI (bit 20 of the
 *    flags at 112) means there are no PM1 blocks at all.
 *  - \_S5 (7.4.2) is a Name whose value is a Package; its first two elements
 *    are the SLP_TYP values for PM1a and PM1b. In AML (20.2): NameOp 0x08,
 *    the NameString "_S5_" (maybe with a root prefix '\'), PackageOp 0x12, a
 *    PkgLength of 1 to 4 bytes (bits 7-6 of the first byte give the count of
 *    bytes that follow), NumElements, then each integer as ZeroOp 0x00,
 *    OneOp 0x01, BytePrefix 0x0a and a byte, or OnesOp 0xff.
 * The search is a byte scan, not an AML interpreter: a \_S5 defined by a
 * method is not found, and poweroff then falls back to a halt.
 */
#include "kernel/firmware/acpi/sleep.h"

#include <string.h>

#include "kernel/services/log.h"

enum { FADT_PM1A_CNT = 64, FADT_PM1B_CNT = 68, FADT_FLAGS = 112, FADT_X_PM1A_CNT = 172 };
#define FADT_HW_REDUCED (1u << 20)

bool acpi_fadt_pm1(const void *fadt, size_t len, struct acpi_s5 *out)
{
	const uint8_t *t = fadt;
	uint32_t a = 0, b = 0, flags = 0;

	if (!fadt || len < FADT_PM1B_CNT + 4) {
		pr_warn("ACPI: FADT of %zu bytes has no PM1 control fields; no soft-off", len);
		return false;
	}
	memcpy(&a, t + FADT_PM1A_CNT, 4);
	memcpy(&b, t + FADT_PM1B_CNT, 4);
	if (len >= FADT_FLAGS + 4)
		memcpy(&flags, t + FADT_FLAGS, 4);
	if (flags & FADT_HW_REDUCED) {
		pr_warn("ACPI: FADT: hardware-reduced platform (no PM1 blocks); no soft-off");
		return false;
	}
	if (a == 0 && len >= FADT_X_PM1A_CNT + 12 && t[FADT_X_PM1A_CNT] == 1) {
		uint64_t x;
		memcpy(&x, t + FADT_X_PM1A_CNT + 4, 8);
		a = x <= 0xffff ? (uint32_t)x : 0;
	}
	if (a == 0 || a > 0xffff || b > 0xffff) {
		pr_warn("ACPI: FADT: PM1a control block 0x%x / PM1b 0x%x not I/O ports; no soft-off",
			a, b);
		return false;
	}
	out->pm1a_cnt_port = (uint16_t)a;
	out->pm1b_cnt_port = (uint16_t)b;
	return true;
}

/* One AML integer of a package; returns its length in bytes, 0 if not one. */
static size_t aml_int(const uint8_t *p, const uint8_t *end, uint8_t *v)
{
	if (p >= end)
		return 0;
	switch (p[0]) {
	case 0x00: *v = 0; return 1;
	case 0x01: *v = 1; return 1;
	case 0xff: *v = 0xff; return 1;
	case 0x0a:
		if (p + 1 >= end)
			return 0;
		*v = p[1];
		return 2;
	default:
		return 0;
	}
}

bool acpi_find_s5(const void *aml, size_t len, struct acpi_s5 *out)
{
	const uint8_t *t = aml, *end = t + len;

	for (size_t i = 1; aml && i + 4 <= len; i++) {
		if (memcmp(t + i, "_S5_", 4) != 0)
			continue;
		if (t[i - 1] != 0x08 && !(t[i - 1] == '\\' && i >= 2 && t[i - 2] == 0x08))
			continue;
		const uint8_t *p = t + i + 4;
		if (p >= end || *p++ != 0x12)
			continue;
		if (p >= end)
			break;
		p += 1 + (*p >> 6);          /* PkgLength */
		if (p >= end || *p++ < 2)    /* NumElements */
			continue;
		size_t n = aml_int(p, end, &out->slp_typa);
		if (!n)
			continue;
		if (!aml_int(p + n, end, &out->slp_typb))
			continue;
		return true;
	}
	return false;
}

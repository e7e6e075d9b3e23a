/*
 * hpet.c: where the HPET's registers are, for the clock cross-check.
 *
 * Rules obeyed (IA-PC HPET specification 1.0a, 3.2.4 "The ACPI 2.0 HPET
 * Description Table"):
 *  - after the 36-byte header: Event Timer Block ID (u32, offset 36), then
 *    the register block's base as a Generic Address Structure (offset 40,
 *    12 bytes; the address itself at offset 44), in system memory (address
 *    space 0);
 *  - the register block is 1024 bytes (2.3 "Register Definition and Address
 *    Map"), so its base is 1 KiB aligned.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: HPET: "

#define HPET_BLOCK_ID 36
#define HPET_GAS 40
#define HPET_ADDRESS 44
#define HPET_MIN_BYTES 56
#define GAS_SPACE_MEMORY 0

bool acpi_hpet_parse(const void *table, size_t len, struct acpi_hpet_info *out)
{
	const uint8_t *p = table;
	uint64_t address;

	memset(out, 0, sizeof(*out));
	if (!acpi_table_check(table, len, "HPET", HPET_MIN_BYTES, PREFIX))
		return false;
	memcpy(&out->block_id, p + HPET_BLOCK_ID, 4);
	memcpy(&address, p + HPET_ADDRESS, 8);
	if (p[HPET_GAS] != GAS_SPACE_MEMORY) {
		pr_warn(PREFIX "registers in address space %u (offset 0x28), not memory; HPET ignored",
			p[HPET_GAS]);
		return false;
	}
	if (address == 0) {
		/* A zero base is a table with no HPET behind it: address 0 is
		 * RAM on every PC (the real-mode interrupt vector table). */
		pr_warn(PREFIX "register base is address 0 (offset 0x2c): the table names no HPET; "
			"HPET ignored");
		return false;
	}
	if (address % 1024) {
		pr_warn(PREFIX "register base 0x%llx (offset 0x2c) is not a 1 KiB aligned address; "
			"HPET ignored", (unsigned long long)address);
		return false;
	}
	out->address = address;
	return true;
}

/*
 * fuzz_acpi_wdat.c: acpi_wdat_parse() on one table (the whole input), then
 * every action of an accepted table run over a register file that checks
 * each access against what the parser promised: memory or I/O space, 1, 2
 * or 4 bytes, an I/O port below 64 KiB, a field inside its register.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/acpi/wdat.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

static bool check_access(uint8_t space, uint64_t address, unsigned bytes)
{
	CHECK(space == 0 || space == 1);
	CHECK(bytes == 1 || bytes == 2 || bytes == 4);
	CHECK(address != 0);
	if (space == 1)
		CHECK(address + bytes <= 0x10000);
	return (address & 0xff) != 0x42;    /* some registers are not there */
}

static bool reg_read(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value)
{
	if (!check_access(space, address, bytes))
		return false;
	*value = (address * 0x9e3779b97f4a7c15ull) & (bytes == 4 ? 0xffffffffull :
						      (1ull << (8 * bytes)) - 1);
	return true;
}

static bool reg_write(uint8_t space, uint64_t address, unsigned bytes, uint64_t value)
{
	if (!check_access(space, address, bytes))
		return false;
	/* Nothing beyond the register's width is written. */
	if (bytes < 8)
		CHECK((value >> (8 * bytes)) == 0);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct acpi_wdat_io io = { .read = reg_read, .write = reg_write };
	static struct acpi_wdat_info w;
	char why[128];
	uint32_t result;

	host_log_reset();
	memset(&w, 0xa5, sizeof(w));
	if (!acpi_wdat_parse(data, size, &w)) {
		/* Refused: a message says why, nothing half filled is kept. */
		CHECK(host_log_count(LOG_WARN) >= 1);
		CHECK(w.nr_entries == 0);
		return 0;
	}
	CHECK(size >= 68);
	CHECK(w.period_ms >= 1 && w.period_ms <= 60000);
	CHECK(w.max_count >= 1 && w.min_count <= w.max_count);
	CHECK(w.nr_entries <= ACPI_WDAT_MAX_ENTRIES);
	for (uint32_t i = 0; i < w.nr_entries; i++) {
		const struct acpi_wdat_entry *e = &w.entries[i];
		CHECK(e->bit_offset < 8u * e->bytes);
		CHECK(e->mask != 0);
	}
	CHECK(acpi_wdat_min_seconds(&w) >= 1);
	CHECK(acpi_wdat_max_seconds(&w) >= 1);
	for (uint32_t s = 0; s < 100000; s = s * 3 + 1) {
		uint32_t c = acpi_wdat_count(&w, s);
		CHECK(c >= w.min_count && c <= w.max_count);
	}
	for (unsigned a = 0; a < 0x30; a++)
		acpi_wdat_run(&w, (enum acpi_wdat_action)a, 0xffffffffu, &result, &io);
	if (!acpi_wdat_missing(&w)) {
		why[0] = '\0';
		if (!acpi_wdat_arm(&w, 300, &io, why, sizeof(why)))
			CHECK(why[0] != '\0');
		acpi_wdat_pet(&w, &io);
		acpi_wdat_disarm(&w, &io);
	}
	acpi_wdat_fired(&w, &io);
	return 0;
}

/*
 * fuzz_acpi_spcr.c: acpi_spcr_parse() on one table (the whole input), then
 * the accepted UART's address through acpi_spcr_address_ok() against a small
 * memory map, checking what the console relies on.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/acpi/spcr.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mem_range map[] = {
		{ 0, 0x9f000, MEM_USABLE },
		{ 0x100000, 0x7fe0000, MEM_USABLE },
		{ 0x7fe0000, 0x8000000, MEM_ACPI },
		{ 0xfe000000, 0x100000000ULL, MEM_RESERVED },
	};
	struct acpi_spcr_info s;
	char why[160];
	bool ok;

	host_log_reset();
	memset(&s, 0xa5, sizeof(s));
	ok = acpi_spcr_parse(data, size, &s);
	if (!ok) {
		/* Refused: a message says why, nothing half filled is used. */
		CHECK(host_log_count(LOG_WARN) >= 1);
		return 0;
	}
	CHECK(size >= 80);
	CHECK(s.address != 0);
	if (s.kind == ACPI_SPCR_PL011)
		CHECK((s.interface_type == 3 || s.interface_type == 0xd || s.interface_type == 0xe) &&
		      !s.io_port && s.access_bytes == 4);
	else
		CHECK(s.kind == ACPI_SPCR_16550 && (s.interface_type == 0 || s.interface_type == 1 ||
						    s.interface_type == 0x12));
	CHECK(s.baud == 0 || s.baud == 9600 || s.baud == 19200 || s.baud == 57600 ||
	      s.baud == 115200);
	if (s.io_port) {
		CHECK(s.address <= 0xfff8 && s.access_bytes == 1);
		CHECK(acpi_spcr_address_ok(&s, map, 4, why, sizeof(why)));
	} else {
		CHECK(s.access_bytes == 1 || s.access_bytes == 2 || s.access_bytes == 4);
		why[0] = '\0';
		if (!acpi_spcr_address_ok(&s, map, 4, why, sizeof(why))) {
			CHECK(why[0] != '\0');
		} else {
			/* Accepted: no register overlaps RAM of the map. */
			uint64_t end = s.address + 8ULL * s.access_bytes;
			CHECK(end > s.address);
			for (unsigned i = 0; i < 3; i++)
				CHECK(end <= map[i].start || s.address >= map[i].end);
		}
	}
	return 0;
}

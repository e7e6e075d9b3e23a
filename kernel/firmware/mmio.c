/*
 * mmio.c: a firmware-named register block checked against the memory map
 * (see mmio.h).
 */
#include "kernel/firmware/mmio.h"

#include <stdio.h>

bool fw_mmio_clear_of_ram(uint64_t base, uint64_t len, const struct mem_range *map,
			  uint32_t nr_map, char *why, size_t why_bytes)
{
	uint64_t end = base + len;

	if (end < base) {
		snprintf(why, why_bytes, "its registers wrap the address space");
		return false;
	}
	for (uint32_t i = 0; i < nr_map; i++) {
		const struct mem_range *m = &map[i];

		/* Writing UART registers into RAM corrupts memory. */
		if (m->type != MEM_USABLE && m->type != MEM_ACPI && m->type != MEM_NVS)
			continue;
		if (base < m->end && m->start < end) {
			snprintf(why, why_bytes, "0x%llx lies in %s memory [0x%llx-0x%llx] of the memory map, "
				 "not MMIO", (unsigned long long)base,
				 m->type == MEM_USABLE ? "usable" : m->type == MEM_ACPI ? "ACPI" : "NVS",
				 (unsigned long long)m->start, (unsigned long long)m->end - 1);
			return false;
		}
	}
	return true;
}

/*
 * mmio.h: checks on a register block a firmware table names (ACPI's SPCR,
 * a device tree's stdout-path): pure, host-tested.
 */
#ifndef MEMBOOT_KERNEL_FIRMWARE_MMIO_H
#define MEMBOOT_KERNEL_FIRMWARE_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/mem_range.h"

/*
 * Whether @len bytes of registers at @base are clear of RAM in @map: false,
 * with @why filled, where the block wraps the address space or overlaps
 * usable, ACPI or NVS ranges (memory the kernel and its allocator own).
 * Reserved ranges and holes are where MMIO lives.
 */
bool fw_mmio_clear_of_ram(uint64_t base, uint64_t len, const struct mem_range *map,
			  uint32_t nr_map, char *why, size_t why_bytes);

#endif

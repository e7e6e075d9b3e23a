/*
 * spcr.h: the Serial Port Console Redirection table ("SPCR"), which names
 * the serial port a server's firmware and BMC use for the console, so
 * serial over LAN shows memboot without the user guessing the port.
 */
#ifndef MEMBOOT_KERNEL_ACPI_SPCR_H
#define MEMBOOT_KERNEL_ACPI_SPCR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/mem_range.h"

/* The UART families memboot drives. */
enum acpi_spcr_kind {
	ACPI_SPCR_16550 = 0,
	ACPI_SPCR_PL011 = 1,      /* ARM PL011 and SBSA generic UARTs */
};

struct acpi_spcr_info {
	/* 0 16550, 1 16450, 0x12 16550-compatible; 3 PL011, 0xD and 0xE SBSA */
	uint8_t interface_type;
	uint8_t kind;             /* enum acpi_spcr_kind */
	bool io_port;             /* the register block is in I/O space */
	uint64_t address;         /* I/O port or MMIO address of the UART */
	uint8_t access_bytes;     /* MMIO register stride: 1, 2 or 4 (a PL011: 4) */
	uint32_t baud;            /* 0: "as the firmware left it" */
};

/*
 * Parse an SPCR (table, len). Returns false with a warning naming the field
 * for a table that is too short, or a UART memboot does not drive (only the
 * 16550 family, in I/O space or MMIO with 8/16/32-bit registers at a 1, 2 or
 * 4 byte stride, and the PL011 family in MMIO).
 */
bool acpi_spcr_parse(const void *table, size_t len, struct acpi_spcr_info *out);

/*
 * Whether the UART @spcr names may be MMIO at all: false, with @why filled,
 * when its registers overlap RAM in the memory map @map[0, @nr_map) (usable,
 * ACPI or NVS ranges, which the kernel and its allocator own). I/O ports
 * always pass; they are probed instead.
 */
bool acpi_spcr_address_ok(const struct acpi_spcr_info *spcr, const struct mem_range *map,
			  uint32_t nr_map, char *why, size_t why_bytes);

#endif

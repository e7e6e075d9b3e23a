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

struct acpi_spcr_info {
	uint8_t interface_type;   /* 0 16550, 1 16450, 0x12 16550-compatible */
	bool io_port;             /* the register block is in I/O space */
	uint64_t address;         /* I/O port or MMIO address of the UART */
	uint8_t access_bytes;     /* MMIO register width: 1 or 4 */
	uint32_t baud;            /* 0: "as the firmware left it" */
};

/*
 * Parse an SPCR (table, len). Returns false with a warning naming the field
 * for a table that is too short, or a UART memboot does not drive (only the
 * 16550 family, in I/O space or byte/dword-wide MMIO).
 */
bool acpi_spcr_parse(const void *table, size_t len, struct acpi_spcr_info *out);

#endif

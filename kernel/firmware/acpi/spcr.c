/*
 * spcr.c: the SPCR table (Microsoft's Serial Port Console Redirection
 * specification, which ACPI 6.5 5.2.6 lists as a reserved signature).
 *
 * Rules obeyed:
 *  - the fixed part is 80 bytes (revision 1 and 2; later revisions only add
 *    fields after it): interface type at 36, the UART's register block as a
 *    Generic Address Structure at 40, the configured baud rate code at 58;
 *  - interface types 0 (full 16550), 1 (16450, a 16550 subset) and 0x12
 *    (16550-compatible, parameters in the GAS) are 16550s; 3 (ARM PL011),
 *    0xD (ARM SBSA generic UART, 32-bit accesses only; deprecated) and 0xE
 *    (ARM SBSA generic UART) are PL011s, whose registers are 32-bit words
 *    at fixed offsets in memory space whatever the GAS width says; others
 *    (DCC, vendor UARTs) are not for memboot;
 *  - GAS space 1 is system I/O; space 0 is MMIO, where the access size
 *    (ACPI 6.5 5.2.3.2: 1 byte, 2 word, 3 dword) gives the register
 *    stride; 0 (legacy, "undefined") means the bit width decides;
 *  - the GAS bit width is the register's: a 16550's registers are 8 bits,
 *    and firmware writes 8, 16 or 32 for 8-bit registers at that stride;
 *    any other width (9, 64) is not a 16550 layout and the table is
 *    refused (0 is accepted in I/O space, where the port decides);
 *  - baud code 0 means "as is": the firmware already set the port up, and
 *    its divisor must be kept.
 */
#include "kernel/firmware/acpi/spcr.h"

#include <stdio.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi_internal.h"
#include "kernel/firmware/mmio.h"
#include "kernel/services/log.h"

#define PREFIX "ACPI: SPCR: "
#define SPCR_MIN_BYTES 80

enum { SPCR_TYPE = 36, SPCR_GAS = 40, SPCR_BAUD = 58 };
enum { GAS_SPACE = 0, GAS_WIDTH = 1, GAS_OFFSET = 2, GAS_ACCESS = 3, GAS_ADDRESS = 4 };

bool acpi_spcr_parse(const void *table, size_t len, struct acpi_spcr_info *out)
{
	const uint8_t *t = table;
	uint64_t address;
	uint8_t space, access, width;

	memset(out, 0, sizeof(*out));
	if (!table || len < SPCR_MIN_BYTES) {
		pr_warn(PREFIX "%zu bytes, shorter than its 80-byte fixed part; ignored", len);
		return false;
	}
	out->interface_type = t[SPCR_TYPE];
	switch (out->interface_type) {
	case 0: case 1: case 0x12:
		out->kind = ACPI_SPCR_16550;
		break;
	case 3: case 0xd: case 0xe:
		out->kind = ACPI_SPCR_PL011;
		break;
	default:
		pr_warn(PREFIX "interface type 0x%x is not a 16550 or a PL011; ignored",
			out->interface_type);
		return false;
	}
	space = t[SPCR_GAS + GAS_SPACE];
	access = t[SPCR_GAS + GAS_ACCESS];
	width = t[SPCR_GAS + GAS_WIDTH];
	memcpy(&address, t + SPCR_GAS + GAS_ADDRESS, sizeof(address));
	if (address == 0) {
		pr_warn(PREFIX "UART address is 0; ignored");
		return false;
	}
	if (out->kind == ACPI_SPCR_PL011) {
		if (space != 0) {
			pr_warn(PREFIX "PL011 in address space %u, not memory; ignored", space);
			return false;
		}
		out->access_bytes = 4;
	} else if (space == 1) {
		if (width != 0 && width != 8 && width != 16 && width != 32) {
			pr_warn(PREFIX "I/O UART with a register bit width of %u (not 8, 16 or 32); "
				"ignored", width);
			return false;
		}
		if (address > 0xfff8) {
			pr_warn(PREFIX "I/O port 0x%llx is beyond the 64 KiB I/O space; ignored",
				(unsigned long long)address);
			return false;
		}
		out->io_port = true;
		out->access_bytes = 1;
	} else if (space == 0) {
		if (width != 8 && width != 16 && width != 32) {
			pr_warn(PREFIX "MMIO UART with a register bit width of %u (not 8, 16 or 32); "
				"ignored", width);
			return false;
		}
		if (access > 3) {
			pr_warn(PREFIX "MMIO UART with access size %u (only 1 byte, 2 word or 3 "
				"dword); ignored", access);
			return false;
		}
		/* Access size 0 (legacy): the bit width gives the stride. */
		out->access_bytes = access ? (uint8_t)(1u << (access - 1)) : (uint8_t)(width / 8);
		if (out->access_bytes * 8 < width) {
			pr_warn(PREFIX "MMIO UART registers of %u bits read %u bytes at a time; "
				"ignored", width, out->access_bytes);
			return false;
		}
	} else {
		pr_warn(PREFIX "UART in address space %u (neither I/O nor memory); ignored", space);
		return false;
	}
	out->address = address;
	switch (t[SPCR_BAUD]) {
	case 0: out->baud = 0; break;
	case 3: out->baud = 9600; break;
	case 4: out->baud = 19200; break;
	case 6: out->baud = 57600; break;
	case 7: out->baud = 115200; break;
	default:
		pr_warn(PREFIX "baud rate code %u is not defined; keeping the port as set up",
			t[SPCR_BAUD]);
		out->baud = 0;
	}
	return true;
}

bool acpi_spcr_address_ok(const struct acpi_spcr_info *spcr, const struct mem_range *map,
			  uint32_t nr_map, char *why, size_t why_bytes)
{
	/* Eight registers at the stride: the whole block must be clear of RAM. */
	if (spcr->io_port)
		return true;
	return fw_mmio_clear_of_ram(spcr->address, 8ULL * spcr->access_bytes, map, nr_map,
				    why, why_bytes);
}

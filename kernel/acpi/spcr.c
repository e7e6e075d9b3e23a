/*
 * spcr.c: the SPCR table (Microsoft's Serial Port Console Redirection
 * specification, which ACPI 6.5 5.2.6 lists as a reserved signature).
 *
 * Rules obeyed:
 *  - the fixed part is 80 bytes (revision 1 and 2; later revisions only add
 *    fields after it): interface type at 36, the UART's register block as a
 *    Generic Address Structure at 40, the configured baud rate code at 58;
 *  - interface types 0 (full 16550), 1 (16450, a 16550 subset) and 0x12
 *    (16550-compatible, parameters in the GAS) are 16550s; others (PL011,
 *    SBSA, ...) are not for memboot;
 *  - GAS space 1 is system I/O; space 0 is MMIO, where the access size
 *    (1 byte, 3 dword) gives the register width;
 *  - baud code 0 means "as is": the firmware already set the port up, and
 *    its divisor must be kept.
 */
#include "kernel/acpi/spcr.h"

#include <string.h>

#include "kernel/acpi/acpi_internal.h"
#include "kernel/log.h"

#define PREFIX "ACPI: SPCR: "
#define SPCR_MIN_BYTES 80

enum { SPCR_TYPE = 36, SPCR_GAS = 40, SPCR_BAUD = 58 };
enum { GAS_SPACE = 0, GAS_WIDTH = 1, GAS_OFFSET = 2, GAS_ACCESS = 3, GAS_ADDRESS = 4 };

bool acpi_spcr_parse(const void *table, size_t len, struct acpi_spcr_info *out)
{
	const uint8_t *t = table;
	uint64_t address;
	uint8_t space, access;

	memset(out, 0, sizeof(*out));
	if (!table || len < SPCR_MIN_BYTES) {
		pr_warn(PREFIX "%zu bytes, shorter than its 80-byte fixed part; ignored", len);
		return false;
	}
	out->interface_type = t[SPCR_TYPE];
	if (out->interface_type != 0 && out->interface_type != 1 && out->interface_type != 0x12) {
		pr_warn(PREFIX "interface type 0x%x is not a 16550; ignored", out->interface_type);
		return false;
	}
	space = t[SPCR_GAS + GAS_SPACE];
	access = t[SPCR_GAS + GAS_ACCESS];
	memcpy(&address, t + SPCR_GAS + GAS_ADDRESS, sizeof(address));
	if (address == 0) {
		pr_warn(PREFIX "UART address is 0; ignored");
		return false;
	}
	if (space == 1) {
		if (address > 0xfff8) {
			pr_warn(PREFIX "I/O port 0x%llx is beyond the 64 KiB I/O space; ignored",
				(unsigned long long)address);
			return false;
		}
		out->io_port = true;
		out->access_bytes = 1;
	} else if (space == 0) {
		/* Access size 0 (legacy) means byte registers. */
		if (access > 1 && access != 3) {
			pr_warn(PREFIX "MMIO UART with access size %u (only bytes or dwords); ignored",
				access);
			return false;
		}
		out->access_bytes = access == 3 ? 4 : 1;
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

/*
 * arch/uart.h: the early consoles an architecture offers: polled UARTs,
 * and a text screen where it has one.
 *
 *   x86_64   16550s at the PC's COM ports (ttyS0..ttyS3: 0x3f8, 0x2f8,
 *            0x3e8, 0x2e8, as every BIOS since the IBM PC assigns them), or
 *            memory-mapped where an ACPI SPCR table names one; VGA text
 *            mode at 0xb8000 on a BIOS boot
 *   arm64    a PL011 (ttyAMA0; QEMU virt: 0x9000000) or a 16550 the SPCR
 *            names; no text screen
 *   POWER    the hypervisor console (OPAL or hvc); no text screen
 *
 * No interrupts: output must work from exception handlers and before
 * anything else is set up.
 */
#ifndef MEMBOOT_ARCH_UART_H
#define MEMBOOT_ARCH_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per architecture: ARCH_UART_NAME, the prefix of the console= names of
 * its UARTs ("ttyS" on x86_64, as Linux names them), ARCH_UART_NAMED, how
 * many it names (ttyS0..ttyS3: 4), and ARCH_UART_NAMES, the names for
 * messages ("ttyS0..ttyS3"). */
#include "asm/uart.h"

/* The register layouts a firmware table may name (ACPI's SPCR). */
enum arch_uart_kind {
	ARCH_UART_16550 = 0,
	ARCH_UART_PL011 = 1,
};

struct arch_uart {
	uint64_t base;          /* I/O space address (x86_64's ports) or MMIO address */
	uint8_t mmio_bytes;     /* 0: I/O space; 1, 2 or 4: MMIO register width */
	uint8_t kind;           /* enum arch_uart_kind: a probe refuses a kind it does not drive */
};

/* The UART console= calls ARCH_UART_NAME<@index> (below ARCH_UART_NAMED);
 * index 0 is the console from the first instruction on. */
struct arch_uart arch_uart_named(unsigned index);

/* Whether a UART answers at @u (a probe that a read of nothing fails: the
 * 16550's scratch register and line status); false for a kind the
 * architecture does not drive. */
bool arch_uart_probe(const struct arch_uart *u);
/* Program 8N1, FIFOs on, no interrupts; @divisor (console_baud_divisor())
 * sets the speed, 0 keeps the one the firmware set. */
void arch_uart_init(const struct arch_uart *u, uint32_t divisor);
/* The divisor the UART runs at now (its clock / 16 / divisor baud). */
uint32_t arch_uart_divisor(const struct arch_uart *u);
/*
 * Write @len bytes ("\n" as "\r\n"), waiting up to @limit_cycles counter
 * cycles for the transmitter before each byte. Returns the bytes written:
 * fewer than @len when the UART stopped answering.
 */
size_t arch_uart_write_bounded(const struct arch_uart *u, const char *s, size_t len,
			       uint64_t limit_cycles);

/* The text screen where the architecture has one (x86_64: VGA text mode
 * at 0xb8000, 80x25, present on a BIOS boot): its address and size; false
 * where there is none. */
bool arch_text_screen(uint64_t *phys, unsigned *cols, unsigned *rows);

#endif

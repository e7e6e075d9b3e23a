/*
 * arch/serial.h: 16550 UARTs, polled: the serial consoles. A UART is an I/O
 * port base (COM1 0x3f8 ...) or a memory-mapped register block with byte or
 * dword registers (as an ACPI SPCR table may name).
 */
#ifndef MEMBOOT_ARCH_SERIAL_H
#define MEMBOOT_ARCH_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uart {
	uint64_t base;          /* I/O port or MMIO address */
	uint8_t mmio_bytes;     /* 0: I/O ports; 1, 2 or 4: MMIO register width */
};

#define UART_COM1 ((struct uart){ .base = 0x3f8 })

/* Whether a 16550 answers at @u (scratch register, line status not 0xff). */
bool uart_probe(const struct uart *u);
/* Program 8N1 and FIFOs; @divisor 0 keeps the speed the firmware set. */
void uart_init(const struct uart *u, uint32_t divisor);
/* The divisor the UART runs at now (1.8432 MHz / 16 / divisor baud). */
uint32_t uart_divisor(const struct uart *u);
/*
 * Write @len bytes ("\n" as "\r\n"), waiting up to @limit_cycles TSC cycles
 * for the transmitter before each byte. Returns the bytes written: fewer
 * than @len when the UART stopped answering.
 */
size_t uart_write_bounded(const struct uart *u, const char *s, size_t len, uint64_t limit_cycles);
/* uart_write_bounded() with about a second per byte (panics, no clock). */
void uart_write(const struct uart *u, const char *s, size_t len);

#endif

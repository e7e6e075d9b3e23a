/*
 * arch/serial.h: 16550 UARTs, polled: the serial consoles. A UART is an I/O
 * port base (COM1 0x3f8 ...) or a memory-mapped register block with byte or
 * dword registers (as an ACPI SPCR table may name).
 */
#ifndef MEMBOOT_ARCH_SERIAL_H
#define MEMBOOT_ARCH_SERIAL_H

#include <stddef.h>
#include <stdint.h>

struct uart {
	uint64_t base;          /* I/O port or MMIO address */
	uint8_t mmio_bytes;     /* 0: I/O ports; 1 or 4: MMIO register width */
};

#define UART_COM1 ((struct uart){ .base = 0x3f8 })

/* Program 8N1 and FIFOs; @divisor 0 keeps the speed the firmware set. */
void uart_init(const struct uart *u, uint32_t divisor);
void uart_write(const struct uart *u, const char *s, size_t len);

#endif

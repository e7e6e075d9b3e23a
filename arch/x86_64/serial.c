/*
 * serial.c: 16550 UARTs, polled. No interrupts: output must work from
 * exception handlers and before anything else is set up.
 */
#include "arch/serial.h"

#include "arch/io.h"

enum { THR = 0, IER = 1, DLL = 0, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_THR_EMPTY 0x20

static void reg_out(const struct uart *u, unsigned reg, uint8_t v)
{
	if (u->mmio_bytes == 4)
		*(volatile uint32_t *)(uintptr_t)(u->base + reg * 4) = v;
	else if (u->mmio_bytes == 1)
		*(volatile uint8_t *)(uintptr_t)(u->base + reg) = v;
	else
		outb((uint16_t)(u->base + reg), v);
}

static uint8_t reg_in(const struct uart *u, unsigned reg)
{
	if (u->mmio_bytes == 4)
		return (uint8_t)*(volatile uint32_t *)(uintptr_t)(u->base + reg * 4);
	if (u->mmio_bytes == 1)
		return *(volatile uint8_t *)(uintptr_t)(u->base + reg);
	return inb((uint16_t)(u->base + reg));
}

void uart_init(const struct uart *u, uint32_t divisor)
{
	reg_out(u, IER, 0x00);                 /* no interrupts */
	if (divisor) {
		reg_out(u, LCR, 0x80);         /* DLAB on: divisor follows */
		reg_out(u, DLL, (uint8_t)divisor);
		reg_out(u, DLM, (uint8_t)(divisor >> 8));
	}
	reg_out(u, LCR, 0x03);                 /* 8 bits, no parity, 1 stop bit */
	reg_out(u, FCR, 0xc7);                 /* FIFO on, cleared, 14-byte threshold */
	reg_out(u, MCR, 0x03);                 /* DTR, RTS */
}

static void put(const struct uart *u, char c)
{
	/* Bounded wait: a machine without a UART reads 0xff, which also has the
	 * empty bit set, so this never spins forever. */
	for (unsigned spins = 0; spins < 100000; spins++)
		if (reg_in(u, LSR) & LSR_THR_EMPTY)
			break;
	reg_out(u, THR, (unsigned char)c);
}

void uart_write(const struct uart *u, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			put(u, '\r');
		put(u, s[i]);
	}
}

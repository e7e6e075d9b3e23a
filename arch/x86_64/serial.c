/*
 * serial.c: COM1 at 115200 8N1, polled. No interrupts: output must work from
 * exception handlers and before anything else is set up.
 */
#include "arch/serial.h"

#include "arch/io.h"

#define COM1 0x3f8
enum { THR = 0, IER = 1, DLL = 0, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_THR_EMPTY 0x20

void serial_init(void)
{
	outb(COM1 + IER, 0x00);        /* no interrupts */
	outb(COM1 + LCR, 0x80);        /* DLAB on: divisor follows */
	outb(COM1 + DLL, 0x01);        /* 115200 / 1 */
	outb(COM1 + DLM, 0x00);
	outb(COM1 + LCR, 0x03);        /* 8 bits, no parity, 1 stop bit */
	outb(COM1 + FCR, 0xc7);        /* FIFO on, cleared, 14-byte threshold */
	outb(COM1 + MCR, 0x03);        /* DTR, RTS */
}

static void put(char c)
{
	/* Bounded wait: a machine without a UART reads 0xff, which also has the
	 * empty bit set, so this never spins forever. */
	for (unsigned spins = 0; spins < 100000; spins++)
		if (inb(COM1 + LSR) & LSR_THR_EMPTY)
			break;
	outb(COM1 + THR, (unsigned char)c);
}

void serial_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			put('\r');
		put(s[i]);
	}
}

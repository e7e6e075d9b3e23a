/*
 * serial.c: the early consoles (arch/uart.h): 16550 UARTs, polled, at the
 * PC's COM ports or memory-mapped; VGA text. No interrupts: output must
 * work from exception handlers and before anything else is set up.
 *
 * A UART that is slow is not absent. arch_uart_probe() finds out once
 * whether a 16550 is there at all (its scratch register keeps a value, its
 * line status is not 0xff, which is what a read of nothing gives on an ISA
 * bus or an unclaimed MMIO page); the console never waits on a UART that
 * failed it. On a UART that is there, arch_uart_write_bounded() waits for
 * the transmitter as long as the caller allows for each byte (the console
 * gives the time the baud rate needs, many times over), so a slow line
 * loses no byte; only a UART that stops answering for far longer makes it
 * return early.
 */
#include "arch/uart.h"

#include "arch/counter.h"
#include "arch/cpu.h"
#include "x86/cpu.h"
#include "x86/io.h"

/* The PC's serial ports, ttyS0..ttyS3 (COM1..COM4), as every BIOS since the
 * IBM PC assigns them. */
static const uint16_t com_ports[ARCH_UART_NAMED] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };

/* VGA text mode's frame buffer on a BIOS boot: 80x25 cells of two bytes. */
#define VGA_TEXT_PHYS 0xb8000

struct arch_uart arch_uart_named(unsigned index)
{
	return (struct arch_uart){ .base = com_ports[index < ARCH_UART_NAMED ? index : 0] };
}

bool arch_text_screen(uint64_t *phys, unsigned *cols, unsigned *rows)
{
	*phys = VGA_TEXT_PHYS;
	*cols = 80;
	*rows = 25;
	return true;
}

enum { THR = 0, IER = 1, DLL = 0, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5, SCR = 7 };
#define LSR_THR_EMPTY 0x20

static void reg_out(const struct arch_uart *u, unsigned reg, uint8_t v)
{
	if (u->mmio_bytes == 4)
		*(volatile uint32_t *)(uintptr_t)(u->base + reg * 4) = v;
	else if (u->mmio_bytes == 2)
		*(volatile uint16_t *)(uintptr_t)(u->base + reg * 2) = v;
	else if (u->mmio_bytes == 1)
		*(volatile uint8_t *)(uintptr_t)(u->base + reg) = v;
	else
		outb((uint16_t)(u->base + reg), v);
}

static uint8_t reg_in(const struct arch_uart *u, unsigned reg)
{
	if (u->mmio_bytes == 4)
		return (uint8_t)*(volatile uint32_t *)(uintptr_t)(u->base + reg * 4);
	if (u->mmio_bytes == 2)
		return (uint8_t)*(volatile uint16_t *)(uintptr_t)(u->base + reg * 2);
	if (u->mmio_bytes == 1)
		return *(volatile uint8_t *)(uintptr_t)(u->base + reg);
	return inb((uint16_t)(u->base + reg));
}

bool arch_uart_probe(const struct arch_uart *u)
{
	/* The 16450 and every 16550 have the scratch register at offset 7
	 * (the 8250 had none; no machine memboot runs on has one). Two
	 * patterns, so a bus that echoes the last value written (or reads
	 * 0x00/0xff) does not pass. */
	uint8_t saved;
	bool ok;

	if (u->kind != ARCH_UART_16550)
		return false;
	saved = reg_in(u, SCR);
	if (reg_in(u, LSR) == 0xff)
		return false;
	reg_out(u, SCR, 0x5a);
	ok = reg_in(u, SCR) == 0x5a;
	reg_out(u, SCR, 0xa5);
	ok = ok && reg_in(u, SCR) == 0xa5;
	reg_out(u, SCR, saved);
	return ok;
}

void arch_uart_init(const struct arch_uart *u, uint32_t divisor)
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

uint32_t arch_uart_divisor(const struct arch_uart *u)
{
	uint8_t lcr = reg_in(u, LCR);
	uint32_t div;

	reg_out(u, LCR, lcr | 0x80);
	div = reg_in(u, DLL) | (uint32_t)reg_in(u, DLM) << 8;
	reg_out(u, LCR, lcr & 0x7f);
	return div;
}

/*
 * Wait for the transmitter up to @limit_cycles; false if it never empties.
 * The UART counts as stuck only after that long and many status reads: a
 * CPU that was not running for a while (a hypervisor descheduling it, a
 * long SMI) has read the status a few times only, and gets more time.
 */
#define STUCK_MIN_POLLS 100000
static bool put(const struct arch_uart *u, char c, uint64_t limit_cycles)
{
	if (!(reg_in(u, LSR) & LSR_THR_EMPTY)) {
		uint64_t start = arch_counter(), polls = 0;

		while (!(reg_in(u, LSR) & LSR_THR_EMPTY)) {
			if (++polls > STUCK_MIN_POLLS && arch_counter() - start > limit_cycles)
				return false;
			arch_cpu_relax();
		}
	}
	reg_out(u, THR, (unsigned char)c);
	return true;
}

size_t arch_uart_write_bounded(const struct arch_uart *u, const char *s, size_t len,
			       uint64_t limit_cycles)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n' && !put(u, '\r', limit_cycles))
			return i;
		if (!put(u, s[i], limit_cycles))
			return i;
	}
	return len;
}

/*
 * uart.c (arm64): the PL011 console (arch/uart.h), ttyAMA0.
 *
 * PrimeCell UART (PL011) Technical Reference Manual, 3.3: UARTDR at 0x00,
 * UARTFR at 0x18 (TXFF bit 5: transmit FIFO full; BUSY bit 3), UARTIBRD
 * 0x24, UARTLCR_H 0x2c (WLEN 8 bits [6:5] = 3, FEN bit 4), UARTCR 0x30
 * (UARTEN bit 0, TXE bit 8, RXE bit 9), UARTPeriphID0 at 0xfe0 (0x11).
 *
 * The address is QEMU virt's (0x9000000), which its device tree's
 * stdout-path names too; the boot map makes it reachable from the first
 * instruction (Device-nGnRE). A UART elsewhere that the tree's stdout-path
 * names is added by phase console (kernel/init/console.c) once the tree
 * is parsed; the lines before it go to this one only.
 */
#include "arch/uart.h"

#include "a64/trap.h"
#include "arch/counter.h"

#define PL011_VIRT_BASE 0x9000000ULL
#define PL011_DR 0x00
#define PL011_FR 0x18
#define PL011_FR_TXFF (1u << 5)
#define PL011_IBRD 0x24
#define PL011_LCR_H 0x2c
#define PL011_CR 0x30
#define PL011_PERIPHID0 0xfe0

static inline uint32_t rd(const struct arch_uart *u, unsigned off)
{
	return *(const volatile uint32_t *)(uintptr_t)(u->base + off);
}

static inline void wr(const struct arch_uart *u, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)(u->base + off) = v;
}

struct arch_uart arch_uart_named(unsigned index)
{
	(void)index;
	return (struct arch_uart){ .base = PL011_VIRT_BASE, .mmio_bytes = 4, .kind = ARCH_UART_PL011 };
}

/* The PrimeCell identification: UARTPeriphID0 reads 0x11 on a PL011. An
 * address where nothing answers (an SPCR or a tree naming a UART that is
 * not there) takes an external abort on the read: a probe, not a fault. */
bool arch_uart_probe(const struct arch_uart *u)
{
	uint32_t id;

	return u->kind == ARCH_UART_PL011 && u->mmio_bytes == 4 &&
	       a64_probe_read32(u->base + PL011_PERIPHID0, &id) && (id & 0xff) == 0x11;
}

/* 8N1 with FIFOs, transmit and receive on; the speed the firmware set is
 * kept (the divisor needs UARTCLK, which only the device tree's clocks
 * give). */
void arch_uart_init(const struct arch_uart *u, uint32_t divisor)
{
	(void)divisor;
	wr(u, PL011_LCR_H, (3u << 5) | (1u << 4));
	wr(u, PL011_CR, (1u << 0) | (1u << 8) | (1u << 9));
}

uint32_t arch_uart_divisor(const struct arch_uart *u)
{
	return rd(u, PL011_IBRD) & 0xffff;
}

static bool put(const struct arch_uart *u, char c, uint64_t limit_cycles)
{
	const uint64_t start = arch_counter();

	while (rd(u, PL011_FR) & PL011_FR_TXFF)
		if (arch_counter() - start > limit_cycles)
			return false;
	wr(u, PL011_DR, (uint8_t)c);
	return true;
}

size_t arch_uart_write_bounded(const struct arch_uart *u, const char *s, size_t len,
			       uint64_t limit_cycles)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n' && !put(u, '\r', limit_cycles))
			break;
		if (!put(u, s[i], limit_cycles))
			break;
	}
	return i;
}

bool arch_text_screen(uint64_t *phys, unsigned *cols, unsigned *rows)
{
	(void)phys; (void)cols; (void)rows;
	return false;
}

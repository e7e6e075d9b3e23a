/*
 * uart.c (ppc64le): the console is the hypervisor's virtual terminal 0
 * (hvc0), written with H_PUT_TERM_CHAR (PAPR: r4 the terminal, r5 the
 * length, at most 16, r6 and r7 the bytes, the first in r6's most
 * significant byte); H_BUSY means try again. No registers, no speed.
 *
 * On PowerNV (skiboot, no hypervisor below the kernel) terminal 0 is
 * OPAL's console, written with OPAL_CONSOLE_WRITE (the terminal, the
 * length by reference, big-endian, updated to what was taken, the
 * buffer); what OPAL cannot take yet waits for OPAL_POLL_EVENTS.
 */
#include "arch/uart.h"

#include <string.h>

#include "arch/counter.h"
#include "p64/hcall.h"
#include "p64/opal.h"
#include "p64/regs.h"

struct arch_uart arch_uart_named(unsigned index)
{
	return (struct arch_uart){ .base = index, .mmio_bytes = 0 };
}

/* Terminal 0 always exists under PAPR; no other is offered. */
bool arch_uart_probe(const struct arch_uart *u)
{
	return u->base == 0;
}

void arch_uart_init(const struct arch_uart *u, uint32_t divisor)
{
	(void)u;
	(void)divisor;
}

uint32_t arch_uart_divisor(const struct arch_uart *u)
{
	(void)u;
	return 0;
}

static uint64_t be_word(const char *b, size_t n)
{
	uint64_t w = 0;

	for (size_t i = 0; i < 8; i++)
		w = w << 8 | (i < n ? (uint8_t)b[i] : 0);
	return w;
}

static bool opal_put(uint64_t term, const char *b, size_t n, uint64_t limit_cycles)
{
	const uint64_t start = arch_counter();
	volatile uint64_t length;   /* on the stack: its address is physical too */

	while (n) {
		length = __builtin_bswap64(n);
		const int64_t rc = ppc_opal_call(OPAL_CONSOLE_WRITE, term,
						 (uint64_t)(uintptr_t)&length,
						 (uint64_t)(uintptr_t)b, 0);
		const uint64_t took = rc == OPAL_SUCCESS ? __builtin_bswap64(length) : 0;
		if (rc != OPAL_SUCCESS && rc != OPAL_BUSY && rc != OPAL_BUSY_EVENT)
			return false;
		if (took > n)
			return false;
		b += took;
		n -= took;
		if (!n)
			return true;
		if (arch_counter() - start > limit_cycles)
			return false;
		ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0, 0);
	}
	return true;
}

static bool put(uint64_t term, const char *b, size_t n, uint64_t limit_cycles)
{
	const uint64_t start = arch_counter();

	if (ppc_powernv())
		return opal_put(term, b, n, limit_cycles);

	for (;;) {
		const int64_t rc = ppc_hcall(H_PUT_TERM_CHAR, term, n, be_word(b, n),
					     be_word(b + 8, n > 8 ? n - 8 : 0), 0);
		if (rc == H_SUCCESS)
			return true;
		if (rc != H_BUSY || arch_counter() - start > limit_cycles)
			return false;
	}
}

/* Up to 16 bytes a call, each '\n' preceded by '\r'. */
size_t arch_uart_write_bounded(const struct arch_uart *u, const char *s, size_t len,
			       uint64_t limit_cycles)
{
	char chunk[16];
	size_t done = 0;

	while (done < len) {
		size_t n = 0, used = 0;
		while (done + used < len && n < sizeof(chunk)) {
			const char c = s[done + used];
			if (c == '\n') {
				if (n + 2 > sizeof(chunk))
					break;
				chunk[n++] = '\r';
			}
			chunk[n++] = c;
			used++;
		}
		if (!put(u->base, chunk, n, limit_cycles))
			break;
		done += used;
	}
	return done;
}

bool arch_text_screen(uint64_t *phys, unsigned *cols, unsigned *rows)
{
	(void)phys; (void)cols; (void)rows;
	return false;
}

/*
 * uart.c (ppc64le): the console is the hypervisor's virtual terminal 0
 * (hvc0), written with H_PUT_TERM_CHAR (PAPR: r4 the terminal, r5 the
 * length, at most 16, r6 and r7 the bytes, the first in r6's most
 * significant byte); H_BUSY means try again. No registers, no speed.
 */
#include "arch/uart.h"

#include <string.h>

#include "arch/counter.h"
#include "p64/hcall.h"
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

static bool put(uint64_t term, const char *b, size_t n, uint64_t limit_cycles)
{
	const uint64_t start = arch_counter();

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

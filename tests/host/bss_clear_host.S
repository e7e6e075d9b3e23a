/*
 * bss_clear_host.S: the entries' .bss clearing macro (arch/bss_clear.h) as a
 * function the host tests call: void bss_clear_host(void *start, void *end).
 * The same macro the kernel's entry code expands, assembled for the host.
 */
#include "x86/bss_clear.h"

	.text
	.globl bss_clear_host
	.type bss_clear_host, @function
bss_clear_host:
	CLEAR_16B_ALIGNED %rdi, %rsi
	ret
	.size bss_clear_host, . - bss_clear_host

	.section .note.GNU-stack, "", @progbits

/*
 * asm/uart.h (arm64): the UART names of arch/uart.h: ttyAMA0, the PL011
 * (QEMU virt has one), as Linux's amba-pl011 driver names it.
 */
#ifndef MEMBOOT_ASM_UART_H
#define MEMBOOT_ASM_UART_H

#define ARCH_UART_NAME "ttyAMA"
#define ARCH_UART_NAMES "ttyAMA0"
#define ARCH_UART_NAMED 1

#endif

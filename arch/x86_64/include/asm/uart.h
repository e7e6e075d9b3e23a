/*
 * asm/uart.h (x86_64): the UART names of arch/uart.h: ttyS0..ttyS3, the
 * PC's four COM ports, as Linux names them.
 */
#ifndef MEMBOOT_ASM_UART_H
#define MEMBOOT_ASM_UART_H

#define ARCH_UART_NAME "ttyS"
#define ARCH_UART_NAMES "ttyS0..ttyS3"
#define ARCH_UART_NAMED 4

#endif

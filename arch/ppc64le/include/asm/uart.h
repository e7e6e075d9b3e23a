/*
 * asm/uart.h (ppc64le): the console names of arch/uart.h: hvc0, the
 * hypervisor console (OPAL or PAPR), as Linux's hvc drivers name it.
 */
#ifndef MEMBOOT_ASM_UART_H
#define MEMBOOT_ASM_UART_H

#define ARCH_UART_NAME "hvc"
#define ARCH_UART_NAMES "hvc0"
#define ARCH_UART_NAMED 1

#endif

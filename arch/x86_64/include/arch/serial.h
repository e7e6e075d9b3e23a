/*
 * arch/serial.h: the 16550 UART on COM1, polled; the kernel's console.
 */
#ifndef MEMBOOT_ARCH_SERIAL_H
#define MEMBOOT_ARCH_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *s, size_t len);

#endif

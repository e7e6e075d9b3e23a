/*
 * format.h: the kernel's printf-style formatting, integers and strings only.
 *
 * Every line and record the kernel writes is formatted here: in the kernel
 * image snprintf() and vsnprintf() are these functions (kernel/services/report/format.c),
 * not newlib's. newlib's vfprintf serves a hosted C library (locales,
 * wide characters, floating point, FILE buffers); a boot that formats a few
 * thousand numbers before its memory is usable paid 15 us a call for it
 * under QEMU's TCG, and its code had to be translated first (1.3 ms for
 * the first record). The kernel never formats floating point (it is built
 * -mgeneral-regs-only).
 *
 * What is supported, as C11 7.21.6.1 says for it: the flags '-', '+', ' ',
 * '#', '0'; a field width and a precision, either a number or '*'; the
 * length modifiers hh, h, l, ll, j, z, t; the conversions d i u o x X c s p
 * and %%. %p is "0x" and the address in lower-case hex (0x0 for NULL),
 * %s of NULL is "(null)", as newlib prints them. Anything else (%f, %n,
 * an L modifier) is copied to the output as written, so a format the
 * kernel should not use shows in the line instead of reading a va_arg of
 * the wrong type.
 */
#ifndef MEMBOOT_KERNEL_FORMAT_H
#define MEMBOOT_KERNEL_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* As vsnprintf(): writes at most @size bytes, the last a NUL (none when
 * @size is 0); returns the length the whole output would have. */
int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int format_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

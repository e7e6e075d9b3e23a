/*
 * format.c: printf-style formatting of integers and strings (kernel/services/report/format.h).
 */
#include "kernel/services/report/format.h"

#include <stdbool.h>
#include <stdint.h>

/* The output: bytes past @cap are counted, not written (C11 7.21.6.5:
 * the return value is the length the whole output would have had). */
struct sink {
	char *buf;
	size_t cap;     /* bytes that may hold text: size - 1 */
	size_t len;     /* bytes the output has so far, written or not */
};

static void put(struct sink *s, char c)
{
	if (s->len < s->cap)
		s->buf[s->len] = c;
	s->len++;
}

static void put_n(struct sink *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(s, p[i]);
}

static void pad(struct sink *s, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(s, c);
}

enum {
	F_LEFT = 1,      /* '-' */
	F_PLUS = 2,      /* '+' */
	F_SPACE = 4,     /* ' ' */
	F_ALT = 8,       /* '#' */
	F_ZERO = 16,     /* '0' */
};

/* A converted item: @prefix (sign, "0x") then @zeros zeros then @body,
 * padded to @width as the flags say. */
static void emit_field(struct sink *s, unsigned flags, size_t width, const char *prefix,
		       size_t prefix_len, size_t zeros, const char *body, size_t body_len)
{
	size_t total = prefix_len + zeros + body_len;
	size_t fill = width > total ? width - total : 0;

	if (!(flags & F_LEFT) && !(flags & F_ZERO))
		pad(s, ' ', fill);
	put_n(s, prefix, prefix_len);
	if (!(flags & F_LEFT) && (flags & F_ZERO))
		pad(s, '0', fill);
	pad(s, '0', zeros);
	put_n(s, body, body_len);
	if (flags & F_LEFT)
		pad(s, ' ', fill);
}

/* @v in @base, digits at the end of @buf (24 bytes hold 2^64 in octal);
 * returns where they start. */
static char *digits_of(unsigned long long v, unsigned base, bool upper, char *end)
{
	const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	do {
		*--p = xd[v % base];
		v /= base;
	} while (v);
	return p;
}

static void emit_integer(struct sink *s, unsigned flags, size_t width, int prec,
			 unsigned long long mag, bool negative, bool is_signed, unsigned base,
			 bool upper)
{
	char buf[24], prefix[2];
	size_t prefix_len = 0, ndig, zeros = 0;
	char *d = buf + sizeof(buf);

	/* C11 7.21.6.1p8: with a precision 0 flag is ignored, and a zero
	 * value with precision 0 has no digits. */
	if (prec >= 0)
		flags &= ~(unsigned)F_ZERO;
	if (!(prec == 0 && mag == 0))
		d = digits_of(mag, base, upper, buf + sizeof(buf));
	ndig = (size_t)(buf + sizeof(buf) - d);
	if (prec >= 0 && (size_t)prec > ndig)
		zeros = (size_t)prec - ndig;
	if (is_signed) {
		if (negative)
			prefix[prefix_len++] = '-';
		else if (flags & F_PLUS)
			prefix[prefix_len++] = '+';
		else if (flags & F_SPACE)
			prefix[prefix_len++] = ' ';
	}
	if ((flags & F_ALT) && base == 16 && mag != 0) {
		prefix[prefix_len++] = '0';
		prefix[prefix_len++] = upper ? 'X' : 'x';
	}
	/* '#' with o: the precision grows until the first digit is a 0. */
	if ((flags & F_ALT) && base == 8 && zeros == 0 && (ndig == 0 || *d != '0'))
		zeros = 1;
	emit_field(s, flags, width, prefix, prefix_len, zeros, d, ndig);
}

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T };

static long long signed_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H: return (short)va_arg(*ap, int);
	case LEN_L: return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_J: return va_arg(*ap, intmax_t);
	case LEN_Z: return (long long)va_arg(*ap, size_t);   /* the signed type of size_t's width */
	case LEN_T: return va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, int);
	}
}

static unsigned long long unsigned_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H: return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L: return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_J: return va_arg(*ap, uintmax_t);
	case LEN_Z: return va_arg(*ap, size_t);
	case LEN_T: return (unsigned long long)va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, unsigned int);
	}
}

/* A decimal number at *@p (advanced past it), saturating well below INT_MAX. */
static int number_at(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < 100000000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct sink s = { .buf = buf, .cap = size ? size - 1 : 0, .len = 0 };
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *p = fmt; *p;) {
		const char *start = p;
		unsigned flags = 0;
		size_t width = 0;
		int prec = -1;
		enum length len = LEN_NONE;

		if (*p != '%') {
			/* A run of literal text at once. */
			const char *q = p;
			while (*q && *q != '%')
				q++;
			put_n(&s, p, (size_t)(q - p));
			p = q;
			continue;
		}
		p++;
		for (;; p++) {
			if (*p == '-') flags |= F_LEFT;
			else if (*p == '+') flags |= F_PLUS;
			else if (*p == ' ') flags |= F_SPACE;
			else if (*p == '#') flags |= F_ALT;
			else if (*p == '0') flags |= F_ZERO;
			else break;
		}
		if (*p == '*') {
			int w = va_arg(ap, int);
			p++;
			/* C11 7.21.6.1p5: a negative width is '-' and its magnitude. */
			if (w < 0) {
				flags |= F_LEFT;
				w = w == -2147483647 - 1 ? 2147483647 : -w;
			}
			width = (size_t)w;
		} else {
			width = (size_t)number_at(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				prec = va_arg(ap, int);
				p++;
				if (prec < 0)
					prec = -1;   /* as if omitted */
			} else {
				prec = number_at(&p);
			}
		}
		if (flags & F_LEFT)
			flags &= ~(unsigned)F_ZERO;
		if (flags & F_PLUS)
			flags &= ~(unsigned)F_SPACE;
		switch (*p) {
		case 'h': len = p[1] == 'h' ? (p++, LEN_HH) : LEN_H; p++; break;
		case 'l': len = p[1] == 'l' ? (p++, LEN_LL) : LEN_L; p++; break;
		case 'j': len = LEN_J; p++; break;
		case 'z': len = LEN_Z; p++; break;
		case 't': len = LEN_T; p++; break;
		default: break;
		}
		switch (*p) {
		case 'd':
		case 'i': {
			long long v = signed_arg(&ap, len);
			unsigned long long mag = v < 0 ? 0ULL - (unsigned long long)v
						       : (unsigned long long)v;
			emit_integer(&s, flags, width, prec, mag, v < 0, true, 10, false);
			break;
		}
		case 'u':
			emit_integer(&s, flags, width, prec, unsigned_arg(&ap, len), false, false, 10, false);
			break;
		case 'o':
			emit_integer(&s, flags, width, prec, unsigned_arg(&ap, len), false, false, 8, false);
			break;
		case 'x':
		case 'X':
			emit_integer(&s, flags, width, prec, unsigned_arg(&ap, len), false, false, 16,
				     *p == 'X');
			break;
		case 'p': {
			/* "0x" even for NULL, as newlib prints it. */
			char dig[24];
			uintptr_t v = (uintptr_t)va_arg(ap, void *);
			char *d = digits_of(v, 16, false, dig + sizeof(dig));
			emit_field(&s, flags & F_LEFT, width, "0x", 2, 0, d,
				   (size_t)(dig + sizeof(dig) - d));
			break;
		}
		case 'c': {
			char c = (char)(unsigned char)va_arg(ap, int);
			emit_field(&s, flags & F_LEFT, width, NULL, 0, 0, &c, 1);
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			size_t n = 0;
			if (!str)
				str = "(null)";
			/* Never read past the precision: the string need not end there. */
			while ((prec < 0 || n < (size_t)prec) && str[n])
				n++;
			emit_field(&s, flags & F_LEFT, width, NULL, 0, 0, str, n);
			break;
		}
		case '%':
			put(&s, '%');
			break;
		case '\0':
			/* A lone '%' at the end: shown as written. */
			put_n(&s, start, (size_t)(p - start));
			continue;
		default:
			/* Not supported (format.h): the directive as written. */
			put_n(&s, start, (size_t)(p + 1 - start));
			break;
		}
		p++;
	}
	va_end(ap);
	if (size)
		buf[s.len < s.cap ? s.len : s.cap] = '\0';
	return s.len > 2147483647 ? 2147483647 : (int)s.len;
}

int format_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = format_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#ifndef MEMBOOT_HOST
/* In the kernel image these are the C library's names: newlib's own are
 * then never linked (format.h says why). */
#include <stdio.h>

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((alias("format_vsnprintf")));
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((alias("format_snprintf")));
#endif

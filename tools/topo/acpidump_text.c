/*
 * acpidump_text.c: ACPI tables read back from acpidump text.
 *
 * The layout is the one acpidump prints, acpixtract reads and the kernel
 * writes with memboot.dump_acpi (kernel/firmware/acpi/dump.c describes it). Only host
 * programs need this reader: tools/memboot topo (memboot-topo.c), the host
 * tests and a fuzzer; the kernel does not link it.
 */
#include "tools/topo/acpidump_text.h"

#include <stdbool.h>
#include <string.h>

#include "kernel/services/log.h"

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse hex digits at *p (at most 16); false if there are none or too many. */
static bool parse_hex(const char **p, const char *end, uint64_t *value)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && hex_value(*s) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)hex_value(*s++);
	}
	if (!n)
		return false;
	*p = s;
	*value = v;
	return true;
}

/* "SIG @ 0xADDRESS" */
static bool parse_header_line(const char *p, const char *end, char sig[5], uint64_t *phys)
{
	if (end - p < 10)
		return false;
	for (int i = 0; i < 4; i++)
		if (p[i] <= 0x20 || p[i] >= 0x7f)
			return false;
	if (memcmp(p + 4, " @ 0x", 5) != 0)
		return false;
	memcpy(sig, p, 4);
	sig[4] = '\0';
	p += 9;
	return parse_hex(&p, end, phys);
}

struct reader {
	uint8_t *buf;
	size_t cap;
	size_t len;             /* bytes of the current table so far */
	bool in_table;
	char sig[5];
	uint64_t phys;
	acpi_dump_table_fn fn;
	void *ctx;
	long nr_tables;
};

static void flush_table(struct reader *r)
{
	if (r->in_table && r->len) {
		r->fn(r->ctx, r->sig, r->phys, r->buf, r->len);
		r->nr_tables++;
	}
	r->in_table = false;
	r->len = 0;
}

/* "OFFSET: HH HH ...  ascii"; false after one warning if malformed. */
static bool parse_dump_line(struct reader *r, const char *p, const char *end,
			    uint32_t line_no)
{
	uint64_t offset;
	int count = 0;

	if (!parse_hex(&p, end, &offset) || p == end || *p != ':') {
		pr_warn("ACPI: acpidump text line %u: malformed %s dump line", line_no, r->sig);
		return false;
	}
	p++;
	if (offset != r->len) {
		pr_warn("ACPI: acpidump text line %u: %s offset 0x%llx, expected 0x%zx",
			line_no, r->sig, (unsigned long long)offset, r->len);
		return false;
	}
	if (p < end && *p == ' ')
		p++;
	while (count < 16 && end - p >= 2 && hex_value(p[0]) >= 0 && hex_value(p[1]) >= 0) {
		if (end - p > 2 && p[2] != ' ')
			break;
		if (r->len == r->cap) {
			pr_warn("ACPI: acpidump text line %u: %s is larger than the 0x%zx-byte buffer",
				line_no, r->sig, r->cap);
			return false;
		}
		r->buf[r->len++] = (uint8_t)(hex_value(p[0]) << 4 | hex_value(p[1]));
		count++;
		p += 2;
		if (p == end)
			break;
		p++;            /* the space after the byte */
		if (p == end || *p == ' ')
			break;  /* two spaces: the ASCII column follows */
	}
	if (!count) {
		pr_warn("ACPI: acpidump text line %u: %s dump line holds no bytes",
			line_no, r->sig);
		return false;
	}
	return true;
}

long acpi_parse_acpidump_text(const char *text, size_t text_len, uint8_t *buf,
			      size_t cap, acpi_dump_table_fn fn, void *ctx)
{
	struct reader r = { .buf = buf, .cap = cap, .fn = fn, .ctx = ctx };
	const char *p = text, *text_end = text + text_len;
	uint32_t line_no = 0;

	while (p < text_end) {
		const char *nl = memchr(p, '\n', (size_t)(text_end - p));
		const char *end = nl ? nl : text_end;
		const char *s = p;
		char sig[5];
		uint64_t phys;

		line_no++;
		p = nl ? nl + 1 : text_end;
		if (end > s && end[-1] == '\r')
			end--;
		if (s < end && *s == '[') {             /* kernel log timestamp */
			const char *q = memchr(s, ']', (size_t)(end - s));
			if (q)
				s = q + 1;
		}
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;

		if (parse_header_line(s, end, sig, &phys)) {
			flush_table(&r);
			memcpy(r.sig, sig, sizeof(sig));
			r.phys = phys;
			r.in_table = true;
			continue;
		}
		if (s == end) {
			/* A blank line ends a table in acpidump's layout: what
			 * follows (more log text) is not part of it. */
			flush_table(&r);
			continue;
		}
		if (!r.in_table || hex_value(*s) < 0)
			continue;
		{
			const char *q = s;
			uint64_t ignored;
			/* Only "HEX:" lines are dump lines; anything else is noise. */
			if (!parse_hex(&q, end, &ignored) || q == end || *q != ':')
				continue;
		}
		if (!parse_dump_line(&r, s, end, line_no))
			return -1;
	}
	flush_table(&r);
	return r.nr_tables;
}

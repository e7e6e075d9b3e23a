/*
 * dump.c: tables as acpidump text, both ways.
 *
 * The layout is the one acpidump prints and acpixtract reads:
 *
 *   SRAT @ 0x000000007FFE2361
 *       0000: 53 52 41 54 10 01 00 00 01 2E 42 4F 43 48 53 20  SRAT......BOCHS
 *       ...
 *   (an empty line)
 *
 * The offset is at least four hex digits, right-aligned in eight columns;
 * each byte is two upper-case digits and a space; one more space separates
 * the bytes from their ASCII (printable characters as themselves, others as
 * '.'); a short last line is padded so that its ASCII lines up.
 *
 * The kernel prints it behind a command-line flag (memboot.dump_acpi); the
 * reader that cuts the tables back out of a serial log lives with the host
 * tool that uses it (tools/topo/acpidump_text.c), as acpixtract does.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

static const char hex_digits[] = "0123456789ABCDEF";

size_t acpi_dump_format_line(char *buf, size_t cap, const void *bytes, size_t len,
			     size_t offset)
{
	const uint8_t *p = bytes;
	char digits[2 * sizeof(size_t)];
	size_t nd = 0, n, pos = 0, count;

	if (offset >= len)
		return 0;
	count = len - offset < 16 ? len - offset : 16;
	for (size_t x = offset; x || nd < 4; x >>= 4)
		digits[nd++] = hex_digits[x & 15];
	n = (nd < 8 ? 8 : nd) + 2 + 16 * 3 + 1 + count;
	if (cap < n + 1)
		return 0;

	for (size_t i = nd; i < 8; i++)
		buf[pos++] = ' ';
	while (nd)
		buf[pos++] = digits[--nd];
	buf[pos++] = ':';
	buf[pos++] = ' ';
	for (size_t i = 0; i < 16; i++) {
		if (i < count) {
			buf[pos++] = hex_digits[p[offset + i] >> 4];
			buf[pos++] = hex_digits[p[offset + i] & 15];
		} else {
			buf[pos++] = ' ';
			buf[pos++] = ' ';
		}
		buf[pos++] = ' ';
	}
	buf[pos++] = ' ';
	for (size_t i = 0; i < count; i++) {
		uint8_t c = p[offset + i];
		buf[pos++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
	}
	buf[pos] = '\0';
	return pos;
}

void acpi_dump_table(const char *sig, uint64_t phys, const void *bytes, size_t len)
{
	char line[ACPI_DUMP_LINE_BYTES];
	char name[5];

	acpi_copy_name(name, sig, 4);
	pr_info("%-4.4s @ 0x%016llX", name, (unsigned long long)phys);
	for (size_t off = 0; off < len; off += 16) {
		if (acpi_dump_format_line(line, sizeof(line), bytes, len, off))
			pr_info("%s", line);
	}
	pr_info("%s", "");
}

void acpi_dump_tables(const struct acpi_tables *dir)
{
	size_t rsdp_len = dir->rsdp.revision >= 2 && dir->rsdp_bytes_len >= ACPI_RSDP_V2_BYTES
			  ? ACPI_RSDP_V2_BYTES : ACPI_RSDP_V1_BYTES;

	if (dir->rsdp_bytes_len >= ACPI_RSDP_V1_BYTES)
		acpi_dump_table("RSDP", dir->rsdp_phys, dir->rsdp_bytes, rsdp_len);
	for (uint32_t i = 0; i < dir->nr_tables; i++) {
		const struct acpi_table_info *t = &dir->tables[i];
		acpi_dump_table(t->signature, t->phys, t->bytes, t->length);
	}
}

/*
 * acpidump_text.h: ACPI tables read back from acpidump text, for host tools.
 */
#ifndef MEMBOOT_TOOLS_TOPO_ACPIDUMP_TEXT_H
#define MEMBOOT_TOOLS_TOPO_ACPIDUMP_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* One table read back from acpidump text. */
typedef void (*acpi_dump_table_fn)(void *ctx, const char *sig, uint64_t phys,
				   const uint8_t *bytes, size_t len);

/*
 * Read acpidump text (from acpidump, or acpi_dump_table() output captured
 * from a serial log, where each line may start with a "[    0.123456] "
 * timestamp) and call @fn once per table with its bytes, decoded into @buf of
 * @cap bytes (reused for each table). Lines that are neither a table header
 * nor a dump line are ignored. Returns the number of tables, or -1 with a
 * warning if a dump line is malformed, out of sequence, or a table does not
 * fit in @buf (tables before it were already delivered).
 */
long acpi_parse_acpidump_text(const char *text, size_t text_len, uint8_t *buf,
			      size_t cap, acpi_dump_table_fn fn, void *ctx);

#endif

/*
 * fuzz_acpi_dump_text.c: acpi_parse_acpidump_text() on arbitrary text (a
 * serial log is firmware-controlled in part), with every table it delivers
 * checked to fit the buffer and re-dumped.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tools/topo/acpidump_text.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

struct state {
	const uint8_t *buf;
	size_t cap;
	long nr;
};

static void table(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes, size_t len)
{
	struct state *st = ctx;
	char line[ACPI_DUMP_LINE_BYTES];

	CHECK(bytes == st->buf && len >= 1 && len <= st->cap);
	CHECK(strlen(sig) == 4);
	CHECK(acpi_dump_format_line(line, sizeof(line), bytes, len, 0) > 0);
	st->nr++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[4096];
	struct state st = { .buf = buf, .cap = sizeof(buf) };
	char *text = malloc(size ? size : 1);
	long n;

	memcpy(text, data, size);
	host_log_reset();
	n = acpi_parse_acpidump_text(text, size, buf, sizeof(buf), table, &st);
	CHECK(n == -1 || n == st.nr);
	free(text);
	return 0;
}

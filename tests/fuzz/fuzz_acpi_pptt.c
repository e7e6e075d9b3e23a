/*
 * fuzz_acpi_pptt.c: acpi_pptt_parse() on one table (the whole input).
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

static struct acpi_pptt_info info;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	host_log_reset();
	if (!acpi_pptt_parse(data, size, &info)) {
		CHECK(info.nr_nodes == 0 && info.nr_caches == 0);
		return 0;
	}
	/* Each node is at least 20 bytes after the 36-byte header. */
	CHECK((uint64_t)info.nr_nodes * 20 + 36 <= size);
	CHECK(info.nr_processors <= info.nr_nodes);
	CHECK(info.nr_packages + info.nr_clusters + info.nr_cores + info.nr_threads <= info.nr_nodes);
	CHECK(info.nr_caches <= ACPI_PPTT_MAX_CACHE_KINDS);
	for (uint32_t i = 0; i < info.nr_caches; i++) {
		const struct acpi_pptt_cache *c = &info.caches[i];

		CHECK(c->level >= 1 && c->level <= 16 * 16 && c->type <= ACPI_PPTT_CACHE_UNIFIED);
		CHECK(c->count >= 1 && c->cpus <= info.nr_processors);
	}
	return 0;
}

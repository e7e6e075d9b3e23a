/*
 * fuzz_acpi_srat.c: acpi_srat_parse() on one table (the whole input).
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_srat_info s;

	host_log_reset();
	if (!acpi_srat_parse(data, size, &s)) {
		CHECK(s.nr_cpus == 0 && s.nr_mems == 0);
		return 0;
	}
	CHECK(s.nr_cpus <= ACPI_SRAT_MAX_CPUS && s.nr_mems <= ACPI_SRAT_MAX_MEMS);
	CHECK(s.nr_cpus + s.nr_mems + s.nr_disabled + s.nr_ignored +
	      s.nr_dropped_cpus + s.nr_dropped_mems <= s.nr_entries);
	for (uint32_t i = 0; i < s.nr_mems; i++) {
		CHECK(s.mems[i].start < s.mems[i].end);
		if (s.revision < 2)
			CHECK(s.mems[i].pxm <= 0xff);
	}
	for (uint32_t i = 0; i < s.nr_cpus; i++)
		for (uint32_t j = 0; j < i; j++)
			CHECK(s.cpus[j].hwid != s.cpus[i].hwid);
	return 0;
}

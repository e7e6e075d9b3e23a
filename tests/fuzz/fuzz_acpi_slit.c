/*
 * fuzz_acpi_slit.c: acpi_slit_parse() on one table (the whole input), then
 * every distance through acpi_slit_distance().
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acpi_slit_info s;
	bool valid;

	host_log_reset();
	valid = acpi_slit_parse(data, size, &s);
	CHECK(valid == s.valid);
	if (!s.nr_localities) {
		CHECK(!valid && !s.matrix);
		return 0;
	}
	CHECK(s.nr_localities <= ACPI_SLIT_MAX_LOCALITIES);
	CHECK(s.matrix >= data + 44 &&
	      (size_t)(s.matrix - data) + (size_t)s.nr_localities * s.nr_localities <= size);
	for (uint32_t i = 0; i <= s.nr_localities; i++) {
		for (uint32_t j = 0; j <= s.nr_localities; j++) {
			uint8_t d = acpi_slit_distance(&s, i, j);
			if (i == s.nr_localities || j == s.nr_localities)
				CHECK(d == 0);
			else if (valid)
				CHECK(i == j ? d == 10 : d > 10);
		}
	}
	return 0;
}

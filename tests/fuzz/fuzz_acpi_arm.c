/*
 * fuzz_acpi_arm.c: the arm64 tables' parsers on one table (the whole
 * input): acpi_gtdt_parse() and acpi_fadt_arm_boot().
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acpi_gtdt_info g;
	struct acpi_arm_boot b;

	host_log_reset();
	if (acpi_gtdt_parse(data, size, &g)) {
		CHECK(size >= 96);
		/* Each platform timer needs 4 bytes inside the table. */
		CHECK((uint64_t)g.nr_platform_timers * 4 <= size);
		if (g.revision < 3)
			CHECK(g.virt_el2_gsiv == 0 && g.virt_el2_flags == 0);
	} else {
		CHECK(g.el1_gsiv == 0 && g.nr_platform_timers == 0);
	}
	if (acpi_fadt_arm_boot(data, size, &b))
		CHECK(b.psci && size >= 131);
	else
		CHECK(!b.psci && !b.psci_hvc);
	return 0;
}

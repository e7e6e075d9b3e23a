/*
 * fuzz_acpi_madt.c: acpi_madt_parse() on one table (the whole input).
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_madt_info m;

	host_log_reset();
	if (!acpi_madt_parse(data, size, &m)) {
		CHECK(m.nr_cpus == 0 && m.nr_entries == 0);
		return 0;
	}
	CHECK(m.nr_cpus <= ACPI_MADT_MAX_CPUS);
	CHECK(m.nr_nmis <= ACPI_MADT_MAX_NMIS);
	for (uint32_t i = 0; i < m.nr_nmis; i++)
		CHECK(m.nmis[i].lint <= 1);
	(void)acpi_lint_nmi_of(&m, 0);
	CHECK(m.nr_cpus + m.nr_disabled + m.nr_ignored + m.nr_dropped <= m.nr_entries);
	CHECK(m.nr_gicr <= ACPI_MADT_MAX_GICR_RANGES && m.gic_version <= 4);
	CHECK(m.nr_gicd || (m.gicd_phys == 0 && m.gic_version == 0));
	for (uint32_t i = 0; i < m.nr_gicr; i++)
		CHECK(m.gicr[i].base && m.gicr[i].length);
	for (uint32_t i = 0; i < m.nr_cpus; i++) {
		CHECK(m.cpus[i].enabled || m.cpus[i].online_capable);
		CHECK(!m.cpus[i].gicc || !m.cpus[i].ext_id);
		for (uint32_t j = 0; j < i; j++)
			CHECK(m.cpus[j].hwid != m.cpus[i].hwid);
	}
	return 0;
}

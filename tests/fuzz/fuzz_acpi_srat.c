/*
 * fuzz_acpi_srat.c: acpi_srat_parse() on one table (the whole input).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	for (uint32_t i = 0; i < s.nr_cpus; i++) {
		CHECK(s.cpus[i].by_uid == s.cpus[i].gicc);
		for (uint32_t j = 0; j < i; j++)
			if (s.cpus[i].by_uid == s.cpus[j].by_uid)
				CHECK(s.cpus[j].hwid != s.cpus[i].hwid);
	}
	/* GICC affinities resolved through a MADT of four GICCs (UIDs 0..3,
	 * MPIDRs 0x100 + UID): every entry left names a hardware id. */
	{
		static struct acpi_madt_info m;
		uint32_t before = s.nr_cpus, by_uid = 0, resolved;

		memset(&m, 0, sizeof(m));
		for (uint32_t i = 0; i < 4; i++)
			m.cpus[m.nr_cpus++] = (struct acpi_cpu){ .hwid = 0x100 + i, .acpi_uid = i,
								 .enabled = true, .gicc = true };
		for (uint32_t i = 0; i < s.nr_cpus; i++)
			by_uid += s.cpus[i].by_uid && s.cpus[i].hwid < 4;
		resolved = acpi_srat_resolve_uids(&s, &m);
		CHECK(resolved == by_uid && s.nr_cpus <= before);
		for (uint32_t i = 0; i < s.nr_cpus; i++)
			CHECK(!s.cpus[i].by_uid && (!s.cpus[i].gicc ||
						    (s.cpus[i].hwid >= 0x100 && s.cpus[i].hwid < 0x104)));
	}
	return 0;
}

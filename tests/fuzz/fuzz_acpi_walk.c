/*
 * fuzz_acpi_walk.c: acpi_walk() over firmware memory made of the input.
 *
 * Input: one control byte, then "physical memory" starting at address 0.
 * The RSDP copy is the first 36 bytes of that memory (20 if control bit 1 is
 * set); control bit 0 turns off checksum enforcement, so that the fuzzer
 * reaches the table parsers without having to solve checksums; bit 2 also
 * dumps every table. The map callback hands out offsets into the input, and
 * NULL for anything past its end. Every MADT, SRAT and SLIT the walk finds is
 * parsed too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

struct memory {
	const uint8_t *data;
	size_t size;
};

static const void *fuzz_map(void *ctx, uint64_t phys, size_t len)
{
	const struct memory *m = ctx;

	if (phys > m->size || len > m->size - phys)
		return NULL;
	return m->data + phys;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_tables dir;
	static struct acpi_madt_info madt;
	static struct acpi_srat_info srat;
	struct acpi_slit_info slit;
	struct memory mem;
	uint8_t control, *rsdp;
	size_t rsdp_len;
	unsigned flags;

	if (size < 1)
		return 0;
	control = data[0];
	mem.data = data + 1;
	mem.size = size - 1;
	flags = control & 1 ? ACPI_WALK_IGNORE_CHECKSUMS : 0;
	rsdp_len = control & 2 ? ACPI_RSDP_V1_BYTES : ACPI_RSDP_V2_BYTES;
	if (rsdp_len > mem.size)
		rsdp_len = mem.size;
	/* An exact-size copy, as bootinfo holds it, so overreads are caught. */
	rsdp = malloc(rsdp_len ? rsdp_len : 1);
	memcpy(rsdp, mem.data, rsdp_len);

	host_log_reset();
	if (acpi_walk(&dir, rsdp, rsdp_len, 0, fuzz_map, &mem, flags) == ACPI_OK) {
		CHECK(dir.nr_tables >= 1 && dir.nr_tables <= ACPI_MAX_TABLES);
		for (uint32_t i = 0; i < dir.nr_tables; i++) {
			const struct acpi_table_info *t = &dir.tables[i];

			CHECK(t->phys <= mem.size && t->length <= mem.size - t->phys);
			CHECK((const uint8_t *)t->bytes == mem.data + t->phys);
			CHECK(acpi_tables_find(&dir, t->signature) != NULL);
			if (strcmp(t->signature, "APIC") == 0) {
				if (acpi_madt_parse(t->bytes, t->length, &madt))
					CHECK(madt.nr_cpus <= ACPI_MADT_MAX_CPUS);
			} else if (strcmp(t->signature, "SRAT") == 0) {
				if (acpi_srat_parse(t->bytes, t->length, &srat))
					CHECK(srat.nr_cpus <= ACPI_SRAT_MAX_CPUS &&
					      srat.nr_mems <= ACPI_SRAT_MAX_MEMS);
			} else if (strcmp(t->signature, "SLIT") == 0) {
				acpi_slit_parse(t->bytes, t->length, &slit);
				if (slit.nr_localities)
					CHECK(acpi_slit_distance(&slit, slit.nr_localities - 1,
								 slit.nr_localities - 1) != 0 ||
					      !slit.valid);
			}
		}
		acpi_print_tables(&dir);
		if (control & 4)
			acpi_dump_tables(&dir);
	}
	free(rsdp);
	return 0;
}

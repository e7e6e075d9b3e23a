/*
 * madt.c: the MADT ("APIC"), for the list of processors.
 *
 * Rules obeyed (ACPI 6.5, 5.2.12):
 *  - after the 36-byte header come the 32-bit local APIC address and the
 *    flags, then entries of (type, length, ...), each length bytes long;
 *  - a processor is usable if its Enabled flag is set, or, from MADT
 *    revision 5 (ACPI 6.3) on, its Online Capable flag (hot-pluggable). In
 *    older tables that bit is reserved, and a processor without Enabled is
 *    simply absent (QEMU's -smp 2,maxcpus=4 lists APIC IDs 2 and 3 so);
 *  - x2APIC entries (type 9) describe processors the same way with 32-bit IDs;
 *    0xff (xAPIC) and 0xffffffff (x2APIC) are not processor IDs;
 *  - a type 5 entry replaces the 32-bit local APIC address with a 64-bit one.
 * Everything else (I/O APICs, interrupt overrides, NMI sources...) is skipped
 * by its length.
 */
#include "kernel/acpi/acpi_internal.h"

#include "kernel/log.h"

#define PREFIX "ACPI: MADT: "

static void add_cpu(struct acpi_madt_info *out, const struct acpi_cpu *cpu,
		    uint32_t off)
{
	const char *kind = cpu->x2apic ? "x2APIC" : "local APIC";

	if (!cpu->enabled && !cpu->online_capable) {
		out->nr_disabled++;
		return;
	}
	if (cpu->apic_id == (cpu->x2apic ? 0xffffffffu : 0xffu)) {
		pr_warn(PREFIX "%s entry at offset 0x%x has the invalid ID 0x%x; ignored",
			kind, off, cpu->apic_id);
		out->nr_ignored++;
		return;
	}
	for (uint32_t i = 0; i < out->nr_cpus; i++) {
		if (out->cpus[i].apic_id == cpu->apic_id) {
			pr_warn(PREFIX "%s entry at offset 0x%x repeats APIC ID 0x%x; ignored",
				kind, off, cpu->apic_id);
			out->nr_ignored++;
			return;
		}
	}
	if (out->nr_cpus == ACPI_MADT_MAX_CPUS) {
		if (out->nr_dropped++ == 0)
			pr_warn(PREFIX "more than %u processors; APIC ID 0x%x (offset 0x%x) and later ones dropped",
				ACPI_MADT_MAX_CPUS, cpu->apic_id, off);
		return;
	}
	out->cpus[out->nr_cpus++] = *cpu;
}

bool acpi_madt_parse(const void *table, size_t len, struct acpi_madt_info *out)
{
	struct acpi_madt_header h;
	struct acpi_subtables it;
	const uint8_t *entry;
	uint8_t type, length;
	uint32_t table_len, off;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "APIC", sizeof(h), PREFIX);
	if (!table_len)
		return false;
	memcpy(&h, table, sizeof(h));
	out->lapic_phys = h.lapic_address;
	out->flags = h.flags;
	out->revision = h.header.revision;

	acpi_subtables_init(&it, table, table_len, sizeof(h), PREFIX);
	while (acpi_subtables_next(&it, &entry, &type, &length, &off)) {
		struct acpi_cpu cpu = { 0 };

		out->nr_entries++;
		switch (type) {
		case ACPI_MADT_LOCAL_APIC: {
			struct acpi_madt_local_apic e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "local APIC", off, length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			cpu.apic_id = e.apic_id;
			cpu.acpi_uid = e.processor_uid;
			cpu.enabled = e.flags & ACPI_MADT_ENABLED;
			cpu.online_capable = out->revision >= ACPI_MADT_ONLINE_CAPABLE_REVISION &&
					     (e.flags & ACPI_MADT_ONLINE_CAPABLE);
			add_cpu(out, &cpu, off);
			break;
		}
		case ACPI_MADT_LOCAL_X2APIC: {
			struct acpi_madt_local_x2apic e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "x2APIC", off, length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			cpu.apic_id = e.x2apic_id;
			cpu.acpi_uid = e.processor_uid;
			cpu.enabled = e.flags & ACPI_MADT_ENABLED;
			cpu.online_capable = out->revision >= ACPI_MADT_ONLINE_CAPABLE_REVISION &&
					     (e.flags & ACPI_MADT_ONLINE_CAPABLE);
			cpu.x2apic = true;
			add_cpu(out, &cpu, off);
			break;
		}
		case ACPI_MADT_LAPIC_OVERRIDE: {
			struct acpi_madt_lapic_override e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "local APIC address override", off,
						     length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			out->lapic_phys = e.address;
			break;
		}
		default:
			break;
		}
	}
	out->truncated = it.truncated;
	return true;
}

/*
 * srat.c: the SRAT, for the proximity domain of each CPU and memory range.
 *
 * Rules obeyed (ACPI 6.5, 5.2.16):
 *  - after the 36-byte header come 12 reserved bytes, then entries of
 *    (type, length, ...), each length bytes long;
 *  - type 0 gives an xAPIC ID's domain, type 2 an x2APIC ID's, type 1 a
 *    memory range's; an entry without its Enabled flag is to be ignored;
 *  - SRAT revision 1 (ACPI 2.0) had 8-bit proximity domains, the bytes that
 *    widen them to 32 bits being reserved then; QEMU still writes revision 1
 *    tables, with small domains, so masking loses nothing there;
 *  - memory ranges are (base, length) and may be hot-pluggable or
 *    non-volatile;
 *  - types 5 (generic initiator, ACPI 6.3) and 6 (generic port, 6.5) are 32
 *    bytes: device handle type at 3 (0 ACPI _HID/_UID, 1 PCI segment/BDF),
 *    proximity domain at 4, the 16-byte handle at 8, flags at 24 (bit 0
 *    enabled, bit 1 architectural transactions).
 *  - type 3 (GICC affinity, 18 bytes) gives the domain (at 2) of the
 *    processor with an ACPI UID (at 6), flags at 10 (bit 0 enabled): the
 *    processor's MPIDR is the MADT's, which acpi_srat_resolve_uids() looks
 *    up; revision 1's 8-bit domains do not apply (the type is ACPI 5.1's).
 * Other types (GIC ITS affinity) are skipped.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: SRAT: "

static void add_cpu(struct acpi_srat_info *out, const struct acpi_srat_cpu *cpu,
		    uint32_t off)
{
	for (uint32_t i = 0; i < out->nr_cpus; i++) {
		if (cpu->by_uid) {
			if (!out->cpus[i].by_uid || out->cpus[i].hwid != cpu->hwid)
				continue;
			pr_warn(PREFIX "processor UID %u listed again at offset 0x%x with PXM %u; its first PXM %u is kept",
				cpu->hwid, off, cpu->pxm, out->cpus[i].pxm);
			out->nr_ignored++;
			return;
		}
		if (!out->cpus[i].by_uid && out->cpus[i].hwid == cpu->hwid) {
			pr_warn(PREFIX "APIC ID 0x%x listed again at offset 0x%x with PXM %u; its first PXM %u is kept",
				cpu->hwid, off, cpu->pxm, out->cpus[i].pxm);
			out->nr_ignored++;
			return;
		}
	}
	if (out->nr_cpus == ACPI_SRAT_MAX_CPUS) {
		if (out->nr_dropped_cpus++ == 0)
			pr_warn(PREFIX "more than %u CPU affinities; APIC ID 0x%x (offset 0x%x) and later ones dropped",
				ACPI_SRAT_MAX_CPUS, cpu->hwid, off);
		return;
	}
	out->cpus[out->nr_cpus++] = *cpu;
}

static void add_mem(struct acpi_srat_info *out, const struct acpi_srat_mem_affinity *e,
		    uint32_t pxm, uint32_t off)
{
	struct acpi_srat_mem *m;
	uint64_t end;

	if (!e->length) {
		pr_warn(PREFIX "memory affinity at offset 0x%x (PXM %u, base 0x%llx) is enabled but empty; ignored",
			off, pxm, (unsigned long long)e->base);
		out->nr_ignored++;
		return;
	}
	if (e->length > UINT64_MAX - e->base) {
		if (e->base == UINT64_MAX) {
			pr_warn(PREFIX "memory affinity at offset 0x%x (PXM %u) starts at 0x%llx, the last byte of the address space; ignored",
				off, pxm, (unsigned long long)e->base);
			out->nr_ignored++;
			return;
		}
		end = UINT64_MAX;
		pr_warn(PREFIX "memory affinity at offset 0x%x (PXM %u): base 0x%llx + length 0x%llx wraps; clipped to end at 0x%llx",
			off, pxm, (unsigned long long)e->base,
			(unsigned long long)e->length, (unsigned long long)end);
	} else {
		end = e->base + e->length;
	}
	if (out->nr_mems == ACPI_SRAT_MAX_MEMS) {
		if (out->nr_dropped_mems++ == 0)
			pr_warn(PREFIX "more than %u memory affinities; [mem 0x%llx-0x%llx] (offset 0x%x) and later ones dropped",
				ACPI_SRAT_MAX_MEMS, (unsigned long long)e->base,
				(unsigned long long)(end - 1), off);
		return;
	}
	m = &out->mems[out->nr_mems++];
	m->pxm = pxm;
	m->start = e->base;
	m->end = end;
	m->hotplug = e->flags & ACPI_SRAT_MEM_HOTPLUG;
	m->nonvolatile = e->flags & ACPI_SRAT_MEM_NONVOLATILE;
}

#define SRAT_GENERIC_BYTES 32

static void add_generic(struct acpi_srat_info *out, const uint8_t *e, uint8_t type,
			uint32_t pxm_mask, uint32_t off)
{
	struct acpi_srat_generic *g;
	uint32_t flags, pxm;

	memcpy(&flags, e + 24, 4);
	if (!(flags & ACPI_SRAT_ENABLED)) {
		out->nr_disabled++;
		return;
	}
	memcpy(&pxm, e + 4, 4);
	if (out->nr_generic == ACPI_SRAT_MAX_GENERIC) {
		if (out->nr_dropped_generic++ == 0)
			pr_warn(PREFIX "more than %u generic initiators and ports; offset 0x%x and later ones dropped",
				ACPI_SRAT_MAX_GENERIC, off);
		return;
	}
	g = &out->generic[out->nr_generic++];
	memset(g, 0, sizeof(*g));
	g->type = type;
	g->handle_type = e[3];
	g->pxm = pxm & pxm_mask;
	g->architectural = flags & 2u;
	if (g->handle_type == 0) {
		acpi_copy_name(g->acpi_hid, e + 8, 8);
		memcpy(&g->acpi_uid, e + 16, 4);
	} else {
		memcpy(&g->pci_segment, e + 8, 2);
		memcpy(&g->pci_bdf, e + 10, 2);
		if (g->handle_type != 1)
			pr_warn(PREFIX "generic %s at offset 0x%x has device handle type %u (0 ACPI, 1 PCI); read as PCI",
				type == ACPI_SRAT_GENERIC_INITIATOR ? "initiator" : "port", off,
				g->handle_type);
	}
}

bool acpi_srat_parse(const void *table, size_t len, struct acpi_srat_info *out)
{
	struct acpi_subtables it;
	const uint8_t *entry;
	uint8_t type, length;
	uint32_t table_len, off, pxm_mask;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "SRAT", sizeof(struct acpi_srat_header),
				     PREFIX);
	if (!table_len)
		return false;
	out->revision = ((const uint8_t *)table)[offsetof(struct acpi_sdt_header, revision)];
	pxm_mask = out->revision < ACPI_SRAT_WIDE_PXM_REVISION ? 0xffu : 0xffffffffu;

	acpi_subtables_init(&it, table, table_len, sizeof(struct acpi_srat_header), PREFIX);
	while (acpi_subtables_next(&it, &entry, &type, &length, &off)) {
		struct acpi_srat_cpu cpu = { 0 };

		out->nr_entries++;
		switch (type) {
		case ACPI_SRAT_LAPIC_AFFINITY: {
			struct acpi_srat_lapic_affinity e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "processor local APIC affinity", off,
						     length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			if (!(e.flags & ACPI_SRAT_ENABLED)) {
				out->nr_disabled++;
				break;
			}
			cpu.hwid = e.apic_id;
			cpu.pxm = (e.pxm_low | (uint32_t)e.pxm_high[0] << 8 |
				   (uint32_t)e.pxm_high[1] << 16 |
				   (uint32_t)e.pxm_high[2] << 24) & pxm_mask;
			add_cpu(out, &cpu, off);
			break;
		}
		case ACPI_SRAT_X2APIC_AFFINITY: {
			struct acpi_srat_x2apic_affinity e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "x2APIC affinity", off, length,
						     sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			if (!(e.flags & ACPI_SRAT_ENABLED)) {
				out->nr_disabled++;
				break;
			}
			cpu.hwid = e.x2apic_id;
			cpu.pxm = e.pxm & pxm_mask;
			cpu.x2apic = true;
			add_cpu(out, &cpu, off);
			break;
		}
		case ACPI_SRAT_GICC_AFFINITY:
			if (length < ACPI_SRAT_GICC_BYTES) {
				acpi_subtables_short(&it, "GICC affinity", off, length,
						     ACPI_SRAT_GICC_BYTES);
				break;
			}
			if (!(fw_le32(entry + ACPI_SRAT_GICC_FLAGS) & ACPI_SRAT_ENABLED)) {
				out->nr_disabled++;
				break;
			}
			cpu.hwid = fw_le32(entry + ACPI_SRAT_GICC_UID);
			cpu.pxm = fw_le32(entry + ACPI_SRAT_GICC_PXM);
			cpu.gicc = true;
			cpu.by_uid = true;
			add_cpu(out, &cpu, off);
			break;
		case ACPI_SRAT_MEM_AFFINITY: {
			struct acpi_srat_mem_affinity e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "memory affinity", off, length,
						     sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			if (!(e.flags & ACPI_SRAT_ENABLED)) {
				out->nr_disabled++;
				break;
			}
			add_mem(out, &e, e.pxm & pxm_mask, off);
			break;
		}
		case ACPI_SRAT_GENERIC_INITIATOR:
		case ACPI_SRAT_GENERIC_PORT:
			if (length < SRAT_GENERIC_BYTES) {
				acpi_subtables_short(&it, type == ACPI_SRAT_GENERIC_INITIATOR ?
						     "generic initiator affinity" :
						     "generic port affinity", off, length,
						     SRAT_GENERIC_BYTES);
				break;
			}
			add_generic(out, entry, type, pxm_mask, off);
			break;
		default:
			break;
		}
	}
	out->truncated = it.truncated;
	return true;
}

uint32_t acpi_srat_resolve_uids(struct acpi_srat_info *srat, const struct acpi_madt_info *madt)
{
	uint32_t kept = 0, resolved = 0;

	for (uint32_t i = 0; i < srat->nr_cpus; i++) {
		struct acpi_srat_cpu c = srat->cpus[i];

		if (c.by_uid) {
			for (uint32_t j = 0; madt && j < madt->nr_cpus; j++) {
				if (madt->cpus[j].gicc && madt->cpus[j].acpi_uid == c.hwid) {
					c.hwid = madt->cpus[j].hwid;
					c.by_uid = false;
					break;
				}
			}
			if (c.by_uid) {
				pr_warn(PREFIX "GICC affinity names processor UID %u (PXM %u), which no "
					"usable MADT GICC entry has; dropped", c.hwid, c.pxm);
				srat->nr_ignored++;
				continue;
			}
			resolved++;
		}
		srat->cpus[kept++] = c;
	}
	srat->nr_cpus = kept;
	return resolved;
}

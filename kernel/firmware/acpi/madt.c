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
 *  - a type 5 entry replaces the 32-bit local APIC address with a 64-bit one;
 *  - local APIC NMI entries (type 4, 8-bit UID, 0xff for all) and local
 *    x2APIC NMI entries (type 0xA, 32-bit UID, 0xffffffff for all) say
 *    which LINT pin (0 or 1) of which processors carries NMI, with MPS INTI
 *    polarity and trigger flags (5.2.12.7, 5.2.12.13); a LINT# above 1 names
 *    no pin and is ignored with a warning.
 *  - I/O APIC entries (type 1) give each I/O APIC's address and its first
 *    global system interrupt (GSI); interrupt source overrides (type 2,
 *    5.2.12.5) move an ISA IRQ (bus 0, source 0..15) to another GSI with
 *    MPS INTI flags (QEMU moves ISA IRQ 0 to GSI 2); an ISA IRQ
 *    without one is the GSI of its number, with the bus's defaults.
 *  - GICC entries (type 0xB, 5.2.12.14, arm64) describe a processor by its
 *    ACPI UID (at 8), flags (at 12: bit 0 enabled, bit 3 online capable,
 *    ACPI 6.5) and MPIDR (at 68, u64); only the affinity fields Aff3
 *    [39:32] and Aff2..Aff0 [23:0] may be set, and the hwid packs them as
 *    Aff3 << 24 | Aff2..Aff0. Its GICR base (at 60) is the CPU's
 *    redistributor when no GICR range (type 0xE) lists it (counted). A
 *    second GICC with an MPIDR already listed (two entries left at MPIDR 0
 *    by firmware, say) is refused with a warning naming both UIDs;
 *  - a GICD entry (type 0xC) gives the distributor's base (at 8) and the GIC
 *    version (at 20); there is one per system. GICR entries give
 *    redistributor ranges (base at 4, length at 12); GIC ITS entries (type
 *    0xF) are counted.
 * Everything else (NMI sources, ...) is skipped by its length.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: MADT: "

static void add_cpu(struct acpi_madt_info *out, const struct acpi_cpu *cpu,
		    uint32_t off)
{
	const char *kind = cpu->gicc ? "GICC" : cpu->ext_id ? "x2APIC" : "local APIC";
	const char *id = cpu->gicc ? "MPIDR" : "APIC ID";

	if (!cpu->enabled && !cpu->online_capable) {
		out->nr_disabled++;
		return;
	}
	if (!cpu->gicc && cpu->hwid == (cpu->ext_id ? 0xffffffffu : 0xffu)) {
		pr_warn(PREFIX "%s entry at offset 0x%x has the invalid ID 0x%x; ignored",
			kind, off, cpu->hwid);
		out->nr_ignored++;
		return;
	}
	for (uint32_t i = 0; i < out->nr_cpus; i++) {
		if (out->cpus[i].hwid != cpu->hwid)
			continue;
		if (cpu->gicc)
			pr_warn(PREFIX "GICC entry at offset 0x%x (UID %u) repeats MPIDR 0x%x "
				"of UID %u; ignored", off, cpu->acpi_uid, cpu->hwid,
				out->cpus[i].acpi_uid);
		else
			pr_warn(PREFIX "%s entry at offset 0x%x repeats %s 0x%x; ignored",
				kind, off, id, cpu->hwid);
		out->nr_ignored++;
		return;
	}
	if (out->nr_cpus == ACPI_MADT_MAX_CPUS) {
		if (out->nr_dropped++ == 0)
			pr_warn(PREFIX "more than %u processors; %s 0x%x (offset 0x%x) and later ones dropped",
				ACPI_MADT_MAX_CPUS, id, cpu->hwid, off);
		return;
	}
	out->cpus[out->nr_cpus++] = *cpu;
}

static void add_nmi(struct acpi_madt_info *out, const struct acpi_lapic_nmi *nmi, uint32_t off)
{
	if (nmi->lint > 1) {
		pr_warn(PREFIX "%s NMI entry at offset 0x%x names LINT%u; a local APIC has LINT0 and LINT1 only; ignored",
			nmi->ext_id ? "x2APIC" : "local APIC", off, nmi->lint);
		out->nr_nmis_ignored++;
		return;
	}
	if (out->nr_nmis == ACPI_MADT_MAX_NMIS) {
		if (out->nr_nmis_ignored++ == 0)
			pr_warn(PREFIX "more than %u local APIC NMI entries; offset 0x%x and later ones ignored",
				ACPI_MADT_MAX_NMIS, off);
		return;
	}
	out->nmis[out->nr_nmis++] = *nmi;
}

/* A GICv3 redistributor's frames memboot reads: RD_base and SGI_base
 * (GICv3 12.10); a GICv4's VLPI frames after them are not read. */
#define GICR_FRAMES_BYTES 0x20000u

/* The GICC at @off's own redistributor at @base: into the range it
 * continues (back to back, ascending, as firmware lists them), else a new
 * one. */
static void add_gicc_gicr(struct acpi_madt_info *out, uint64_t base, uint32_t off)
{
	for (uint32_t i = 0; i < out->nr_gicc_ranges; i++) {
		struct acpi_gicr_range *r = &out->gicc_ranges[i];
		const uint64_t end = r->base + r->length;

		if (base >= r->base && base < end)
			return;            /* named twice: the range has it */
		if (base == end && r->length <= UINT32_MAX - GICR_FRAMES_BYTES) {
			r->length += GICR_FRAMES_BYTES;
			return;
		}
	}
	if (out->nr_gicc_ranges == ACPI_MADT_MAX_GICR_RANGES) {
		pr_warn(PREFIX "the GICC entry at offset 0x%x names a redistributor at 0x%llx apart "
			"from the %u ranges kept; its CPU will find none", off,
			(unsigned long long)base, ACPI_MADT_MAX_GICR_RANGES);
		return;
	}
	out->gicc_ranges[out->nr_gicc_ranges++] = (struct acpi_gicr_range){ base,
									   GICR_FRAMES_BYTES };
}

/* A GICC entry (type 0xB) of @length bytes at @off. */
static void add_gicc(struct acpi_madt_info *out, const uint8_t *e, uint32_t off)
{
	const uint64_t mpidr = fw_le64(e + ACPI_GICC_MPIDR);
	const uint32_t flags = fw_le32(e + ACPI_GICC_FLAGS);
	struct acpi_cpu cpu = {
		.acpi_uid = fw_le32(e + ACPI_GICC_UID),
		.enabled = flags & ACPI_MADT_ENABLED,
		.online_capable = flags & ACPI_GICC_ONLINE_CAPABLE,
		.gicc = true,
	};

	const uint64_t gicr_base = fw_le64(e + ACPI_GICC_GICR_BASE);

	out->nr_gicc++;
	if (gicr_base) {
		out->nr_gicc_gicr++;
		add_gicc_gicr(out, gicr_base, off);
	}
	if (mpidr & ~ACPI_GICC_MPIDR_AFFINITY) {
		pr_warn(PREFIX "GICC entry at offset 0x%x (UID %u) has MPIDR 0x%llx, with bits set "
			"outside the affinity fields; ignored", off, cpu.acpi_uid,
			(unsigned long long)mpidr);
		out->nr_ignored++;
		return;
	}
	cpu.hwid = (uint32_t)((mpidr >> 32) & 0xff) << 24 | (uint32_t)(mpidr & 0xffffff);
	add_cpu(out, &cpu, off);
}

/* A GICD (type 0xC), GICR (0xE) or GIC ITS (0xF) entry. */
static void add_gic_part(struct acpi_madt_info *out, const uint8_t *e, uint8_t type, uint32_t off)
{
	switch (type) {
	case ACPI_MADT_GICD:
		if (out->nr_gicd++) {
			pr_warn(PREFIX "a second GICD entry at offset 0x%x (base 0x%llx); the first "
				"(0x%llx) is kept", off,
				(unsigned long long)fw_le64(e + ACPI_GICD_BASE),
				(unsigned long long)out->gicd_phys);
			return;
		}
		out->gicd_phys = fw_le64(e + ACPI_GICD_BASE);
		out->gic_version = e[ACPI_GICD_VERSION];
		if (out->gic_version > 4) {
			pr_warn(PREFIX "GICD entry at offset 0x%x names GIC version %u (1..4 exist); "
				"read as 0: ask the distributor", off, out->gic_version);
			out->gic_version = 0;
		}
		return;
	case ACPI_MADT_GICR: {
		const struct acpi_gicr_range r = { .base = fw_le64(e + ACPI_GICR_BASE),
						   .length = fw_le32(e + ACPI_GICR_LENGTH) };

		if (!r.base || !r.length) {
			pr_warn(PREFIX "GICR entry at offset 0x%x is empty (base 0x%llx, length 0x%x); ignored",
				off, (unsigned long long)r.base, r.length);
			return;
		}
		if (out->nr_gicr == ACPI_MADT_MAX_GICR_RANGES) {
			pr_warn(PREFIX "more than %u GICR ranges; the one at offset 0x%x is dropped",
				ACPI_MADT_MAX_GICR_RANGES, off);
			return;
		}
		out->gicr[out->nr_gicr++] = r;
		return;
	}
	default:
		out->nr_its++;
		return;
	}
}

const struct acpi_io_apic *acpi_io_apic_of(const struct acpi_madt_info *m, uint32_t gsi)
{
	const struct acpi_io_apic *best = NULL;

	for (uint32_t i = 0; i < m->nr_io_apics && i < ACPI_MADT_MAX_IO_APICS; i++) {
		const struct acpi_io_apic *a = &m->io_apics[i];
		if (a->gsi_base <= gsi && (!best || a->gsi_base > best->gsi_base))
			best = a;
	}
	return best;
}

unsigned acpi_lint_nmi_of(const struct acpi_madt_info *m, uint32_t acpi_uid)
{
	unsigned bits = 0;

	for (uint32_t i = 0; i < m->nr_nmis && i < ACPI_MADT_MAX_NMIS; i++) {
		const struct acpi_lapic_nmi *e = &m->nmis[i];

		if (e->lint > 1 || (e->acpi_uid != ACPI_UID_ALL && e->acpi_uid != acpi_uid))
			continue;
		bits |= e->lint ? ACPI_LINT1_NMI : ACPI_LINT0_NMI;
		/* MPS INTI polarity 3: active low; 0 (bus default) and 1: high. */
		if ((e->flags & 3) == 3)
			bits |= e->lint ? ACPI_LINT1_ACTIVE_LOW : ACPI_LINT0_ACTIVE_LOW;
	}
	return bits;
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
	for (uint32_t i = 0; i < ACPI_ISA_IRQS; i++)
		out->isa_gsi[i] = i;
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
			cpu.hwid = e.apic_id;
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
			cpu.hwid = e.x2apic_id;
			cpu.acpi_uid = e.processor_uid;
			cpu.enabled = e.flags & ACPI_MADT_ENABLED;
			cpu.online_capable = out->revision >= ACPI_MADT_ONLINE_CAPABLE_REVISION &&
					     (e.flags & ACPI_MADT_ONLINE_CAPABLE);
			cpu.ext_id = true;
			add_cpu(out, &cpu, off);
			break;
		}
		case ACPI_MADT_LAPIC_NMI: {
			struct acpi_madt_lapic_nmi e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "local APIC NMI", off, length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			add_nmi(out, &(struct acpi_lapic_nmi){
				.acpi_uid = e.processor_uid == 0xff ? ACPI_UID_ALL : e.processor_uid,
				.flags = e.flags, .lint = e.lint }, off);
			break;
		}
		case ACPI_MADT_X2APIC_NMI: {
			struct acpi_madt_x2apic_nmi e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "x2APIC NMI", off, length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			add_nmi(out, &(struct acpi_lapic_nmi){
				.acpi_uid = e.processor_uid, .flags = e.flags, .lint = e.lint,
				.ext_id = true }, off);
			break;
		}
		case ACPI_MADT_IO_APIC: {
			struct acpi_madt_io_apic e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "I/O APIC", off, length, sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			if (out->nr_io_apics == ACPI_MADT_MAX_IO_APICS) {
				pr_warn(PREFIX "more than %u I/O APICs; the one at offset 0x%x is dropped",
					ACPI_MADT_MAX_IO_APICS, off);
				break;
			}
			out->io_apics[out->nr_io_apics++] = (struct acpi_io_apic){
				.id = e.io_apic_id, .address = e.address, .gsi_base = e.gsi_base };
			break;
		}
		case ACPI_MADT_IRQ_OVERRIDE: {
			struct acpi_madt_irq_override e;

			if (length < sizeof(e)) {
				acpi_subtables_short(&it, "interrupt source override", off, length,
						     sizeof(e));
				break;
			}
			memcpy(&e, entry, sizeof(e));
			if (e.bus != 0 || e.source >= ACPI_ISA_IRQS) {
				pr_warn(PREFIX "interrupt source override at offset 0x%x is for bus %u "
					"IRQ %u, not an ISA IRQ 0..15; ignored", off, e.bus, e.source);
				break;
			}
			out->isa_gsi[e.source] = e.gsi;
			out->isa_flags[e.source] = e.flags;
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
		case ACPI_MADT_GICC:
			if (length < ACPI_GICC_MIN_BYTES) {
				acpi_subtables_short(&it, "GICC", off, length, ACPI_GICC_MIN_BYTES);
				break;
			}
			add_gicc(out, entry, off);
			break;
		case ACPI_MADT_GICD:
		case ACPI_MADT_GICR:
		case ACPI_MADT_GIC_ITS: {
			const uint8_t need = type == ACPI_MADT_GICD ? ACPI_GICD_BYTES :
					     type == ACPI_MADT_GICR ? ACPI_GICR_BYTES :
					     ACPI_GIC_ITS_BYTES;

			if (length < need) {
				acpi_subtables_short(&it, type == ACPI_MADT_GICD ? "GICD" :
						     type == ACPI_MADT_GICR ? "GICR" : "GIC ITS",
						     off, length, need);
				break;
			}
			add_gic_part(out, entry, type, off);
			break;
		}
		default:
			break;
		}
	}
	out->truncated = it.truncated;
	/* No GICR range entry: the redistributors are the GICCs' own. */
	if (!out->nr_gicr && out->nr_gicc_ranges) {
		memcpy(out->gicr, out->gicc_ranges, sizeof(out->gicr));
		out->nr_gicr = out->nr_gicc_ranges;
		out->gicr_from_gicc = true;
		pr_info(PREFIX "no GICR range entry: the redistributors from %u GICC entries' GICR "
			"base, %u range%s from 0x%llx", out->nr_gicc_gicr, out->nr_gicr,
			out->nr_gicr == 1 ? "" : "s", (unsigned long long)out->gicr[0].base);
	}
	return true;
}

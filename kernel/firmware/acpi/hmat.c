/*
 * hmat.c: the HMAT, for each memory domain's latency, bandwidth and
 * memory-side caches as seen from each initiator.
 *
 * Rules obeyed (ACPI 6.5, 5.2.28):
 *  - after the 36-byte header come 4 reserved bytes, then structures of
 *    (type u16, reserved u16, length u32, ...), each length bytes long;
 *  - type 0, memory proximity domain attributes (40 bytes): flags at 8
 *    (bit 0: the attached initiator's domain at 12 is valid), the memory's
 *    domain at 16;
 *  - type 1, system locality latency and bandwidth (32 bytes, then lists):
 *    flags at 8 (bits 0-3: memory, or memory-side cache level 1-3), data
 *    type at 9 (access/read/write latency, access/read/write bandwidth),
 *    minimum transfer size at 10, the number of initiator domains at 12 and
 *    of target domains at 16, the entry base unit (u64) at 24; then the
 *    initiator list (u32 each), the target list (u32 each) and the matrix of
 *    u16 entries, initiator-major. A figure is entry x base unit, in
 *    picoseconds for latencies (HMAT revision 2, ACPI 6.3 on) and MB/s for
 *    bandwidths; entry 0 is "not provided", 0xffff "unreachable";
 *  - type 2, memory-side cache information (32 bytes, then u16 SMBIOS
 *    handles): the memory's domain at 8, the cache's size (u64) at 16, its
 *    attributes (u32) at 24: total levels (bits 0-3), this level (4-7),
 *    associativity (8-11), write policy (12-15), line size (16-31); the
 *    number of SMBIOS handles at 30.
 * Other types are skipped by their length.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: HMAT: "
#define HMAT_HEADER_BYTES 40
#define HMAT_DOMAIN_BYTES 40
#define HMAT_LB_BYTES 32
#define HMAT_CACHE_BYTES 32
#define HMAT_UNREACHABLE 0xffffu

const char *acpi_hmat_data_type_name(uint8_t type)
{
	static const char *const names[ACPI_HMAT_NR_DATA_TYPES] = {
		"access_latency", "read_latency", "write_latency",
		"access_bandwidth", "read_bandwidth", "write_bandwidth",
	};
	return type < ACPI_HMAT_NR_DATA_TYPES ? names[type] : "?";
}

static void dropped(struct acpi_hmat_info *out, const char *what, uint32_t off)
{
	if (out->nr_dropped++ == 0)
		pr_warn(PREFIX "more %s than memboot keeps; offset 0x%x and later ones dropped",
			what, off);
}

/* Type 1 at @e (@length bytes, offset @off): false if its lists and matrix
 * do not fit in it. */
static bool read_lb(struct acpi_hmat_info *out, const uint8_t *e, uint32_t length, uint32_t off)
{
	uint32_t ni = fw_le32(e + 12), nt = fw_le32(e + 16);
	/* Each count is at most the structure's length / 4 (a 4-byte domain
	 * each), else it cannot fit; below that, the sum cannot wrap (2 x
	 * 2^30 x 2^30 < 2^62), where 2 x ni x nt of two 32-bit counts could. */
	uint64_t need = ni > length / 4 || nt > length / 4 ? UINT64_MAX :
			HMAT_LB_BYTES + 4ull * ni + 4ull * nt + 2ull * ni * nt;
	struct acpi_hmat_lb *lb;
	const uint8_t *inits, *targets, *matrix;

	if (need == UINT64_MAX) {
		pr_warn(PREFIX "latency/bandwidth structure at offset 0x%x: %u initiators x %u targets cannot fit in its %u bytes; table ends there",
			off, ni, nt, length);
		return false;
	}
	if (need > length) {
		pr_warn(PREFIX "latency/bandwidth structure at offset 0x%x: %u initiators x %u targets need %llu bytes, it has %u; table ends there",
			off, ni, nt, (unsigned long long)need, length);
		return false;
	}
	if (out->nr_lb == ACPI_HMAT_MAX_LB) {
		dropped(out, "latency/bandwidth structures", off);
		return true;
	}
	lb = &out->lb[out->nr_lb++];
	lb->hierarchy = e[8] & 0x0f;
	lb->data_type = e[9];
	lb->min_transfer = e[10];
	lb->nr_initiators = ni;
	lb->nr_targets = nt;
	lb->base_unit = fw_le64(e + 24);
	lb->first_value = out->nr_values;
	if (lb->data_type >= ACPI_HMAT_NR_DATA_TYPES) {
		pr_warn(PREFIX "latency/bandwidth structure at offset 0x%x has data type %u (0-5 are defined); its figures are ignored",
			off, lb->data_type);
		return true;
	}
	if (lb->base_unit == 0) {
		out->nr_zero_base++;
		return true;   /* every figure would be 0: acpi_hmat_check() says so */
	}
	inits = e + HMAT_LB_BYTES;
	targets = inits + 4ull * ni;
	matrix = targets + 4ull * nt;
	for (uint32_t i = 0; i < ni; i++) {
		for (uint32_t t = 0; t < nt; t++) {
			uint16_t entry = fw_le16(matrix + 2ull * ((uint64_t)i * nt + t));
			struct acpi_hmat_value *v;

			if (entry == 0) {
				lb->nr_missing++;
				continue;
			}
			if (entry == HMAT_UNREACHABLE) {
				lb->nr_unreachable++;
				continue;
			}
			if (out->nr_values == ACPI_HMAT_MAX_VALUES) {
				dropped(out, "latency/bandwidth figures", off);
				return true;
			}
			v = &out->values[out->nr_values++];
			v->initiator_pxm = fw_le32(inits + 4ull * i);
			v->target_pxm = fw_le32(targets + 4ull * t);
			/* entry < 2^16: the product overflows only for a base
			 * unit above 2^48, clipped to the largest figure. */
			v->value = lb->base_unit > (UINT64_MAX / HMAT_UNREACHABLE) ? UINT64_MAX :
				   (uint64_t)entry * lb->base_unit;
			v->data_type = lb->data_type;
			v->hierarchy = lb->hierarchy;
			lb->nr_values++;
		}
	}
	return true;
}

static bool read_cache(struct acpi_hmat_info *out, const uint8_t *e, uint32_t length, uint32_t off)
{
	uint16_t handles = fw_le16(e + 30);
	uint32_t attr = fw_le32(e + 24);
	struct acpi_hmat_cache *c;

	if (HMAT_CACHE_BYTES + 2u * handles > length) {
		pr_warn(PREFIX "memory-side cache structure at offset 0x%x: %u SMBIOS handles do not fit in its %u bytes; table ends there",
			off, handles, length);
		return false;
	}
	if (out->nr_caches == ACPI_HMAT_MAX_CACHES) {
		dropped(out, "memory-side caches", off);
		return true;
	}
	c = &out->caches[out->nr_caches++];
	c->memory_pxm = fw_le32(e + 8);
	c->size_bytes = fw_le64(e + 16);
	c->total_levels = attr & 0xf;
	c->level = (attr >> 4) & 0xf;
	c->associativity = (attr >> 8) & 0xf;
	c->write_policy = (attr >> 12) & 0xf;
	c->line_bytes = (uint16_t)(attr >> 16);
	return true;
}

bool acpi_hmat_parse(const void *table, size_t len, struct acpi_hmat_info *out)
{
	const uint8_t *base = table;
	uint32_t table_len, off = HMAT_HEADER_BYTES;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "HMAT", HMAT_HEADER_BYTES, PREFIX);
	if (!table_len)
		return false;
	out->revision = base[offsetof(struct acpi_sdt_header, revision)];
	while (off < table_len) {
		const uint8_t *e = base + off;
		uint16_t type;
		uint32_t length;
		bool ok = true;

		if (table_len - off < 8) {
			pr_warn(PREFIX "%u bytes at offset 0x%x are too few for a structure header; table ends there",
				table_len - off, off);
			out->truncated = true;
			break;
		}
		type = fw_le16(e);
		length = fw_le32(e + 4);
		if (length < 8 || length > table_len - off) {
			pr_warn(PREFIX "structure at offset 0x%x (type %u) has length %u, %s; table ends there",
				off, type, length, length < 8 ? "below its 8-byte header" :
				"past the table's end");
			out->truncated = true;
			break;
		}
		out->nr_structures++;
		switch (type) {
		case 0:
			if (length < HMAT_DOMAIN_BYTES) {
				ok = false;
				break;
			}
			if (out->nr_domains == ACPI_HMAT_MAX_DOMAINS) {
				dropped(out, "memory proximity domain attributes", off);
				break;
			}
			out->domains[out->nr_domains].initiator_valid = fw_le16(e + 8) & 1;
			out->domains[out->nr_domains].initiator_pxm = fw_le32(e + 12);
			out->domains[out->nr_domains].memory_pxm = fw_le32(e + 16);
			out->nr_domains++;
			break;
		case 1:
			if (length < HMAT_LB_BYTES) {
				ok = false;
				break;
			}
			if (!read_lb(out, e, length, off)) {
				out->truncated = true;
				return true;
			}
			break;
		case 2:
			if (length < HMAT_CACHE_BYTES) {
				ok = false;
				break;
			}
			if (!read_cache(out, e, length, off)) {
				out->truncated = true;
				return true;
			}
			break;
		default:
			break;
		}
		if (!ok) {
			pr_warn(PREFIX "type %u structure at offset 0x%x is %u bytes, too short for its fixed part; table ends there",
				type, off, length);
			out->truncated = true;
			break;
		}
		off += length;
	}
	return true;
}

/* Whether the SRAT gives @pxm to a CPU (or a generic initiator) / to memory. */
static bool srat_initiator(const struct acpi_srat_info *srat, uint32_t pxm)
{
	for (uint32_t i = 0; i < srat->nr_cpus; i++)
		if (srat->cpus[i].pxm == pxm)
			return true;
	for (uint32_t i = 0; i < srat->nr_generic; i++)
		if (srat->generic[i].pxm == pxm && srat->generic[i].type == ACPI_SRAT_GENERIC_INITIATOR)
			return true;
	return false;
}

static bool srat_memory(const struct acpi_srat_info *srat, uint32_t pxm)
{
	for (uint32_t i = 0; i < srat->nr_mems; i++)
		if (srat->mems[i].pxm == pxm)
			return true;
	return false;
}

/* Warnings per check before the rest are only counted. */
#define HMAT_CHECK_WARNINGS 4

uint32_t acpi_hmat_check(const struct acpi_hmat_info *hmat, const struct acpi_srat_info *srat)
{
	uint32_t warned = 0, unknown = 0, absurd = 0;

	for (uint32_t i = 0; i < hmat->nr_lb; i++)
		if (hmat->lb[i].base_unit == 0 && hmat->lb[i].data_type < ACPI_HMAT_NR_DATA_TYPES) {
			pr_warn(PREFIX "%s structure %u has entry base unit 0: its figures are all 0; ignored",
				acpi_hmat_data_type_name(hmat->lb[i].data_type), i);
			warned++;
		}
	for (uint32_t i = 0; i < hmat->nr_values; i++) {
		const struct acpi_hmat_value *v = &hmat->values[i];
		bool latency = v->data_type <= ACPI_HMAT_WRITE_LATENCY;

		if (srat && (!srat_initiator(srat, v->initiator_pxm) || !srat_memory(srat, v->target_pxm))) {
			if (unknown++ < HMAT_CHECK_WARNINGS) {
				pr_warn(PREFIX "%s from PXM %u to PXM %u: the SRAT has no %s with that domain",
					acpi_hmat_data_type_name(v->data_type), v->initiator_pxm,
					v->target_pxm, !srat_initiator(srat, v->initiator_pxm) ?
					"CPU or generic initiator" : "memory");
				warned++;
			}
		}
		if (latency ? v->value > ACPI_HMAT_ABSURD_LATENCY_PS :
			      v->value > ACPI_HMAT_ABSURD_BANDWIDTH_MBS) {
			if (absurd++ < HMAT_CHECK_WARNINGS) {
				pr_warn(PREFIX "%s from PXM %u to PXM %u is %llu %s: beyond any memory's; kept, but not believed",
					acpi_hmat_data_type_name(v->data_type), v->initiator_pxm,
					v->target_pxm, (unsigned long long)v->value, latency ? "ps" : "MB/s");
				warned++;
			}
		}
	}
	for (uint32_t i = 0; srat && i < hmat->nr_domains; i++) {
		const struct acpi_hmat_domain *d = &hmat->domains[i];

		if (!srat_memory(srat, d->memory_pxm)) {
			pr_warn(PREFIX "memory proximity attributes name memory PXM %u, which the SRAT does not",
				d->memory_pxm);
			warned++;
		}
		if (d->initiator_valid && !srat_initiator(srat, d->initiator_pxm)) {
			pr_warn(PREFIX "memory PXM %u's attached initiator PXM %u is no CPU or generic initiator of the SRAT",
				d->memory_pxm, d->initiator_pxm);
			warned++;
		}
	}
	for (uint32_t i = 0; srat && i < hmat->nr_caches; i++)
		if (!srat_memory(srat, hmat->caches[i].memory_pxm)) {
			pr_warn(PREFIX "a memory-side cache is in front of PXM %u, which the SRAT does not name",
				hmat->caches[i].memory_pxm);
			warned++;
		}
	if (unknown > HMAT_CHECK_WARNINGS || absurd > HMAT_CHECK_WARNINGS)
		pr_warn(PREFIX "%u figures name unknown domains, %u are absurd (warned above for the first)",
			unknown, absurd);
	return warned;
}

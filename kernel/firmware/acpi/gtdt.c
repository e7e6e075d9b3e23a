/*
 * gtdt.c: the GTDT, the generic timer's interrupts (arm64).
 *
 * Rules obeyed (ACPI 6.5, 5.2.25):
 *  - after the 36-byte header: CntControlBase (u64 at 36), then the secure
 *    EL1, non-secure EL1, virtual EL1 and EL2 timers' GSIV and flags (u32
 *    pairs at 48, 56, 64 and 72), CntReadBase (u64 at 80), the platform
 *    timer count and offset (u32 at 88 and 92): 96 bytes, revision 2;
 *  - revision 3 (ACPI 6.3) adds the virtual EL2 timer's GSIV and flags at
 *    96 and 100;
 *  - a base of 0xffffffffffffffff means the block is not there;
 *  - the platform timers (GT blocks, SBSA watchdogs) follow at their
 *    offset; memboot counts them only.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: GTDT: "

#define GTDT_REV2_BYTES 96
#define GTDT_REV3_BYTES 104
enum {
	GTDT_CNT_CONTROL_BASE = 36, GTDT_SECURE_EL1 = 48, GTDT_EL1 = 56, GTDT_VIRT = 64,
	GTDT_EL2 = 72, GTDT_CNT_READ_BASE = 80, GTDT_NR_PLATFORM = 88,
	GTDT_PLATFORM_OFFSET = 92, GTDT_VIRT_EL2 = 96,
};

bool acpi_gtdt_parse(const void *table, size_t len, struct acpi_gtdt_info *out)
{
	const uint8_t *t = table;
	uint32_t table_len, nr, at;

	memset(out, 0, sizeof(*out));
	table_len = acpi_table_check(table, len, "GTDT", GTDT_REV2_BYTES, PREFIX);
	if (!table_len)
		return false;
	out->revision = t[offsetof(struct acpi_sdt_header, revision)];
	out->cnt_control_base = fw_le64(t + GTDT_CNT_CONTROL_BASE);
	out->cnt_read_base = fw_le64(t + GTDT_CNT_READ_BASE);
	out->secure_el1_gsiv = fw_le32(t + GTDT_SECURE_EL1);
	out->secure_el1_flags = fw_le32(t + GTDT_SECURE_EL1 + 4);
	out->el1_gsiv = fw_le32(t + GTDT_EL1);
	out->el1_flags = fw_le32(t + GTDT_EL1 + 4);
	out->virt_gsiv = fw_le32(t + GTDT_VIRT);
	out->virt_flags = fw_le32(t + GTDT_VIRT + 4);
	out->el2_gsiv = fw_le32(t + GTDT_EL2);
	out->el2_flags = fw_le32(t + GTDT_EL2 + 4);
	if (out->revision >= 3 && table_len >= GTDT_REV3_BYTES) {
		out->virt_el2_gsiv = fw_le32(t + GTDT_VIRT_EL2);
		out->virt_el2_flags = fw_le32(t + GTDT_VIRT_EL2 + 4);
	}
	nr = fw_le32(t + GTDT_NR_PLATFORM);
	at = fw_le32(t + GTDT_PLATFORM_OFFSET);
	/* Each platform timer structure is at least 4 bytes (type, length). */
	if (nr && (at < GTDT_REV2_BYTES || at > table_len || nr > (table_len - at) / 4)) {
		pr_warn(PREFIX "%u platform timers at offset 0x%x do not fit the table's %u bytes; "
			"none counted", nr, at, table_len);
		nr = 0;
	}
	out->nr_platform_timers = nr;
	return true;
}

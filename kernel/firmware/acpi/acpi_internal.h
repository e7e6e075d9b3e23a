/*
 * acpi_internal.h: ACPI layouts and helpers shared by the files of kernel/firmware/acpi/.
 *
 * Layouts follow ACPI 6.5 (chapter 5.2). Every structure is packed and read
 * with memcpy from bytes that may sit at any address (QEMU's RSDT is at an
 * odd one); nothing casts a table pointer to one of these structures. All
 * fields are little-endian, as is every CPU memboot runs on.
 */
#ifndef MEMBOOT_KERNEL_ACPI_ACPI_INTERNAL_H
#define MEMBOOT_KERNEL_ACPI_ACPI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/acpi/acpi.h"
#include "kernel/firmware/bytes.h"
#include "kernel/services/limits.h"

/* Root System Description Pointer, 5.2.5.3. v1 stops after rsdt_address. */
struct acpi_rsdp {
	char signature[8];          /* "RSD PTR " */
	uint8_t checksum;           /* over the first 20 bytes */
	char oem_id[6];
	uint8_t revision;           /* 0: ACPI 1.0; 2: ACPI 2.0 and later */
	uint32_t rsdt_address;
	uint32_t length;            /* v2: whole structure */
	uint64_t xsdt_address;
	uint8_t extended_checksum;  /* over length bytes */
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == ACPI_RSDP_V2_BYTES, "RSDP v2 is 36 bytes");
_Static_assert(offsetof(struct acpi_rsdp, rsdt_address) == 16, "layout");
_Static_assert(offsetof(struct acpi_rsdp, length) == ACPI_RSDP_V1_BYTES, "layout");
_Static_assert(offsetof(struct acpi_rsdp, xsdt_address) == 24, "layout");
_Static_assert(offsetof(struct acpi_rsdp, extended_checksum) == 32, "layout");

/* System Description Table header, 5.2.6: every table but the FACS. */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length;            /* whole table, header included */
	uint8_t revision;
	uint8_t checksum;           /* all length bytes sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_sdt_header) == ACPI_SDT_HEADER_BYTES, "SDT header is 36 bytes");
_Static_assert(offsetof(struct acpi_sdt_header, revision) == 8, "layout");
_Static_assert(offsetof(struct acpi_sdt_header, oem_id) == 10, "layout");
_Static_assert(offsetof(struct acpi_sdt_header, oem_revision) == 24, "layout");
_Static_assert(offsetof(struct acpi_sdt_header, creator_revision) == 32, "layout");

/* FADT ("FACP") fields the walk follows, 5.2.9. */
#define ACPI_FADT_FIRMWARE_CTRL 36      /* u32: FACS */
#define ACPI_FADT_DSDT 40               /* u32 */
#define ACPI_FADT_X_FIRMWARE_CTRL 132   /* u64, FADT revision 2+ */
#define ACPI_FADT_X_DSDT 140            /* u64 */

/* FACS, 5.2.10: no SDT header and no checksum; at least 64 bytes. */
#define ACPI_FACS_MIN_BYTES 64

/* Subtable header shared by MADT and SRAT entries. */
struct acpi_subtable_header {
	uint8_t type;
	uint8_t length;             /* whole entry, header included */
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_subtable_header) == 2, "subtable header is 2 bytes");

/* MADT, 5.2.12. */
struct acpi_madt_header {
	struct acpi_sdt_header header;
	uint32_t lapic_address;
	uint32_t flags;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_header) == 44, "MADT fixed part is 44 bytes");
_Static_assert(offsetof(struct acpi_madt_header, lapic_address) == 36, "layout");

enum {
	ACPI_MADT_LOCAL_APIC = 0,
	ACPI_MADT_IO_APIC = 1,
	ACPI_MADT_IRQ_OVERRIDE = 2,
	ACPI_MADT_LAPIC_NMI = 4,
	ACPI_MADT_LAPIC_OVERRIDE = 5,
	ACPI_MADT_LOCAL_X2APIC = 9,
	ACPI_MADT_X2APIC_NMI = 0xa,
	ACPI_MADT_GICC = 0xb,
	ACPI_MADT_GICD = 0xc,
	ACPI_MADT_GICR = 0xe,
	ACPI_MADT_GIC_ITS = 0xf,
};

/* GICC (type 0xB, 5.2.12.14): 76 bytes in ACPI 5.1, 80 from 6.0, 82 from
 * 6.5; memboot reads up to the MPIDR. */
#define ACPI_GICC_UID 8                 /* u32 ACPI processor UID */
#define ACPI_GICC_FLAGS 12              /* u32: bit 0 enabled, bit 3 online capable */
#define ACPI_GICC_GICR_BASE 60          /* u64 */
#define ACPI_GICC_MPIDR 68              /* u64 */
#define ACPI_GICC_MIN_BYTES 76
#define ACPI_GICC_ONLINE_CAPABLE (1u << 3)
/* MPIDR bits a GICC may have set: Aff3 [39:32] and Aff2..Aff0 [23:0]. */
#define ACPI_GICC_MPIDR_AFFINITY 0xff00ffffffull

/* GICD (type 0xC, 5.2.12.15): 24 bytes. */
#define ACPI_GICD_BASE 8                /* u64 */
#define ACPI_GICD_VERSION 20            /* u8: 0 (see the hardware), 1..4 */
#define ACPI_GICD_BYTES 24

/* GICR (type 0xE, 5.2.12.17): 16 bytes. */
#define ACPI_GICR_BASE 4                /* u64 discovery range base */
#define ACPI_GICR_LENGTH 12             /* u32 */
#define ACPI_GICR_BYTES 16

/* GIC ITS (type 0xF, 5.2.12.18): 20 bytes. */
#define ACPI_GIC_ITS_BYTES 20

#define ACPI_MADT_ENABLED (1u << 0)
#define ACPI_MADT_ONLINE_CAPABLE (1u << 1)     /* MADT revision 5 (ACPI 6.3) and later */
#define ACPI_MADT_ONLINE_CAPABLE_REVISION 5

struct acpi_madt_local_apic {               /* type 0 */
	struct acpi_subtable_header h;
	uint8_t processor_uid;
	uint8_t apic_id;
	uint32_t flags;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_local_apic) == 8, "local APIC entry is 8 bytes");
_Static_assert(offsetof(struct acpi_madt_local_apic, apic_id) == 3, "layout");
_Static_assert(offsetof(struct acpi_madt_local_apic, flags) == 4, "layout");

struct acpi_madt_io_apic {                  /* type 1, 5.2.12.3 */
	struct acpi_subtable_header h;
	uint8_t io_apic_id;
	uint8_t reserved;
	uint32_t address;
	uint32_t gsi_base;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_io_apic) == 12, "I/O APIC entry is 12 bytes");

struct acpi_madt_irq_override {             /* type 2, 5.2.12.5 */
	struct acpi_subtable_header h;
	uint8_t bus;                            /* 0: ISA */
	uint8_t source;                         /* the ISA IRQ */
	uint32_t gsi;
	uint16_t flags;                         /* MPS INTI flags */
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_irq_override) == 10, "override entry is 10 bytes");

struct acpi_madt_lapic_nmi {                /* type 4, 5.2.12.7 */
	struct acpi_subtable_header h;
	uint8_t processor_uid;              /* 0xff: every processor */
	uint16_t flags;                     /* MPS INTI flags: polarity, trigger */
	uint8_t lint;                       /* local APIC LINT# (0 or 1) */
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_lapic_nmi) == 6, "local APIC NMI entry is 6 bytes");

struct acpi_madt_x2apic_nmi {               /* type 0xA, 5.2.12.13 */
	struct acpi_subtable_header h;
	uint16_t flags;
	uint32_t processor_uid;             /* 0xffffffff: every processor */
	uint8_t lint;
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_x2apic_nmi) == 12, "x2APIC NMI entry is 12 bytes");

struct acpi_madt_lapic_override {           /* type 5 */
	struct acpi_subtable_header h;
	uint16_t reserved;
	uint64_t address;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_lapic_override) == 12, "override entry is 12 bytes");
_Static_assert(offsetof(struct acpi_madt_lapic_override, address) == 4, "layout");

struct acpi_madt_local_x2apic {             /* type 9 */
	struct acpi_subtable_header h;
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags;
	uint32_t processor_uid;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt_local_x2apic) == 16, "x2APIC entry is 16 bytes");
_Static_assert(offsetof(struct acpi_madt_local_x2apic, x2apic_id) == 4, "layout");
_Static_assert(offsetof(struct acpi_madt_local_x2apic, flags) == 8, "layout");
_Static_assert(offsetof(struct acpi_madt_local_x2apic, processor_uid) == 12, "layout");

/* SRAT, 5.2.16. */
struct acpi_srat_header {
	struct acpi_sdt_header header;
	uint32_t reserved1;         /* 1, for compatibility */
	uint64_t reserved2;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_srat_header) == 48, "SRAT fixed part is 48 bytes");

enum {
	ACPI_SRAT_LAPIC_AFFINITY = 0,
	ACPI_SRAT_MEM_AFFINITY = 1,
	ACPI_SRAT_X2APIC_AFFINITY = 2,
	ACPI_SRAT_GICC_AFFINITY = 3,
	ACPI_SRAT_GENERIC_INITIATOR = 5,
	ACPI_SRAT_GENERIC_PORT = 6,
};

/* SRAT revision 2 (ACPI 3.0) widened proximity domains from 8 to 32 bits. */
#define ACPI_SRAT_WIDE_PXM_REVISION 2

#define ACPI_SRAT_ENABLED (1u << 0)
#define ACPI_SRAT_MEM_HOTPLUG (1u << 1)
#define ACPI_SRAT_MEM_NONVOLATILE (1u << 2)

struct acpi_srat_lapic_affinity {           /* type 0 */
	struct acpi_subtable_header h;
	uint8_t pxm_low;            /* proximity domain bits 0..7 */
	uint8_t apic_id;
	uint32_t flags;
	uint8_t sapic_eid;
	uint8_t pxm_high[3];        /* bits 8..31, SRAT revision 2+ */
	uint32_t clock_domain;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_srat_lapic_affinity) == 16, "CPU affinity entry is 16 bytes");
_Static_assert(offsetof(struct acpi_srat_lapic_affinity, flags) == 4, "layout");
_Static_assert(offsetof(struct acpi_srat_lapic_affinity, pxm_high) == 9, "layout");
_Static_assert(offsetof(struct acpi_srat_lapic_affinity, clock_domain) == 12, "layout");

struct acpi_srat_mem_affinity {             /* type 1 */
	struct acpi_subtable_header h;
	uint32_t pxm;
	uint16_t reserved1;
	uint64_t base;
	uint64_t length;
	uint32_t reserved2;
	uint32_t flags;
	uint64_t reserved3;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_srat_mem_affinity) == 40, "memory affinity entry is 40 bytes");
_Static_assert(offsetof(struct acpi_srat_mem_affinity, base) == 8, "layout");
_Static_assert(offsetof(struct acpi_srat_mem_affinity, length) == 16, "layout");
_Static_assert(offsetof(struct acpi_srat_mem_affinity, flags) == 28, "layout");

struct acpi_srat_x2apic_affinity {          /* type 2 */
	struct acpi_subtable_header h;
	uint16_t reserved1;
	uint32_t pxm;
	uint32_t x2apic_id;
	uint32_t flags;
	uint32_t clock_domain;
	uint32_t reserved2;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_srat_x2apic_affinity) == 24, "x2APIC affinity entry is 24 bytes");
_Static_assert(offsetof(struct acpi_srat_x2apic_affinity, pxm) == 4, "layout");
_Static_assert(offsetof(struct acpi_srat_x2apic_affinity, x2apic_id) == 8, "layout");
_Static_assert(offsetof(struct acpi_srat_x2apic_affinity, flags) == 12, "layout");

/* GICC affinity (SRAT type 3, 5.2.16.4): 18 bytes. */
#define ACPI_SRAT_GICC_PXM 2            /* u32 */
#define ACPI_SRAT_GICC_UID 6            /* u32 ACPI processor UID */
#define ACPI_SRAT_GICC_FLAGS 10         /* u32: bit 0 enabled */
#define ACPI_SRAT_GICC_BYTES 18

/* SLIT, 5.2.17: N at 36, then N * N one-byte distances. */
struct acpi_slit_header {
	struct acpi_sdt_header header;
	uint64_t nr_localities;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_slit_header) == 44, "SLIT fixed part is 44 bytes");

/* ACPI 6.5, 5.2.17: a locality's distance to itself. */
#define ACPI_SLIT_LOCAL_DISTANCE MEMBOOT_LOCAL_DISTANCE

/* ---- helpers (tables.c) ---- */

/* Copy @n bytes of a firmware string into @dst (n + 1 bytes): stops at NUL,
 * replaces non-printable characters with '?'. */
void acpi_copy_name(char *dst, const void *src, size_t n);

/*
 * Check that @table holds a table with signature @sig, whose header length is
 * at least @min_len and no more than @len. Returns that length, or 0 after
 * one warning "<prefix>...". @prefix is e.g. "ACPI: MADT: ".
 */
uint32_t acpi_table_check(const void *table, size_t len, const char *sig,
			  uint32_t min_len, const char *prefix);

/* Iterator over the variable-length entries of a MADT or SRAT. */
struct acpi_subtables {
	const uint8_t *table;
	uint32_t len;               /* table length: entries end here */
	uint32_t off;               /* offset of the next entry */
	const char *prefix;         /* for warnings, e.g. "ACPI: MADT: " */
	bool truncated;             /* a malformed entry stopped the walk */
};

void acpi_subtables_init(struct acpi_subtables *it, const void *table,
			 uint32_t len, uint32_t first, const char *prefix);

/*
 * The next entry: true with @entry pointing at it, @type and @length set and
 * @off its offset. False at the end of the table, or after one warning (and
 * it->truncated set) if the entry's length is below 2 or it runs past the
 * table.
 */
bool acpi_subtables_next(struct acpi_subtables *it, const uint8_t **entry,
			 uint8_t *type, uint8_t *length, uint32_t *off);

/*
 * An entry of @type at @off is @length bytes, less than the @need bytes its
 * type has: warn, and end the walk.
 */
void acpi_subtables_short(struct acpi_subtables *it, const char *what,
			  uint32_t off, uint8_t length, size_t need);

#endif

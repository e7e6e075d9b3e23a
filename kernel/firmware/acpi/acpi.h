/*
 * acpi.h: the ACPI tables memboot reads (ACPI 6.x), as pure parsers.
 *
 * Overview
 *  - acpi_walk() starts from a copy of the RSDP (20 bytes for ACPI 1.0, 36 for
 *    2.0 and later, as struct bootinfo holds it), follows the XSDT (or the
 *    RSDT when the RSDP is v1 or its XSDT is unusable) and lists every table
 *    whose header and checksum are sound in a struct acpi_tables. The FADT's
 *    DSDT and FACS are listed too. Physical memory is reached only through
 *    the caller's acpi_map_fn: nothing here dereferences a physical address.
 *  - acpi_madt_parse(), acpi_srat_parse() and acpi_slit_parse() take the bytes
 *    of one table (pointer, length) and fill caller-provided structures of
 *    fixed capacity. They check the signature and the header's length but
 *    not the checksum, which is acpi_walk()'s job.
 *  - acpi_print_tables() prints the table list the way Linux does at boot;
 *    acpi_dump_table() prints a table in acpidump's text layout, which
 *    acpixtract and tools/topo/acpidump_text.c read back.
 *
 * Firmware is expected to be wrong sometimes. Every problem is logged once as
 * a warning that names the table, the offset or address and the field; the
 * bad part is skipped and what was read before it is kept. Nothing here
 * allocates, keeps state between calls or panics on firmware input, so the
 * same files build in the kernel, in host tests and in libFuzzer targets.
 *
 * Log prefixes: "ACPI: " for the walk, "ACPI: MADT: ", "ACPI: SRAT: " and
 * "ACPI: SLIT: " for the table parsers. Offsets in messages are from the
 * start of the table, in hex.
 *
 * Firmware layouts (packed structures) are in kernel/firmware/acpi/acpi_internal.h.
 */
#ifndef MEMBOOT_KERNEL_ACPI_ACPI_H
#define MEMBOOT_KERNEL_ACPI_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sizes fixed by the specification. */
#define ACPI_SDT_HEADER_BYTES 36
#define ACPI_RSDP_V1_BYTES 20
#define ACPI_RSDP_V2_BYTES 36

/* Capacities of the result structures. */
#define ACPI_MAX_TABLES 64
/* Processor entries kept: twice the kernel's design limit of 8192 CPUs
 * (kernel/services/limits.h), so that beyond that limit the topology can still choose
 * CPUs balanced across nodes from what the tables list; later entries are
 * counted (nr_dropped). */
#define ACPI_MADT_MAX_CPUS 16384
#define ACPI_SRAT_MAX_CPUS 16384
#define ACPI_SRAT_MAX_MEMS 1024
#define ACPI_SLIT_MAX_LOCALITIES 1024

/*
 * Map @len bytes at physical address @phys: return a pointer to them, or NULL
 * if they cannot all be read (beyond mapped RAM, wrapping past 2^64). The
 * pointer must stay valid for as long as the caller uses struct acpi_tables
 * (the kernel identity-maps, so it is valid until the ACPI reclaimable memory
 * is given to the allocator). Pointers need not be aligned.
 */
typedef const void *(*acpi_map_fn)(void *ctx, uint64_t phys, size_t len);

/* Flags for acpi_walk(). */
enum {
	/*
	 * Accept tables (and an RSDP) whose checksum is wrong, with a warning
	 * each, instead of skipping them. For fuzzing and for broken firmware
	 * on a command-line request; never the default.
	 */
	ACPI_WALK_IGNORE_CHECKSUMS = 1u << 0,
};

/* Results of acpi_walk() and acpi_rsdp_parse(). */
enum acpi_status {
	ACPI_OK = 0,
	ACPI_ERR_RSDP = -1,   /* no valid RSDP: short, bad signature or checksum */
	ACPI_ERR_ROOT = -2,   /* neither the XSDT nor the RSDT is usable */
};

/* How a table was reached. */
enum acpi_table_source {
	ACPI_SRC_RSDP = 0,    /* the RSDT or XSDT itself */
	ACPI_SRC_ROOT,        /* an entry of the RSDT or XSDT */
	ACPI_SRC_FADT,        /* DSDT or FACS, through the FADT */
};

/* The RSDP, decoded and checked. */
struct acpi_rsdp_info {
	uint8_t revision;       /* 0 for ACPI 1.0, 2 for 2.0 and later */
	uint32_t length;        /* 20 for v1, else the v2 length field */
	char oem_id[7];         /* NUL-terminated, non-printables as '?' */
	uint32_t rsdt_phys;
	uint64_t xsdt_phys;     /* 0 unless v2, complete and extended checksum good */
};

/* One table of the directory. */
struct acpi_table_info {
	char signature[5];      /* NUL-terminated, non-printables as '?' */
	char oem_id[7];
	char oem_table_id[9];
	char creator_id[5];
	uint8_t revision;
	uint32_t oem_revision;
	uint32_t creator_revision;
	uint64_t phys;
	uint32_t length;        /* header length, bytes */
	uint8_t source;         /* enum acpi_table_source */
	const void *bytes;      /* what acpi_map_fn returned for [phys, phys + length) */
};

/* Every usable table, in the order the walk met them. */
struct acpi_tables {
	struct acpi_rsdp_info rsdp;
	uint64_t rsdp_phys;     /* as given to acpi_walk(); 0 if unknown */
	uint8_t rsdp_bytes[ACPI_RSDP_V2_BYTES];   /* the copy, for dumps */
	uint32_t rsdp_bytes_len;
	bool root_is_xsdt;
	uint32_t nr_tables;     /* tables[0] is the RSDT or XSDT */
	uint32_t nr_skipped;    /* null, unmapped, short, bad checksum, wrong signature */
	uint32_t nr_duplicates; /* a signature seen again: the first one is kept */
	uint32_t nr_dropped;    /* valid tables beyond ACPI_MAX_TABLES */
	struct acpi_table_info tables[ACPI_MAX_TABLES];
};

/* Sum of @len bytes modulo 256; 0 for a table with a correct checksum. */
uint8_t acpi_checksum(const void *bytes, size_t len);

/*
 * Check an RSDP of @len bytes (20 or 36; more is ignored) and decode it into
 * @out. ACPI_ERR_RSDP if it is shorter than 20 bytes, has the wrong signature
 * or its 20-byte checksum is wrong (unless ACPI_WALK_IGNORE_CHECKSUMS). A v2
 * RSDP whose copy is short, whose length field is below 36 or whose extended
 * checksum is wrong still gives ACPI_OK, with xsdt_phys 0 and a warning.
 */
int acpi_rsdp_parse(const void *rsdp, size_t len, unsigned flags,
		    struct acpi_rsdp_info *out);

/*
 * Build the table directory @dir from the RSDP copy @rsdp of @rsdp_len bytes
 * found at @rsdp_phys (0 if unknown; only printed). Uses the XSDT when the
 * RSDP has one, falling back to the RSDT (with a warning) if the XSDT is
 * unusable. Each table must map, have a header length of at least 36 bytes
 * and a zero checksum; one that does not is skipped with one warning naming
 * its signature and address. A signature seen again is a duplicate (warned,
 * the first is kept), except SSDT, of which there are often several.
 * Returns ACPI_OK, ACPI_ERR_RSDP or ACPI_ERR_ROOT (then dir->nr_tables is 0).
 */
int acpi_walk(struct acpi_tables *dir, const void *rsdp, size_t rsdp_len,
	      uint64_t rsdp_phys, acpi_map_fn map, void *ctx, unsigned flags);

/*
 * The first table with signature @sig (4 characters, e.g. "APIC"), or NULL.
 * acpi_tables_find_next() continues after @prev (NULL: from the start).
 */
const struct acpi_table_info *acpi_tables_find(const struct acpi_tables *dir,
					       const char *sig);
const struct acpi_table_info *acpi_tables_find_next(const struct acpi_tables *dir,
						    const char *sig,
						    const struct acpi_table_info *prev);

/*
 * Print the RSDP and every table, one pr_info line each, as Linux does:
 *   ACPI: RSDP 0x00000000000F5970 000014 (v00 BOCHS )
 *   ACPI: RSDT 0x000000007FFE250B 000040 (v01 BOCHS  BXPC     00000001 BXPC 00000001)
 */
void acpi_print_tables(const struct acpi_tables *dir);

/* ---- MADT ("APIC"): processors and the local APIC address ---- */

/* A processor of the MADT, in the form every architecture's entries give
 * (x86: local APIC type 0 and x2APIC type 9; arm64: GICC, type 0xB). */
struct acpi_cpu {
	/* hardware id (arch/cpu.h): the xAPIC or x2APIC ID; a GICC's MPIDR
	 * packed as Aff3 << 24 | Aff2 << 16 | Aff1 << 8 | Aff0 */
	uint32_t hwid;
	uint32_t acpi_uid;      /* processor UID (type 0: the 8-bit processor ID) */
	bool enabled;           /* usable now */
	bool online_capable;    /* may be brought online later (MADT revision >= 5; GICC flag bit 3) */
	bool ext_id;            /* from the extended form, a 32-bit id (type 9, x2APIC) */
	bool gicc;              /* from a GICC entry (type 0xB) */
};

/* A local APIC NMI entry (MADT type 4 or 0xA): which LINT pin of which
 * processors is wired to NMI. */
#define ACPI_UID_ALL 0xffffffffu     /* every processor (type 4's 0xff too) */
#define ACPI_MADT_MAX_NMIS 64
struct acpi_lapic_nmi {
	uint32_t acpi_uid;      /* processor UID, or ACPI_UID_ALL */
	uint16_t flags;         /* MPS INTI flags: bits 0-1 polarity (3: active low), 2-3 trigger */
	uint8_t lint;           /* 0 or 1 */
	bool ext_id;            /* from the extended form, a 32-bit UID (type 0xA, x2APIC) */
};

/* LINT pins to program as NMI on one processor: acpi_lint_nmi_of(). */
#define ACPI_LINT0_NMI (1u << 0)
#define ACPI_LINT1_NMI (1u << 1)
#define ACPI_LINT0_ACTIVE_LOW (1u << 2)
#define ACPI_LINT1_ACTIVE_LOW (1u << 3)

/* An I/O APIC (MADT type 1): GSIs from gsi_base on are its lines. */
#define ACPI_MADT_MAX_IO_APICS 16
struct acpi_io_apic {
	uint32_t id;
	uint32_t address;
	uint32_t gsi_base;
};
#define ACPI_ISA_IRQS 16

/* A GIC redistributor discovery range (MADT type 0xE): the redistributors
 * of a set of CPUs, one after the other. */
#define ACPI_MADT_MAX_GICR_RANGES 16
struct acpi_gicr_range {
	uint64_t base;
	uint32_t length;        /* bytes */
};

struct acpi_madt_info {
	uint64_t lapic_phys;    /* local APIC base; a type 5 entry overrides */
	uint32_t flags;         /* MADT flags; bit 0: dual 8259 PICs present */
	uint8_t revision;
	uint32_t nr_entries;    /* well-formed entry headers met, of any type */
	uint32_t nr_cpus;       /* cpus[] used: enabled or online-capable */
	uint32_t nr_disabled;   /* processor entries neither enabled nor online-capable */
	uint32_t nr_ignored;    /* invalid APIC ID (0xff, 0xffffffff) or duplicate */
	uint32_t nr_dropped;    /* usable processors beyond ACPI_MADT_MAX_CPUS */
	bool truncated;         /* a malformed entry ended the parse */
	uint32_t nr_nmis;       /* nmis[] used */
	uint32_t nr_nmis_ignored;   /* LINT# above 1, or beyond ACPI_MADT_MAX_NMIS */
	struct acpi_lapic_nmi nmis[ACPI_MADT_MAX_NMIS];
	uint32_t nr_io_apics;   /* io_apics[] used (beyond ACPI_MADT_MAX_IO_APICS: dropped, warned) */
	struct acpi_io_apic io_apics[ACPI_MADT_MAX_IO_APICS];
	/* ISA IRQ i's GSI and MPS INTI flags (bits 0-1 polarity, 2-3 trigger;
	 * 0: the bus's default), after the interrupt source overrides (type 2):
	 * GSI i and flags 0 without one. */
	uint32_t isa_gsi[ACPI_ISA_IRQS];
	uint16_t isa_flags[ACPI_ISA_IRQS];
	/* The GIC (arm64): GICC entries met (usable or not), the distributor
	 * (type 0xC; the first one counts, a second is warned about), the
	 * redistributor ranges (type 0xE) and the ITS count (type 0xF). */
	uint32_t nr_gicc;
	/* GICCs that name their own redistributor (GICR base, at 60): where
	 * no GICR range lists them (ACPI 6.5 5.2.12.14: a machine whose
	 * redistributors are not always on has no GICR entry). Their
	 * redistributors (two 64 KiB frames each, GICv3's RD_base and
	 * SGI_base) are merged into ranges where they lie back to back;
	 * with no GICR entry at all (type 0xE) these ranges become gicr[]
	 * (gicr_from_gicc), so every CPU still finds its redistributor. */
	uint32_t nr_gicc_gicr;
	uint32_t nr_gicc_ranges;
	struct acpi_gicr_range gicc_ranges[ACPI_MADT_MAX_GICR_RANGES];
	bool gicr_from_gicc;
	uint32_t nr_gicd;
	uint64_t gicd_phys;
	uint8_t gic_version;    /* the GICD entry's: 0 (see the distributor), 1..4 */
	uint32_t nr_gicr;       /* gicr[] used (beyond the capacity: dropped, warned) */
	struct acpi_gicr_range gicr[ACPI_MADT_MAX_GICR_RANGES];
	uint32_t nr_its;
	struct acpi_cpu cpus[ACPI_MADT_MAX_CPUS];
};

/* The I/O APIC of @m whose lines hold @gsi (the highest gsi_base not above
 * it), or NULL. Pure. */
const struct acpi_io_apic *acpi_io_apic_of(const struct acpi_madt_info *m, uint32_t gsi);

/*
 * The LINT pins the MADT's NMI entries (types 4 and 0xA) wire to NMI on the
 * processor with ACPI UID @acpi_uid: ACPI_LINT*_NMI and *_ACTIVE_LOW bits.
 * An entry for every processor applies to all; one naming the UID to that
 * one. Pure.
 */
unsigned acpi_lint_nmi_of(const struct acpi_madt_info *m, uint32_t acpi_uid);

/*
 * Parse the MADT in @table (@len bytes available). Entries of type 0 (local
 * APIC), 9 (x2APIC), 0xB (GICC: a processor by its MPIDR, which must have no
 * bits outside the affinity fields; an entry shorter than ACPI 5.1's 76
 * bytes is short), 0xC (GICD), 0xE (GICR range), 0xF (GIC ITS: counted), 4 and 0xA (local APIC and x2APIC NMI: which LINT pin is
 * NMI), 5 (local APIC address override), 1 (I/O APIC) and 2 (ISA interrupt
 * source override; one for an IRQ above 15 is ignored with a warning) are read, others are
 * skipped by their length. An entry of length 0 or 1, one too short for its
 * type, or one running past the table ends the parse with a warning (what was
 * read is kept, truncated is set). Returns false, with @out empty and one
 * warning, if the table itself is unusable (short, wrong signature, header
 * length past @len).
 */
bool acpi_madt_parse(const void *table, size_t len, struct acpi_madt_info *out);

/* ---- SRAT: CPU and memory affinity ---- */

struct acpi_srat_cpu {
	/* the CPU's hardware id: the entry's (x2)APIC ID; a GICC affinity's
	 * ACPI processor UID while by_uid, which acpi_srat_resolve_uids()
	 * replaces with the MADT's hwid for that UID (12 bytes an entry:
	 * 16384 of them live in the kernel image) */
	uint32_t hwid;
	uint32_t pxm;           /* proximity domain */
	bool x2apic;            /* from a type 2 entry */
	bool gicc;              /* from a type 3 entry (GICC affinity) */
	bool by_uid;            /* hwid is still the UID: not resolved yet */
};

struct acpi_srat_mem {
	uint32_t pxm;
	uint64_t start;         /* [start, end), bytes */
	uint64_t end;
	bool hotplug;
	bool nonvolatile;
};

/* A generic initiator (type 5: an accelerator, a NIC) or generic port
 * (type 6: a CXL host bridge) affinity, ACPI 6.4/6.5: a device handle and
 * the domain its memory accesses (or the memory behind it) belong to. */
#define ACPI_SRAT_MAX_GENERIC 64
struct acpi_srat_generic {
	uint8_t type;           /* 5: initiator, 6: port */
	uint8_t handle_type;    /* 0: ACPI (_HID, _UID), 1: PCI (segment, BDF) */
	uint32_t pxm;
	char acpi_hid[9];       /* handle type 0; NUL-terminated, '?' for non-printables */
	uint32_t acpi_uid;
	uint16_t pci_segment;   /* handle type 1 */
	uint16_t pci_bdf;       /* bus << 8 | device << 3 | function */
	bool architectural;     /* flags bit 1: architectural transactions */
};

struct acpi_srat_info {
	uint8_t revision;       /* below 2: proximity domains are 8 bits */
	uint32_t nr_entries;    /* well-formed entry headers met, of any type */
	uint32_t nr_cpus;
	uint32_t nr_mems;
	uint32_t nr_disabled;   /* affinity entries without the enabled bit */
	uint32_t nr_ignored;    /* empty memory range, duplicate APIC ID or UID, UID of no processor */
	uint32_t nr_dropped_cpus;   /* beyond ACPI_SRAT_MAX_CPUS */
	uint32_t nr_dropped_mems;   /* beyond ACPI_SRAT_MAX_MEMS */
	bool truncated;         /* a malformed entry ended the parse */
	uint32_t nr_generic;    /* generic initiators and ports kept (enabled ones) */
	uint32_t nr_dropped_generic;   /* beyond ACPI_SRAT_MAX_GENERIC */
	struct acpi_srat_generic generic[ACPI_SRAT_MAX_GENERIC];
	struct acpi_srat_cpu cpus[ACPI_SRAT_MAX_CPUS];
	struct acpi_srat_mem mems[ACPI_SRAT_MAX_MEMS];
};

/*
 * Parse the SRAT in @table. Types 0 (processor local APIC affinity), 1
 * (memory affinity), 2 (x2APIC affinity), 3 (GICC affinity: a processor by
 * its ACPI UID, by_uid set), 5 (generic initiator) and 6
 * (generic port) are read; disabled entries are
 * counted and skipped (QEMU's q35 appends an empty disabled memory entry).
 * For SRAT revisions below 2 only the low 8 bits of a proximity domain count,
 * as ACPI 2.0 defined them. A memory range wrapping past 2^64 is clipped to
 * end at 0xffffffffffffffff, with a warning. Entry-length rules and the
 * return value are those of acpi_madt_parse(). A CPU listed twice keeps its
 * first proximity domain (warned). Nothing checks here that the ranges are
 * disjoint or that domains match the SLIT: that is the NUMA layer's job.
 */
bool acpi_srat_parse(const void *table, size_t len, struct acpi_srat_info *out);

/*
 * Give each GICC affinity (type 3) of @srat the hwid of the MADT processor
 * with its ACPI processor UID; one whose UID no processor of @madt has
 * (NULL: no MADT) is removed with a warning and counted in nr_ignored, so
 * every entry left names a hardware id. Returns the entries resolved. For
 * x86 tables, which have no type 3 entries, nothing changes.
 */
uint32_t acpi_srat_resolve_uids(struct acpi_srat_info *srat, const struct acpi_madt_info *madt);

/* ---- SLIT: distances between localities (proximity domains) ---- */

struct acpi_slit_info {
	const uint8_t *matrix;  /* points into the table: row-major N x N */
	uint32_t nr_localities; /* N; 0 if the table was rejected */
	bool symmetric;
	bool valid;             /* diagonal all 10, everything else above 10 */
};

/*
 * Parse the SLIT in @table. Rejected (nr_localities 0, one warning) if the
 * table is short, N is 0 or above ACPI_SLIT_MAX_LOCALITIES, or the table is
 * shorter than 44 + N * N bytes. Otherwise matrix and nr_localities are set;
 * a diagonal entry other than 10 or an off-diagonal entry of 10 or less makes
 * it invalid (one warning naming the first such entry) and asymmetry is
 * warned about once but accepted. Returns true only if valid: a caller
 * getting false should fall back to default distances. The matrix is not
 * copied, so @table must stay mapped while it is used.
 */
bool acpi_slit_parse(const void *table, size_t len, struct acpi_slit_info *out);

/* Distance from locality @from to @to, or 0 if either is out of range. */
uint8_t acpi_slit_distance(const struct acpi_slit_info *slit, uint32_t from,
			   uint32_t to);

/* ---- HMAT: heterogeneous memory attributes (ACPI 6.5, 5.2.28) ---- */

/* Data types of a latency and bandwidth structure (5.2.28.4). */
enum acpi_hmat_data_type {
	ACPI_HMAT_ACCESS_LATENCY = 0,
	ACPI_HMAT_READ_LATENCY = 1,
	ACPI_HMAT_WRITE_LATENCY = 2,
	ACPI_HMAT_ACCESS_BANDWIDTH = 3,
	ACPI_HMAT_READ_BANDWIDTH = 4,
	ACPI_HMAT_WRITE_BANDWIDTH = 5,
	ACPI_HMAT_NR_DATA_TYPES = 6,
};
#define ACPI_HMAT_HIERARCHY_MEMORY 0   /* 1..3: a memory-side cache level */

#define ACPI_HMAT_MAX_DOMAINS 256
#define ACPI_HMAT_MAX_LB 64
#define ACPI_HMAT_MAX_VALUES 4096
#define ACPI_HMAT_MAX_CACHES 256

/* Type 0: a memory domain and the initiator attached to it. */
struct acpi_hmat_domain {
	uint32_t memory_pxm;
	uint32_t initiator_pxm;
	bool initiator_valid;   /* flags bit 0 */
};

/* One figure of a latency and bandwidth structure. */
struct acpi_hmat_value {
	uint32_t initiator_pxm;
	uint32_t target_pxm;
	/* Entry x base unit: picoseconds for a latency, MB/s for a bandwidth. */
	uint64_t value;
	uint8_t data_type;      /* enum acpi_hmat_data_type */
	uint8_t hierarchy;      /* ACPI_HMAT_HIERARCHY_MEMORY or a cache level */
};

/* Type 1, as read: its figures are values[first_value, + nr_values). */
struct acpi_hmat_lb {
	uint8_t hierarchy;      /* flags bits 0-3 */
	uint8_t data_type;
	uint8_t min_transfer;   /* bytes (ACPI 6.4); 0: not given */
	uint32_t nr_initiators, nr_targets;
	uint64_t base_unit;
	uint32_t first_value, nr_values;
	uint32_t nr_missing;    /* entries 0: not provided */
	uint32_t nr_unreachable;/* entries 0xffff */
};

/* Type 2: a memory-side cache in front of a memory domain. */
struct acpi_hmat_cache {
	uint32_t memory_pxm;
	uint64_t size_bytes;
	uint8_t total_levels, level;
	uint8_t associativity;  /* 0 none, 1 direct mapped, 2 complex */
	uint8_t write_policy;   /* 0 none, 1 write-back, 2 write-through */
	uint16_t line_bytes;
};

struct acpi_hmat_info {
	uint8_t revision;       /* 2 since ACPI 6.3 (latencies in picoseconds) */
	uint32_t nr_structures;
	uint32_t nr_domains, nr_lb, nr_values, nr_caches;
	uint32_t nr_dropped;    /* structures or figures beyond the capacities */
	uint32_t nr_zero_base;  /* latency/bandwidth structures with base unit 0 */
	bool truncated;         /* a malformed structure ended the parse */
	struct acpi_hmat_domain domains[ACPI_HMAT_MAX_DOMAINS];
	struct acpi_hmat_lb lb[ACPI_HMAT_MAX_LB];
	struct acpi_hmat_value values[ACPI_HMAT_MAX_VALUES];
	struct acpi_hmat_cache caches[ACPI_HMAT_MAX_CACHES];
};

/*
 * Parse the HMAT in @table: memory proximity domain attributes (type 0),
 * system locality latency and bandwidth (type 1: every data type, its
 * entries times the entry base unit, entries 0 (not provided) and 0xffff
 * (unreachable) counted and not kept) and memory-side cache information
 * (type 2). Structures are (type u16, reserved u16, length u32, ...); one
 * shorter than its type's fixed part or than the lists and matrix its
 * counts need, or running past the table, ends the parse with a warning
 * (truncated). Returns false with @out empty and one warning if the table
 * itself is unusable, as acpi_madt_parse() does.
 */
bool acpi_hmat_parse(const void *table, size_t len, struct acpi_hmat_info *out);

/* "access_latency", "read_latency", ... "write_bandwidth"; "?" beyond. */
const char *acpi_hmat_data_type_name(uint8_t type);

/*
 * Check @hmat against @srat (NULL: no SRAT), warning, never refusing: a
 * proximity domain HMAT names that the SRAT does not (an initiator no CPU
 * or generic initiator affinity has, a target no memory affinity has), a
 * latency/bandwidth structure with base unit 0, a latency above 100 us or a
 * bandwidth above 100 TB/s (absurd for memory). Returns the warnings given.
 */
uint32_t acpi_hmat_check(const struct acpi_hmat_info *hmat, const struct acpi_srat_info *srat);

/* Latency above this is absurd for memory (picoseconds: 100 us). */
#define ACPI_HMAT_ABSURD_LATENCY_PS 100000000ull
/* Bandwidth above this is absurd for memory (MB/s: 100 TB/s). */
#define ACPI_HMAT_ABSURD_BANDWIDTH_MBS 100000000ull

/* ---- acpidump text ---- */

/* Longest line acpi_dump_format_line() writes, with its NUL. */
#define ACPI_DUMP_LINE_BYTES 88

/*
 * Format the dump line for bytes [@offset, @offset + 16) of @bytes (fewer at
 * the end of @len), without a newline:
 *     0010: 42 58 50 43 20 20 20 20 01 00 00 00 42 58 50 43  BXPC    ....BXPC
 * Returns the length written (0 if @offset >= @len or @cap is too small).
 */
size_t acpi_dump_format_line(char *buf, size_t cap, const void *bytes, size_t len,
			     size_t offset);

/*
 * Print a table in acpidump's layout, one pr_info line each: "SIG @ 0x%016X",
 * the hex lines, then an empty line. @sig is 4 characters ("RSDP" for the
 * RSDP).
 */
void acpi_dump_table(const char *sig, uint64_t phys, const void *bytes, size_t len);

/* acpi_dump_table() for the RSDP copy and every table of @dir. */
void acpi_dump_tables(const struct acpi_tables *dir);

/* ---- FADT ("FACP"): the ACPI PM timer ---- */

struct acpi_pm_timer {
	uint16_t port;          /* I/O port of the 32-bit read */
	uint8_t bits;           /* 24 or 32: the counter wraps at 2^bits */
};

/*
 * The PM timer of the FADT in @table (@len bytes), from X_PM_TMR_BLK when it
 * is a nonzero I/O address, else PM_TMR_BLK. Returns false with @out zeroed
 * when there is none (hardware-reduced ACPI, zero block) or the fields are
 * unusable (warned: length not 4, not an I/O port).
 */
bool acpi_fadt_pm_timer(const void *table, size_t len, struct acpi_pm_timer *out);

/* ---- FADT ("FACP"): the ARM boot architecture flags ---- */

struct acpi_arm_boot {
	bool psci;              /* PSCI_COMPLIANT: CPUs start through PSCI CPU_ON */
	bool psci_hvc;          /* PSCI_USE_HVC: the conduit is HVC, else SMC */
};

/*
 * The ARM boot architecture flags of the FADT in @table (@len bytes; offset
 * 129, FADT 5.1 and later). Returns false with @out zeroed when the table
 * is too short to have them (warned) or PSCI_COMPLIANT is clear (no
 * warning: an x86 FADT has 0 there); PSCI_USE_HVC without PSCI_COMPLIANT
 * is warned about.
 */
bool acpi_fadt_arm_boot(const void *table, size_t len, struct acpi_arm_boot *out);

/* ---- GTDT: the generic timer's interrupts ---- */

/* GTDT timer flags (ACPI 6.5, 5.2.25): bit 0 edge-triggered, bit 1 active
 * low, bit 2 always-on. */
#define ACPI_GTDT_EDGE (1u << 0)
#define ACPI_GTDT_ACTIVE_LOW (1u << 1)
#define ACPI_GTDT_ALWAYS_ON (1u << 2)

struct acpi_gtdt_info {
	uint8_t revision;
	uint64_t cnt_control_base;      /* CntControlBase; 0xffffffffffffffff: none */
	uint64_t cnt_read_base;         /* CntReadBase; the same */
	uint32_t secure_el1_gsiv, secure_el1_flags;
	uint32_t el1_gsiv, el1_flags;   /* the non-secure EL1 (physical) timer */
	uint32_t virt_gsiv, virt_flags; /* the EL1 virtual timer */
	uint32_t el2_gsiv, el2_flags;   /* the non-secure EL2 timer */
	uint32_t virt_el2_gsiv, virt_el2_flags;   /* revision 3 and later; else 0 */
	uint32_t nr_platform_timers;    /* GT blocks and watchdogs: counted only */
};

/*
 * Parse the GTDT in @table. Returns false with @out zeroed and one warning
 * when it is unusable (short of revision 2's 96 bytes, wrong signature);
 * a platform timer array that does not fit the table is warned about and
 * counted as 0 timers.
 */
bool acpi_gtdt_parse(const void *table, size_t len, struct acpi_gtdt_info *out);

/* ---- PPTT: the processor topology and its caches ---- */

/* Kinds of cache reported (level, type, geometry, CPUs sharing one). */
#define ACPI_PPTT_MAX_CACHE_KINDS 16

enum { ACPI_PPTT_CACHE_DATA = 0, ACPI_PPTT_CACHE_INSTRUCTION = 1, ACPI_PPTT_CACHE_UNIFIED = 2 };

/* Caches alike, counted together. */
struct acpi_pptt_cache {
	uint32_t level;
	uint32_t type;          /* ACPI_PPTT_CACHE_*: unified when not given */
	uint32_t size_bytes, sets, ways, line_bytes;    /* 0: not given */
	uint32_t cpus;          /* leaf processors sharing each one */
	uint32_t count;         /* structures */
};

struct acpi_pptt_info {
	uint8_t revision;
	uint32_t nr_nodes;      /* sound processor hierarchy nodes */
	uint32_t nr_processors; /* leaves: the logical processors */
	uint32_t nr_packages, nr_clusters, nr_cores, nr_threads;
	uint32_t nr_cache_structs;      /* type 1 structures in the table */
	uint32_t nr_caches;             /* entries of caches[] */
	struct acpi_pptt_cache caches[ACPI_PPTT_MAX_CACHE_KINDS];
	uint32_t kinds_dropped;         /* caches of kinds beyond caches[] */
	uint32_t warnings;
	bool truncated;         /* a structure running past the end ended it */
};

/*
 * Parse the PPTT in @table (kernel/firmware/acpi/pptt.c says how nodes are
 * classed and caches levelled). Returns false with @out zeroed and one
 * warning when it is unusable (short, wrong signature); a structure that
 * does not fit ends the walk (truncated), a node too short for its private
 * resources is skipped, a parent that is no processor node makes a root,
 * a loop in the parents or the cache chains is cut: each warned and
 * counted in warnings.
 */
bool acpi_pptt_parse(const void *table, size_t len, struct acpi_pptt_info *out);

/* ---- HPET: the event timer block ---- */

struct acpi_hpet_info {
	uint64_t address;       /* physical base of the 1 KiB register block */
	uint32_t block_id;      /* Event Timer Block ID: vendor, revision, timers */
};

/*
 * The HPET table in @table (@len bytes). Returns false with @out zeroed if
 * it is unusable (short, registers not in memory space, a base that is zero
 * or not 1 KiB aligned; warned).
 */
bool acpi_hpet_parse(const void *table, size_t len, struct acpi_hpet_info *out);

#endif

/*
 * smbios.h: the SMBIOS (DMI) tables memboot reads (DMTF DSP0134 3.x), as a
 * pure parser beside the ACPI ones.
 *
 * Overview
 *  - smbios_entry_parse() checks an entry point as boot/ copied it (the
 *    31-byte 2.x "_SM_" one or the 24-byte 3.0 "_SM3_" one): anchor,
 *    length, checksums, and for 2.x the "_DMI_" intermediate anchor and its
 *    checksum; it gives the version and where the structure table is.
 *  - smbios_parse() takes the bytes of the structure table (pointer, length
 *    that can be read) and fills a struct smbios_info: firmware (type 0),
 *    system (1), board (2), sockets (4), memory devices (17) and the
 *    address ranges of memory arrays and devices (19, 20). Strings are
 *    copied, so the table may be reused once parsing is done.
 *
 * Firmware is expected to be wrong sometimes. Every structure is bounded by
 * the table's length (the 2.x exact length, the 3.0 maximum, or less when
 * less could be mapped: a warning says so), its formatted part by its own
 * length byte and its strings by the double NUL that ends them; a string
 * number beyond the strings a structure has is counted and read as empty;
 * a structure that runs past the end ends the parse (truncated); a handle
 * seen before (a table that repeats itself) skips the structure; the 2.x
 * structure count and type 127 (end of table) end it too. Nothing here
 * allocates, keeps state between calls or panics, so the same file builds
 * in the kernel, the host tests, the fuzzers and tools/memboot topo.
 *
 * Log prefix "DMI: ".
 */
#ifndef MEMBOOT_KERNEL_ACPI_SMBIOS_H
#define MEMBOOT_KERNEL_ACPI_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMBIOS_EP2_BYTES 31         /* "_SM_" entry point, 2.1 and later */
#define SMBIOS_EP3_BYTES 24         /* "_SM3_" entry point, 3.0 and later */
#define SMBIOS_EP_MAX_BYTES 32      /* what boot/ copies, at most */

#define SMBIOS_STR_BYTES 48         /* a string kept, NUL included (cut beyond) */
#define SMBIOS_MAX_SOCKETS 64
#define SMBIOS_MAX_DEVICES 512      /* type 17 structures kept, populated or not */
#define SMBIOS_MAX_RANGES 512       /* type 19 and type 20 ranges each */

/* A checked entry point. */
struct smbios_entry {
	bool v3;                    /* from "_SM3_" */
	uint8_t major, minor, docrev;
	uint64_t table_phys;
	/* 2.x: the table's exact length; 3.0: its maximum (the end-of-table
	 * structure ends it). */
	uint32_t table_bytes;
	uint32_t nr_structures;     /* 2.x: how many; 0 for 3.0 (not given) */
};

/*
 * Check the entry point in @ep (@len bytes available) and decode it into
 * @out. Returns false with @out zeroed and one warning naming the problem
 * (short, no anchor, a length field too small or beyond @len, a checksum
 * that does not sum to 0, 2.x's "_DMI_" anchor missing, a table address of
 * 0 or a 3.0 table that would wrap past 2^64).
 */
bool smbios_entry_parse(const void *ep, size_t len, struct smbios_entry *out);

/* A processor socket (type 4). */
struct smbios_socket {
	char designation[SMBIOS_STR_BYTES];
	char manufacturer[SMBIOS_STR_BYTES];
	char version[SMBIOS_STR_BYTES];
	bool populated;             /* status bit 6 */
	uint16_t max_speed_mhz, current_speed_mhz;   /* 0: unknown */
	uint16_t cores, threads;    /* 0: unknown (before 2.5) */
};

/* A memory device (type 17). */
struct smbios_device {
	uint16_t handle;
	uint16_t array_handle;      /* its type 16 physical memory array */
	char locator[SMBIOS_STR_BYTES];
	char bank[SMBIOS_STR_BYTES];
	char manufacturer[SMBIOS_STR_BYTES];
	char part[SMBIOS_STR_BYTES];
	uint64_t size_bytes;        /* 0: no device installed in this slot */
	bool size_unknown;          /* installed, size 0xffff (unknown) */
	uint8_t type;               /* memory type byte (0x1a DDR4, 0x22 DDR5...) */
	uint8_t form_factor;
	uint32_t speed_mts;         /* maximum speed, MT/s; 0: unknown */
	uint32_t configured_mts;    /* configured speed, MT/s; 0: unknown */
};

/* A physical address range of a memory array (19) or device (20). */
struct smbios_range {
	uint64_t start;             /* [start, end), bytes */
	uint64_t end;
	uint16_t handle;            /* 19: the array's handle; 20: the device's */
};

/* Everything before `sockets` is cleared by smbios_parse(); the arrays'
 * entries below their counts are written as they are taken. */
struct smbios_info {
	struct smbios_entry entry;
	char bios_vendor[SMBIOS_STR_BYTES];
	char bios_version[SMBIOS_STR_BYTES];
	char bios_date[SMBIOS_STR_BYTES];
	char sys_vendor[SMBIOS_STR_BYTES];
	char sys_product[SMBIOS_STR_BYTES];
	char sys_version[SMBIOS_STR_BYTES];
	char board_vendor[SMBIOS_STR_BYTES];
	char board_product[SMBIOS_STR_BYTES];
	char board_version[SMBIOS_STR_BYTES];
	bool have_bios, have_system, have_board;

	uint32_t nr_structures;     /* structures read, of any type */
	uint32_t table_bytes_read;  /* bytes up to the end of the last one read */
	uint32_t nr_bad_strings;    /* string numbers past a structure's strings */
	uint32_t nr_short;          /* structures too short for their type's fields */
	uint32_t nr_bad_lengths;    /* far longer than their type's layout (smbios.c) */
	uint32_t nr_duplicate_handles;
	uint32_t nr_dropped;        /* sockets, devices, ranges beyond capacity */
	bool truncated;             /* a structure ran past the table's end */
	bool cut_by_mapping;        /* fewer bytes could be read than the entry says */
	bool ended;                 /* type 127 (end of table) was met */

	uint32_t nr_sockets;
	uint32_t nr_devices;        /* type 17 structures kept */
	uint32_t nr_populated;      /* of which size_bytes > 0 or size unknown */
	uint32_t nr_array_ranges, nr_device_ranges;
	struct smbios_socket sockets[SMBIOS_MAX_SOCKETS];
	struct smbios_device devices[SMBIOS_MAX_DEVICES];
	struct smbios_range array_ranges[SMBIOS_MAX_RANGES];   /* type 19 */
	struct smbios_range device_ranges[SMBIOS_MAX_RANGES];  /* type 20 */

	/* Handles seen, one bit each: a handle met again is a table that
	 * repeats or loops; parsing state, not a result. */
	uint64_t handles_seen[65536 / 64];
};

/*
 * Parse the structure table described by @ep, whose first @avail bytes can
 * be read at @table (fewer than ep->table_bytes: warned, parsed as far as
 * they go). Returns false with one warning if no structure could be read
 * at all; true otherwise (what was read before a problem is kept).
 */
bool smbios_parse(const void *table, size_t avail, const struct smbios_entry *ep,
		  struct smbios_info *out);

/* "DDR5", "DDR4", "RAM"... for a type 17 memory type byte; "unknown" for
 * values the specification does not name. */
const char *smbios_mem_type_name(uint8_t type);

/*
 * The physical ranges device @index of @info backs: its type 20 ranges;
 * with none, its array's type 19 ranges when it is the only populated device
 * of that array (otherwise which part of the array is whose is not said).
 * Writes at most @cap into @out; returns how many there are.
 */
uint32_t smbios_device_ranges(const struct smbios_info *info, uint32_t index,
			      struct smbios_range *out, uint32_t cap);

#endif

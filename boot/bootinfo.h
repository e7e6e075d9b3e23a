/*
 * bootinfo.h: THE hand-off from boot/ to the rest of the kernel.
 *
 * Every boot path (Multiboot2 under BIOS or UEFI, later the gnu-efi loader and
 * PVH) fills one struct bootinfo and nothing past boot/ knows which firmware
 * format it came from. The memory map in it is normalized: page-aligned,
 * sorted, disjoint, half-open [start, end) ranges, each with one type
 * (struct mem_range, kernel/services/mem_range.h: the form in which mm/ and arch/ take
 * the map, without a copy). Where firmware ranges overlap, the more
 * restrictive type wins (see enum mem_type);
 * usable ranges shrink inward to page boundaries, all others grow outward, so
 * no partial page is ever handed out as RAM.
 *
 * Everything is copied into the struct: the firmware's own buffers (the
 * Multiboot2 information, the EFI map) live in memory that is usable RAM and
 * may be reused once parsing is done.
 */
#ifndef MEMBOOT_BOOT_BOOTINFO_H
#define MEMBOOT_BOOT_BOOTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/console/fb.h"
#include "kernel/services/fwcfg_blob.h"
#include "kernel/services/limits.h"   /* PAGE_SHIFT, PAGE_SIZE_BYTES, MEMBOOT_MAX_MAP_RANGES */
#include "kernel/services/mem_range.h"  /* struct mem_range, enum mem_type */

enum boot_path {
	BOOT_PATH_UNKNOWN = 0,
	BOOT_PATH_MB2_BIOS,
	BOOT_PATH_MB2_UEFI,
	BOOT_PATH_EFI,
	BOOT_PATH_PVH,
	BOOT_PATH_DT,       /* a device tree's address in x0 (arm64 Image, QEMU -kernel) */
};

/*
 * Capacities. OVMF hands out 120-135 EFI descriptors; adjacent descriptors of
 * one type are merged as they are added, so the raw list stays far below this.
 */
#define BOOTINFO_MAX_RAW 1024
#define BOOTINFO_MAX_RANGES MEMBOOT_MAX_MAP_RANGES
#define BOOTINFO_MAX_SCRATCH (2 * BOOTINFO_MAX_RAW + 1)   /* exact sweep of the raw list */
#define BOOTINFO_CMDLINE_BYTES 2048
#define BOOTINFO_LOADER_BYTES 64
#define BOOTINFO_DROPPED_BYTES 40
#define BOOTINFO_MAX_EFI_RUNTIME 32
#define BOOTINFO_MAX_SOFT_RESERVED 32
#define BOOTINFO_SMBIOS_EP_BYTES 32   /* the 3.0 entry point is 24 bytes, 2.x 31 */

/* The raw firmware map as read, before normalization (kept for dumps). */
struct mem_map_raw {
	struct mem_range ranges[BOOTINFO_MAX_RAW];
	uint32_t nr_ranges;
	uint32_t nr_dropped;   /* entries lost because the list was full */
	uint32_t nr_entries;   /* firmware entries seen, before merging */
};

struct bootinfo {
	enum boot_path path;
	const char *map_source;           /* "mb2-mmap", "mb2-efi-mmap", ... */
	char loader[BOOTINFO_LOADER_BYTES];
	char cmdline[BOOTINFO_CMDLINE_BYTES];
	/* The command line did not fit: whole words were dropped from here on,
	 * never a word cut in two. cmdline_dropped holds the start of the
	 * first word dropped, for the messages and the boot record. */
	bool cmdline_cut;
	char cmdline_dropped[BOOTINFO_DROPPED_BYTES];

	/* A copy of the RSDP (36 bytes for v2, 20 for v1); rsdp_len 0 if none. */
	uint8_t rsdp[36];
	uint32_t rsdp_len;
	uint8_t rsdp_revision;

	struct mem_map_raw raw;

	/* The screen the loader set up (Multiboot2 tag 8, UEFI GOP); phys 0 if
	 * none. The console draws on it. */
	struct fb_info fb;

	/* UEFI boots: the EFI system table's physical address (Multiboot2 tag
	 * 12, the gnu-efi loader's hand-off), 0 if none, and the runtime
	 * services' code ranges of the EFI memory map (type 5), which the
	 * kernel makes executable while it calls SetVariable
	 * (kernel/services/report/efivars.c). */
	uint64_t efi_system_table;
	struct mem_range efi_runtime_code[BOOTINFO_MAX_EFI_RUNTIME];
	uint32_t nr_efi_runtime_code;
	/* Conventional memory the EFI map marks EFI_MEMORY_SP (specific
	 * purpose, soft-reserved: HBM, CXL memory meant for a driver): put in
	 * the raw map as reserved, so never given to the allocator, as Linux
	 * leaves it to drivers; listed here for the report. nr_soft_reserved
	 * counts them all, the array keeps the first ones. */
	struct mem_range soft_reserved[BOOTINFO_MAX_SOFT_RESERVED];
	uint32_t nr_soft_reserved;

	/* A copy of the SMBIOS entry point (boot/smbios_ep.c), smbios_ep_len 0
	 * if none was found; where it lay and how it was found ("bios-area",
	 * "efi-smbios3", "efi-smbios"). */
	uint8_t smbios_ep[BOOTINFO_SMBIOS_EP_BYTES];
	uint32_t smbios_ep_len;
	uint64_t smbios_ep_phys;
	const char *smbios_source;

	/* Where the loader's own information block lies, for debug dumps
	 * (memboot.dump_bootinfo); nothing interprets it outside boot/. */
	uint64_t loader_info_phys;
	uint32_t loader_info_bytes;

	/* QEMU only: the fw_cfg file of a page-allocator trace to replay
	 * (memboot.selftest=replay, tools/memboot run --replay): its selector
	 * and size, 0 bytes when there is none. */
	struct fwcfg_blob replay;
	/* The device tree the loader handed over (boot/dtimage), 0 bytes when
	 * none: phase numa reads the NUMA topology from it where there is no
	 * SRAT. It lies in reserved memory, identity mapped. */
	uint64_t dtb_phys;
	uint32_t dtb_bytes;

	/* Normalized map: sorted, disjoint, page-aligned, no MEM_NONE. */
	struct mem_range ranges[BOOTINFO_MAX_RANGES];
	uint32_t nr_ranges;

	/* Working space of bootinfo_normalize(). */
	struct mem_range scratch[BOOTINFO_MAX_SCRATCH];
};

/* Reset @bi to an empty map with no loader, command line or RSDP. */
void bootinfo_init(struct bootinfo *bi, enum boot_path path);

/*
 * Add one firmware range [start, start + len) of @type to the raw list.
 * A zero length is ignored; a range that wraps past 2^64 is clipped (with a
 * warning); a range touching the previous one with the same type is merged.
 * Returns false if the range had to be dropped (list full).
 */
bool bootinfo_add_raw(struct bootinfo *bi, uint64_t start, uint64_t len,
		      enum mem_type type);

/*
 * Build bi->ranges from bi->raw: resolve overlaps (most restrictive type
 * wins), align to pages (usable shrinks, others grow), sort, merge neighbours
 * of one type, drop holes. Returns the number of ranges.
 */
uint32_t bootinfo_normalize(struct bootinfo *bi);

/* Append @s to the command line, separated by one space (truncates safely). */
void bootinfo_append_cmdline(struct bootinfo *bi, const char *s);
/* The same, naming where @s came from in the warning if it does not fit. */
void bootinfo_append_cmdline_from(struct bootinfo *bi, const char *s, const char *source);

/*
 * Put @len bytes of @src into the command line at byte @at (0: replace it;
 * strlen: append without a separator). @next is the byte that followed @src
 * in its source: '\0' if @src is all of it, -1 if more followed but is not
 * known. What does not fit is dropped by whole words: a word cut in two
 * would be a different value (maxcpus=30 read as maxcpus=3), so the word
 * the buffer ends in is dropped too, named in one warning per boot.
 * Quotes are honoured: a space inside "..." does not end a word.
 */
void bootinfo_put_cmdline(struct bootinfo *bi, size_t at, const char *src, size_t len,
			  int next, const char *source);

/* Total bytes of normalized ranges of @type. */
uint64_t bootinfo_total_bytes(const struct bootinfo *bi, enum mem_type type);

const char *mem_type_name(enum mem_type type);        /* "usable", "acpi", ... */
const char *mem_type_linux_name(enum mem_type type);  /* "usable", "ACPI data" */
const char *boot_path_name(enum boot_path path);      /* "mb2-bios", ... */

#endif

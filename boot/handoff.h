/*
 * handoff.h: the block memboot's own UEFI loader (boot/efi/) hands the kernel.
 *
 * Overview
 *  - The loader (BOOTX64.EFI, BOOTAA64.EFI) reads the kernel ELF, loads its
 *    PT_LOAD segments at their physical addresses, builds one hand-off block
 *    in EfiLoaderData memory below 4 GiB, takes the final memory map straight
 *    into that block, calls ExitBootServices and jumps to the kernel's entry
 *    with the magic and the block's physical address in its first two
 *    argument registers:
 *        x86_64: RDI = HANDOFF_ENTRY_MAGIC, RSI = the block, at _start64
 *                (arch/x86_64/entry64.S);
 *        arm64:  x0 = HANDOFF_ENTRY_MAGIC, x1 = the block, at _start
 *                (arch/arm64/entry.S), at EL2 or EL1 with the MMU and
 *                caches off and the kernel and block cleaned to the point
 *                of coherency, as Linux's arm64 boot protocol enters a
 *                kernel (where x0 is a device tree and x1 zero: the magic
 *                tells the two apart).
 *  - The loader finds the entry through an ELF note (name "memboot", type
 *    HANDOFF_NOTE_ENTRY64) that the entry code emits; no symbol table is
 *    needed, so a stripped kernel still boots.
 *  - The block is self-describing: a fixed header, then byte ranges named by
 *    (offset, bytes) pairs relative to the start of the block. Nothing in it
 *    is a pointer, so a captured block is a complete host-test fixture.
 *  - handoff_parse() turns a block into struct bootinfo (boot path "efi").
 *    It is pure C over (pointer, length) and reuses efi_map_add() for the
 *    UEFI descriptors, stepping by the firmware's descriptor size.
 *
 * Versioning: @version is 1. A later loader may grow the header
 * (header_bytes > sizeof) and append fields; a reader takes the fields it
 * knows and ignores the rest. A block with a different major layout gets a
 * new magic.
 *
 * This header is shared by the kernel and the loader (gnu-efi); it uses only
 * <stdint.h> types and has no dependency on either side.
 */
#ifndef MEMBOOT_BOOT_HANDOFF_H
#define MEMBOOT_BOOT_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

/* Value in EDI (RDI; arm64: x0) when the kernel is entered by the memboot
 * UEFI loader. */
#define HANDOFF_ENTRY_MAGIC 0x4d42efe1u

/* First word of the block: "MBHO" in memory. */
#define HANDOFF_MAGIC 0x4f48424du
#define HANDOFF_VERSION 1u

/* The block may not plausibly be larger than this (a 4096-descriptor map of
 * 256-byte descriptors fits). */
#define HANDOFF_MAX_BYTES (1u << 20)

/* ELF note the loader reads to find the 64-bit entry. */
#define HANDOFF_NOTE_NAME "memboot"
#define HANDOFF_NOTE_ENTRY64 0x6d620001u

/* Descriptor of HANDOFF_NOTE_ENTRY64 (16 bytes, 4-byte aligned in the note). */
struct handoff_note_entry64 {
	uint32_t entry_lo;          /* physical address of _start64 */
	uint32_t entry_hi;
	uint32_t handoff_version;   /* highest block version the kernel reads */
	uint32_t reserved;
};
_Static_assert(sizeof(struct handoff_note_entry64) == 16, "entry64 note descriptor");

/* Flags in handoff_header.flags. */
enum {
	HANDOFF_F_RSDP_ACPI20 = 1u << 0,   /* RSDP found under the ACPI 2.0 GUID */
	HANDOFF_F_RSDP_ACPI10 = 1u << 1,   /* only the ACPI 1.0 GUID had one */
	HANDOFF_F_CMDLINE_FILE = 1u << 2,  /* cmdline came from \EFI\memboot\cmdline.txt */
	HANDOFF_F_CMDLINE_OPTIONS = 1u << 3, /* cmdline came from the image's load options */
	HANDOFF_F_KERNEL_INSIDE = 1u << 4, /* the kernel was inside the loader's image
	                                    * (the network loader), not on a volume */
};

struct handoff_header {
	uint32_t magic;            /* HANDOFF_MAGIC */
	uint16_t version;          /* HANDOFF_VERSION */
	uint16_t header_bytes;     /* sizeof(struct handoff_header) of the writer */
	uint32_t total_bytes;      /* header and every range below */
	uint32_t flags;            /* HANDOFF_F_* */

	/* The UEFI memory map exactly as GetMemoryMap returned it for the
	 * ExitBootServices call that succeeded. */
	uint32_t map_offset;
	uint32_t map_bytes;
	uint32_t desc_size;        /* the firmware's DescriptorSize: the stride */
	uint32_t desc_version;

	uint32_t rsdp_offset;      /* copy of the RSDP: 20 or 36 bytes, 0 if none */
	uint32_t rsdp_bytes;
	uint32_t cmdline_offset;   /* NUL-terminated ASCII */
	uint32_t cmdline_bytes;    /* NUL included */
	uint32_t loader_offset;    /* loader name, NUL-terminated ASCII */
	uint32_t loader_bytes;     /* NUL included */

	uint64_t system_table;     /* EFI_SYSTEM_TABLE physical address (dumps) */
	uint32_t exit_tries;       /* ExitBootServices calls it took (>= 1) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct handoff_header) == 72, "hand-off header layout");
_Static_assert(offsetof(struct handoff_header, map_offset) == 16, "layout");
_Static_assert(offsetof(struct handoff_header, system_table) == 56, "layout");

/*
 * The screen: the Graphics Output Protocol's linear framebuffer, appended to
 * the header (header_bytes >= 72 + 32); a block without it has no screen.
 * Pixel layout as Multiboot2's tag 8 gives it: bits per pixel, and the
 * position and width of each colour field.
 */
struct handoff_fb {
	uint64_t phys;             /* 0: no framebuffer (GOP absent or blt-only) */
	uint32_t width_px, height_px;
	uint32_t pitch_bytes;
	uint8_t bpp;
	uint8_t red_pos, red_bits, green_pos, green_bits, blue_pos, blue_bits;
	uint8_t reserved0;
	uint32_t reserved1;
};
_Static_assert(sizeof(struct handoff_fb) == 32, "hand-off framebuffer layout");
#define HANDOFF_FB_OFFSET ((uint32_t)sizeof(struct handoff_header))

#ifndef MEMBOOT_EFI_LOADER
#include "boot/bootinfo.h"

enum handoff_status {
	HANDOFF_OK = 0,
	HANDOFF_ERR_MAGIC,     /* the entry magic or the block's magic is wrong */
	HANDOFF_ERR_HEADER,    /* version, header or total size implausible */
	HANDOFF_ERR_RANGE,     /* a (offset, bytes) pair leaves the block */
	HANDOFF_ERR_NO_MMAP,   /* no memory map, or its descriptor size is bad */
};

/*
 * Parse the block at @block, of which at most @avail_bytes may be read, into
 * @bi (which is reset first; boot path "efi", map source "efi-mmap").
 * @entry_magic is the value the kernel was entered with. Problems are logged
 * with the field named; on error @bi holds what was read so far.
 */
enum handoff_status handoff_parse(uint32_t entry_magic, const void *block,
				  size_t avail_bytes, struct bootinfo *bi);

const char *handoff_status_name(enum handoff_status status);
#endif

#endif

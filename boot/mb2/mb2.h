/*
 * mb2.h: the Multiboot2 boot information (Multiboot2 specification 1.6,
 * section 3.6), read into struct bootinfo.
 *
 * Only boot/ includes this header. The parser is pure C over (pointer,
 * length): the kernel passes the address GRUB left in EBX and an upper bound,
 * the host tests and the fuzzer pass a buffer.
 */
#ifndef MEMBOOT_BOOT_MB2_H
#define MEMBOOT_BOOT_MB2_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289u
#define MB2_HEADER_MAGIC 0xe85250d6u

/* The information structure may not plausibly be larger than this. */
#define MB2_INFO_MAX_BYTES (1u << 20)

enum mb2_tag_type {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
	MB2_TAG_LOAD_BASE = 21,
};

/* Multiboot2 memory map entry types (section 3.6.8). */
enum {
	MB2_MEM_AVAILABLE = 1,
	MB2_MEM_RESERVED = 2,
	MB2_MEM_ACPI_RECLAIMABLE = 3,
	MB2_MEM_NVS = 4,
	MB2_MEM_BADRAM = 5,
};

struct mb2_info_header {
	uint32_t total_size;
	uint32_t reserved;
};

struct mb2_tag {
	uint32_t type;
	uint32_t size;   /* header included, padding to 8 excluded */
};

struct mb2_tag_mmap {
	uint32_t type;
	uint32_t size;
	uint32_t entry_size;
	uint32_t entry_version;
	/* entries follow */
};

struct mb2_mmap_entry {
	uint64_t base_addr;
	uint64_t length;
	uint32_t type;
	uint32_t reserved;
};

struct mb2_tag_efi_mmap {
	uint32_t type;
	uint32_t size;
	uint32_t descr_size;
	uint32_t descr_vers;
	/* EFI memory descriptors follow, descr_size bytes apart */
};

_Static_assert(sizeof(struct mb2_info_header) == 8, "mb2 info header");
_Static_assert(sizeof(struct mb2_tag) == 8, "mb2 tag header");
_Static_assert(sizeof(struct mb2_tag_mmap) == 16, "mb2 mmap tag header");
_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "mb2 mmap entry");
_Static_assert(sizeof(struct mb2_tag_efi_mmap) == 16, "mb2 EFI mmap tag header");

enum mb2_status {
	MB2_OK = 0,
	MB2_ERR_MAGIC,     /* EAX did not hold the Multiboot2 magic */
	MB2_ERR_HEADER,    /* total_size absurd or larger than the buffer */
	MB2_ERR_TAG,       /* a tag runs past the end, is too small, or no end tag */
	MB2_ERR_NO_MMAP,   /* no usable memory map tag */
};

/*
 * Parse the information at @info, of which at most @avail_bytes may be read,
 * into @bi (which is reset first). Each problem is logged with the tag and
 * offset named. On error @bi is left with whatever was read so far.
 */
enum mb2_status mb2_parse(uint32_t magic, const void *info, size_t avail_bytes,
			  struct bootinfo *bi);

const char *mb2_status_name(enum mb2_status status);

#endif

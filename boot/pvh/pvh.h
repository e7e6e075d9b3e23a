/*
 * pvh.h: the PVH boot protocol (QEMU `-kernel` with an ELF PVH note) into
 * struct bootinfo.
 *
 * Overview
 *  - The kernel ELF carries a note of type XEN_ELFNOTE_PHYS32_ENTRY (18,
 *    name "Xen") holding the physical address of _start_pvh
 *    (boot/pvh/pvh_entry.S). QEMU loads the PT_LOAD segments and enters there
 *    in 32-bit protected mode, paging off, with EBX = the physical address of
 *    struct hvm_start_info. _start_pvh puts PVH_BOOT_MAGIC in EDI and EBX in
 *    ESI and joins the Multiboot2 path at arch_entry32.
 *  - pvh_parse() reads hvm_start_info (versions 0 and 1), its e820-style
 *    memory map, the command line and the RSDP. Every physical address is
 *    reached through the caller's pvh_map_fn, never dereferenced directly,
 *    so host tests and the fuzzer feed buffers and the kernel identity-maps.
 *  - Version 0 has no memory map field: there is no map to boot with, and
 *    pvh_parse() says so (QEMU 7.2 writes version 1).
 *
 * Layouts: Xen's public header arch-x86/hvm/start_info.h.
 */
#ifndef MEMBOOT_BOOT_PVH_PVH_H
#define MEMBOOT_BOOT_PVH_PVH_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

/* hvm_start_info.magic; also the value _start_pvh passes in EDI. */
#define PVH_START_MAGIC 0x336ec578u
#define PVH_BOOT_MAGIC PVH_START_MAGIC

/* ELF note that makes QEMU take the PVH path. */
#define PVH_NOTE_NAME "Xen"
#define XEN_ELFNOTE_PHYS32_ENTRY 18

/* Bytes of hvm_start_info up to the end of version 0 and of version 1. */
#define PVH_START_INFO_V0_BYTES 40u
#define PVH_START_INFO_V1_BYTES 56u

/* Sanity bounds on what firmware may claim. */
#define PVH_MAX_MEMMAP_ENTRIES 4096u

struct pvh_start_info {
	uint32_t magic;           /* PVH_START_MAGIC */
	uint32_t version;         /* 0 or 1 */
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;   /* NUL-terminated ASCII, 0 if none */
	uint64_t rsdp_paddr;      /* 0 if none */
	/* version 1 and later */
	uint64_t memmap_paddr;    /* array of struct pvh_memmap_entry */
	uint32_t memmap_entries;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pvh_start_info) == PVH_START_INFO_V1_BYTES, "hvm_start_info v1");
_Static_assert(offsetof(struct pvh_start_info, memmap_paddr) == PVH_START_INFO_V0_BYTES,
	       "hvm_start_info v0 ends where memmap_paddr begins");
_Static_assert(offsetof(struct pvh_start_info, rsdp_paddr) == 32, "layout");

struct pvh_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;            /* PVH_MEMMAP_* (the e820 numbering) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "hvm_memmap_table_entry");

enum {
	PVH_MEMMAP_RAM = 1,
	PVH_MEMMAP_RESERVED = 2,
	PVH_MEMMAP_ACPI = 3,
	PVH_MEMMAP_NVS = 4,
	PVH_MEMMAP_UNUSABLE = 5,
	PVH_MEMMAP_DISABLED = 6,
	PVH_MEMMAP_PMEM = 7,
};

/*
 * Map @len bytes at physical address @phys: a pointer to them, or NULL if
 * they cannot all be read. Same contract as acpi_map_fn (kernel/firmware/acpi/acpi.h):
 * the pointer need not be aligned and stays valid during pvh_parse().
 */
typedef const void *(*pvh_map_fn)(void *ctx, uint64_t phys, size_t len);

enum pvh_status {
	PVH_OK = 0,
	PVH_ERR_MAGIC,      /* entry magic or hvm_start_info.magic wrong */
	PVH_ERR_MAP,        /* hvm_start_info itself cannot be mapped */
	PVH_ERR_NO_MMAP,    /* version 0, no entries, or the table is unreadable */
};

/*
 * Parse the hvm_start_info at physical address @start_info into @bi (reset
 * first; boot path "pvh", loader "PVH", map source "pvh-memmap"). Problems are
 * logged with the field named; on error @bi holds what was read so far.
 */
enum pvh_status pvh_parse(uint32_t entry_magic, uint64_t start_info,
			  pvh_map_fn map, void *ctx, struct bootinfo *bi);

const char *pvh_status_name(enum pvh_status status);

#endif

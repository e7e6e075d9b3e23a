/*
 * kelf.h: the UEFI loader's check of the kernel ELF, as a pure function.
 *
 * kelf_check() reads an ELF file image (pointer, length) and either refuses
 * it, naming the program header at fault, or returns the plan the loader
 * follows: the PT_LOAD segments (physical address, sizes, file offset) in
 * ascending, non-overlapping order, and the 64-bit entry from the
 * "memboot" ELF note (boot/handoff.h). It allocates nothing and touches no
 * firmware, so the same file builds into BOOTX64.EFI, the host unit tests
 * and a libFuzzer target.
 *
 * What is refused: anything but ELF64 little-endian x86-64 ET_EXEC;
 * program headers outside the file or smaller than Elf64_Phdr; a PT_LOAD
 * whose bytes leave the file, whose file size exceeds its memory size, whose
 * range wraps or lies above 4 GiB, whose virtual and physical addresses
 * differ (the loader jumps with the firmware's identity paging), that
 * overlaps or precedes the previous one; no PT_LOAD; more than
 * KELF_MAX_SEGMENTS; no entry note, or an entry outside executable segments.
 */
#ifndef MEMBOOT_BOOT_EFI_KELF_H
#define MEMBOOT_BOOT_EFI_KELF_H

#include <stddef.h>
#include <stdint.h>

#define KELF_MAX_SEGMENTS 16
#define KELF_LOAD_LIMIT 0x100000000ULL   /* segments must end below 4 GiB */

enum kelf_status {
	KELF_OK = 0,
	KELF_ERR_SHORT,       /* shorter than the ELF header */
	KELF_ERR_IDENT,       /* not ELF, not 64-bit, not little-endian */
	KELF_ERR_TYPE,        /* not x86-64 or AArch64, or not an executable */
	KELF_ERR_PHDRS,       /* program header table outside the file / bad size */
	KELF_ERR_SEGMENT,     /* a PT_LOAD is malformed (see kelf.h) */
	KELF_ERR_OVERLAP,     /* a PT_LOAD overlaps or precedes the previous one */
	KELF_ERR_TOO_MANY,    /* more than KELF_MAX_SEGMENTS PT_LOADs */
	KELF_ERR_NO_LOAD,     /* no PT_LOAD at all */
	KELF_ERR_NO_ENTRY,    /* no memboot entry note, or it points outside code */
};

struct kelf_segment {
	uint64_t paddr;       /* where it goes */
	uint64_t memsz;       /* bytes in memory; [filesz, memsz) is zeroed */
	uint64_t filesz;
	uint64_t offset;      /* in the file */
	uint32_t flags;       /* PF_X 1, PF_W 2, PF_R 4 */
	uint32_t phdr;        /* index of its program header */
};

struct kelf_image {
	struct kelf_segment seg[KELF_MAX_SEGMENTS];
	uint32_t nr_seg;
	uint64_t entry64;           /* from the note; 0 if none */
	uint32_t handoff_version;   /* from the note */
	uint64_t elf_entry;         /* e_entry (the 32-bit Multiboot2 entry) */
	uint16_t machine;           /* e_machine: 62 x86_64, 183 AArch64 (the loader
				       checks it is its own) */
	uint32_t bad_phdr;          /* program header at fault on error */
	uint64_t bad_start, bad_end;/* its physical range on error, if known */
};

#define KELF_PF_X 1u

enum kelf_status kelf_check(const void *file, size_t len, struct kelf_image *out);
const char *kelf_status_name(enum kelf_status status);

#endif

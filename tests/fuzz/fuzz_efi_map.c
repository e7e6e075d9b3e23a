/*
 * fuzz_efi_map.c: libFuzzer target for the UEFI path's parsers of loader and
 * firmware bytes: the hand-off block (boot/handoff.c, which reads the UEFI
 * memory map through boot/efi_map.c) and the loader's kernel ELF check
 * (boot/efi/kelf.c).
 *
 * The first bytes choose what the input is:
 *  - "MBHO" (the block magic): a whole hand-off block, parsed with the
 *    input's size as the bytes available;
 *  - "\177ELF": a kernel ELF for kelf_check();
 *  - anything else: u16 descriptor size, then a raw UEFI memory map for
 *    efi_map_add() and normalization.
 * Inputs are copied into buffers of exactly their size (ASan catches
 * overreads). Checked, trapping on a violation: normalized maps are sorted,
 * disjoint, page-aligned, merged and typed; strings end in NUL; the RSDP is
 * 0, 20 or 36 bytes; an accepted ELF plan lies inside the file, below 4 GiB,
 * in ascending order, with its entry in an executable segment.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bootinfo.h"
#include "boot/efi/kelf.h"
#include "boot/efi_map.h"
#include "boot/handoff.h"
#include "tests/fuzz/fuzz_common.h"

static struct bootinfo bi;

static void check_map(const struct bootinfo *b)
{
	if (b->raw.nr_ranges > BOOTINFO_MAX_RAW)
		__builtin_trap();
	fuzz_check_ranges(b);
}

static void fuzz_block(const uint8_t *p, size_t size)
{
	enum handoff_status st = handoff_parse(HANDOFF_ENTRY_MAGIC, p, size, &bi);

	if (st == HANDOFF_OK) {
		check_map(&bi);
		if (bi.loader_info_bytes > size || bi.path != BOOT_PATH_EFI)
			__builtin_trap();
	}
	if (st > HANDOFF_ERR_NO_MMAP)
		__builtin_trap();
	if (!memchr(bi.cmdline, '\0', sizeof(bi.cmdline)) ||
	    !memchr(bi.loader, '\0', sizeof(bi.loader)) ||
	    (bi.rsdp_len != 0 && bi.rsdp_len != 20 && bi.rsdp_len != 36))
		__builtin_trap();
}

static void fuzz_elf(const uint8_t *p, size_t size)
{
	static struct kelf_image img;

	if (kelf_check(p, size, &img) != KELF_OK)
		return;
	if (img.nr_seg == 0 || img.nr_seg > KELF_MAX_SEGMENTS)
		__builtin_trap();
	for (uint32_t i = 0; i < img.nr_seg; i++) {
		const struct kelf_segment *s = &img.seg[i];
		if (s->filesz > s->memsz || s->offset > size || s->filesz > size - s->offset ||
		    s->paddr + s->memsz > KELF_LOAD_LIMIT || s->paddr + s->memsz < s->paddr)
			__builtin_trap();
		if (i > 0 && img.seg[i - 1].paddr + img.seg[i - 1].memsz > s->paddr)
			__builtin_trap();
	}
}

static void fuzz_raw_map(const uint8_t *p, size_t size)
{
	uint16_t desc_size;
	long n;

	memcpy(&desc_size, p, 2);
	bootinfo_init(&bi, BOOT_PATH_EFI);
	n = efi_map_add(&bi, p + 2, size - 2, desc_size);
	if (n < 0 && desc_size >= sizeof(struct efi_memory_descriptor))
		__builtin_trap();
	if (n >= 0 && (size_t)n != (size - 2) / desc_size)
		__builtin_trap();
	bootinfo_normalize(&bi);
	check_map(&bi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	uint32_t magic = 0;

	if (size < 2)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size >= 4)
		memcpy(&magic, data, 4);
	if (magic == HANDOFF_MAGIC)
		fuzz_block(copy, size);
	else if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
		fuzz_elf(copy, size);
	else
		fuzz_raw_map(copy, size);
	free(copy);
	return 0;
}

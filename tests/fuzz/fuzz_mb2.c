/*
 * fuzz_mb2.c: libFuzzer target for the Multiboot2 information parser.
 *
 * Input layout: 4 selector bytes, then the information block itself.
 *   byte 0 & 3: 0 or 1 -> the Multiboot2 boot magic; 2 -> the header magic
 *               (wrong on purpose); 3 -> the four selector bytes as the magic
 *   byte 1 & 1: pass a NULL pointer (with the rest's length as available)
 * The block is copied into a buffer of exactly its size so that any read past
 * the available bytes is caught by ASan. After a successful parse the
 * normalized map must be sorted, disjoint, page-aligned, merged, and without
 * holes listed; a violation traps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bootinfo.h"
#include "boot/mb2/mb2.h"
#include "tests/fuzz/fuzz_common.h"

static struct bootinfo bi;

static void check_map(const struct bootinfo *b)
{
	if (b->raw.nr_ranges > BOOTINFO_MAX_RAW)
		__builtin_trap();
	fuzz_check_ranges(b);
	/* Raw ranges: only their types. (An empty raw range at 2^64 - 1 is a
	 * known defect covered by tests/host/test_bootinfo.c; trapping on it
	 * here would stop every run at the first such input.) */
	for (uint32_t i = 0; i < b->raw.nr_ranges; i++)
		if (b->raw.ranges[i].start > b->raw.ranges[i].end ||
		    b->raw.ranges[i].type == MEM_NONE ||
		    b->raw.ranges[i].type >= MEM_TYPE_COUNT)
			__builtin_trap();
}

static void check_strings(const struct bootinfo *b)
{
	if (memchr(b->cmdline, '\0', sizeof(b->cmdline)) == NULL ||
	    memchr(b->loader, '\0', sizeof(b->loader)) == NULL)
		__builtin_trap();
	if (b->rsdp_len != 0 && b->rsdp_len != 20 && b->rsdp_len != 36)
		__builtin_trap();
	if (b->map_source == NULL)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t magic;
	size_t avail;
	uint8_t *info;
	enum mb2_status st;

	if (size < 4)
		return 0;
	switch (data[0] & 3) {
	case 0:
	case 1:
		magic = MB2_BOOTLOADER_MAGIC;
		break;
	case 2:
		magic = MB2_HEADER_MAGIC;
		break;
	default:
		memcpy(&magic, data, 4);
		break;
	}
	avail = size - 4;
	info = malloc(avail ? avail : 1);
	if (!info)
		return 0;
	memcpy(info, data + 4, avail);

	st = mb2_parse(magic, (data[1] & 1) ? NULL : info, avail, &bi);
	if (st == MB2_OK) {
		if (magic != MB2_BOOTLOADER_MAGIC || (data[1] & 1))
			__builtin_trap();
		if (bi.path != BOOT_PATH_MB2_BIOS && bi.path != BOOT_PATH_MB2_UEFI)
			__builtin_trap();
		if (bi.loader_info_bytes > avail)
			__builtin_trap();
		check_map(&bi);
	}
	if (st > MB2_ERR_NO_MMAP)
		__builtin_trap();
	check_strings(&bi);
	free(info);
	return 0;
}

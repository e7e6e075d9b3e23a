/*
 * fuzz_pvh.c: libFuzzer target for the hvm_start_info parser (boot/pvh/pvh.c).
 *
 * Input: a physical-memory snapshot in the fixture format of
 * tests/host/fixtures/pvh/ ("MBPHYS01", u64 start info address, u32 chunk
 * count, u32 flags, then chunks of u64 address, u32 length, u32 pad, bytes
 * padded to 8), read leniently: a chunk that runs past the input is cut at
 * its end. Flags bit 0 passes a wrong entry magic. Input that is not a
 * snapshot is one region at physical 0x1000 holding the start info.
 * Each region is copied into a buffer of exactly its size, so a read past
 * what the "firmware" provided is caught by ASan; the parser only sees it
 * through the map callback. After a successful parse the normalized map must
 * be sorted, disjoint, page-aligned, merged and typed; a violation traps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bootinfo.h"
#include "boot/pvh/pvh.h"
#include "tests/fuzz/fuzz_common.h"

#define MAX_REGIONS 8

struct region {
	uint64_t phys;
	size_t len;
	unsigned char *buf;
};

static struct region regions[MAX_REGIONS];
static int nr_regions;
static struct bootinfo bi;

static const void *map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	for (int i = 0; i < nr_regions; i++) {
		const struct region *r = &regions[i];
		if (phys >= r->phys && phys - r->phys <= r->len && len <= r->len - (phys - r->phys))
			return r->buf + (phys - r->phys);
	}
	return NULL;
}

static void add(uint64_t phys, const uint8_t *data, size_t len)
{
	struct region *r = &regions[nr_regions++];

	r->phys = phys;
	r->len = len;
	r->buf = malloc(len ? len : 1);
	if (!r->buf)
		abort();
	memcpy(r->buf, data, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start_info = 0x1000;
	uint32_t flags = 0;
	enum pvh_status st;

	nr_regions = 0;
	if (size >= 24 && memcmp(data, "MBPHYS01", 8) == 0) {
		uint32_t count;
		size_t off = 24;

		memcpy(&start_info, data + 8, 8);
		memcpy(&count, data + 16, 4);
		memcpy(&flags, data + 20, 4);
		for (uint32_t i = 0; i < count && nr_regions < MAX_REGIONS && size - off >= 16; i++) {
			uint64_t phys;
			uint32_t len;
			memcpy(&phys, data + off, 8);
			memcpy(&len, data + off + 8, 4);
			off += 16;
			if (len > size - off)
				len = (uint32_t)(size - off);
			add(phys, data + off, len);
			off += ((size_t)len + 7) & ~(size_t)7;
			if (off > size)
				break;
		}
	} else {
		add(start_info, data, size);
	}

	st = pvh_parse((flags & 1) ? 0x36d76289u : PVH_BOOT_MAGIC, start_info, map, NULL, &bi);
	if (st == PVH_OK) {
		if (flags & 1)
			__builtin_trap();
		fuzz_check_ranges(&bi);
		if (bi.path != BOOT_PATH_PVH || strcmp(bi.map_source, "pvh-memmap") != 0)
			__builtin_trap();
	}
	if (st > PVH_ERR_NO_MMAP)
		__builtin_trap();
	if (!memchr(bi.cmdline, '\0', sizeof(bi.cmdline)) || strcmp(bi.loader, "PVH") != 0 ||
	    (bi.rsdp_len != 0 && bi.rsdp_len != 20 && bi.rsdp_len != 36))
		__builtin_trap();
	for (int i = 0; i < nr_regions; i++)
		free(regions[i].buf);
	return 0;
}

/*
 * fuzz_common.h: what the fuzz targets share: CHECK() and the invariants of
 * a normalized memory map, checked by trapping (libFuzzer reports the
 * input). The cmocka form of the map check is tests/host/map_check.h.
 */
#ifndef MEMBOOT_TESTS_FUZZ_COMMON_H
#define MEMBOOT_TESTS_FUZZ_COMMON_H

#include <stdint.h>

#include "boot/bootinfo.h"

/* Trap (a crash libFuzzer reports with its input) unless @cond holds. */
#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* Trap unless @b's normalized ranges fit the table and are sorted, disjoint,
 * page-aligned, merged and typed. */
static inline void fuzz_check_ranges(const struct bootinfo *b)
{
	if (b->nr_ranges > BOOTINFO_MAX_RANGES)
		__builtin_trap();
	for (uint32_t i = 0; i < b->nr_ranges; i++) {
		const struct mem_range *r = &b->ranges[i];
		if (r->start >= r->end || ((r->start | r->end) & (PAGE_SIZE_BYTES - 1)) ||
		    r->type == MEM_NONE || r->type >= MEM_TYPE_COUNT)
			__builtin_trap();
		if (i > 0 && b->ranges[i - 1].end > r->start)
			__builtin_trap();   /* unsorted or overlapping */
		if (i > 0 && b->ranges[i - 1].end == r->start && b->ranges[i - 1].type == r->type)
			__builtin_trap();   /* not merged */
	}
}

#endif

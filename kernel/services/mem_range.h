/*
 * mem_range.h: a typed range of physical memory, the one form in which the
 * memory map travels between layers.
 *
 * boot/ builds the map in this form (struct bootinfo's normalized map is an
 * array of struct mem_range), and everything past boot/ takes it as
 * (ranges, count): physmem is filled from it, numa places its usable bytes on
 * nodes, arch's direct map maps it. So mm/ and arch/ never see a struct
 * bootinfo nor a firmware format, and the map is never copied.
 *
 * A runtime service: no dependency but <stdint.h>, so boot/, mm/ and arch/
 * may all include it (tools/check-includes.py).
 *
 * Ranges are half-open [start, end) in bytes of physical address (the byte
 * addresses of memboot, as in physmem; page frame numbers carry a _pfn
 * suffix). A normalized map (bootinfo_normalize()) is page aligned, sorted,
 * disjoint, and holds no MEM_NONE: what its consumers assume.
 */
#ifndef MEMBOOT_KERNEL_MEM_RANGE_H
#define MEMBOOT_KERNEL_MEM_RANGE_H

#include <stdint.h>

/* The kind of a range. Ordered from least to most restrictive: where
 * firmware ranges overlap, the larger value wins. */
enum mem_type {
	MEM_NONE = 0,   /* a hole: not described by firmware */
	MEM_USABLE,     /* RAM free for the kernel */
	MEM_ACPI,       /* ACPI reclaimable: RAM once the tables are parsed */
	MEM_NVS,        /* ACPI NVS: firmware keeps state here across sleep */
	MEM_UNUSABLE,   /* RAM with detected errors */
	MEM_RESERVED,   /* firmware, MMIO, or a type we do not know */
	MEM_TYPE_COUNT,
};

struct mem_range {
	uint64_t start;  /* first byte; inclusive */
	uint64_t end;    /* byte after the last; exclusive, start < end */
	uint32_t type;   /* enum mem_type */
};

/* Bytes in the ranges of @type among ranges[0, nr). */
static inline uint64_t mem_ranges_bytes(const struct mem_range *ranges, uint32_t nr,
					enum mem_type type)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < nr; i++)
		if (ranges[i].type == (uint32_t)type)
			sum += ranges[i].end - ranges[i].start;
	return sum;
}

#endif

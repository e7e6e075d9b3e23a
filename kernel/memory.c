/*
 * memory.c: physmem, seeded from the boot map.
 */
#include "kernel/memory.h"

#include "arch/paging.h"
#include "kernel/log.h"

struct physmem physmem;

extern char __kernel_start[], __kernel_end[];

void memory_init_physmem(const struct bootinfo *bi, bool dump)
{
	physmem_init(&physmem);
	for (uint32_t i = 0; i < bi->nr_ranges; i++)
		if (bi->ranges[i].type == MEM_USABLE)
			physmem_add(&physmem, bi->ranges[i].start, bi->ranges[i].end);
	physmem_reserve(&physmem, 0, PAGE_SIZE_BYTES, "page0");
	physmem_reserve(&physmem, (uint64_t)__kernel_start, (uint64_t)__kernel_end, "kernel");
	/* Until the direct map covers all RAM, memory past the boot identity
	 * map cannot be touched: keep allocations out of it. */
	if (physmem_total_bytes(&physmem, PHYSMEM_ANY_NODE) &&
	    physmem.mem[physmem.nr_mem - 1].end > BOOT_MAP_BYTES) {
		pr_warn("physmem: RAM above %llu GiB is not mapped yet; reserved as 'unmapped'",
			(unsigned long long)(BOOT_MAP_BYTES >> 30));
		physmem_reserve(&physmem, BOOT_MAP_BYTES, physmem.mem[physmem.nr_mem - 1].end,
				"unmapped");
	}
	if (dump)
		physmem_dump(&physmem);
}

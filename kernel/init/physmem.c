/*
 * physmem.c: phase `physmem`: takes `bs.bootinfo`'s usable ranges; builds
 * `bs.physmem`: the early allocator, with page 0 and the kernel image
 * reserved (and the ranges named bad on the command line). Its retirement
 * is mm/physmem.c's (physmem_retire(), which phase memprep calls).
 */
#include "kernel/init/physmem.h"

#include "mm/memtest.h"

extern char __kernel_start[], __kernel_end[];

void init_physmem(const struct bootinfo *bi, bool dump, const struct memtest_settings *mt,
		  struct physmem *pm)
{
	physmem_init(pm);
	physmem_add_map(pm, bi->ranges, bi->nr_ranges);
	physmem_reserve(pm, 0, PAGE_SIZE_BYTES, PHYSMEM_RESV_PAGE0);
	physmem_reserve(pm, (uint64_t)__kernel_start, (uint64_t)__kernel_end,
			PHYSMEM_RESV_KERNEL);
	/* Known-bad memory next, before anything is allocated from physmem. */
	memtest_keep_out_badram(mt, pm);
	if (dump)
		physmem_dump(pm);
}

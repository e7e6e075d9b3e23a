/*
 * physmem.c: phase `physmem`: takes `bs.bootinfo`'s usable ranges; builds
 * `bs.physmem`: the early allocator, with page 0 and the kernel image
 * reserved (and the ranges named bad on the command line). Its retirement
 * is mm/physmem.c's (physmem_retire(), which phase memprep calls).
 */
#include "kernel/init/physmem.h"

#include "kernel/services/log.h"
#include "mm/memtest.h"

typedef unsigned long long ull;

extern char __kernel_start[], __kernel_end[];

/* Reserve the ranges memmap=nn$ss and memboot.badram= name. */
static void reserve_badram(const struct memtest_settings *mt, struct physmem *pm)
{
	for (uint32_t i = 0; i < mt->nr_badram; i++) {
		const struct memtest_badram *b = &mt->badram[i];
		uint64_t s = b->start & ~(PAGE_SIZE_BYTES - 1);
		uint64_t e = (b->end + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);

		pr_info("memtest: [mem 0x%010llx-0x%010llx] named bad on the command line: not used",
			(ull)s, (ull)e - 1);
		physmem_reserve(pm, s, e, PHYSMEM_RESV_BADRAM);
	}
}

void init_physmem(const struct bootinfo *bi, bool dump, const struct memtest_settings *mt,
		  struct physmem *pm)
{
	physmem_init(pm);
	physmem_add_map(pm, bi->ranges, bi->nr_ranges);
	physmem_reserve(pm, 0, PAGE_SIZE_BYTES, PHYSMEM_RESV_PAGE0);
	physmem_reserve(pm, (uint64_t)__kernel_start, (uint64_t)__kernel_end,
			PHYSMEM_RESV_KERNEL);
	/* Known-bad memory next, before anything is allocated from physmem. */
	reserve_badram(mt, pm);
	if (dump)
		physmem_dump(pm);
}

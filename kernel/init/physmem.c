/*
 * physmem.c: phase `physmem`: takes `bs.bootinfo`'s usable ranges; builds
 * `bs.physmem`: the early allocator, with page 0 and the kernel image
 * reserved (and the ranges named bad on the command line). Also its
 * retirement, which phase memprep calls, and that report.
 */
#include "kernel/init/physmem.h"

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
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

uint64_t init_physmem_retire(struct physmem *pm)
{
	pm->retired = true;
	return physmem_reserved_bytes(pm, PHYSMEM_ANY_NODE) >> PAGE_SHIFT;
}

void init_physmem_report_retired(const struct physmem *pm)
{
	uint64_t reserved_pages = physmem_reserved_bytes(pm, PHYSMEM_ANY_NODE) >> PAGE_SHIFT;
	struct record r;

	/* What stays reserved for good, by type: the census finds the memmap
	 * and page-table pages again by the page types these types became. */
	rec_begin(&r, "physmem_retire");
	rec_u64(&r, "reserved_bytes", reserved_pages << PAGE_SHIFT);
	rec_u64(&r, "ranges", pm->nr_resv);
	rec_key(&r, "types");
	rec_open(&r, '{');
	for (uint32_t t = PHYSMEM_RESV_NONE + 1; t < PHYSMEM_RESV_TYPE_COUNT; t++) {
		rec_key(&r, physmem_resv_type_name(t));
		rec_v_u64(&r, physmem_reserved_bytes_of(pm, (enum physmem_resv_type)t));
	}
	rec_close(&r);
	record_report(&r, LOG_INFO, "physmem: retired; {reserved_bytes:KiB} KiB in {ranges} ranges stay reserved");
}

/*
 * memory.c: physmem, seeded from the boot map.
 */
#include "kernel/init/memory.h"
#include "kernel/init/memtest.h"

#include "arch/paging.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/log.h"
#include "kernel/report/record.h"
#include "mm/alloc/alloc.h"

extern char __kernel_start[], __kernel_end[];

void memory_init_physmem(const struct bootinfo *bi, bool dump, struct physmem *pm)
{
	physmem_init(pm);
	physmem_add_map(pm, bi->ranges, bi->nr_ranges);
	physmem_reserve(pm, 0, PAGE_SIZE_BYTES, PHYSMEM_RESV_PAGE0);
	physmem_reserve(pm, (uint64_t)__kernel_start, (uint64_t)__kernel_end,
			PHYSMEM_RESV_KERNEL);
	/* Known-bad memory next, before anything is allocated from physmem. */
	memtest_reserve_badram(pm);
	if (dump)
		physmem_dump(pm);
}

uint64_t memory_retire_physmem(struct physmem *pm)
{
	pm->retired = true;
	return physmem_reserved_bytes(pm, PHYSMEM_ANY_NODE) >> PAGE_SHIFT;
}

void memory_report_retired(const struct physmem *pm)
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

uint64_t memory_alloc_pagetable(void *ctx)
{
	const struct memory_pt_source *src = ctx;

	if (src->pm->retired) {
		uint64_t pfn = alloc_pages(src->node == PHYSMEM_ANY_NODE ? 0 : src->node, 0, 0);
		return pfn == ALLOC_NO_PFN ? 0 : pfn << PAGE_SHIFT;
	}
	return physmem_alloc_range(src->pm, 4096, 4096, 0, 1ULL << 32, src->node, false,
				   PHYSMEM_RESV_PAGETABLE);
}

/* The map's figures, reported when the consoles drain (console_defer()). */
static struct direct_map_stats direct_map_reported;

static void direct_map_report(void *arg)
{
	const struct direct_map_stats *st = arg;
	struct record r;

	rec_begin(&r, "direct_map");
	rec_u64(&r, "bytes_4k", st->bytes_4k);
	rec_u64(&r, "bytes_2m", st->bytes_2m);
	rec_u64(&r, "bytes_1g", st->bytes_1g);
	rec_u64(&r, "tables", st->tables);
	rec_hex(&r, "top", st->top);
	record_report(&r, LOG_INFO, "DirectMap4k: {bytes_4k:KiB} kB, DirectMap2M: {bytes_2m:KiB} kB, "
		      "DirectMap1G: {bytes_1g:KiB} kB, {tables} tables");
}

void memory_direct_map(const struct bootinfo *bi, struct physmem *pm)
{
	struct memory_pt_source src = { pm, PHYSMEM_ANY_NODE };

	if (!arch_direct_map(bi->ranges, bi->nr_ranges, memory_alloc_pagetable, &src,
			     &direct_map_reported))
		kernel_exit(EXIT_PANIC, "no memory below 4 GiB for the kernel's page tables");
	console_defer(direct_map_report, &direct_map_reported, 2 * CONSOLE_DEFER_ITEM_BYTES);
}

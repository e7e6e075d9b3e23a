/*
 * pagetables.c: phase `pagetables`: takes `bs.bootinfo`, `bs.physmem`;
 * builds the kernel's own W^X page tables, kept below 4 GiB, their pages
 * from `bs.physmem` (and `bs.direct_map`, their figures).
 */
#include "kernel/init/pagetables.h"

#include "kernel/services/console.h"
#include "kernel/services/exit.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/pt_pages.h"

/* The map's figures, reported when the consoles drain (console_defer()). */
static void direct_map_report(void *arg)
{
	const struct arch_direct_map_stats *st = arg;
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

void init_pagetables(const struct bootinfo *bi, struct physmem *pm,
		     struct arch_direct_map_stats *dm)
{
	struct memory_pt_source src = { pm, PHYSMEM_ANY_NODE };

	if (!arch_direct_map(bi->ranges, bi->nr_ranges, memory_alloc_pagetable, &src, dm))
		kernel_exit(EXIT_PANIC, "no memory below 4 GiB for the kernel's page tables");
	console_defer(direct_map_report, dm, 2 * CONSOLE_DEFER_ITEM_BYTES);
}

/*
 * physmem.c: phase `physmem`: takes `bs.bootinfo`'s usable ranges; builds
 * `bs.physmem`: the early allocator, with page 0 and the kernel image
 * reserved (and the ranges named bad on the command line, with the map as
 * used listed when they changed it). Its retirement
 * is mm/physmem.c's (physmem_retire(), which phase memprep calls).
 */
#include "kernel/init/physmem.h"

#include <stdio.h>

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/memtest.h"
#include "mm/memtest_run.h"

extern char __kernel_start[], __kernel_end[];

/* One range of the map as used, as Linux prints its user-defined map. */
static void report_user_range(void *ctx, const struct mem_range *m)
{
	struct record r;
	char line[96];

	(void)ctx;
	snprintf(line, sizeof(line), "user: [mem 0x{start:x16}-0x{end:x16-1}] %s",
		 mem_type_linux_name((enum mem_type)m->type));
	rec_begin(&r, "user_range");
	rec_hex(&r, "start", m->start);
	rec_hex(&r, "end", m->end);
	rec_str(&r, "type", mem_type_name((enum mem_type)m->type));
	record_report(&r, LOG_INFO, line);
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
	/* The firmware's map was listed (phase report); the map as used
	 * after the command line's changes is listed too, only if it differs. */
	if (memtest_keep_out_badram(mt, pm)) {
		pr_info("user-defined physical RAM map (memmap=nn$ss, memboot.badram=):");
		physmem_map_as_used(pm, bi->ranges, bi->nr_ranges, report_user_range, NULL);
	}
	if (dump)
		physmem_dump(pm);
}

/*
 * cmdline.c: phase `cmdline`: takes `bs.bootinfo`'s command line; builds
 * each subsystem's settings, parsed by its own key table (docs/cmdline.md).
 * The list of tables is here, once: a subsystem with keys adds one line.
 */
#include "kernel/init/cmdline.h"

#include "arch/smp.h"
#include "kernel/bench/bench.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/console/options.h"
#include "kernel/services/report/bootreport_keys.h"
#include "kernel/services/smp_settings.h"
#include "kernel/services/exit.h"
#include "kernel/services/watchdog/watchdog.h"
#include "kernel/selftest/select.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/pcp.h"
#include "mm/hugetlb/hugetlb.h"
#include "mm/memtest.h"
#include "kernel/vm/vm_settings.h"
#include "mm/meminit_settings.h"

/* Every subsystem's command-line keys (docs/cmdline.md), in lookup order. */
static const struct param_table *const cmdline_tables[] = {
	&console_param_table,
	&console_levels_param_table,
	&exit_param_table,
	&bootreport_param_table,
	&smp_param_table,
	&arch_smp_param_table,
	&alloc_param_table,
	&meminit_param_table,
	&memtest_param_table,
	&hugetlb_param_table,
	&pcp_param_table,
	&selftest_param_table,
	&vm_param_table,
	&bench_param_table,
	&watchdog_param_table,
};

void init_cmdline(const struct bootinfo *bi)
{
	cmdline_parse_tables(bi->cmdline, cmdline_tables,
			     sizeof(cmdline_tables) / sizeof(cmdline_tables[0]));
}

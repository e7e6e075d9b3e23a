/*
 * selftest.h: in-kernel self-tests chosen on the command line
 * (memboot.selftest=).
 *
 * The tests are the table of kernel/selftest/list.h. They get what they
 * need from the boot through struct selftest_ctx, filled by
 * kernel/init/main.c: kernel/selftest/ includes nothing of kernel/init/.
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_H
#define MEMBOOT_KERNEL_SELFTEST_H

#include <stdbool.h>

struct fwcfg_blob;
struct hugetlb_pools;
struct mem_tiers;
struct memmap;
struct numa_topology;

/* What the boot hands the self-tests. */
struct selftest_ctx {
	const struct numa_topology *topo;     /* nodes and CPUs */
	struct memmap *mm;                    /* every node's page descriptors */
	struct hugetlb_pools *pools;          /* the huge page pools */
	const struct mem_tiers *tiers;        /* HMAT figures per node (phase tiers) */
	/* Count every page now (the boot's census, with its baseline); false
	 * if one is lost. @when names the count in its record. */
	bool (*census)(void *census_arg, const char *when);
	void *census_arg;
	/* QEMU only: the fw_cfg file of a trace for the replay self-test
	 * (0 bytes: none), found by the boot. */
	const struct fwcfg_blob *replay;
};

/* Run the self-tests memboot.selftest names (kernel/selftest/select.h), in
 * the table's order, each followed by a census; false if any failed. With
 * memboot.selftest=list, print the table (a line and a `selftest_entry`
 * record each) and run none. */
bool selftests_run(const struct selftest_ctx *ctx);

#endif

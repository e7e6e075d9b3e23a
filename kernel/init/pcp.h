/*
 * pcp.h: phase `pcp`, the kernel's per-CPU page lists (mm/alloc/alloc_pcp.h)
 * set up from the command line (memboot.pcp=, memboot.pcp_steps=,
 * memboot.pcp_high_fraction=); their memory is reserved in phase memprep.
 * The churn self-test that runs on every CPU through them is
 * kernel/selftest/churn.c.
 */
#ifndef MEMBOOT_KERNEL_INIT_PCP_H
#define MEMBOOT_KERNEL_INIT_PCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/alloc/pcp.h"

/* Keys (mm/alloc/pcp.c): memboot.pcp, memboot.pcp_steps,
 * memboot.pcp_high_fraction, memboot.churn_mix, memboot.churn_allocs. */

struct pcp_cpu_block;

/*
 * Where the lists live, in the boot state: reserved in phase memprep, the
 * lists carved from it in phase pcp (and kept for good: the allocator's
 * lists point into it).
 *
 * Each CPU's lists live in one block of its node's memory, reserved from
 * physmem before memory init hands the rest to the allocator (as the
 * allocator's own structures are): counted by the census as reserved, and
 * the boot census still counts exactly what memory init left free. The
 * per-CPU bookkeeping, one entry per CPU id, is in one block reserved the
 * same way on the boot CPU's node: sized by the CPUs there are.
 */
struct pcp_state {
	struct pcp_cpu_block *cpu_blocks;   /* per CPU id: its block */
	struct pcp_list ***list_rows;       /* per CPU id: its row of lists */
	uint32_t *cpu_node;                 /* per CPU id: where its lists live */
	uint32_t nr_list_cpus;              /* CPU ids with lists: [0, nr_list_cpus) */
	uint64_t list_bytes_per_cpu;        /* each block's size */
};

/* Reserve each CPU's list memory on its node through @reserve(@ctx, ...)
 * (physmem, before memory init hands free memory to the allocator, after
 * the allocator started: it sizes the lists from the nodes, as @set
 * configures them), into @ps. */
void init_pcp_reserve(struct pcp_state *ps, const struct pcp_settings *set,
		      uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx);

/* Phase "pcp": put the lists in front of the allocator (after the boot
 * census), in @ps's memory, as @set asks; logs a line and a "pcp" record
 * per node. */
void init_pcp(struct pcp_state *ps, const struct pcp_settings *set);

#endif

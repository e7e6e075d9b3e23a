/*
 * pcp_setup.h: the kernel's per-CPU page lists (mm/alloc/alloc_pcp.h) set up from
 * the command line (memboot.pcp=, memboot.pcp_steps=,
 * memboot.pcp_high_fraction=); the churn self-test that runs on every CPU
 * through them is kernel/selftest/churn.c.
 */
#ifndef MEMBOOT_KERNEL_PCP_SETUP_H
#define MEMBOOT_KERNEL_PCP_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/alloc/pcp.h"

/* Keys (mm/alloc/pcp.c): memboot.pcp, memboot.pcp_steps,
 * memboot.pcp_high_fraction, memboot.churn_mix, memboot.churn_allocs. */

/* Reserve each CPU's list memory on its node through @reserve(@ctx, ...)
 * (physmem, before memory init hands free memory to the allocator, after
 * the allocator started: it sizes the lists from the nodes). */
void pcp_setup_reserve(uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx);

/* Put the lists in front of the allocator (after the boot census), in the
 * memory reserved above; logs a line and a "pcp" record per node. */
void pcp_setup_init(void);

#endif

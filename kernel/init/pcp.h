/*
 * pcp.h: phase `pcp`, the kernel's per-CPU page lists (mm/alloc/alloc_pcp.h)
 * set up from the command line (memboot.pcp=, memboot.pcp_steps=,
 * memboot.pcp_high_fraction=); their memory is reserved in phase memprep
 * (mm/alloc/pcp_mem.h).
 * The churn self-test that runs on every CPU through them is
 * kernel/selftest/churn.c.
 */
#ifndef MEMBOOT_KERNEL_INIT_PCP_H
#define MEMBOOT_KERNEL_INIT_PCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/alloc/pcp.h"
#include "mm/alloc/pcp_mem.h"

/* Keys (mm/alloc/pcp.c): memboot.pcp, memboot.pcp_steps,
 * memboot.pcp_high_fraction, memboot.churn_mix, memboot.churn_allocs. The
 * lists' memory, struct pcp_state, is mm/alloc/pcp_mem.h's: reserved in
 * phase memprep (pcp_mem_reserve()), carved here. */

/* Phase "pcp": put the lists in front of the allocator (after the boot
 * census), in @ps's memory, as @set asks; logs a line and a "pcp" record
 * per node. */
void init_pcp(struct pcp_state *ps, const struct pcp_settings *set);

#endif

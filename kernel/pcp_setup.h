/*
 * pcp_setup.h: the kernel's per-CPU page lists (mm/alloc_pcp.h) set up from
 * the command line (memboot.pcp=, memboot.pcp_steps=,
 * memboot.pcp_high_fraction=), and the churn self-test (mm/churn.h) that
 * runs on every CPU through them.
 */
#ifndef MEMBOOT_KERNEL_PCP_SETUP_H
#define MEMBOOT_KERNEL_PCP_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/pcp.h"

/* Keys (kernel/params.c, kparams.pcp): memboot.pcp, memboot.pcp_steps,
 * memboot.pcp_high_fraction, memboot.churn_mix, memboot.churn_allocs. */

/* Put the lists in front of the allocator (after memory init and the huge
 * page pools); logs a line and a "pcp" record. */
void pcp_setup_init(void);

/* memboot.selftest=churn: the churn workload on every online CPU, then
 * every list drained; a "churn" record with the counters. True when no
 * page was lost and every list ended empty. */
bool pcp_setup_churn_selftest(void);

#endif

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

struct pcp_params {
	enum pcp_policy policy;
	uint32_t steps;
	uint64_t high_fraction;
	char churn_mix[16];
	uint64_t churn_allocs;
	uint64_t churn_seed;
};
extern struct pcp_params pcp_params;

/* Command-line parsers for kernel/params.c's table. */
bool pcp_setup_parse_policy(const char *value, void *ptr, char *err, size_t err_bytes);
bool pcp_setup_parse_steps(const char *value, void *ptr, char *err, size_t err_bytes);

/* Put the lists in front of the allocator (after memory init and the huge
 * page pools); logs a line and a "pcp" record. */
void pcp_setup_init(void);

/* memboot.selftest=churn: the churn workload on every online CPU, then
 * every list drained; a "churn" record with the counters. True when no
 * page was lost and every list ended empty. */
bool pcp_setup_churn_selftest(void);

#endif

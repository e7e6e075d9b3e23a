/*
 * pcp_keys.h: the keys of the per-CPU page lists and their churn self-test
 * (docs/cmdline.md, docs/pcp.md): memboot.pcp, memboot.pcp_steps,
 * memboot.pcp_high_fraction, memboot.churn_mix and memboot.churn_allocs.
 * Parsed by pcp_param_table (kernel/pcp_keys.c); read by kernel/pcp_setup.c.
 */
#ifndef MEMBOOT_KERNEL_PCP_KEYS_H
#define MEMBOOT_KERNEL_PCP_KEYS_H

#include <stdint.h>

struct pcp_settings {
	unsigned policy;           /* enum pcp_policy (mm/pcp.h): memboot.pcp */
	uint32_t steps;            /* PCP_STEP() bits: memboot.pcp_steps */
	uint64_t high_fraction;    /* memboot.pcp_high_fraction */
	char churn_mix[16];        /* memboot.churn_mix */
	uint64_t churn_allocs;     /* memboot.churn_allocs */
	uint64_t churn_seed;       /* not a key: every churn run is the same run */
};

extern struct pcp_settings pcp_settings;
struct param_table;
extern const struct param_table pcp_param_table;

#endif

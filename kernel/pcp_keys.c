/*
 * pcp_keys.c: the keys of the per-CPU page lists (pcp_keys.h), apart from
 * kernel/pcp_setup.c so the host tests parse them. The values' syntax is
 * mm/pcp.c's (pcp_parse_policy, pcp_parse_steps).
 */
#include "kernel/pcp_keys.h"

#include "kernel/cmdline.h"
#include "mm/pcp.h"

struct pcp_settings pcp_settings = {
	.policy = PCP_AUTO, .steps = PCP_STEPS_MAINLINE, .high_fraction = 0,
	.churn_mix = "kbuild", .churn_allocs = 20000, .churn_seed = 1,
};

static bool parse_pcp(const char *value, void *ptr, char *err, size_t err_bytes)
{
	enum pcp_policy p;

	if (!pcp_parse_policy(value, &p, err, err_bytes))
		return false;
	*(unsigned *)ptr = p;
	return true;
}

static bool parse_pcp_steps(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return pcp_parse_steps(value, ptr, err, err_bytes);
}

static const struct param pcp_params[] = {
	{ .key = "memboot.pcp", .type = PARAM_FUNC, .ptr = &pcp_settings.policy,
	  .fn = parse_pcp, .help = "per-CPU page lists: off, fixed or auto (docs/pcp.md)" },
	{ .key = "memboot.pcp_steps", .type = PARAM_FUNC, .ptr = &pcp_settings.steps,
	  .fn = parse_pcp_steps, .help = "steps of Linux's PCP auto-tuning series to apply" },
	{ .key = "memboot.pcp_high_fraction", .type = PARAM_U64, .ptr = &pcp_settings.high_fraction,
	  .min = 0, .max = 1000000, .help = "high = node pages / fraction / CPUs (0: low watermark)" },
	{ .key = "memboot.churn_mix", .type = PARAM_STR, .ptr = pcp_settings.churn_mix,
	  .max = sizeof(pcp_settings.churn_mix), .help = "churn self-test load: kbuild, deep or net" },
	{ .key = "memboot.churn_allocs", .type = PARAM_U64, .ptr = &pcp_settings.churn_allocs,
	  .min = 1, .max = 1ULL << 32, .help = "allocations per CPU in the churn self-test" },
};
PARAM_TABLE(pcp_param_table, "pcp", pcp_params);

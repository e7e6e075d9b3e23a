/*
 * pcp.c: phase `pcp`: takes the allocator, the online CPUs (and `bs.pcp`,
 * the lists' memory phase memprep reserved, mm/alloc/pcp_mem.h); builds
 * per-CPU page lists in front of the allocator. The churn self-test that
 * runs through them is kernel/selftest/churn.c.
 */
#include "kernel/init/pcp.h"

#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/pcp.h"

void init_pcp(struct pcp_state *ps, const struct pcp_settings *set)
{
	struct alloc_pcp_setup s = pcp_mem_setup(ps, set);
	struct record r;
	char steps[48];

	pcp_format_steps(s.cfg.steps, steps, sizeof(steps));
	if (!alloc_pcp_init(&s)) {
		pr_warn("pcp: per-CPU lists not set up; every allocation goes to the allocator");
		return;
	}
	for (uint32_t n = 0; n < alloc_nr_nodes(); n++) {
		const struct pcp_zone *pz = alloc_pcp_zone(n);
		if (!pz)
			continue;
		rec_begin(&r, "pcp");
		rec_u64(&r, "node", n);
		rec_str(&r, "policy", pcp_policy_name(pz->cfg.policy));
		rec_str(&r, "steps", steps);
		rec_u64(&r, "high_fraction", pz->cfg.high_fraction);
		/* policy auto with a fraction fixes high, as in Linux: say so. */
		rec_bool(&r, "tuned", pz->auto_tune);
		rec_u64(&r, "batch", (uint64_t)pz->batch);
		rec_u64(&r, "high_min", (uint64_t)pz->high_min);
		rec_u64(&r, "high_max", (uint64_t)pz->high_max);
		rec_u64(&r, "cpus", pz->nr_cpus);
		rec_u64(&r, "cache_bytes", pz->cfg.cache_bytes);
		rec_u64(&r, "list_bytes", pcp_list_bytes(pz));
		rec_u64(&r, "wmark_min", pz->wmark_min);
		rec_u64(&r, "wmark_low", pz->wmark_low);
		rec_u64(&r, "wmark_high", pz->wmark_high);
		record_report(&r, LOG_INFO, "pcp: node {node}: {policy}, steps {steps}, batch {batch}, "
			      "high {high_min}..{high_max} for {cpus} CPUs, watermarks "
			      "{wmark_min}/{wmark_low}/{wmark_high}, {list_bytes} bytes a list");
	}
}

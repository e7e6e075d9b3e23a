/*
 * pcp_mem.c: the per-CPU lists' memory (pcp_mem.h).
 */
#include "mm/alloc/pcp_mem.h"

#include <string.h>

#include "kernel/services/log.h"
#include "mm/alloc/alloc.h"

/* A CPU's block (struct pcp_state says where they come from). */
struct pcp_cpu_block {
	uint64_t base, used;      /* the CPU's block, bytes carved from it */
};

static void *list_mem(void *ctx, size_t bytes, uint32_t cpu, uint32_t node)
{
	struct pcp_state *ps = ctx;
	struct pcp_cpu_block *cl;
	void *p;

	bytes = (bytes + 63) & ~(size_t)63;
	if (cpu >= ps->nr_list_cpus)
		return NULL;
	cl = &ps->cpu_blocks[cpu];
	if (!cl->base || cl->used + bytes > ps->list_bytes_per_cpu)
		return NULL;
	p = (void *)(uintptr_t)(cl->base + cl->used);
	cl->used += bytes;
	return p;
}

struct alloc_pcp_setup pcp_mem_setup(struct pcp_state *ps, const struct pcp_settings *set)
{
	struct alloc_pcp_setup s = {
		.nr_cpus = ps->nr_list_cpus, .cpu_node = ps->cpu_node, .this_cpu = ps->env.this_cpu,
		.now_ns = ps->env.now_ns, .mem = list_mem, .mem_ctx = ps, .rows = ps->list_rows,
		.cfg = { .policy = (enum pcp_policy)set->policy, .steps = set->steps,
			 .high_fraction = (uint32_t)set->high_fraction,
			 /* The per-CPU data cache slice Linux's patch 2 of
			  * the series computes; 0 keeps nothing in step 3. */
			 .cache_bytes = ps->env.cache_bytes },
	};

	return s;
}

void pcp_mem_reserve(struct pcp_state *ps, const struct pcp_settings *set,
		     const struct pcp_mem_env *env, uint32_t nr_cpus,
		     uint32_t (*node_of)(uint32_t cpu), uint32_t table_node,
		     uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx)
{
	uint32_t n = nr_cpus;
	uint64_t table = (uint64_t)n * (sizeof(*ps->cpu_blocks) + sizeof(*ps->list_rows) +
					sizeof(*ps->cpu_node));
	uint64_t base = reserve(ctx, (table + 4095) & ~4095ULL, table_node);

	ps->nr_list_cpus = 0;
	ps->env = *env;
	if (!base) {
		pr_warn("pcp: no %llu bytes for the per-CPU list table of %u CPUs",
			(unsigned long long)table, n);
		return;
	}
	ps->cpu_blocks = (struct pcp_cpu_block *)(uintptr_t)base;
	ps->list_rows = (struct pcp_list ***)(ps->cpu_blocks + n);
	ps->cpu_node = (uint32_t *)(ps->list_rows + n);
	memset(ps->cpu_blocks, 0, table);
	for (uint32_t c = 0; c < n; c++)
		ps->cpu_node[c] = node_of(c);
	ps->nr_list_cpus = n;

	struct alloc_pcp_setup s = pcp_mem_setup(ps, set);
	/* Every list rounded to 64 bytes, as list_mem() carves them. */
	uint64_t bytes = alloc_pcp_bytes_per_cpu(&s) + 64 * ALLOC_MAX_NODES;

	ps->list_bytes_per_cpu = (bytes + 4095) & ~4095ULL;
	for (uint32_t c = 0; c < n; c++) {
		ps->cpu_blocks[c].base = reserve(ctx, ps->list_bytes_per_cpu, ps->cpu_node[c]);
		if (!ps->cpu_blocks[c].base)
			pr_warn("pcp: no %llu bytes on node %u for cpu %u's lists",
				(unsigned long long)ps->list_bytes_per_cpu, ps->cpu_node[c], c);
	}
}

/*
 * memprep.c: phase `memprep`: takes `bs.topo`, `bs.hugetlb`, `bs.physmem`,
 * `bs.memmap`; builds the allocator started, the per-CPU lists' memory
 * reserved (`bs.pcp`), the free ranges taken as the init engine's work
 * (`bs.meminit`), the fixed descriptors written (reserved pages, holes,
 * 1 GiB pool heads); `bs.physmem` retires; `bs.census`: the baseline.
 * While the APs measure the clock.
 */
#include "kernel/init/memprep.h"

#include "arch/memory.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/exit.h"
#include "kernel/fault/fault.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/pcp_mem.h"
#include "mm/hugetlb/hugetlb.h"
#include "mm/memtest_run.h"
#include "mm/numa.h"
#include "mm/physmem.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)

static bool has_memory(const struct numa_topology *topo, uint32_t nid)
{
	return topo->nodes[nid].mem_bytes != 0;
}

/* The page type memory init writes for a reservation's pages. */
static enum page_type resv_page_type(uint32_t type)
{
	switch (type) {
	case PHYSMEM_RESV_MEMMAP:    return PAGE_MEMMAP;
	case PHYSMEM_RESV_PAGETABLE: return PAGE_PAGETABLE;
	case PHYSMEM_RESV_BADRAM:    return PAGE_BAD;
	default:                     return PAGE_RESERVED;
	}
}

static bool collect_free(void *ctx, uint64_t start, uint64_t end, uint32_t node)
{
	mminit_add_free(ctx, node, PFN(start), PFN(end));
	return true;
}

/* Everything a buddy merge could read must be written before any chunk
 * frees: reserved ranges in full, and the markers of the holes. */
static void init_fixed(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		       const struct physmem *pm, struct memmap *mm, const struct mminit *mi,
		       uint32_t nid)
{
	struct memmap_range present[NUMA_MAX_RANGES];
	uint32_t nr = 0;

	for (uint32_t i = 0; i < pm->nr_resv; i++) {
		const struct physmem_resv *r = &pm->resv[i];
		/* 1 GiB pool pages: a head each, never their tails. */
		if (r->node != nid || r->type == PHYSMEM_RESV_HUGETLB_1G)
			continue;
		mminit_write_fixed(mi, nid, PFN(r->start), PFN(r->end), resv_page_type(r->type));
	}
	hugetlb_mark_gigantic(hp, &mm->nodes[nid], nid);
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		if (topo->ranges[i].node == nid)
			present[nr++] = (struct memmap_range){ PFN(topo->ranges[i].start),
							       PFN(topo->ranges[i].end) };
	mminit_mark_holes(mi, nid, present, nr);
}

/* The allocator's own structures come from physmem while it still owns
 * free memory: reserved for good, counted by the census as reserved. */
static uint64_t reserve_for_alloc(void *ctx, uint64_t bytes, uint32_t node)
{
	return physmem_alloc(ctx, bytes, 4096, node, false, PHYSMEM_RESV_ALLOC);
}

static uint64_t reserve_for_pcp(void *ctx, uint64_t bytes, uint32_t node)
{
	return physmem_alloc(ctx, bytes, 4096, node, false, PHYSMEM_RESV_PCP);
}

/* The per-CPU lists' CPUs: ids up to the highest one online; a CPU that
 * did not answer leaves a hole, its lists on node 0 (never used). */
static uint32_t pcp_cpus(void)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < nr_cpu_ids; c++)
		if (cpu_state_of(c) && cpu_state_of(c)->online)
			n = c + 1;
	return n;
}

static uint32_t pcp_node_of(uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	return cs && cs->online ? cs->mem_node : 0;
}

/* memboot.alloc= chooses the allocator behind the seam; an unknown name is
 * reported and the default used. */
static const struct alloc_ops *alloc_start(const struct numa_topology *topo, struct physmem *pm,
					   const struct memmap *mm)
{
	const struct alloc_ops *ops = alloc_find(alloc_requested());
	struct alloc_setup setup = {
		.mm = mm, .nr_nodes = topo->nr_nodes,
		.reserve = reserve_for_alloc, .reserve_ctx = pm, .this_cpu = job_platform_this_cpu,
	};

	if (!ops) {
		ops = alloc_table[0];
		pr_warn("alloc: memboot.alloc=%s is not an allocator; using %s", alloc_requested(),
			ops->name);
	}
	if (!alloc_init(ops, &setup, topo->distance))
		kernel_exit(EXIT_PANIC, "the page allocator could not start");
	return ops;
}

void init_memprep(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		  const struct meminit_settings *set, const struct memtest_settings *mt,
		  const struct pcp_settings *pcps, struct physmem *pm, struct memmap *mm,
		  struct pcp_state *pcp, struct meminit_state *st, struct census_baseline *base)
{
	enum mminit_policy policy = (enum mminit_policy)set->policy;
	struct mminit *mi = &st->mi;
	struct mminit_config cfg = {
		.policy = policy,
		.max_threads = set->threads_mode == INIT_THREADS_ONE ? 1 :
			       set->threads_mode == INIT_THREADS_N ? (uint32_t)set->threads : 0,
		.all_cpus = set->threads_mode == INIT_THREADS_ALL,
		.early_pages = set->early_pages,
		.boot_node = this_cpu_state()->mem_node,
		.trace = set->trace,
		.cpu_node = st->init_nodes,
		.test = memtest_run_hook(&st->memtest, mt, mm),
		.deadline_ns = set->deadline_ms * 1000000ULL,
	};

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		st->init_nodes[nid] = topo->nodes[nid].init_node;
	st->ops = alloc_start(topo, pm, mm);
	fault_before_meminit();
	/* The lists' memory, sized as the allocator now says (phase pcp
	 * carves the lists from it). */
	const struct pcp_mem_env pcp_env = { job_platform_this_cpu, ktime_ns,
					     arch_caches().slice_bytes };
	pcp_mem_reserve(pcp, pcps, &pcp_env, pcp_cpus(), pcp_node_of, boot_cpu_state.mem_node,
			reserve_for_pcp, pm);
	/* The engine's per-node work lists, sized by the nodes there are. */
	uint64_t work_bytes = topo->nr_nodes * sizeof(struct mminit_node);
	uint64_t work = physmem_alloc(pm, work_bytes, 4096, cfg.boot_node, false,
				      PHYSMEM_RESV_MEMINIT);
	if (!work)
		kernel_exit(EXIT_PANIC, "no memory for the init engine's work lists");
	mminit_start(mi, (struct mminit_node *)(uintptr_t)work, mm, topo->nr_nodes, &cfg);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			physmem_for_each_free(pm, nid, collect_free, mi);
	/* From here on physmem's free memory belongs to the allocator. The 1 GiB
	 * pool pages are among the reservations, but the census finds them as
	 * PAGE_HUGE heads, not as reserved pages. */
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		memtest_run_node_total(&st->memtest, nid, mi->nodes[nid].free_pages << PAGE_SHIFT);
	base->retired_reserved_pages = physmem_retire(pm);
	base->gigantic_pages = hp->gigantic_pages;
	base->badram_pages = physmem_reserved_bytes_of(pm, PHYSMEM_RESV_BADRAM) >> PAGE_SHIFT;

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			init_fixed(topo, hp, pm, mm, mi, nid);
	if (set->early_alloc_pages && policy == MMINIT_SERIAL)
		pr_warn("meminit: memboot.early_alloc_pages=%llu ignored: memboot.init=serial has no early section",
			(unsigned long long)set->early_alloc_pages);
}

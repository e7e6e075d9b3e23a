/*
 * memmap.c: phase `memmap`: takes `bs.topo`, `bs.physmem`; builds
 * `bs.memmap`: one page descriptor array per node, in that node's memory
 * (and `bs.memmap_state`: what its report and meminit's read). Also the
 * store probe, which chooses the store memory init writes the arrays
 * larger than the LLC with.
 */
#include "kernel/init/memmap.h"

#include "arch/counter.h"
#include "arch/memory.h"
#include "arch/map.h"
#include "kernel/services/console.h"
#include "kernel/services/exit.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "mm/alloc/alloc.h"
#include "mm/physmem.h"
#include "mm/pt_pages.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)

static bool has_memory(const struct numa_topology *topo, uint32_t nid)
{
	return topo->nodes[nid].mem_bytes != 0;
}

/* The node whose descriptors are being set up, and where their memory and
 * page tables come from. */
struct sparse_ctx {
	struct memory_pt_source pt;     /* .pm: physmem */
	uint32_t nid;
	struct memmap_state *ms;        /* the pieces' records */
};

/* Sparse descriptor arrays: memory from physmem on the node (elsewhere
 * only if it must, with a warning), mapped into the node's window. */
static uint64_t sparse_alloc(void *ctx, uint64_t bytes, uint64_t align, uint32_t nid)
{
	struct physmem *pm = ((struct sparse_ctx *)ctx)->pt.pm;
	/* The exact attempt has a fallback: its failure is not a warning of
	 * its own; the fallback's placement is reported below. */
	uint64_t at = physmem_try_alloc(pm, bytes, align, nid, true, PHYSMEM_RESV_MEMMAP);

	if (!at) {
		at = physmem_alloc(pm, bytes, align, nid, false, PHYSMEM_RESV_MEMMAP);
		if (at)
			pr_warn("memmap: node %u's descriptors do not fit in its own memory; placed on node %u (%llu bytes)",
				nid, physmem_node_of(pm, at), (unsigned long long)bytes);
	}
	return at;
}

static void piece_report(const struct memmap_piece *p)
{
	struct record r;

	rec_begin(&r, "memmap_piece");
	rec_u64(&r, "node", p->nid);
	rec_hex(&r, "start", p->phys);
	rec_hex(&r, "end", p->phys + p->bytes);
	rec_hex(&r, "virt", p->virt);
	record_emit(&r);
}

static bool sparse_map(void *ctx, uint64_t virt, uint64_t phys, uint64_t bytes)
{
	struct sparse_ctx *sc = ctx;
	struct memmap_state *ms = sc->ms;
	const struct memmap_piece p = { sc->nid, phys, bytes, virt };

	if (ms->nr_pieces < MEMMAP_PIECES_LATE)
		ms->pieces[ms->nr_pieces++] = p;
	else
		piece_report(&p);
	return arch_map_range(virt, phys, bytes, memory_alloc_pagetable, &sc->pt);
}

/* --- the store probe ------------------------------------------------------- */

/*
 * The store probe (mm/memmap.h, memmap_store_probe): plain stores against
 * the other kinds the architecture offers (arch/memory.h) over the
 * descriptors at the start of the first large node's largest present
 * range, on an idle AP of that node while the boot CPU builds the other
 * arrays (on the boot CPU if there is none): an LLC's worth of plain
 * stores, untimed, then one pass of each kind (memmap_store_probe_bytes()),
 * as far as the range goes. The cycle counter times the passes; a flush of
 * every line (arch_cache_flush_range(): written back and invalidated, then
 * waited for), untimed, first makes the lines cold as memory init finds
 * them.
 */
#define STORE_PROBE_REPS 1
/* CPUs the probe runs on at once: the node's idle APs, up to this many
 * (memory init runs on all of them, and what wins on one CPU can lose when
 * several share the memory's bandwidth; a few show it). */
#define STORE_PROBE_WIDTH 8

struct store_probe_job;

/* One CPU's part: the argument its job is posted with. */
struct store_probe_part {
	struct store_probe_job *job;
	uint32_t index;
};

/* On the stack of init_memmap(), which waits for every part before it
 * returns. */
struct store_probe_job {
	const struct memmap_node *node;
	uint64_t start_pfn, end_pfn, warm_bytes;
	uint32_t nr_cpus;                       /* 0: the boot CPU alone */
	uint32_t cpus[STORE_PROBE_WIDTH];    /* who runs each part */
	struct store_probe_part args[STORE_PROBE_WIDTH];
	struct memmap_store_probe parts[STORE_PROBE_WIDTH];
	struct memmap_store_probe res;
	volatile uint32_t arrived, generation;  /* the passes' barrier */
	volatile uint32_t done;
};

static uint64_t probe_ticks(void)
{
	return arch_counter();
}

static void probe_flush(const void *p, uint64_t bytes)
{
	arch_cache_flush_range(p, bytes);
}

/* Every part waits here before each pass; the last to arrive releases them. */
static void probe_barrier(void *arg)
{
	struct store_probe_job *j = arg;
	uint32_t gen = __atomic_load_n(&j->generation, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&j->arrived, 1, __ATOMIC_ACQ_REL) == j->nr_cpus) {
		__atomic_store_n(&j->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&j->generation, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&j->generation, __ATOMIC_ACQUIRE) == gen)
		job_platform_relax();
}

static void store_probe_run(void *arg)
{
	struct store_probe_part *p = arg;
	struct store_probe_job *j = p->job;
	const struct memmap_probe_sync sync = { probe_barrier, j };
	uint32_t n = j->nr_cpus ? j->nr_cpus : 1;

	memmap_store_probe(j->node, j->start_pfn, j->end_pfn, j->warm_bytes, STORE_PROBE_REPS,
			   p->index, n, &sync, probe_ticks, probe_flush, &j->parts[p->index]);
	__atomic_add_fetch(&j->done, 1, __ATOMIC_RELEASE);
}

static void store_probe_start(struct store_probe_job *j, const struct memmap_node *n,
			      const struct memmap_range *present, uint32_t node)
{
	uint64_t warm;
	uint64_t pages = memmap_store_probe_bytes(arch_caches().llc_bytes, &warm) / MEMMAP_DESC_BYTES;

	*j = (struct store_probe_job){ .node = n, .start_pfn = present->start_pfn,
				       .warm_bytes = warm };
	if (pages > present->end_pfn - present->start_pfn)
		pages = present->end_pfn - present->start_pfn;
	if (pages < 64 * STORE_PROBE_WIDTH) {
		/* Too little to time: the default store (non-temporal). */
		*j = (struct store_probe_job){ 0 };
		return;
	}
	j->end_pfn = j->start_pfn + pages;
	for (uint32_t cpu = 1; cpu < job_platform_max_cpus() && j->nr_cpus < STORE_PROBE_WIDTH;
	     cpu++)
		if (job_platform_online(cpu) && !job_platform_busy(cpu) &&
		    job_platform_node(cpu) == node)
			j->cpus[j->nr_cpus++] = cpu;
	/* Every part is set before the first is posted: each reads nr_cpus. */
	for (uint32_t i = 0; i < j->nr_cpus; i++)
		j->args[i] = (struct store_probe_part){ j, i };
	for (uint32_t i = 0; i < j->nr_cpus; i++)
		job_platform_post(j->cpus[i], store_probe_run, &j->args[i]);
}

static void store_probe_report(const struct memmap_probe_result *p)
{
	struct record r;

	rec_begin(&r, "store_probe");
	rec_u64(&r, "cpu", p->cpu);
	rec_u64(&r, "cpus", p->cpus);
	rec_u64(&r, "warm_bytes", p->res.warm_bytes);
	rec_u64(&r, "bytes", p->res.bytes);
	rec_cycles_ns(&r, "plain_ns", p->res.plain_ticks);
	/* A time for each other kind the architecture offers. */
	if (memmap_store_offered(MEMMAP_STORE_NT))
		rec_cycles_ns(&r, "nt_ns", p->res.nt_ticks);
	if (memmap_store_offered(MEMMAP_STORE_ZERO))
		rec_cycles_ns(&r, "zero_ns", p->res.zero_ticks);
	rec_str(&r, "choice", memmap_store_name(p->res.choice));
	rec_u64(&r, "plain_margin_pct", MEMMAP_PLAIN_MARGIN_PCT);
	record_report(&r, LOG_INFO, !memmap_store_offered(MEMMAP_STORE_ZERO) ?
		      "memmap: store probe on {cpus} CPU(s) from CPU {cpu}: after "
		      "{warm_bytes:KiB} KiB of plain stores, {bytes:KiB} KiB of descriptors in "
		      "{plain_ns:us} us with plain stores, {nt_ns:us} us non-temporal: "
		      "{choice} stores for arrays larger than the LLC" :
		      !memmap_store_offered(MEMMAP_STORE_NT) ?
		      "memmap: store probe on {cpus} CPU(s) from CPU {cpu}: after "
		      "{warm_bytes:KiB} KiB of plain stores, {bytes:KiB} KiB of descriptors in "
		      "{plain_ns:us} us with plain stores, {zero_ns:us} us zeroing blocks first: "
		      "{choice} stores for arrays larger than the LLC" :
		      "memmap: store probe on {cpus} CPU(s) from CPU {cpu}: after "
		      "{warm_bytes:KiB} KiB of plain stores, {bytes:KiB} KiB of descriptors in "
		      "{plain_ns:us} us with plain stores, {nt_ns:us} us non-temporal, {zero_ns:us} us "
		      "zeroing blocks first: {choice} stores for arrays larger than the LLC");
}

/* Wait for the probe's parts (none started: nothing to do), take its
 * choice for @mm and keep its result in @out. */
static void store_probe_finish(struct store_probe_job *j, struct memmap *mm,
			       struct memmap_probe_result *out)
{
	uint32_t n = j->nr_cpus ? j->nr_cpus : 1;

	if (!j->node)
		return;
	if (j->nr_cpus == 0) {
		j->args[0] = (struct store_probe_part){ j, 0 };
		store_probe_run(&j->args[0]);
	}
	for (;;) {
		bool busy = __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) < n;

		for (uint32_t i = 0; i < j->nr_cpus && !busy; i++)
			busy = job_platform_busy(j->cpus[i]);
		if (!busy)
			break;
		job_platform_relax();
	}
	memmap_store_probe_combine(j->parts, n, &j->res);
	memmap_store_set(mm, j->res.choice);
	*out = (struct memmap_probe_result){ .ran = true, .nid = j->node->nid,
					     .cpu = j->nr_cpus ? j->cpus[0] : 0, .cpus = n,
					     .res = j->res };
}

/* --- phase "memmap" -------------------------------------------------------- */

/* Phase memmap's records, in the order they were due (above). */
static void arrays_report_now(void *arg)
{
	const struct memmap_state *ms = arg;
	const struct numa_topology *topo = ms->topo;
	struct memmap *mm = ms->mm;

	for (uint32_t i = 0; i < ms->nr_pieces; i++)
		piece_report(&ms->pieces[i]);
	if (ms->probe.ran)
		store_probe_report(&ms->probe);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		const struct numa_node *nn = &topo->nodes[nid];
		const struct memmap_sparse_stats st = ms->stats[nid];
		struct record r;

		if (!has_memory(topo, nid))
			continue;
		uint64_t pages = PFN(nn->span_end) - PFN(nn->span_start);
		void *window = (void *)(uintptr_t)(ARCH_MEMMAP_WINDOW_BASE +
						   (uint64_t)nid * ARCH_MEMMAP_WINDOW_BYTES);
		/* The store memmap_init_range() will use for this array (it
		 * weighs the present pages' descriptors against the LLC, and
		 * for a larger array takes the probe's choice). */
		const struct arch_caches caches = arch_caches(), *cc = &caches;
		const char *store = memmap_store_name(memmap_node_choose_store(mm, &mm->nodes[nid], cc));
		rec_begin(&r, "memmap");
		rec_u64(&r, "node", nid);
		rec_hex(&r, "window", (uint64_t)(uintptr_t)window);
		rec_u64(&r, "desc_bytes", MEMMAP_DESC_BYTES);
		rec_hex(&r, "span_start", nn->span_start);
		rec_hex(&r, "span_end", nn->span_end);
		rec_u64(&r, "span_pages", pages);
		rec_u64(&r, "present_pages", st.present_pages);
		rec_u64(&r, "bytes", st.backed_bytes);
		rec_u64(&r, "runs", st.runs);
		rec_str(&r, "store", store);
		rec_u64(&r, "llc_bytes", cc->llc_bytes);
		rec_str(&r, "llc_source", cc->llc_source);
		record_report(&r, LOG_INFO, "memmap: node {node}: {present_pages} pages present in "
			      "[mem 0x{span_start:x16}-0x{span_end:x16-1}], {bytes} bytes of descriptors "
			      "({desc_bytes} bytes each) in {runs} runs, {store} stores "
			      "(LLC {llc_bytes:KiB} KiB, " ARCH_CACHES_FROM " {llc_source})");
	}
}

void init_memmap(const struct numa_topology *topo, struct physmem *pm, struct memmap *mm,
		 struct memmap_state *ms)
{
	struct sparse_ctx sc = { .pt = { pm, PHYSMEM_ANY_NODE }, .ms = ms };
	const struct memmap_sparse_ops sparse_ops = { sparse_alloc, sparse_map, &sc };
	struct memmap_range *present = ms->present;
	uint64_t max_pfn = 0;

	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		if (PFN(topo->ranges[i].end) > max_pfn)
			max_pfn = PFN(topo->ranges[i].end);
	uint64_t table = physmem_alloc(pm, memmap_nid_table_bytes(max_pfn), 4096,
				       topo->nodes[0].mem_node, false, PHYSMEM_RESV_MEMMAP);
	if (!table)
		kernel_exit(EXIT_PANIC, "no memory for the pfn-to-node table");
	memmap_init(mm, (memmap_nid_t *)(uintptr_t)table, max_pfn);
	struct store_probe_job probe = { 0 };

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		const struct numa_node *nn = &topo->nodes[nid];
		struct memmap_node n;

		if (!has_memory(topo, nid))
			continue;
		uint64_t base = PFN(nn->span_start), pages = PFN(nn->span_end) - base;
		struct memmap_sparse_stats st;
		uint32_t nr_present = 0;
		void *window = (void *)(uintptr_t)(ARCH_MEMMAP_WINDOW_BASE +
						   (uint64_t)nid * ARCH_MEMMAP_WINDOW_BYTES);

		for (uint32_t i = 0; i < topo->nr_ranges; i++)
			if (topo->ranges[i].node == nid)
				present[nr_present++] = (struct memmap_range){
					PFN(topo->ranges[i].start), PFN(topo->ranges[i].end) };
		/* Descriptors only for present memory: the node's window is
		 * backed where its ranges are (mm/memmap.h, sparse storage). */
		sc.nid = nid;
		if (!memmap_node_init_sparse(&n, nid, base, pages, window, present, nr_present,
					     ALLOC_MAX_ORDER, &sparse_ops, ms->runs,
					     NUMA_MAX_RANGES, &st))
			kernel_exit(EXIT_PANIC, "no memory for a node's page descriptors");
		memmap_add_node(mm, &n);
		ms->stats[nid] = st;
		/* Only an array larger than the LLC needs the measurement (one
		 * that fits gets plain stores); the largest present range is
		 * where a few MiB of descriptors lie together. */
		const struct arch_caches caches = arch_caches();

		if (!probe.node && nr_present &&
		    memmap_store_choose(mm, memmap_desc_bytes(st.present_pages), &caches) !=
			    MEMMAP_STORE_PLAIN) {
			uint32_t big = 0;
			for (uint32_t i = 1; i < nr_present; i++)
				if (present[i].end_pfn - present[i].start_pfn >
				    present[big].end_pfn - present[big].start_pfn)
					big = i;
			store_probe_start(&probe, &mm->nodes[nid], &present[big], nid);
		}
	}
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		memmap_set_nid(mm, PFN(topo->ranges[i].start), PFN(topo->ranges[i].end),
			       topo->ranges[i].node);
	store_probe_finish(&probe, mm, &ms->probe);
	ms->topo = topo;
	ms->mm = mm;
	console_defer(arrays_report_now, ms,
		      ((size_t)ms->nr_pieces + topo->nr_nodes + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

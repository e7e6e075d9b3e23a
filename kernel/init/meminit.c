/*
 * meminit.c: per-node descriptor arrays, parallel initialisation, census.
 */
#include "kernel/init/meminit.h"

#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "kernel/console.h"
#include "kernel/init/acpi.h"
#include "kernel/exit.h"
#include "kernel/init/hugetlb.h"
#include "kernel/jobs/job.h"
#include "kernel/jobs/platform.h"
#include "kernel/log.h"
#include "kernel/init/memory.h"
#include "kernel/init/memtest.h"
#include "kernel/fault/fault.h"
#include "kernel/percpu.h"
#include "kernel/vm/vm.h"
#include "kernel/panic.h"
#include "mm/mminit.h"
#include "kernel/report/record.h"
#include "kernel/report/summary.h"
#include "kernel/clock/time.h"
#include "mm/alloc/alloc.h"
#include "mm/census.h"
#include "mm/alloc/alloc_pcp.h"
#include "kernel/init/pcp_setup.h"
#include "kernel/init/smp.h"

#define PFN(addr) ((addr) >> PAGE_SHIFT)

static const char *const policy_names[] = { "serial", "deferred", "lazy" };

/* The init engine's work and figures (mm/mminit.h). */
static struct mminit mi;
/* memboot.early_alloc_pages: how many of those allocations were made. */
static uint64_t early_alloc_made;
static uint64_t desc_bytes[MEMMAP_MAX_NODES];

static bool has_memory(const struct numa_topology *topo, uint32_t nid)
{
	return topo->nodes[nid].mem_bytes != 0;
}

/* --- phase "memmap" ---------------------------------------------------- */

/* The node whose descriptors are being set up, and where their memory and
 * page tables come from. */
struct sparse_ctx {
	struct memory_pt_source pt;     /* .pm: physmem */
	uint32_t nid;
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

/*
 * Phase memmap's records (a memmap_piece per mapped piece of a window, the
 * store_probe, a memmap per node) are made when the consoles drain, in
 * their place (console_defer(): kernel/init/phase.c says why), from what
 * is kept here and in the boot state. Past MEMMAP_PIECES_LATE pieces a
 * piece's record is made at once (before the others, then).
 */
#define MEMMAP_PIECES_LATE 1024
struct memmap_piece {
	uint32_t nid;
	uint64_t phys, bytes, virt;
};
static struct memmap_piece pieces[MEMMAP_PIECES_LATE];
static uint32_t nr_pieces;

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
	const struct memmap_piece p = { sc->nid, phys, bytes, virt };

	if (nr_pieces < MEMMAP_PIECES_LATE)
		pieces[nr_pieces++] = p;
	else
		piece_report(&p);
	return arch_map_range(virt, phys, bytes, memory_alloc_pagetable, &sc->pt);
}

static struct memmap_range sparse_present[NUMA_MAX_RANGES], sparse_runs[NUMA_MAX_RANGES];
static struct memmap_sparse_stats sparse_stats[MEMMAP_MAX_NODES];

/*
 * The store probe (mm/memmap.h, memmap_store_probe): plain against
 * non-temporal stores over the descriptors at the start of the first large
 * node's largest present range, on an idle AP of that node while the boot
 * CPU builds the other arrays (on the boot CPU if there is none): an LLC's
 * worth of plain stores, untimed, then one pass of each kind
 * (memmap_store_probe_bytes()), as far as the range goes. The TSC times
 * the passes; clflush (SDM vol. 2A: writes a dirty line back and
 * invalidates it) then mfence, untimed, first makes the lines cold as
 * memory init finds them.
 */
#define STORE_PROBE_REPS 1
/* CPUs the probe runs on at once: the node's idle APs, up to this many
 * (memory init runs on all of them, and what wins on one CPU can lose when
 * several share the memory's bandwidth; a few show it). */
#define STORE_PROBE_WIDTH 8

struct store_probe_job {
	const struct memmap_node *node;
	uint64_t start_pfn, end_pfn, warm_bytes;
	uint32_t nr_cpus;                       /* 0: the boot CPU alone */
	uint32_t cpus[STORE_PROBE_WIDTH];    /* who runs each part */
	struct memmap_store_probe parts[STORE_PROBE_WIDTH];
	struct memmap_store_probe res;
	volatile uint32_t arrived, generation;  /* the passes' barrier */
	volatile uint32_t done;
};

struct store_probe_part {
	struct store_probe_job *job;
	uint32_t index;
};
static struct store_probe_part probe_parts[STORE_PROBE_WIDTH];

static uint64_t probe_ticks(void)
{
	return rdtsc();
}

static void probe_flush(const void *p, uint64_t bytes)
{
	for (const char *c = p, *end = c + bytes; c < end; c += 64)
		__asm__ volatile("clflush %0" : "+m"(*(volatile char *)c));
	__asm__ volatile("mfence" ::: "memory");
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
	uint64_t pages = memmap_store_probe_bytes(cpu_caches.llc_bytes, &warm) / MEMMAP_DESC_BYTES;

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
		probe_parts[i] = (struct store_probe_part){ j, i };
	for (uint32_t i = 0; i < j->nr_cpus; i++)
		job_platform_post(j->cpus[i], store_probe_run, &probe_parts[i]);
}

/* The probe's result as phase memmap's report prints it (NULL node: none ran). */
static struct store_probe_job probe_reported;

static void store_probe_report(const struct store_probe_job *j)
{
	struct record r;
	uint32_t n = j->nr_cpus ? j->nr_cpus : 1;

	rec_begin(&r, "store_probe");
	rec_u64(&r, "cpu", j->nr_cpus ? j->cpus[0] : 0);
	rec_u64(&r, "cpus", n);
	rec_u64(&r, "warm_bytes", j->res.warm_bytes);
	rec_u64(&r, "bytes", j->res.bytes);
	rec_tsc_ns(&r, "plain_ns", j->res.plain_ticks);
	rec_tsc_ns(&r, "nt_ns", j->res.nt_ticks);
	rec_str(&r, "choice", j->res.choice == MEMMAP_STORE_NT ? "nt" : "plain");
	rec_u64(&r, "plain_margin_pct", MEMMAP_PLAIN_MARGIN_PCT);
	record_report(&r, LOG_INFO, "memmap: store probe on {cpus} CPU(s) from CPU {cpu}: after "
		      "{warm_bytes:KiB} KiB of plain stores, {bytes:KiB} KiB of descriptors in "
		      "{plain_ns:us} us with plain stores, {nt_ns:us} us non-temporal: "
		      "{choice} stores for arrays larger than the LLC");
}

static void store_probe_finish(struct store_probe_job *j)
{
	uint32_t n = j->nr_cpus ? j->nr_cpus : 1;

	if (!j->node)
		return;
	if (j->nr_cpus == 0) {
		probe_parts[0] = (struct store_probe_part){ j, 0 };
		store_probe_run(&probe_parts[0]);
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
	memmap_store_set(j->res.choice);
	probe_reported = *j;
}

/* Phase memmap's records, in the order they were due (above). */
struct arrays_report {
	const struct numa_topology *topo;
	struct memmap *mm;             /* the store choice reads it */
};
static struct arrays_report arrays_reported;

static void arrays_report_now(void *arg)
{
	const struct arrays_report *a = arg;
	const struct numa_topology *topo = a->topo;
	struct memmap *mm = a->mm;

	for (uint32_t i = 0; i < nr_pieces; i++)
		piece_report(&pieces[i]);
	if (probe_reported.node)
		store_probe_report(&probe_reported);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		const struct numa_node *nn = &topo->nodes[nid];
		const struct memmap_sparse_stats st = sparse_stats[nid];
		struct record r;

		if (!has_memory(topo, nid))
			continue;
		uint64_t pages = PFN(nn->span_end) - PFN(nn->span_start);
		void *window = (void *)(uintptr_t)(ARCH_MEMMAP_WINDOW_BASE +
						   (uint64_t)nid * ARCH_MEMMAP_WINDOW_BYTES);
		/* The store memmap_init_range() will use for this array (it
		 * weighs the present pages' descriptors against the LLC, and
		 * for a larger array takes the probe's choice). */
		const struct cpu_caches *cc = &cpu_caches;
		const char *store = memmap_node_choose_store(&mm->nodes[nid], cc) == MEMMAP_STORE_NT
				    ? "nt" : "plain";
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
			      "(LLC {llc_bytes:KiB} KiB, CPUID {llc_source})");
	}
}

void meminit_arrays(const struct numa_topology *topo, struct physmem *pm, struct memmap *mm)
{
	struct sparse_ctx sc = { .pt = { pm, PHYSMEM_ANY_NODE } };
	const struct memmap_sparse_ops sparse_ops = { sparse_alloc, sparse_map, &sc };
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
		struct memmap_sparse_stats *stp = &sparse_stats[nid], st;
		uint32_t nr_present = 0;
		void *window = (void *)(uintptr_t)(ARCH_MEMMAP_WINDOW_BASE +
						   (uint64_t)nid * ARCH_MEMMAP_WINDOW_BYTES);

		for (uint32_t i = 0; i < topo->nr_ranges; i++)
			if (topo->ranges[i].node == nid)
				sparse_present[nr_present++] = (struct memmap_range){
					PFN(topo->ranges[i].start), PFN(topo->ranges[i].end) };
		/* Descriptors only for present memory: the node's window is
		 * backed where its ranges are (mm/memmap.h, sparse storage). */
		sc.nid = nid;
		if (!memmap_node_init_sparse(&n, nid, base, pages, window, sparse_present, nr_present,
					     ALLOC_MAX_ORDER, &sparse_ops, sparse_runs,
					     NUMA_MAX_RANGES, &st))
			kernel_exit(EXIT_PANIC, "no memory for a node's page descriptors");
		memmap_add_node(mm, &n);
		desc_bytes[nid] = st.backed_bytes;
		*stp = st;
		/* Only an array larger than the LLC needs the measurement (one
		 * that fits gets plain stores); the largest present range is
		 * where a few MiB of descriptors lie together. */
		if (!probe.node && nr_present &&
		    memmap_store_choose(memmap_desc_bytes(st.present_pages), &cpu_caches) !=
			    MEMMAP_STORE_PLAIN) {
			uint32_t big = 0;
			for (uint32_t i = 1; i < nr_present; i++)
				if (sparse_present[i].end_pfn - sparse_present[i].start_pfn >
				    sparse_present[big].end_pfn - sparse_present[big].start_pfn)
					big = i;
			store_probe_start(&probe, &mm->nodes[nid], &sparse_present[big], nid);
		}
	}
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		memmap_set_nid(mm, PFN(topo->ranges[i].start), PFN(topo->ranges[i].end),
			       topo->ranges[i].node);
	store_probe_finish(&probe);
	arrays_reported = (struct arrays_report){ topo, mm };
	console_defer(arrays_report_now, &arrays_reported,
		      ((size_t)nr_pieces + topo->nr_nodes + 2) * CONSOLE_DEFER_ITEM_BYTES);
}

/* --- the boot CPU's part --------------------------------------------------- */

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
	mminit_add_free(&mi, node, PFN(start), PFN(end));
	return true;
}

/* Everything a buddy merge could read must be written before any chunk
 * frees: reserved ranges in full, and the markers of the holes. */
static void init_fixed(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		       const struct physmem *pm, struct memmap *mm, uint32_t nid)
{
	struct memmap_range present[NUMA_MAX_RANGES];
	uint32_t nr = 0;

	for (uint32_t i = 0; i < pm->nr_resv; i++) {
		const struct physmem_resv *r = &pm->resv[i];
		/* 1 GiB pool pages: a head each, never their tails. */
		if (r->node != nid || r->type == PHYSMEM_RESV_HUGETLB_1G)
			continue;
		mminit_write_fixed(&mi, nid, PFN(r->start), PFN(r->end), resv_page_type(r->type));
	}
	hugetlb_mark_gigantic(hp, &mm->nodes[nid], nid);
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		if (topo->ranges[i].node == nid)
			present[nr++] = (struct memmap_range){ PFN(topo->ranges[i].start),
							       PFN(topo->ranges[i].end) };
	mminit_mark_holes(&mi, nid, present, nr);
}

static void trace_chunks(uint32_t nid)
{
	const struct mminit_node *w = &mi.nodes[nid];

	for (uint32_t i = 0; i < w->nr_chunks && i < MMINIT_TRACE_CHUNKS; i++) {
		const struct job_chunk_time *t = &w->chunks[i];
		struct record r;
		rec_begin(&r, "chunk");
		rec_str(&r, "job", "meminit");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "cpu", t->cpu);
		rec_u64(&r, "start_pfn", t->start);
		rec_u64(&r, "end_pfn", t->end);
		/* A start on a counter the TSC check could not correct is not
		 * a boot time; its duration (one CPU's counter) is. */
		if (!cpu_tsc_unreliable(t->cpu))
			rec_u64(&r, "start_ns", tsc_to_boot_ns(t->start_ticks));
		rec_u64(&r, "ns", t->ns);
		record_emit(&r);
	}
}

/* --- phase "meminit" ------------------------------------------------------- */

/* Was CPU @cpu offered node @nid's job? */
static bool cpu_offered(uint32_t nid, uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	if (!cs || !cs->online)
		return false;
	if (mi.cfg.all_cpus)
		return true;
	if (cs == this_cpu_state())
		return mi.nodes[nid].caller_offered;
	return cs->node == (mi.cfg.cpu_node ? mi.cfg.cpu_node[nid] : nid);
}

/*
 * One node_cpu record per CPU offered the node's job: how long it worked on
 * the node's chunks (busy) and how much of the node's interval it spent on
 * anything else (wait: waking up, queueing behind other work, idle once the
 * chunks ran out). The first MEMINIT_BUSY_LIST busy times, in CPU order, go
 * into @busy_list for the node_init record (its line's "busy 3.1+3.0 ms").
 */
#define MEMINIT_BUSY_LIST 32
static uint32_t report_cpus(uint32_t nid, uint64_t span_ns, uint64_t *busy_list)
{
	const struct mminit_node *w = &mi.nodes[nid];
	uint32_t nr = w->nr_chunks < MMINIT_TRACE_CHUNKS ? w->nr_chunks : MMINIT_TRACE_CHUNKS;
	uint32_t listed = 0;

	for (uint32_t c = 0; c < nr_cpu_ids; c++) {
		uint64_t busy_ns = 0;
		uint32_t chunks = 0;
		struct record r;

		if (!cpu_offered(nid, c))
			continue;
		for (uint32_t i = 0; i < nr; i++) {
			if (w->chunks[i].cpu != c)
				continue;
			busy_ns += w->chunks[i].ns;
			chunks++;
		}
		rec_begin(&r, "node_cpu");
		rec_u64(&r, "node", nid);
		rec_u64(&r, "cpu", c);
		rec_u64(&r, "chunks", chunks);
		rec_u64(&r, "busy_ns", busy_ns);
		rec_u64(&r, "wait_ns", span_ns > busy_ns ? span_ns - busy_ns : 0);
		record_emit(&r);
		if (listed < MEMINIT_BUSY_LIST)
			busy_list[listed++] = busy_ns;
	}
	return listed;
}

/* The start of phase meminit: what a node's usable_ns counts from. */
static uint64_t phase_start_tsc;

/*
 * The first CPU whose TSC the check could not correct that ran a chunk of
 * node @nid, or -1: the node's start, end and usable times compare its
 * readings with the boot CPU's. Beyond the chunks kept, any such CPU may
 * have run one.
 */
static int64_t unreliable_cpu(const struct mminit_node *w)
{
	uint32_t kept = w->nr_chunks < MMINIT_TRACE_CHUNKS ? w->nr_chunks : MMINIT_TRACE_CHUNKS;

	for (uint32_t i = 0; i < kept; i++)
		if (cpu_tsc_unreliable(w->chunks[i].cpu))
			return w->chunks[i].cpu;
	for (uint32_t cpu = 1; kept < w->nr_chunks && cpu < nr_cpu_ids; cpu++)
		if (cpu_tsc_unreliable(cpu))
			return cpu;
	return -1;
}

static void report(uint32_t nid, enum mminit_policy policy)
{
	const struct mminit_node *w = &mi.nodes[nid];
	struct mminit_usable u;
	struct record r;
	uint64_t pages = w->parallel_pages + w->early_pages;
	uint64_t start_ns = w->start_ticks ? tsc_to_boot_ns(w->start_ticks) : 0;
	uint64_t end_ns = w->end_ticks ? tsc_to_boot_ns(w->end_ticks) : start_ns;
	uint64_t busy[MEMINIT_BUSY_LIST];
	uint32_t nr_busy = 0;

	if (policy != MMINIT_SERIAL)
		nr_busy = report_cpus(nid, end_ns - start_ns, busy);
	mminit_node_usable(w, phase_start_tsc, &u);
	/* usable first, then wait: work is their difference, so the three
	 * add up exactly however the conversion rounds. */
	uint64_t usable_ns = tsc_cycles_to_ns(u.usable_ticks);
	uint64_t wait_ns = tsc_cycles_to_ns(u.wait_ticks);
	rec_begin(&r, "node_init");
	rec_u64(&r, "node", nid);
	/* A CPU-less node's CPUs are another node's (phase tiers chose it). */
	rec_u64(&r, "cpu_node", mi.cfg.cpu_node ? mi.cfg.cpu_node[nid] : nid);
	rec_str(&r, "policy", policy_names[policy]);
	rec_u64(&r, "threads", w->threads);
	rec_u64(&r, "cpus", w->cpus);
	rec_u64(&r, "pages", policy == MMINIT_SERIAL ? pages : w->parallel_pages);
	rec_u64(&r, "early_pages", policy == MMINIT_SERIAL ? 0 : w->early_pages);
	rec_u64(&r, "early_ns", w->early_ns);
	if (meminit_settings.early_alloc_pages && nid == mi.cfg.boot_node &&
	    policy != MMINIT_SERIAL) {
		rec_u64(&r, "early_alloc_asked", meminit_settings.early_alloc_pages);
		rec_u64(&r, "early_alloc_made", early_alloc_made);
	}
	rec_u64(&r, "free_pages", w->free_pages);
	rec_u64(&r, "desc_bytes", desc_bytes[nid]);
	rec_u64(&r, "start_ns", start_ns);
	rec_u64(&r, "end_ns", end_ns);
	rec_u64(&r, "ns", w->ns);
	rec_u64(&r, "usable_ns", usable_ns);
	rec_u64(&r, "wait_ns", wait_ns);
	rec_u64(&r, "work_ns", usable_ns - wait_ns);
	int64_t bad_cpu = unreliable_cpu(w);
	rec_bool(&r, "times_reliable", bad_cpu < 0);
	if (bad_cpu >= 0)
		rec_u64(&r, "unreliable_cpu", (uint64_t)bad_cpu);
	if (policy == MMINIT_SERIAL) {
		record_report(&r, LOG_INFO, "node {node} serial pages initialised in {ns:ms}ms "
			      "({pages} pages, 1 CPU; usable {usable_ns:ms} ms into meminit: "
			      "waited {wait_ns:ms}, worked {work_ns:ms})");
	} else {
		/* Last: a long list can only cut itself short, never a key. */
		rec_key(&r, "busy_ns");
		rec_open(&r, '[');
		for (uint32_t i = 0; i < nr_busy; i++)
			rec_v_u64(&r, busy[i]);
		rec_close(&r);
		if (bad_cpu < 0)
			record_report(&r, LOG_INFO, "node {node} {policy} pages initialised in "
				      "{ns:ms}ms ({pages} pages, {threads} of {cpus} CPU{cpus:s}, busy "
				      "{busy_ns:ms1[+]} ms; usable {usable_ns:ms} ms into meminit: "
				      "waited {wait_ns:ms}, worked {work_ns:ms})");
		else
			/* Only the busy times (each CPU's own counter) are right. */
			record_report(&r, LOG_WARN, "node {node} {policy} pages initialised "
				      "({pages} pages, {threads} of {cpus} CPU{cpus:s}, busy "
				      "{busy_ns:ms1[+]} ms); its times UNRELIABLE: CPU "
				      "{unreliable_cpu} ran its chunks with a TSC off the boot CPU's "
				      "beyond correction (tsc_sync): its start, end, {ns:ms} ms and "
				      "usable {usable_ns:ms} ms compare counters that disagree");
	}
	summary_node_init(nid, policy_names[policy], w->threads,
			  policy == MMINIT_SERIAL ? pages : w->parallel_pages, w->ns);
	if (bad_cpu >= 0)
		summary_node_unreliable(nid);
}

/*
 * Lazy: what the first allocations pay for descriptors not yet written.
 * Measured right after the init, before anything is printed: a mix of
 * order-0 allocations (which split lazy blocks, writing a few heads) and
 * 2 MiB ones (which also write their 511 tails).
 */
struct lazy_stats {                /* TSC cycles: converted when reported */
	uint64_t first_alloc_cycles;  /* end of init to the first page in hand */
	uint32_t allocs, fill_allocs;
	uint64_t fill_cycles, fill_max_cycles, plain_cycles, filled_pages;
};

static void lazy_measure(uint64_t init_end_tsc, struct lazy_stats *ls)
{
	enum { N = 64 };
	static uint64_t pfns[N];
	uint32_t node = this_cpu_state()->mem_node;

	memset(ls, 0, sizeof(*ls));
	for (int i = 0; i < N; i++) {
		unsigned order = i % 4 == 3 ? 9 : 0;
		/* Only this CPU allocates now: the counter's change is ours. */
		uint64_t before = alloc_counters.lazy_filled_pages, t0 = rdtsc();
		pfns[i] = alloc_pages(node, order, 0);
		uint64_t t1 = rdtsc(), c = t1 - t0;
		uint64_t filled = alloc_counters.lazy_filled_pages - before;
		if (i == 0)
			ls->first_alloc_cycles = t1 - init_end_tsc;
		ls->allocs++;
		if (filled) {
			ls->fill_allocs++;
			ls->fill_cycles += c;
			ls->filled_pages += filled;
			ls->fill_max_cycles = c > ls->fill_max_cycles ? c : ls->fill_max_cycles;
		} else {
			ls->plain_cycles += c;
		}
	}
	for (int i = 0; i < N; i++)
		if (pfns[i] != ALLOC_NO_PFN)
			alloc_free(pfns[i], i % 4 == 3 ? 9 : 0);
}

static void lazy_report(const struct lazy_stats *ls)
{
	uint32_t plains = ls->allocs - ls->fill_allocs;
	uint64_t fill_avg = ls->fill_allocs ? ls->fill_cycles / ls->fill_allocs : 0;
	uint64_t plain_avg = plains ? ls->plain_cycles / plains : 0;
	struct record r;

	rec_begin(&r, "lazy");
	rec_tsc_ns(&r, "first_alloc_ns", ls->first_alloc_cycles);
	rec_u64(&r, "allocs", ls->allocs);
	rec_u64(&r, "fill_allocs", ls->fill_allocs);
	rec_u64(&r, "filled_pages", ls->filled_pages);
	rec_tsc_ns(&r, "fill_alloc_avg_ns", fill_avg);
	rec_tsc_ns(&r, "fill_alloc_max_ns", ls->fill_max_cycles);
	rec_tsc_ns(&r, "plain_alloc_avg_ns", plain_avg);
	record_report(&r, LOG_INFO, "meminit: lazy: first page {first_alloc_ns} ns after init; "
		      "{fill_allocs} of {allocs} allocations wrote tail descriptors "
		      "(avg {fill_alloc_avg_ns} ns, max {fill_alloc_max_ns} ns), "
		      "the others avg {plain_alloc_avg_ns} ns");
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

static uint32_t alloc_cpu_id(void)
{
	return this_cpu()->cpu;
}

/* memboot.alloc= chooses the allocator behind the seam; an unknown name is
 * reported and the default used. */
static const struct alloc_ops *alloc_start(const struct numa_topology *topo, struct physmem *pm,
					   const struct memmap *mm)
{
	const struct alloc_ops *ops = alloc_find(alloc_requested());
	struct alloc_setup setup = {
		.mm = mm, .nr_nodes = topo->nr_nodes,
		.reserve = reserve_for_alloc, .reserve_ctx = pm, .this_cpu = alloc_cpu_id,
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

/* Printed once the nodes' CPUs are done: a console line costs hundreds of
 * microseconds of the boot CPU's time (a port write a character under
 * TCG), which would otherwise come before the jobs are posted. */
static void alloc_report(const struct alloc_ops *ops)
{
	struct record r;

	rec_begin(&r, "alloc");
	rec_str(&r, "name", ops->name);
	rec_str(&r, "summary", ops->summary);
	record_report(&r, LOG_INFO, "alloc: {name} ({summary})");
}

static void early_allocations(void *ctx);

/* Each node's initialising node (struct numa_node's init_node), for the
 * engine's config. */
static uint32_t init_nodes[MEMBOOT_MAX_NODES];

/* What meminit_prepare() set up for meminit_run(). */
static const struct alloc_ops *started_ops;

void meminit_prepare(const struct numa_topology *topo, const struct hugetlb_pools *hp,
		     struct physmem *pm, struct memmap *mm, struct census_baseline *base)
{
	enum mminit_policy policy = (enum mminit_policy)meminit_settings.policy;
	struct mminit_config cfg = {
		.policy = policy,
		.max_threads = meminit_settings.threads_mode == INIT_THREADS_ONE ? 1 :
			       meminit_settings.threads_mode == INIT_THREADS_N ?
			       (uint32_t)meminit_settings.threads : 0,
		.all_cpus = meminit_settings.threads_mode == INIT_THREADS_ALL,
		.early_pages = meminit_settings.early_pages,
		.boot_node = this_cpu_state()->mem_node,
		.trace = meminit_settings.trace,
		.cpu_node = init_nodes,
		.test = memtest_hook(),
		.deadline_ns = meminit_settings.deadline_ms * 1000000ULL,
	};

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		init_nodes[nid] = topo->nodes[nid].init_node;
	started_ops = alloc_start(topo, pm, mm);
	fault_before_meminit();
	pcp_setup_reserve(reserve_for_pcp, pm);
	/* The engine's per-node work lists, sized by the nodes there are. */
	uint64_t work_bytes = topo->nr_nodes * sizeof(struct mminit_node);
	uint64_t work = physmem_alloc(pm, work_bytes, 4096, cfg.boot_node, false,
				      PHYSMEM_RESV_MEMINIT);
	if (!work)
		kernel_exit(EXIT_PANIC, "no memory for the init engine's work lists");
	mminit_start(&mi, (struct mminit_node *)(uintptr_t)work, mm, topo->nr_nodes, &cfg);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			physmem_for_each_free(pm, nid, collect_free, NULL);
	/* From here on physmem's free memory belongs to the allocator. The 1 GiB
	 * pool pages are among the reservations, but the census finds them as
	 * PAGE_HUGE heads, not as reserved pages. */
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		memtest_node_total(nid, mi.nodes[nid].free_pages << PAGE_SHIFT);
	base->retired_reserved_pages = memory_retire_physmem(pm);
	base->gigantic_pages = hp->gigantic_pages;
	base->badram_pages = physmem_reserved_bytes_of(pm, PHYSMEM_RESV_BADRAM) >> PAGE_SHIFT;

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			init_fixed(topo, hp, pm, mm, nid);
	if (meminit_settings.early_alloc_pages && policy == MMINIT_SERIAL)
		pr_warn("meminit: memboot.early_alloc_pages=%llu ignored: memboot.init=serial has no early section",
			(unsigned long long)meminit_settings.early_alloc_pages);
}

/* What meminit_run() measured for meminit_report(). */
static struct lazy_stats lazy_stats;
static bool meminit_ran;

void meminit_run(const struct memmap *mm)
{
	enum mminit_policy policy = (enum mminit_policy)meminit_settings.policy;

	ASSERT(started_ops && mi.mm == mm, "meminit_run() without meminit_prepare() of the same memmap");
	/* The node's CPUs are given their jobs right away: what the boot CPU
	 * had to do first is phase memprep's. */
	phase_start_tsc = rdtsc();
	mminit_run(&mi, meminit_settings.early_alloc_pages ? early_allocations : NULL, NULL);
	if (policy == MMINIT_LAZY)
		lazy_measure(rdtsc(), &lazy_stats);
	meminit_ran = true;
}

/* memtest=N's findings, against the store probe's rate (none: 0). */
static void memtest_report_now(const struct numa_topology *topo)
{
	static uint64_t bad_pages[MEMMAP_MAX_NODES];
	const struct store_probe_job *p = &probe_reported;
	uint64_t ticks = p->res.choice == MEMMAP_STORE_NT ? p->res.nt_ticks : p->res.plain_ticks;

	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		bad_pages[nid] = mi.nodes[nid].bad_pages;
	memtest_report(topo, bad_pages, p->node ? p->res.bytes : 0,
		       p->node && ticks ? tsc_cycles_to_ns(ticks) : 0, p->node ? p->node->nid : 0);
}

/* meminit_report()'s view of the TSC check: what each CPU's readings were ahead. */
static int64_t cpu_tsc_offset(uint32_t cpu, void *ctx)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	(void)ctx;
	return cs ? cs->tsc_offset : 0;
}

void meminit_report(const struct numa_topology *topo, struct physmem *pm)
{
	enum mminit_policy policy = (enum mminit_policy)meminit_settings.policy;
	bool lazy = policy == MMINIT_LAZY;

	ASSERT(meminit_ran, "meminit_report() before meminit_run()");
	/* The APs timed their chunks before the TSC check (phase tscsync),
	 * all of it ran on the quick clock estimate (the precise figure comes
	 * in phase clockcheck, after it): in the boot CPU's time now, at the
	 * rate in force, before anything compares or prints them. */
	uint32_t inexact = mminit_retime(&mi, cpu_tsc_offset, NULL);
	if (inexact)
		pr_warn("meminit: %u node%s ran more than %u chunks, some on CPUs whose TSC offset was "
			"corrected after: their start, end and usable times are as measured, off by at most "
			"the largest offset of the tsc_sync records", inexact, inexact == 1 ? "" : "s",
			(unsigned)MMINIT_TRACE_CHUNKS);
	alloc_report(started_ops);
	memory_report_retired(pm);
	if (meminit_settings.trace)
		for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
			trace_chunks(nid);
	/* Every node's free memory is in the allocator at the end of the
	 * last node's last piece of work: the boot's usable_ns. */
	uint64_t usable_end = 0;
	bool reliable = true;
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++) {
		struct mminit_usable u;
		mminit_node_usable(&mi.nodes[nid], phase_start_tsc, &u);
		usable_end = u.end_ticks > usable_end ? u.end_ticks : usable_end;
		reliable &= unreliable_cpu(&mi.nodes[nid]) < 0;
	}
	summary_usable(tsc_to_boot_ns(usable_end ? usable_end : phase_start_tsc), reliable);
	for (uint32_t nid = 0; nid < topo->nr_nodes; nid++)
		if (has_memory(topo, nid))
			report(nid, policy);
	if (lazy)
		lazy_report(&lazy_stats);
	memtest_report_now(topo);
	alloc_enable_poison();
}

/* --- memboot.early_alloc_pages: early boot outgrowing its section ---------- */

/* Allocate that many pages one at a time before the parallel part, as early
 * boot code would (a hash table, say), forcing on-demand growth, then give
 * them back. The pages are chained through their first word. */
static void early_allocations(void *ctx)
{
	uint32_t node = mi.cfg.boot_node;
	uint64_t head = ALLOC_NO_PFN, n = 0, asked = meminit_settings.early_alloc_pages;

	for (; n < asked; n++) {
		uint64_t pfn = alloc_pages(node, 0, 0);
		if (pfn == ALLOC_NO_PFN)
			break;
		*(uint64_t *)(uintptr_t)(pfn << PAGE_SHIFT) = head;
		head = pfn;
	}
	early_alloc_made = n;
	if (n < asked)
		/* The allocator grows into every node's deferred memory before it
		 * fails: a failure means no page was left anywhere. */
		pr_warn("meminit: memboot.early_alloc_pages=%llu: only %llu early allocations made; "
			"the allocator had no free page left on any node; the boot CPU has initialised %llu pages",
			(unsigned long long)asked, (unsigned long long)n,
			(unsigned long long)mi.nodes[node].early_pages);
	else
		pr_info("meminit: %llu early allocations; the boot CPU has initialised %llu pages",
			(unsigned long long)n, (unsigned long long)mi.nodes[node].early_pages);
	while (head != ALLOC_NO_PFN) {
		uint64_t next = *(uint64_t *)(uintptr_t)(head << PAGE_SHIFT);
		alloc_free(head, 0);
		head = next;
	}
}

/* --- census ---------------------------------------------------------------- */

bool census_run(const struct numa_topology *topo, const struct memmap *mm,
		const struct census_baseline *base, const char *when)
{
	static struct mm_node_range ranges[NUMA_MAX_RANGES];
	/* Tables of live address spaces came from the allocator after boot:
	 * they are PAGE_PAGETABLE, but not among the early reservations (the
	 * vm layer counts them); the 1 GiB pool pages are, with PAGE_HUGE heads. */
	struct census_input in = {
		.mm = mm, .ranges = ranges, .nr_ranges = topo->nr_ranges,
		.fixed_pages = base->retired_reserved_pages - base->gigantic_pages -
			       base->badram_pages + vm_table_pages(),
		.bad_pages = base->badram_pages,
	};
	struct census c;

	/* The pages memtest kept out are the engine's count (its work lists
	 * stay reserved for good). */
	for (uint32_t nid = 0; nid < mi.nr_nodes; nid++)
		in.bad_pages += mi.nodes[nid].bad_pages;
	for (uint32_t i = 0; i < topo->nr_ranges; i++)
		ranges[i] = (struct mm_node_range){ PFN(topo->ranges[i].start),
						    PFN(topo->ranges[i].end), topo->ranges[i].node };
	return census_take(&in, when, &c);
}

/*
 * numaperf.c: memboot.selftest=numaperf, the firmware's claims about memory
 * (SLIT distances, HMAT figures) beside what the machine does: from one CPU
 * of each node with CPUs to each node's memory, a dependent-load latency and
 * a streaming-store bandwidth, the idle latency and bandwidth matrices of
 * Intel's Memory Latency Checker in miniature. One `numa_perf` record and
 * line per (initiator node, target node) pair.
 *
 *  - Latency: a pointer chase through a random cyclic permutation of the
 *    cache lines of a buffer on the target node (numaperf_calc.c): each
 *    load's address is the previous load's value, so loads cannot overlap,
 *    and the order defeats the prefetchers. The buffer is flushed from the
 *    caches (arch_cache_flush_line(): written back and invalidated in every
 *    cache of the coherence domain) before each chase and each line is
 *    visited at most once, so every load goes to memory; the buffer is also
 *    made twice the LLC where memory allows.
 *  - Bandwidth: plain 8-byte stores (volatile: the compiler neither merges
 *    them nor makes a memset of them) over the buffer, flushed first.
 *  - Both on the initiator CPU, timed by its counter; the figures are converted
 *    with the boot's calibration afterwards.
 * Bounded: at most NP_LOADS loads and NP_STORE_BYTES bytes a pair (far less
 * under an emulator, where the figures say nothing about memory anyway).
 * The test fails only if a CPU does not answer or a figure is zero: the
 * figures themselves are reported, never judged.
 */
#include <stdint.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "arch/memory.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/numaperf_calc.h"
#include "kernel/selftest/tests.h"
#include "kernel/services/clock/time.h"
#include "mm/alloc/alloc.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/tiers.h"

#define NP_LINE_BYTES ARCH_CACHE_LINE_BYTES
#define NP_BLOCK_ORDER 9                           /* 2 MiB blocks */
#define NP_BLOCK_BYTES (PAGE_SIZE_BYTES << NP_BLOCK_ORDER)
#define NP_LINES_PER_BLOCK (NP_BLOCK_BYTES / NP_LINE_BYTES)
#define NP_MAX_BLOCKS 32                           /* 64 MiB a target */
#define NP_MIN_BLOCKS 2                            /* 4 MiB */
#define NP_LOADS 200000                            /* a pair's loads (~20 ms at 100 ns) */
#define NP_STORE_BYTES (64ULL << 20)
/* Under an emulator: a few ms a pair on QEMU TCG. */
#define NP_EMU_BLOCKS 2
#define NP_EMU_LOADS 8000
#define NP_EMU_STORE_BYTES (4ULL << 20)
#define NP_WARM_LOADS 1000                         /* code and TLB, untimed */
#define NP_ANSWER_NS 2000000000ULL                 /* a CPU's work: at most 2 s */

struct np_buffer {
	uint64_t pfn[NP_MAX_BLOCKS];
	uint32_t nr_blocks;
	uint64_t lines;
};

/* One CPU's work on one buffer, posted to it. */
struct np_work {
	struct np_buffer *buf;
	bool store;                /* false: the chase */
	uint64_t loads;            /* chase: loads to time */
	uint64_t store_bytes;      /* store: bytes to write */
	uint64_t cycles;           /* out: counter cycles of the timed part */
	uint64_t sink;             /* out: the chase's last pointer */
	volatile uint32_t done;
};

static struct np_buffer np_bufs[NUMA_MAX_NODES];
static uint64_t np_lat_ps[NUMA_MAX_NODES][NUMA_MAX_NODES];
static uint64_t np_bw_mbps[NUMA_MAX_NODES][NUMA_MAX_NODES];
static uint64_t np_loads[NUMA_MAX_NODES][NUMA_MAX_NODES];
static uint64_t np_bytes[NUMA_MAX_NODES][NUMA_MAX_NODES];

static uint64_t *np_slot(void *arg, uint64_t i)
{
	const struct np_buffer *b = arg;
	uint64_t block = i / NP_LINES_PER_BLOCK, line = i % NP_LINES_PER_BLOCK;

	return (uint64_t *)(uintptr_t)((b->pfn[block] << PAGE_SHIFT) + line * NP_LINE_BYTES);
}

static void np_flush(const struct np_buffer *b)
{
	for (uint32_t k = 0; k < b->nr_blocks; k++) {
		uintptr_t p = (uintptr_t)(b->pfn[k] << PAGE_SHIFT);
		for (uint64_t off = 0; off < NP_BLOCK_BYTES; off += NP_LINE_BYTES)
			arch_cache_flush_line((const void *)(p + off));
	}
	/* The flushes are complete before the first timed access. */
	arch_cache_flush_done();
}

static __attribute__((noinline)) uint64_t np_chase(uint64_t p, uint64_t loads)
{
	while (loads--)
		p = *(volatile uint64_t *)(uintptr_t)p;
	return p;
}

static void np_run(void *arg)
{
	struct np_work *w = arg;
	struct np_buffer *b = w->buf;

	np_flush(b);
	if (w->store) {
		uint64_t left = w->store_bytes / 8, t0 = arch_counter_ordered();
		for (uint32_t k = 0; k < b->nr_blocks && left; k++) {
			volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)(b->pfn[k] << PAGE_SHIFT);
			uint64_t n = NP_BLOCK_BYTES / 8 < left ? NP_BLOCK_BYTES / 8 : left;
			for (uint64_t i = 0; i < n; i++)
				p[i] = i;
			left -= n;
		}
		arch_fence_store();
		w->cycles = arch_counter_ordered() - t0;
	} else {
		uint64_t p = (uint64_t)(uintptr_t)np_slot(b, 0);
		/* Warm the code and the TLB on lines the timed chase visits
		 * last, if at all: it starts where this one stops. */
		p = np_chase(p, NP_WARM_LOADS);
		uint64_t t0 = arch_counter_ordered();
		p = np_chase(p, w->loads);
		w->cycles = arch_counter_ordered() - t0;
		w->sink = p;
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* Run @w on @cpu (here if it is this CPU); false if it did not answer. */
static bool np_on_cpu(uint32_t cpu, struct np_work *w)
{
	w->done = 0;
	if (cpu == job_platform_this_cpu()) {
		np_run(w);
		return true;
	}
	job_platform_post(cpu, np_run, w);
	uint64_t t0 = job_platform_ticks();
	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) || job_platform_busy(cpu)) {
		if (job_platform_ticks_to_ns(job_platform_ticks() - t0) > NP_ANSWER_NS)
			return false;
		job_platform_relax();
	}
	return true;
}

/* The first online CPU of @node, or NUMA_NO_CPU. */
static uint32_t np_node_cpu(const struct numa_topology *topo, uint32_t node)
{
	for (uint32_t c = 0; c < topo->nr_cpus && c < job_platform_max_cpus(); c++)
		if (topo->cpus[c].node == node && job_platform_online(c))
			return c;
	return NUMA_NO_CPU;
}

static const char *np_hypervisor(void)
{
	const char *h = arch_cpu_info.hypervisor;

	if (!arch_cpu_info.has_hypervisor)
		return "";
	if (h[0] == 'T' && h[1] == 'C' && h[2] == 'G')
		return "TCG";
	if (h[0] == 'K' && h[1] == 'V' && h[2] == 'M')
		return "KVM";
	return h[0] ? h : "unknown";
}

static void np_free(uint32_t node)
{
	struct np_buffer *b = &np_bufs[node];

	for (uint32_t k = 0; k < b->nr_blocks; k++)
		alloc_free(b->pfn[k], NP_BLOCK_ORDER);
	b->nr_blocks = 0;
	b->lines = 0;
}

static void np_report(const struct selftest_ctx *ctx, uint32_t i, uint32_t t, uint32_t cpu,
		      uint32_t local, bool emulated, const char *hv, uint64_t llc)
{
	const struct numa_topology *topo = ctx->topo;
	const struct node_perf *hp = ctx->tiers ? &ctx->tiers->perf[t] : NULL;
	uint64_t buf_bytes = (uint64_t)np_bufs[t].nr_blocks * NP_BLOCK_BYTES;
	struct record r;

	rec_begin(&r, "numa_perf");
	rec_u64(&r, "initiator_node", i);
	rec_u64(&r, "cpu", cpu);
	rec_u64(&r, "target_node", t);
	rec_u64(&r, "distance", topo->distance[i * topo->nr_nodes + t]);
	rec_u64(&r, "latency_ns", (np_lat_ps[i][t] + 500) / 1000);
	rec_u64(&r, "latency_ps", np_lat_ps[i][t]);
	rec_u64(&r, "loads", np_loads[i][t]);
	rec_u64(&r, "bandwidth_mbps", np_bw_mbps[i][t]);
	rec_u64(&r, "store_bytes", np_bytes[i][t]);
	rec_u64(&r, "buffer_bytes", buf_bytes);
	rec_u64(&r, "llc_bytes", llc);
	rec_bool(&r, "beyond_llc", llc && buf_bytes >= 2 * llc);
	rec_u64(&r, "local_node", local);
	rec_u64(&r, "latency_vs_local_milli",
		local == NUMA_NO_NODE ? 0 : numaperf_ratio_milli(np_lat_ps[i][t], np_lat_ps[i][local]));
	rec_u64(&r, "bandwidth_vs_local_milli",
		local == NUMA_NO_NODE ? 0 : numaperf_ratio_milli(np_bw_mbps[i][t], np_bw_mbps[i][local]));
	rec_bool(&r, "hmat", hp && hp->have);
	if (hp && hp->have) {
		rec_i64(&r, "hmat_initiator_node",
			hp->initiator_node == NUMA_NO_NODE ? -1 : (int64_t)hp->initiator_node);
		rec_u64(&r, "hmat_read_latency_ns", hp->read_latency_ns);
		rec_u64(&r, "hmat_read_bandwidth_mbs", hp->read_bandwidth_mbs);
	}
	rec_bool(&r, "emulated", emulated);
	rec_str(&r, "hypervisor", hv);
	if (hp && hp->have)
		record_report(&r, LOG_INFO, "numaperf: node {initiator_node} (CPU {cpu}) -> node "
			      "{target_node}: {latency_ps:.3} ns a load, {bandwidth_mbps} MB/s stored; "
			      "SLIT {distance}; x{latency_vs_local_milli:.3} latency, "
			      "x{bandwidth_vs_local_milli:.3} bandwidth of local; HMAT (best initiator "
			      "node {hmat_initiator_node}): read {hmat_read_latency_ns} ns, "
			      "{hmat_read_bandwidth_mbs} MB/s");
	else
		record_report(&r, LOG_INFO, "numaperf: node {initiator_node} (CPU {cpu}) -> node "
			      "{target_node}: {latency_ps:.3} ns a load, {bandwidth_mbps} MB/s stored; "
			      "SLIT {distance}; x{latency_vs_local_milli:.3} latency, "
			      "x{bandwidth_vs_local_milli:.3} bandwidth of local; no HMAT figures");
}

bool selftest_numaperf(const struct selftest_ctx *ctx, const char **skipped)
{
	const struct numa_topology *topo = ctx->topo;
	const char *hv = np_hypervisor();
	bool emulated = hv[0] == 'T' && hv[1] == 'C' && hv[2] == 'G' && !hv[3];
	uint64_t llc = arch_caches().llc_bytes;
	uint32_t want = NP_EMU_BLOCKS, cpu_of[NUMA_MAX_NODES], pairs = 0;
	uint64_t loads_cap = emulated ? NP_EMU_LOADS : NP_LOADS;
	uint64_t store_cap = emulated ? NP_EMU_STORE_BYTES : NP_STORE_BYTES;
	bool ok = true;

	if (!emulated) {
		/* Twice the LLC, so that even unflushed it could not hold it. */
		uint64_t blocks = llc ? (2 * llc + NP_BLOCK_BYTES - 1) / NP_BLOCK_BYTES : NP_MAX_BLOCKS;
		want = blocks < NP_MIN_BLOCKS ? NP_MIN_BLOCKS : blocks > NP_MAX_BLOCKS ? NP_MAX_BLOCKS
										      : (uint32_t)blocks;
	}
	if (emulated)
		pr_info("numaperf: figures under an emulator (%s): they time the emulator's "
			"translated loads and stores, not the machine's memory", hv);
	else if (hv[0])
		pr_info("numaperf: figures under a hypervisor (%s): the guest's nodes need not be "
			"the host's", hv);

	alloc_drain();
	for (uint32_t t = 0; t < topo->nr_nodes; t++) {
		struct np_buffer *b = &np_bufs[t];
		b->nr_blocks = 0;
		if (!topo->nodes[t].mem_bytes)
			continue;
		while (b->nr_blocks < want) {
			uint64_t pfn = alloc_pages(t, NP_BLOCK_ORDER, ALLOC_THISNODE);
			if (pfn == ALLOC_NO_PFN)
				break;
			b->pfn[b->nr_blocks++] = pfn;
		}
		b->lines = (uint64_t)b->nr_blocks * NP_LINES_PER_BLOCK;
		if (b->nr_blocks && b->nr_blocks < want)
			pr_info("numaperf: node %u: %llu MiB of buffer, not %llu MiB (free memory)", t,
				(unsigned long long)(b->nr_blocks * NP_BLOCK_BYTES >> 20),
				(unsigned long long)(want * NP_BLOCK_BYTES >> 20));
		if (b->nr_blocks && llc && b->nr_blocks * NP_BLOCK_BYTES < 2 * llc)
			pr_info("numaperf: node %u: the buffer (%llu MiB) is not twice the LLC (%llu MiB): "
				"%s", t, (unsigned long long)(b->nr_blocks * NP_BLOCK_BYTES >> 20),
				(unsigned long long)(llc >> 20),
				emulated ? "kept small under an emulator" : "the flush keeps the loads cold");
		if (b->nr_blocks)
			numaperf_cycle(b->lines, 0x6e756d61ULL + t, np_slot, b);
		/* Indices to addresses: the chase loads the next line's address. */
		for (uint64_t l = 0; l < b->lines; l++)
			*np_slot(b, l) = (uint64_t)(uintptr_t)np_slot(b, *np_slot(b, l));
	}
	for (uint32_t i = 0; i < topo->nr_nodes; i++)
		cpu_of[i] = topo->nodes[i].nr_present_cpus ? np_node_cpu(topo, i) : NUMA_NO_CPU;

	/* Every chase on a target before the stores overwrite its chain. */
	for (uint32_t t = 0; t < topo->nr_nodes; t++) {
		struct np_buffer *b = &np_bufs[t];
		if (!b->nr_blocks)
			continue;
		for (uint32_t i = 0; i < topo->nr_nodes; i++) {
			if (cpu_of[i] == NUMA_NO_CPU)
				continue;
			uint64_t loads = b->lines - NP_WARM_LOADS < loads_cap ? b->lines - NP_WARM_LOADS
									       : loads_cap;
			struct np_work w = { .buf = b, .loads = loads };
			if (!np_on_cpu(cpu_of[i], &w)) {
				pr_err("numaperf: CPU %u (node %u) did not answer", cpu_of[i], i);
				ok = false;
				goto out;
			}
			np_loads[i][t] = loads;
			np_lat_ps[i][t] = cycles_to_ns(w.cycles * 1000) / loads;
		}
		for (uint32_t i = 0; i < topo->nr_nodes; i++) {
			if (cpu_of[i] == NUMA_NO_CPU)
				continue;
			uint64_t bytes = (uint64_t)b->nr_blocks * NP_BLOCK_BYTES;
			struct np_work w = { .buf = b, .store = true,
					     .store_bytes = bytes < store_cap ? bytes : store_cap };
			if (!np_on_cpu(cpu_of[i], &w)) {
				pr_err("numaperf: CPU %u (node %u) did not answer", cpu_of[i], i);
				ok = false;
				goto out;
			}
			np_bytes[i][t] = w.store_bytes;
			np_bw_mbps[i][t] = numaperf_mbps(w.store_bytes, cycles_to_ns(w.cycles));
		}
	}
	for (uint32_t i = 0; i < topo->nr_nodes; i++) {
		if (cpu_of[i] == NUMA_NO_CPU)
			continue;
		/* Local: the node's own memory, or for a memoryless node the
		 * memory it allocates from. */
		uint32_t local = np_bufs[topo->nodes[i].mem_node].nr_blocks ? topo->nodes[i].mem_node
									     : NUMA_NO_NODE;
		for (uint32_t t = 0; t < topo->nr_nodes; t++) {
			if (!np_bufs[t].nr_blocks)
				continue;
			np_report(ctx, i, t, cpu_of[i], local, emulated, hv, llc);
			pairs++;
			if (!np_lat_ps[i][t] || !np_bw_mbps[i][t]) {
				pr_err("numaperf: node %u -> node %u: a zero figure", i, t);
				ok = false;
			}
		}
	}
	if (!pairs)
		*skipped = "no node's memory could take a buffer";
out:
	for (uint32_t t = 0; t < topo->nr_nodes; t++)
		np_free(t);
	return ok;
}

/*
 * smp.c: the SMP bring-up policy: memory for each CPU, start, wait, report.
 */
#include "kernel/init/smp.h"

#include <string.h>

#include "arch/apic.h"
#include "arch/cpu.h"
#include "arch/io.h"
#include "arch/paging.h"
#include "arch/smp.h"
#include "kernel/console.h"
#include "kernel/log.h"
#include "kernel/init/memory.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/report/record.h"
#include "kernel/cpus.h"
#include "kernel/jobs/platform.h"
#include "kernel/clock/time.h"
#include "kernel/clock/tsc_sync.h"
#include "kernel/vm/vm.h"
#include "mm/physmem.h"

/* The boot CPU's per-CPU data, set up first thing at boot. */
static struct percpu boot_percpu;

extern char boot_stack_bottom[], boot_stack_top[];

void smp_init_boot_cpu(void)
{
	boot_percpu.cpu = 0;
	boot_percpu.apic_id = cpuid_apic_id();
	boot_percpu.stack_bottom = (uint64_t)boot_stack_bottom;
	boot_percpu.stack_top = (uint64_t)boot_stack_top;
	boot_percpu.state = &boot_cpu_state;
	boot_cpu_state.online = 1;
	arch_cpu_init_tables(&boot_percpu);
	percpu_of[0] = &boot_percpu;
	cpu_states[0] = &boot_cpu_state;
	nr_cpus_online = 1;
}

static uint64_t align64(uint64_t v)
{
	return (v + 63) & ~63ULL;
}

/*
 * The tables indexed by CPU id, for the @n CPUs there are (not a built-in
 * maximum): percpu_of[], cpu_states[], arch's table of APIC IDs the APs
 * look themselves up in, and vm's per-CPU slots. One block on the boot
 * CPU's node, kept for good ("percpu" in the census). False, with nothing
 * changed, if there is no memory for it.
 */
static bool alloc_tables(struct physmem *pm, uint32_t n)
{
	uint64_t off_states = align64((uint64_t)n * sizeof(struct percpu *));
	uint64_t off_arch = off_states + align64((uint64_t)n * sizeof(struct cpu_state *));
	uint64_t off_vm = off_arch + align64(arch_smp_table_bytes(n));
	uint64_t bytes = off_vm + (uint64_t)n * vm_cpu_slot_bytes();
	uint64_t base = physmem_alloc(pm, (bytes + 4095) & ~4095ULL, 4096,
				      boot_cpu_state.mem_node, false, PHYSMEM_RESV_PERCPU);
	char *p = (char *)(uintptr_t)base;

	if (!base) {
		pr_err("smp: no %llu bytes for the tables of %u CPUs; running on 1 CPU",
		       (unsigned long long)bytes, n);
		return false;
	}
	memset(p, 0, off_vm);
	percpu_of = (struct percpu **)p;
	cpu_states = (struct cpu_state **)(p + off_states);
	percpu_of[0] = &boot_percpu;
	cpu_states[0] = &boot_cpu_state;
	arch_smp_set_table(p + off_arch, n);
	vm_set_cpu_slots(p + off_vm, n);
	__atomic_store_n(&nr_cpu_ids, n, __ATOMIC_RELEASE);
	return true;
}

/* Guard page + stack + struct percpu + struct cpu_state: one AP's block. */
static uint64_t cpu_block_bytes(uint64_t *state_off, uint64_t *pc_off)
{
	const uint64_t so = align64(sizeof(struct percpu));
	const uint64_t pc_bytes = (so + sizeof(struct cpu_state) + 4095) & ~4095ULL;

	*state_off = so;
	*pc_off = CPU_GUARD_BYTES + CPU_STACK_BYTES;
	return CPU_GUARD_BYTES + CPU_STACK_BYTES + pc_bytes;
}

/* Set up CPU @cpu's block at @base (on @desc->mem_node). */
static struct percpu *init_cpu(struct physmem *pm, uint64_t base,
			       const struct smp_cpu_desc *desc, uint32_t cpu)
{
	uint64_t state_off, pc_off;
	struct memory_pt_source src = { pm, desc->mem_node };
	struct percpu *pc;
	struct cpu_state *cs;

	cpu_block_bytes(&state_off, &pc_off);
	if (!arch_unmap_page(base, memory_alloc_pagetable, &src))
		pr_warn("smp: CPU %u: could not unmap the stack guard page at 0x%llx",
			cpu, (unsigned long long)base);
	pc = (struct percpu *)(uintptr_t)(base + pc_off);
	cs = (struct cpu_state *)((char *)pc + state_off);
	memset(pc, 0, sizeof(*pc));
	memset(cs, 0, sizeof(*cs));
	pc->self = pc;
	pc->state = cs;
	pc->cpu = cpu;
	pc->apic_id = desc->apic_id;
	pc->lint_nmi = desc->lint_nmi;
	cs->node = desc->node;
	cs->mem_node = desc->mem_node;
	/* memboot.tsc_skew: CPU 1's counter runs ahead from the start, as a
	 * skewed one would, so its work before the TSC check is skewed too. */
	cs->tsc_skew = cpu == 1 ? smp_settings.tsc_skew : 0;
	pc->stack_bottom = base + CPU_GUARD_BYTES;
	pc->stack_top = base + CPU_GUARD_BYTES + CPU_STACK_BYTES;
	return pc;
}

/*
 * Every AP's block, one allocation per node for all the APs whose memory
 * comes from it (their stacks and per-CPU data on their own node, as the
 * node tables are), so that thousands of CPUs take as many reservations as
 * there are nodes. A node without room for its CPUs' blocks: those CPUs are
 * left out, the others come up.
 */
static uint32_t alloc_cpus(struct physmem *pm, const struct smp_cpu_desc *cpus, uint32_t n)
{
	uint64_t state_off, pc_off, block = cpu_block_bytes(&state_off, &pc_off);
	uint32_t failed = 0;

	for (uint32_t i = 1; i < n; i++) {
		uint32_t node = cpus[i].mem_node, count = 0, k = 0;
		uint64_t base;
		bool first = true;

		/* Handle each node at its first CPU. */
		for (uint32_t j = 1; j < i && first; j++)
			first = !(cpus[j].mem_node == node);
		if (!first)
			continue;
		for (uint32_t j = i; j < n; j++)
			count += cpus[j].mem_node == node;
		base = physmem_alloc(pm, count * block, 4096, node, false, PHYSMEM_RESV_PERCPU);
		for (uint32_t j = i; j < n; j++) {
			if (cpus[j].mem_node != node)
				continue;
			if (!base) {
				pr_err("smp: no memory for CPU %u (APIC 0x%x) on node %u; left out",
				       j, cpus[j].apic_id, node);
				failed++;
				continue;
			}
			struct percpu *pc = init_cpu(pm, base + (uint64_t)k++ * block, &cpus[j], j);
			percpu_of[j] = pc;
			cpu_states[j] = pc->state;
		}
	}
	return failed;
}

/* Wait until @cs is online or @deadline_ns passes; then settle the
 * handshake (true: online). See smp_boot() for why this is race-free. */
static bool settle(struct cpu_state *cs, uint64_t deadline_ns)
{
	uint32_t waiting = SMP_AP_WAITING;

	while (__atomic_load_n(&cs->boot_state, __ATOMIC_ACQUIRE) != SMP_AP_ONLINE &&
	       ktime_ns() < deadline_ns)
		cpu_relax();
	if (__atomic_compare_exchange_n(&cs->boot_state, &waiting, SMP_AP_ABANDONED,
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	/* @waiting holds the value that was there: ONLINE (the AP won), or
	 * ABANDONED (settled before, serial bring-up). */
	if (waiting != SMP_AP_ONLINE)
		return false;
	__atomic_store_n(&cs->online, 1, __ATOMIC_RELEASE);
	return true;
}

/* ---- TSC sync at bring-up (kernel/clock/tsc_sync.h) ---------------------------- */

/*
 * The APs of one wave at once (waves: below), against the boot CPU, in
 * bounded time (the one-writer scheme of kernel/clock/tsc_sync.h). The boot CPU
 * keeps publishing its TSC (tsc_boot_pub) and sweeps over the APs; each AP
 * keeps publishing its own (cs->tsc_pub) and reading the boot CPU's:
 *  - an AP that read the boot CPU's published value v and then its own TSC
 *    a knows its offset is at most a - v (the boot CPU's TSC had passed v);
 *  - the boot CPU that read an AP's published w and then its own TSC b
 *    knows the AP's offset is at least w - b.
 * Every reading taken after seeing another CPU's store is rdtsc_ordered().
 * No AP waits for another. An AP stops as soon as the boot CPU has its
 * bounds (tsc_sync_ack), so on a host running many vCPUs on few cores the
 * spinning CPUs thin out quickly instead of starving the boot CPU; a stale
 * published value only widens an interval, it never makes one wrong.
 */
#define TSC_SYNC_AP_ITERS 16          /* each AP's readings */
#define TSC_SYNC_BOOT_READS 4         /* the boot CPU's readings of each AP's word */
/*
 * Waves: how many APs check at once. One at first, twice as many after a
 * wave that took under TSC_SYNC_FAST_NS per AP, up to TSC_SYNC_MAX_WAVE,
 * and back to one after a slow wave. Every checking CPU spins, and where
 * vCPUs outnumber the host's cores (QEMU's TCG with 4 vCPUs on 2 cores, or
 * 192 on 2) spinners take turns: every AP at once took 1-9 ms at 2 x 2
 * and 170-400 ms at 192 vCPUs, with uncertainties of up to 200 ms; one at
 * a time took 0.8 ms and 82-106 ms, with uncertainties below 0.3 ms. A machine
 * whose CPUs are its own checks an AP in microseconds: its waves double
 * to the limit, and 511 APs take a dozen waves.
 */
#define TSC_SYNC_FAST_NS 20000ULL
#define TSC_SYNC_MAX_WAVE 64

static volatile uint64_t tsc_boot_pub;
static volatile uint32_t tsc_sync_stop;   /* the budget has ended: every AP stops */

static void tsc_sync_ap(void *arg)
{
	struct cpu_state *cs = arg;
	struct tsc_sync_bounds bd;

	/* memboot.tsc_skew: this CPU's readings run ahead, as a skewed counter's
	 * would (QEMU's TCG ignores writes to the TSC, so the skew is added to
	 * every reading the kernel takes on this CPU: here and in
	 * job_platform_ticks()). */
	const uint64_t skew = cs->tsc_skew;
	uint64_t give_up = rdtsc() + cs->tsc_sync_budget, linger_end = 0;

	tsc_sync_bounds_init(&bd);
	while (!__atomic_load_n(&cs->tsc_sync_ack, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&tsc_sync_stop, __ATOMIC_ACQUIRE)) {
		uint64_t v = __atomic_load_n(&tsc_boot_pub, __ATOMIC_ACQUIRE);
		uint64_t a = rdtsc_ordered() + skew;

		if (bd.n_hi < TSC_SYNC_AP_ITERS && v) {
			tsc_sync_ap_saw(&bd, v, a);
			if (bd.n_hi == TSC_SYNC_AP_ITERS) {
				cs->tsc_sync_hi = bd.hi;
				cs->tsc_sync_n = bd.n_hi;
				__atomic_store_n(&cs->tsc_sync_done, 1, __ATOMIC_RELEASE);
			}
		}
		/* Keep publishing while the boot CPU reads it, for a short
		 * linger at most: then leave the last value (stale, so a wider
		 * bound, never a wrong one) and stop spinning. */
		__atomic_store_n(&cs->tsc_pub, rdtsc_ordered() + skew, __ATOMIC_RELEASE);
		if (bd.n_hi == TSC_SYNC_AP_ITERS && !linger_end)
			linger_end = a - skew + cs->tsc_sync_linger;
		if (a - skew - give_up < (1ULL << 63) ||
		    (linger_end && a - skew - linger_end < (1ULL << 63)))
			break;
		cpu_relax();
	}
	if (bd.n_hi < TSC_SYNC_AP_ITERS) {
		cs->tsc_sync_hi = bd.hi;
		cs->tsc_sync_n = bd.n_hi;
		__atomic_store_n(&cs->tsc_sync_done, 1, __ATOMIC_RELEASE);
	}
}

/*
 * The boot CPU's side over the online APs [@first, @end) (CPU ids): all of
 * them started at once, then sweeps over the ones not yet settled until
 * each has its readings from both sides or @end_all (TSC) has passed; APs
 * not settled by then keep whatever bounds they have (one side missing:
 * not checked, counted as such). Returns the APs started.
 */
static uint32_t tsc_sync_wave(uint32_t first, uint32_t end, uint32_t max_aps,
			      uint64_t total_budget, uint64_t end_all, uint32_t *next)
{
	uint32_t left = 0, started = 0, i;

	__atomic_store_n(&tsc_boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
	for (i = first; i < end && started < max_aps; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs || !cs->online)
			continue;
		cs->tsc_pub = 0;
		cs->tsc_sync_done = 0;
		cs->tsc_sync_ack = 0;
		cs->tsc_sync_n = 0;
		cs->tsc_sync_n_lo = 0;
		cs->tsc_sync_lo = INT64_MIN;
		cs->tsc_sync_hi = INT64_MAX;
		cs->tsc_sync_budget = total_budget;
		cs->tsc_sync_linger = total_budget / 1000;   /* 2 ms */
		cs->tsc_checked = 1;
		left++;
		started++;
		job_platform_post(i, tsc_sync_ap, cs);
		__atomic_store_n(&tsc_boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
	}
	*next = i;
	/* At least TSC_SYNC_BOOT_READS sweeps, however long starting the APs
	 * took (a sweep is one read per AP: bounded). */
	for (uint32_t sweep = 0; left && (rdtsc() < end_all || sweep < TSC_SYNC_BOOT_READS); sweep++) {
		for (uint32_t k = first; k < *next; k++) {
			struct cpu_state *cs = cpu_states[k];
			uint64_t w, b;

			if (!cs || !cs->online || cs->tsc_sync_ack)
				continue;
			__atomic_store_n(&tsc_boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
			w = __atomic_load_n(&cs->tsc_pub, __ATOMIC_ACQUIRE);
			b = rdtsc_ordered();
			if (!w)
				continue;
			if ((int64_t)(w - b) > cs->tsc_sync_lo)
				cs->tsc_sync_lo = (int64_t)(w - b);
			cs->tsc_sync_n_lo++;
			if (cs->tsc_sync_n_lo >= TSC_SYNC_BOOT_READS &&
			    __atomic_load_n(&cs->tsc_sync_done, __ATOMIC_ACQUIRE)) {
				__atomic_store_n(&cs->tsc_sync_ack, 1, __ATOMIC_RELEASE);
				left--;
			}
		}
		cpu_relax();
	}
	return started;
}

/* Returns the waves it took. */
static uint32_t tsc_sync_all(uint64_t total_budget)
{
	uint64_t end_all = rdtsc() + total_budget;   /* every wave shares one end */
	uint64_t fast_cycles = tsc_hz / 1000000 * (TSC_SYNC_FAST_NS / 1000);
	uint32_t next = 1, wave = 1, waves = 0;

	tsc_sync_stop = 0;
	while (next < nr_cpu_ids) {
		uint64_t t0 = rdtsc();
		uint32_t started = tsc_sync_wave(next, nr_cpu_ids, wave, total_budget, end_all, &next);

		if (!started)
			break;
		waves++;
		if (rdtsc() - t0 < fast_cycles * started)
			wave = wave * 2 > TSC_SYNC_MAX_WAVE ? TSC_SYNC_MAX_WAVE : wave * 2;
		else
			wave = 1;
	}
	__atomic_store_n(&tsc_sync_stop, 1, __ATOMIC_RELEASE);
	/* Every AP leaves its mailbox empty once its loop has ended: wait for
	 * that a bounded time (a descheduled vCPU may take a while). */
	uint64_t give_up = rdtsc() + total_budget / 10;
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];

		while (cs && cs->online && __atomic_load_n(&cs->work_fn, __ATOMIC_ACQUIRE) &&
		       rdtsc() < give_up)
			cpu_relax();
	}
	return waves;
}

/* Every online AP against the boot CPU (the tsc_sync records come with
 * smp_boot()'s report: tsc_sync_report()). Returns the worst verdict. */
static enum tsc_sync_verdict tsc_sync_check(uint64_t *cycles_out, uint32_t *waves_out,
					    uint64_t *tol_out)
{
	uint64_t t0 = rdtsc(), tol = tsc_sync_tolerance_cycles(tsc_hz, tsc_uncertainty_ppm);
	/* 2 s in all at most (then 0.2 s for the APs to leave), however many CPUs
	 * and however busy the host: each AP stops once the boot CPU has its bounds. */
	uint64_t hz = tsc_hz ? tsc_hz : 1000000000ULL;
	enum tsc_sync_verdict worst = TSC_SYNC_OK;
	uint32_t unchecked = 0;

	*tol_out = tol;
	*waves_out = tsc_sync_all(2 * hz);

	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];
		struct tsc_sync_estimate e;
		struct tsc_sync_bounds bd = {
			.lo = cs ? cs->tsc_sync_lo : INT64_MIN, .hi = cs ? cs->tsc_sync_hi : INT64_MAX,
			.n_lo = cs ? cs->tsc_sync_n_lo : 0,
			.n_hi = cs && __atomic_load_n(&cs->tsc_sync_done, __ATOMIC_ACQUIRE) ? cs->tsc_sync_n : 0,
		};
		enum tsc_sync_verdict v;

		if (!cs || !cs->online)
			continue;
		/* One side never read (the AP did not run in time on a busy
		 * host): nothing is known; that is "not checked", not "agrees". */
		if (!cs->tsc_checked || !tsc_sync_judge(&bd, tol, &e, &v)) {
			cs->tsc_checked = 0;
			unchecked++;
			continue;
		}
		cs->tsc_verdict = v;
		cs->tsc_offset_est = e.offset;
		cs->tsc_offset_err = e.uncertainty;
		cs->tsc_warp = e.warp;
		if (cs->tsc_verdict == TSC_SYNC_CORRECTED)
			cs->tsc_offset = e.offset;
		if (cs->tsc_verdict > worst)
			worst = (enum tsc_sync_verdict)cs->tsc_verdict;
	}
	*cycles_out = rdtsc() - t0;
	if (unchecked)
		pr_info("tsc_sync: %u CPUs not checked (no readings from both sides within 2 s)",
			unchecked);

	return worst;
}

/* A tsc_sync record per node with online CPUs: its largest offset
 * (@tol: the tolerance the check used). */
static void tsc_sync_report(uint64_t tol)
{
	uint64_t nodes_seen[MEMBOOT_MAX_NODES / 64] = { 0 };

	/* One record per node with online CPUs: its largest offset. */
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct cpu_state *first = cpu_states[i];
		uint32_t node, cpus = 0, checked = 0, corrected = 0, unreliable = 0, worst_cpu = 0;
		int64_t max_off = 0;
		uint64_t max_err = 0, max_warp = 0;
		enum tsc_sync_verdict nv = TSC_SYNC_OK;
		struct record r;

		if (!first || !first->online || first->node >= MEMBOOT_MAX_NODES ||
		    (nodes_seen[first->node / 64] >> (first->node % 64) & 1))
			continue;
		node = first->node;
		nodes_seen[node / 64] |= 1ULL << (node % 64);
		for (uint32_t j = i; j < nr_cpu_ids; j++) {
			const struct cpu_state *cs = cpu_states[j];
			int64_t off;

			if (!cs || !cs->online || cs->node != node)
				continue;
			cpus++;
			if (j == 0)
				continue;     /* the reference itself */
			if (!cs->tsc_checked)
				continue;
			checked++;
			off = cs->tsc_offset_est;
			if ((off < 0 ? -(uint64_t)off : (uint64_t)off) >
			    (max_off < 0 ? -(uint64_t)max_off : (uint64_t)max_off) || !worst_cpu) {
				max_off = off;
				worst_cpu = j;
			}
			if (cs->tsc_offset_err > max_err)
				max_err = cs->tsc_offset_err;
			if (cs->tsc_warp > max_warp)
				max_warp = cs->tsc_warp;
			corrected += cs->tsc_verdict == TSC_SYNC_CORRECTED;
			unreliable += cs->tsc_verdict == TSC_SYNC_UNRELIABLE;
			if (cs->tsc_verdict > nv)
				nv = (enum tsc_sync_verdict)cs->tsc_verdict;
		}
		rec_begin(&r, "tsc_sync");
		rec_u64(&r, "node", node);
		rec_u64(&r, "cpus", cpus);
		rec_u64(&r, "checked", checked);
		rec_i64(&r, "max_offset_cycles", max_off);
		rec_tsc_ns(&r, "max_offset_ns", max_off < 0 ? -(uint64_t)max_off : (uint64_t)max_off);
		rec_u64(&r, "max_uncertainty_cycles", max_err);
		rec_u64(&r, "max_warp_cycles", max_warp);
		if (worst_cpu)
			rec_u64(&r, "worst_cpu", worst_cpu);
		rec_u64(&r, "tolerance_cycles", tol);
		rec_u64(&r, "corrected", corrected);
		rec_u64(&r, "unreliable", unreliable);
		rec_str(&r, "verdict", tsc_sync_verdict_name(nv));
		if (nv == TSC_SYNC_UNRELIABLE)
			record_report(&r, LOG_WARN, "tsc_sync: node {node}: {unreliable} of {cpus} CPUs' TSCs "
				      "disagree with the boot CPU's beyond what can be corrected (largest "
				      "offset {max_offset_cycles} cycles): cross-CPU times are unreliable");
		else
			record_report(&r, LOG_INFO, "tsc_sync: node {node}: {cpus} CPUs, {checked} checked, largest offset "
				      "{max_offset_cycles} cycles (+-{max_uncertainty_cycles}), "
				      "tolerance {tolerance_cycles}: {verdict}");
	}
}

static bool cpu_is_online(uint32_t id, const void *ctx)
{
	(void)ctx;
	return cpu_states[id] && cpu_states[id]->online;
}

/* What smp_boot() reports, taken when it ends. */
struct smp_report {
	struct smp_result res;
	bool serial, init_delay, tsc_checked;
	bool printed;          /* smp_report_now() has run (a drain reached it) */
	enum tsc_sync_verdict tsc_verdict;
	uint64_t kick_cycles, wait_cycles, tsc_cycles, tsc_tol, slowest_cycles;
	uint32_t tsc_waves, slowest, slowest_apic_id;
};
static struct smp_report smp_report;

/* A cpu_up record per online CPU, the TSC check's per node, then smp. */
static void smp_report_now(void *arg)
{
	struct smp_report *rp = arg;
	const struct smp_result res = rp->res;
	const bool tsc_checked = rp->tsc_checked;
	const uint32_t slowest = rp->slowest;

	rp->printed = true;
	if (tsc_checked)
		tsc_sync_report(rp->tsc_tol);
	uint64_t nodes_seen[MEMBOOT_MAX_NODES / 64] = { 0 };
	uint32_t nr_nodes = 0;
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct cpu_state *cs = cpu_states[i];
		if (!cs || !cs->online || cs->node >= MEMBOOT_MAX_NODES)
			continue;
		if (!(nodes_seen[cs->node / 64] >> (cs->node % 64) & 1))
			nr_nodes++;
		nodes_seen[cs->node / 64] |= 1ULL << (cs->node % 64);
	}
	struct record r;
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct percpu *pc = percpu_of[i];
		const struct cpu_state *cs = cpu_states[i];
		if (!pc || !cs || !cs->online)
			continue;
		rec_begin(&r, "cpu_up");
		rec_u64(&r, "cpu", pc->cpu);
		rec_u64(&r, "apic_id", pc->apic_id);
		rec_u64(&r, "node", cs->node);
		rec_u64(&r, "mem_node", cs->mem_node);
		rec_hex(&r, "percpu", (uint64_t)(uintptr_t)pc);
		rec_hex(&r, "stack_bottom", pc->stack_bottom);
		rec_hex(&r, "stack_top", pc->stack_top);
		/* Left out where the TSC check found this CPU's counter off by
		 * more than it could correct: the figure would be that offset. */
		if (i > 0 && cs->kick_tsc && !(tsc_checked && smp_tsc_unreliable(i)))
			rec_tsc_ns(&r, "up_ns", cs->online_tsc - cs->kick_tsc);
		if (i > 0 && tsc_checked && cs->tsc_checked) {
			rec_i64(&r, "tsc_offset", cs->tsc_offset_est);
			rec_u64(&r, "tsc_offset_err", cs->tsc_offset_err);
			rec_str(&r, "tsc_sync", tsc_sync_verdict_name((enum tsc_sync_verdict)cs->tsc_verdict));
		}
		record_emit(&r);
	}
	rec_begin(&r, "smp");
	rec_u64(&r, "nodes", nr_nodes);
	rec_u64(&r, "cpus", res.online);
	rec_u64(&r, "failed", res.failed);
	rec_u64(&r, "skipped", res.skipped);
	rec_str(&r, "bringup", rp->serial ? "serial" : "parallel");
	rec_bool(&r, "init_delay", rp->init_delay);
	rec_tsc_ns(&r, "ns", res.cycles);   /* rendered with the final clock */
	rec_tsc_ns(&r, "kick_ns", rp->kick_cycles);
	rec_tsc_ns(&r, "wait_ns", rp->wait_cycles);
	rec_tsc_ns(&r, "per_cpu_ns", res.online > 1 ? res.cycles / (res.online - 1) : 0);
	if (tsc_checked) {
		rec_str(&r, "tsc_sync", tsc_sync_verdict_name(rp->tsc_verdict));
		rec_tsc_ns(&r, "tsc_sync_ns", rp->tsc_cycles);
		rec_u64(&r, "tsc_sync_waves", rp->tsc_waves);
	}
	if (slowest) {
		rec_u64(&r, "slowest_cpu", slowest);
		rec_u64(&r, "slowest_apic_id", rp->slowest_apic_id);
		rec_tsc_ns(&r, "slowest_ns", rp->slowest_cycles);
	}
	/* Ranges, not one id each: 512 ids would not fit in a record. */
	static char online[RECORD_MAX_BYTES / 2];
	if (!rec_format_cpulist(online, sizeof(online), nr_cpu_ids, cpu_is_online, NULL))
		pr_err("smp: the list of online CPUs does not fit in %u bytes; the smp record lists the first",
		       (unsigned)sizeof(online));
	rec_str(&r, "online", online);
	record_report(&r, LOG_INFO, "smp: Brought up {nodes} node{nodes:s}, {cpus} CPU{cpus:s} "
		      "in {ns:ms} ms ({bringup}, {per_cpu_ns:us} us per CPU)");
}

struct smp_result smp_boot(struct physmem *pm, const struct smp_cpu_desc *cpus,
			   uint32_t n, uint32_t skipped, const struct smp_boot_options *opt)
{
	struct smp_result res = { .skipped = skipped };
	uint64_t t0 = rdtsc(), trampoline = 0, kick_cycles = 0, wait_cycles = 0;
	uint32_t nr_abandoned = 0, *kick_ids = NULL;
	uint64_t kick_list = 0, kick_bytes = ((uint64_t)n * sizeof(uint32_t) + 4095) & ~4095ULL;
	uint32_t slowest = 0;
	uint64_t slowest_cycles = 0;

	ASSERT(n >= 1 && n <= MEMBOOT_MAX_CPUS, "n=%u", n);
	boot_cpu_state.node = cpus[0].node;
	boot_cpu_state.mem_node = cpus[0].mem_node;
	boot_percpu.lint_nmi = cpus[0].lint_nmi;
	arch_smp_init_boot_cpu();
	res.online = 1;
	if (skipped) {
		/* Name what the user wrote: nosmp arrives here as a limit of 1. */
		if (smp_settings.nosmp)
			pr_info("smp: nosmp: leaving %u of %u CPUs down", skipped, n + skipped);
		else
			pr_info("smp: maxcpus=%llu: leaving %u of %u CPUs down, the rest balanced over the nodes",
				(unsigned long long)smp_settings.maxcpus, skipped, n + skipped);
	}
	if (n == 1 || !alloc_tables(pm, n)) {
		res.failed = n - 1;
		goto report;
	}

	/* The SIPI vector is a page number below 1 MiB (SDM vol. 3A 9.4.4). */
	trampoline = physmem_alloc_range(pm, 4096, 4096, 0x1000, 0x100000,
					 PHYSMEM_ANY_NODE, false, PHYSMEM_RESV_TRAMPOLINE);
	if (!trampoline) {
		pr_err("smp: no free page below 1 MiB for the trampoline; running on 1 CPU");
		res.failed = n - 1;
		goto report;
	}
	ASSERT(arch_trampoline_bytes() <= 4096, "trampoline of %zu bytes", arch_trampoline_bytes());
	arch_smp_prepare(trampoline);
	res.failed += alloc_cpus(pm, cpus, n);

	/* Register every AP before the first is started: an AP looks itself
	 * up by APIC ID in the table (ap_entry64), so all can run at once. */
	for (uint32_t i = 1; i < n; i++)
		if (cpu_states[i])
			arch_smp_register(cpus[i].apic_id, percpu_of[i]->stack_top, percpu_of[i]);

	/*
	 * The handshake with each AP, correct by construction:
	 *
	 * - One word decides, cs->boot_state (struct cpu_state), moved away
	 *   from SMP_AP_WAITING only by a compare-and-swap: the AP's (to
	 *   ONLINE, percpu_ap_main() in kernel/percpu.c) or ours (to
	 *   ABANDONED, at the timeout). A compare-and-swap is one
	 *   atomic read-modify-write (LOCK CMPXCHG, a full barrier on x86,
	 *   SDM vol. 3A 9.2.3.2 "locked instructions have a total order");
	 *   both act on the same word, so exactly one succeeds and both sides
	 *   see the same winner. There is no separate read of one flag and
	 *   write of another, hence no window in which each side misses the
	 *   other's store (the store-buffer race of a flag pair).
	 * - An AP that lost halts at once (cpu_halt_forever) and never reads
	 *   work. Until it reaches that compare-and-swap it runs the
	 *   trampoline page, then kernel text, the SMP boot table, its
	 *   stack, its struct percpu and cpu_state: none of these is ever freed for a
	 *   CPU we kicked and did not see come online. Its percpu block stays
	 *   reserved ("percpu" in the census) and so does the trampoline.
	 * - The trampoline page is given back only when every CPU we kicked
	 *   won its compare-and-swap: each of them has left the page (the
	 *   trampoline jumps to ap_entry64 in kernel text before any C code),
	 *   and a running CPU ignores a further STARTUP IPI (SDM vol. 3A
	 *   10.4.7.3). CPUs not kicked (memboot.smp_skip_apic) were sent
	 *   neither INIT nor STARTUP and cannot run it.
	 * - cs->online is written only after the AP's win is known (by the AP,
	 *   and by us below with the same value), with release order, so the
	 *   job runner (acquire) never sees a CPU online that halted.
	 *
	 * Parallel (Linux 6.6's model): every AP is sent INIT and STARTUP
	 * before any is waited for; each finds its own per-CPU area by its APIC
	 * ID. Serial: one AP at a time, each given the whole timeout.
	 */
	if (!opt->serial) {
		kick_list = physmem_alloc(pm, kick_bytes, 4096, boot_cpu_state.mem_node, false,
					  PHYSMEM_RESV_PERCPU);
		kick_ids = (uint32_t *)(uintptr_t)kick_list;
	}
	uint32_t nr_kick = 0;
	uint64_t k0 = rdtsc();
	for (uint32_t i = 1; i < n; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs)
			continue;
		if (cpus[i].apic_id == opt->skip_apic_id) {
			pr_warn("smp: not starting APIC 0x%x (memboot.smp_skip_apic)", opt->skip_apic_id);
			cs->kick_tsc = 0;
			continue;
		}
		cs->kick_tsc = rdtsc();
		if (kick_ids) {
			kick_ids[nr_kick++] = cpus[i].apic_id;
			continue;
		}
		nr_kick++;
		arch_smp_kick(&cpus[i].apic_id, 1, trampoline);
		if (opt->serial)
			settle(cs, ktime_ns() + opt->timeout_ns);   /* reported below */
	}
	if (kick_ids) {
		arch_smp_kick(kick_ids, nr_kick, trampoline);
		physmem_free(pm, kick_list, kick_list + kick_bytes);
	}
	kick_cycles = rdtsc() - k0;

	uint64_t w0 = rdtsc(), deadline_ns = ktime_ns() + opt->timeout_ns;
	for (uint32_t i = 1; i < n; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs)
			continue;
		/* Serial: settled already (the deadline has passed for those). */
		if (settle(cs, opt->serial ? 0 : deadline_ns)) {
			res.online++;
			if (cs->kick_tsc && cs->online_tsc - cs->kick_tsc > slowest_cycles) {
				slowest_cycles = cs->online_tsc - cs->kick_tsc;
				slowest = i;
			}
			continue;
		}
		percpu_of[i] = NULL;
		cpu_states[i] = NULL;
		res.failed++;
		if (cs->kick_tsc)
			nr_abandoned++;
		pr_err("smp: CPU %u (APIC 0x%x) did not answer within %llu ms; left out",
		       i, cpus[i].apic_id, (unsigned long long)(opt->timeout_ns / 1000000));
	}
	wait_cycles = rdtsc() - w0;
	if (nr_abandoned == 0)
		physmem_free(pm, trampoline, trampoline + 4096);
	else
		pr_info("smp: the trampoline page [mem 0x%016llx-0x%016llx] stays reserved: %u CPU%s we gave up on may still start and run it",
			(unsigned long long)trampoline, (unsigned long long)trampoline + 4095,
			nr_abandoned, nr_abandoned == 1 ? "" : "s");

report:
	nr_cpus_online = res.online;
	res.cycles = rdtsc() - t0;
	res.ns = tsc_cycles_to_ns(res.cycles);
	/* Output only: the records are made when the consoles drain, in this
	 * place of the log (console_defer()), from what is taken here and
	 * what smp_tsc_check() adds; the per-CPU figures they read stay as
	 * they are then. */
	smp_report = (struct smp_report){
		.res = res, .serial = opt->serial, .init_delay = arch_smp_init_delay(),
		.kick_cycles = kick_cycles, .wait_cycles = wait_cycles, .slowest = slowest,
		.slowest_apic_id = slowest ? cpus[slowest].apic_id : 0,
		.slowest_cycles = slowest_cycles,
	};
	console_defer(smp_report_now, &smp_report,
		      ((size_t)nr_cpu_ids * 2 + 8) * CONSOLE_DEFER_ITEM_BYTES);
	return res;
}

bool smp_tsc_unreliable(uint32_t cpu)
{
	const struct cpu_state *cs = cpu_state_of(cpu);

	return cs && cs->online && cs->tsc_checked && cs->tsc_verdict == TSC_SYNC_UNRELIABLE;
}

void smp_tsc_check(void)
{
	struct smp_report *rp = &smp_report;

	if (!smp_settings.tsc_sync || nr_cpus_online < 2)
		return;
	rp->tsc_verdict = tsc_sync_check(&rp->tsc_cycles, &rp->tsc_waves, &rp->tsc_tol);
	rp->tsc_checked = true;
	/* An AP's online_tsc is its own TSC: in the boot CPU's once checked. */
	rp->slowest = 0;
	rp->slowest_cycles = 0;
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs || !cs->online || !cs->kick_tsc)
			continue;
		cs->online_tsc -= (uint64_t)cs->tsc_offset;
		/* Its bring-up time is kicked on the boot CPU, online on its own
		 * counter: off by the offset the check could not correct. */
		if (smp_tsc_unreliable(i))
			continue;
		if (cs->online_tsc - cs->kick_tsc > rp->slowest_cycles) {
			rp->slowest_cycles = cs->online_tsc - cs->kick_tsc;
			rp->slowest = i;
		}
	}
	rp->slowest_apic_id = rp->slowest ? percpu_of[rp->slowest]->apic_id : 0;
	/* The smp report normally prints later, with the verdicts in it; one
	 * printed already (an error drained the log at once) had none, so the
	 * per-node records come now, in this place of the log. */
	if (rp->printed)
		tsc_sync_report(rp->tsc_tol);
}

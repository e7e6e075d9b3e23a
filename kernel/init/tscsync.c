/*
 * tscsync.c: phase `tscsync`: takes the online CPUs and `bs.smp`; builds
 * every AP's TSC checked against the boot CPU's (memboot.tsc_sync; the
 * arithmetic is kernel/services/clock/tsc_sync.c), a known offset corrected from
 * here on (cs->tsc_offset), the verdicts in `bs.smp` and the `tsc_sync`
 * records (one per node). After memory is usable: nothing on the way there
 * needs it, since each CPU times its own work with its own TSC, and the
 * figures that compare CPUs are made after it.
 */
#include "kernel/init/tscsync.h"

#include "x86/cpu.h"
#include "arch/cpu.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/limits.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"

/*
 * The APs of one wave at once (waves: below), against the boot CPU, in
 * bounded time (the one-writer scheme of kernel/services/clock/tsc_sync.h). The boot CPU
 * keeps publishing its TSC (sh->boot_pub) and sweeps over the APs; each AP
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

/* What an AP runs, on @arg, the check's shared words. */
static void tsc_sync_ap(void *arg)
{
	struct tscsync_shared *sh = arg;
	struct cpu_state *cs = this_cpu_state();
	struct tsc_sync_bounds bd;

	/* memboot.tsc_skew: this CPU's readings run ahead, as a skewed counter's
	 * would (QEMU's TCG ignores writes to the TSC, so the skew is added to
	 * every reading the kernel takes on this CPU: here and in
	 * job_platform_ticks()). */
	const uint64_t skew = cs->tsc_skew;
	uint64_t give_up = rdtsc() + cs->tsc_sync_budget, linger_end = 0;

	tsc_sync_bounds_init(&bd);
	while (!__atomic_load_n(&cs->tsc_sync_ack, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		uint64_t v = __atomic_load_n(&sh->boot_pub, __ATOMIC_ACQUIRE);
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
		arch_cpu_relax();
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
static uint32_t tsc_sync_wave(struct tscsync_shared *sh, uint32_t first, uint32_t end, uint32_t max_aps,
			      uint64_t total_budget, uint64_t end_all, uint32_t *next)
{
	uint32_t left = 0, started = 0, i;

	__atomic_store_n(&sh->boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
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
		job_platform_post(i, tsc_sync_ap, sh);
		__atomic_store_n(&sh->boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
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
			__atomic_store_n(&sh->boot_pub, rdtsc_ordered(), __ATOMIC_RELEASE);
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
		arch_cpu_relax();
	}
	return started;
}

/* Returns the waves it took. */
static uint32_t tsc_sync_all(struct tscsync_shared *sh, uint64_t total_budget)
{
	uint64_t end_all = rdtsc() + total_budget;   /* every wave shares one end */
	uint64_t fast_cycles = tsc_hz / 1000000 * (TSC_SYNC_FAST_NS / 1000);
	uint32_t next = 1, wave = 1, waves = 0;

	sh->stop = 0;
	while (next < nr_cpu_ids) {
		uint64_t t0 = rdtsc();
		uint32_t started = tsc_sync_wave(sh, next, nr_cpu_ids, wave, total_budget, end_all, &next);

		if (!started)
			break;
		waves++;
		if (rdtsc() - t0 < fast_cycles * started)
			wave = wave * 2 > TSC_SYNC_MAX_WAVE ? TSC_SYNC_MAX_WAVE : wave * 2;
		else
			wave = 1;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	/* Every AP leaves its mailbox empty once its loop has ended: wait for
	 * that a bounded time (a descheduled vCPU may take a while). */
	uint64_t give_up = rdtsc() + total_budget / 10;
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];

		while (cs && cs->online && __atomic_load_n(&cs->work_fn, __ATOMIC_ACQUIRE) &&
		       rdtsc() < give_up)
			arch_cpu_relax();
	}
	return waves;
}

/* Every online AP against the boot CPU (the tsc_sync records come with
 * phase smp's report: tscsync_records()). Returns the worst verdict. */
static enum tsc_sync_verdict tsc_sync_check(struct tscsync_shared *sh, uint64_t *cycles_out,
					    uint32_t *waves_out, uint64_t *tol_out)
{
	uint64_t t0 = rdtsc(), tol = tsc_sync_tolerance_cycles(tsc_hz, tsc_uncertainty_ppm);
	/* 2 s in all at most (then 0.2 s for the APs to leave), however many CPUs
	 * and however busy the host: each AP stops once the boot CPU has its bounds. */
	uint64_t hz = tsc_hz ? tsc_hz : 1000000000ULL;
	enum tsc_sync_verdict worst = TSC_SYNC_OK;
	uint32_t unchecked = 0;

	*tol_out = tol;
	*waves_out = tsc_sync_all(sh, 2 * hz);

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
void tscsync_records(uint64_t tol)
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

void init_tscsync(bool enabled, struct tscsync_shared *sh, struct smp_report *rp)
{
	if (!enabled || nr_cpus_online < 2)
		return;
	rp->tsc_verdict = tsc_sync_check(sh, &rp->tsc_cycles, &rp->tsc_waves, &rp->tsc_tol);
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
		if (cpu_tsc_unreliable(i))
			continue;
		if (cs->online_tsc - cs->kick_tsc > rp->slowest_cycles) {
			rp->slowest_cycles = cs->online_tsc - cs->kick_tsc;
			rp->slowest = i;
		}
	}
	rp->slowest_hwid = rp->slowest ? cpu_states[rp->slowest]->hwid : 0;
	/* The smp report normally prints later, with the verdicts in it; one
	 * printed already (an error drained the log at once) had none, so the
	 * per-node records come now, in this place of the log. */
	if (rp->printed)
		tscsync_records(rp->tsc_tol);
}

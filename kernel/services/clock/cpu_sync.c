/*
 * cpu_sync.c: every AP's counter checked against the boot CPU's
 * (kernel/services/clock/cpu_sync.h; the arithmetic is counter_sync.c), a
 * known offset corrected from here on (cs->counter_offset), each CPU's
 * verdict and the `tsc_sync` records (one per node). Phase tscsync runs
 * it after memory is usable: nothing on the way there needs it, since
 * each CPU times its own work with its own counter, and the figures that
 * compare CPUs are made after it.
 */
#include "kernel/services/clock/cpu_sync.h"

#include "arch/counter.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/limits.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"

/*
 * The APs of one wave at once (waves: below), against the boot CPU, in
 * bounded time (the one-writer scheme of kernel/services/clock/counter_sync.h).
 * The boot CPU keeps publishing its counter (sh->boot_pub) and sweeps over
 * the APs; each AP keeps publishing its own (cs->sync_pub) and reading the
 * boot CPU's:
 *  - an AP that read the boot CPU's published value v and then its own
 *    counter a knows its offset is at most a - v (the boot CPU's counter
 *    had passed v);
 *  - the boot CPU that read an AP's published w and then its own counter b
 *    knows the AP's offset is at least w - b.
 * Every reading taken after seeing another CPU's store is
 * arch_counter_ordered().
 * No AP waits for another. An AP stops as soon as the boot CPU has its
 * bounds (sync_ack), so on a host running many vCPUs on few cores the
 * spinning CPUs thin out quickly instead of starving the boot CPU; a stale
 * published value only widens an interval, it never makes one wrong.
 */
#define SYNC_AP_ITERS 16          /* each AP's readings */
#define SYNC_BOOT_READS 4         /* the boot CPU's readings of each AP's word */
/*
 * Waves: how many APs check at once. One at first, twice as many after a
 * wave that took under SYNC_FAST_NS per AP, up to SYNC_MAX_WAVE,
 * and back to one after a slow wave. Every checking CPU spins, and where
 * vCPUs outnumber the host's cores (QEMU's TCG with 4 vCPUs on 2 cores, or
 * 192 on 2) spinners take turns: every AP at once took 1-9 ms at 2 x 2
 * and 170-400 ms at 192 vCPUs, with uncertainties of up to 200 ms; one at
 * a time took 0.8 ms and 82-106 ms, with uncertainties below 0.3 ms. A machine
 * whose CPUs are its own checks an AP in microseconds: its waves double
 * to the limit, and 511 APs take a dozen waves.
 */
#define SYNC_FAST_NS 20000ULL
#define SYNC_MAX_WAVE 64

/* What an AP runs, on @arg, the check's shared words. */
static void sync_ap(void *arg)
{
	struct cpu_sync_words *sh = arg;
	struct cpu_state *cs = this_cpu_state();
	struct counter_sync_bounds bd;

	/* memboot.tsc_skew: this CPU's readings run ahead, as a skewed counter's
	 * would (QEMU's TCG ignores writes to the counter, so the skew is added to
	 * every reading the kernel takes on this CPU: here and in
	 * job_platform_ticks()). */
	const uint64_t skew = cs->counter_skew;
	uint64_t give_up = arch_counter() + cs->sync_budget, linger_end = 0;

	counter_sync_bounds_init(&bd);
	while (!__atomic_load_n(&cs->sync_ack, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		uint64_t v = __atomic_load_n(&sh->boot_pub, __ATOMIC_ACQUIRE);
		uint64_t a = arch_counter_ordered() + skew;

		if (bd.n_hi < SYNC_AP_ITERS && v) {
			counter_sync_ap_saw(&bd, v, a);
			if (bd.n_hi == SYNC_AP_ITERS) {
				cs->sync_hi = bd.hi;
				cs->sync_n = bd.n_hi;
				__atomic_store_n(&cs->sync_done, 1, __ATOMIC_RELEASE);
			}
		}
		/* Keep publishing while the boot CPU reads it, for a short
		 * linger at most: then leave the last value (stale, so a wider
		 * bound, never a wrong one) and stop spinning. */
		__atomic_store_n(&cs->sync_pub, arch_counter_ordered() + skew, __ATOMIC_RELEASE);
		if (bd.n_hi == SYNC_AP_ITERS && !linger_end)
			linger_end = a - skew + cs->sync_linger;
		if (a - skew - give_up < (1ULL << 63) ||
		    (linger_end && a - skew - linger_end < (1ULL << 63)))
			break;
		job_platform_relax();
	}
	if (bd.n_hi < SYNC_AP_ITERS) {
		cs->sync_hi = bd.hi;
		cs->sync_n = bd.n_hi;
		__atomic_store_n(&cs->sync_done, 1, __ATOMIC_RELEASE);
	}
}

/*
 * The boot CPU's side over the online APs [@first, @end) (CPU ids): all of
 * them started at once, then sweeps over the ones not yet settled until
 * each has its readings from both sides or @end_all (a counter value) has passed; APs
 * not settled by then keep whatever bounds they have (one side missing:
 * not checked, counted as such). Returns the APs started.
 */
static uint32_t sync_wave(struct cpu_sync_words *sh, uint32_t first, uint32_t end, uint32_t max_aps,
			      uint64_t total_budget, uint64_t end_all, uint32_t *next)
{
	uint32_t left = 0, started = 0, i;

	__atomic_store_n(&sh->boot_pub, arch_counter_ordered(), __ATOMIC_RELEASE);
	for (i = first; i < end && started < max_aps; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (!cs || !cs->online)
			continue;
		cs->sync_pub = 0;
		cs->sync_done = 0;
		cs->sync_ack = 0;
		cs->sync_n = 0;
		cs->sync_n_lo = 0;
		cs->sync_lo = INT64_MIN;
		cs->sync_hi = INT64_MAX;
		cs->sync_budget = total_budget;
		cs->sync_linger = total_budget / 1000;   /* 2 ms */
		cs->sync_checked = 1;
		left++;
		started++;
		job_platform_post(i, sync_ap, sh);
		__atomic_store_n(&sh->boot_pub, arch_counter_ordered(), __ATOMIC_RELEASE);
	}
	*next = i;
	/* At least SYNC_BOOT_READS sweeps, however long starting the APs
	 * took (a sweep is one read per AP: bounded). */
	for (uint32_t sweep = 0; left && (arch_counter() < end_all || sweep < SYNC_BOOT_READS); sweep++) {
		for (uint32_t k = first; k < *next; k++) {
			struct cpu_state *cs = cpu_states[k];
			uint64_t w, b;

			if (!cs || !cs->online || cs->sync_ack)
				continue;
			__atomic_store_n(&sh->boot_pub, arch_counter_ordered(), __ATOMIC_RELEASE);
			w = __atomic_load_n(&cs->sync_pub, __ATOMIC_ACQUIRE);
			b = arch_counter_ordered();
			if (!w)
				continue;
			if ((int64_t)(w - b) > cs->sync_lo)
				cs->sync_lo = (int64_t)(w - b);
			cs->sync_n_lo++;
			if (cs->sync_n_lo >= SYNC_BOOT_READS &&
			    __atomic_load_n(&cs->sync_done, __ATOMIC_ACQUIRE)) {
				__atomic_store_n(&cs->sync_ack, 1, __ATOMIC_RELEASE);
				left--;
			}
		}
		job_platform_relax();
	}
	return started;
}

/* Returns the waves it took. */
static uint32_t sync_all(struct cpu_sync_words *sh, uint64_t total_budget)
{
	uint64_t end_all = arch_counter() + total_budget;   /* every wave shares one end */
	uint64_t fast_cycles = counter_hz / 1000000 * (SYNC_FAST_NS / 1000);
	uint32_t next = 1, wave = 1, waves = 0;

	sh->stop = 0;
	while (next < nr_cpu_ids) {
		uint64_t t0 = arch_counter();
		uint32_t started = sync_wave(sh, next, nr_cpu_ids, wave, total_budget, end_all, &next);

		if (!started)
			break;
		waves++;
		if (arch_counter() - t0 < fast_cycles * started)
			wave = wave * 2 > SYNC_MAX_WAVE ? SYNC_MAX_WAVE : wave * 2;
		else
			wave = 1;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	/* Every AP leaves its mailbox empty once its loop has ended: wait for
	 * that a bounded time (a descheduled vCPU may take a while). */
	uint64_t give_up = arch_counter() + total_budget / 10;
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];

		while (cs && cs->online && __atomic_load_n(&cs->work_fn, __ATOMIC_ACQUIRE) &&
		       arch_counter() < give_up)
			job_platform_relax();
	}
	return waves;
}

void cpu_sync_check(struct cpu_sync_words *sh, struct cpu_sync_report *rep)
{
	uint64_t t0 = arch_counter();
	uint64_t tol = counter_sync_tolerance_cycles(counter_hz, counter_uncertainty_ppm);
	/* 2 s in all at most (then 0.2 s for the APs to leave), however many CPUs
	 * and however busy the host: each AP stops once the boot CPU has its bounds. */
	uint64_t hz = counter_hz ? counter_hz : 1000000000ULL;
	enum counter_sync_verdict worst = COUNTER_SYNC_OK;
	uint32_t unchecked = 0;

	rep->tol_cycles = tol;
	rep->waves = sync_all(sh, 2 * hz);

	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];
		struct counter_sync_estimate e;
		struct counter_sync_bounds bd = {
			.lo = cs ? cs->sync_lo : INT64_MIN, .hi = cs ? cs->sync_hi : INT64_MAX,
			.n_lo = cs ? cs->sync_n_lo : 0,
			.n_hi = cs && __atomic_load_n(&cs->sync_done, __ATOMIC_ACQUIRE) ? cs->sync_n : 0,
		};
		enum counter_sync_verdict v;

		if (!cs || !cs->online)
			continue;
		/* One side never read (the AP did not run in time on a busy
		 * host): nothing is known; that is "not checked", not "agrees". */
		if (!cs->sync_checked || !counter_sync_judge(&bd, tol, &e, &v)) {
			cs->sync_checked = 0;
			unchecked++;
			continue;
		}
		cs->sync_verdict = v;
		cs->sync_offset = e.offset;
		cs->sync_offset_err = e.uncertainty;
		cs->sync_warp = e.warp;
		if (cs->sync_verdict == COUNTER_SYNC_CORRECTED)
			cs->counter_offset = e.offset;
		if (cs->sync_verdict > worst)
			worst = (enum counter_sync_verdict)cs->sync_verdict;
	}
	rep->cycles = arch_counter() - t0;
	if (unchecked)
		pr_info("tsc_sync: %u CPUs not checked (no readings from both sides within 2 s)",
			unchecked);
	rep->verdict = worst;
	rep->checked = true;
	/* An AP's online_counter is its own counter: in the boot CPU's from
	 * here on, as its later readings are. */
	for (uint32_t i = 1; i < nr_cpu_ids; i++) {
		struct cpu_state *cs = cpu_states[i];

		if (cs && cs->online && cs->kick_counter)
			cs->online_counter -= (uint64_t)cs->counter_offset;
	}
}

void cpu_sync_records(uint64_t tol)
{
	uint64_t nodes_seen[MEMBOOT_MAX_NODES / 64] = { 0 };

	/* One record per node with online CPUs: its largest offset. */
	for (uint32_t i = 0; i < nr_cpu_ids; i++) {
		const struct cpu_state *first = cpu_states[i];
		uint32_t node, cpus = 0, checked = 0, corrected = 0, unreliable = 0, worst_cpu = 0;
		int64_t max_off = 0;
		uint64_t max_err = 0, max_warp = 0;
		enum counter_sync_verdict nv = COUNTER_SYNC_OK;
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
			if (!cs->sync_checked)
				continue;
			checked++;
			off = cs->sync_offset;
			if ((off < 0 ? -(uint64_t)off : (uint64_t)off) >
			    (max_off < 0 ? -(uint64_t)max_off : (uint64_t)max_off) || !worst_cpu) {
				max_off = off;
				worst_cpu = j;
			}
			if (cs->sync_offset_err > max_err)
				max_err = cs->sync_offset_err;
			if (cs->sync_warp > max_warp)
				max_warp = cs->sync_warp;
			corrected += cs->sync_verdict == COUNTER_SYNC_CORRECTED;
			unreliable += cs->sync_verdict == COUNTER_SYNC_UNRELIABLE;
			if (cs->sync_verdict > nv)
				nv = (enum counter_sync_verdict)cs->sync_verdict;
		}
		rec_begin(&r, "tsc_sync");
		rec_u64(&r, "node", node);
		rec_u64(&r, "cpus", cpus);
		rec_u64(&r, "checked", checked);
		rec_i64(&r, "max_offset_cycles", max_off);
		rec_cycles_ns(&r, "max_offset_ns", max_off < 0 ? -(uint64_t)max_off : (uint64_t)max_off);
		rec_u64(&r, "max_uncertainty_cycles", max_err);
		rec_u64(&r, "max_warp_cycles", max_warp);
		if (worst_cpu)
			rec_u64(&r, "worst_cpu", worst_cpu);
		rec_u64(&r, "tolerance_cycles", tol);
		rec_u64(&r, "corrected", corrected);
		rec_u64(&r, "unreliable", unreliable);
		rec_str(&r, "verdict", counter_sync_verdict_name(nv));
		if (nv == COUNTER_SYNC_UNRELIABLE)
			record_report(&r, LOG_WARN, "tsc_sync: node {node}: {unreliable} of {cpus} CPUs' "
				      ARCH_COUNTER_NAME "s disagree with the boot CPU's beyond what can be corrected (largest "
				      "offset {max_offset_cycles} cycles): cross-CPU times are unreliable");
		else
			record_report(&r, LOG_INFO, "tsc_sync: node {node}: {cpus} CPUs, {checked} checked, largest offset "
				      "{max_offset_cycles} cycles (+-{max_uncertainty_cycles}), "
				      "tolerance {tolerance_cycles}: {verdict}");
	}
}

/*
 * clock.c: the clock's one story (kernel/services/clock/clock.h), over the
 * architecture's hooks (arch/clock.h).
 */
#include "kernel/services/clock/clock.h"

#include <string.h>

#include "arch/counter.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/console.h"
#include "kernel/services/jobs/platform.h"
#include "kernel/services/log.h"

/* The first figure's record, made when the consoles drain, in the place of
 * the log where the figure was taken (console_defer_copy(): before memory
 * is usable nothing is formatted on the spot, docs/design.md, "Where
 * things go"), from the figure as it was then. */
static void first_report_now(void *arg)
{
	arch_clock_first_report(arg);
}

static void first_in_force(struct clock_state *c)
{
	time_init_provisional(c->first.hz, c->first.method, c->first.uncertainty_ppm);
	console_defer_copy(first_report_now, &c->first, sizeof(c->first),
			   2 * CONSOLE_DEFER_ITEM_BYTES);
}

void clock_early(struct clock_state *c)
{
	memset(c, 0, sizeof(*c));
	arch_clock_first(&c->first);
	/* No figure without the tables: nothing is assumed yet; the first
	 * figure waits for the tables' references (clock_tables()). Until
	 * then counter_hz is 0. */
	if (!c->first.hz)
		return;
	/* A quick estimate: the precise figure comes from the second
	 * references, measured on the APs (phase clockcheck); until then what
	 * is printed waits in the log ring. */
	first_in_force(c);
}

/* @k's measurement or, when it cannot be used at all, the warning that
 * says why: the one report of every reference. */
static void report_check(const struct clock_check *k)
{
	if (k->ref.refused) {
		pr_warn("%s", k->ref.refused);
		return;
	}
	time_crosscheck(k->ref.name, k->ref.where_key, k->ref.where, &k->res);
}

/* Every reference, now, on this CPU, in the architecture's order. */
static void crosscheck_now(struct clock_state *c)
{
	for (uint32_t i = 0; i < c->nr_checks; i++) {
		struct clock_check *k = &c->checks[i];

		k->open = arch_clock_ref_open(&k->ref);
		if (!k->open)
			continue;
		arch_clock_ref_measure(&k->ref, &k->res);
		report_check(k);
	}
}

void clock_tables(struct clock_state *c, const struct arch_clock_tables *t, bool coarse)
{
	struct arch_clock_ref refs[ARCH_CLOCK_MAX_REFS];

	c->nr_checks = arch_clock_refs(t, refs, ARCH_CLOCK_MAX_REFS);
	for (uint32_t i = 0; i < c->nr_checks; i++)
		c->checks[i] = (struct clock_check){ .ref = refs[i] };
	/* A figure from phase early: the first phase that can use the command
	 * line's debug key makes it poor (from here on everything runs on
	 * the poor figure), and a quick estimate too poor for timeouts must
	 * give way to a better reference before the SMP timeout counts on it: measure now, in the architecture's order (the
	 * finest and quickest to read first). Otherwise an AP measures one
	 * later (clock_checks_start()), off the boot CPU's path, and the best
	 * becomes the precise figure. */
	if (counter_hz) {
		if (coarse)
			time_coarsen();
		if (counter_uncertainty_ppm > TIME_TIMEOUT_PPM) {
			crosscheck_now(c);
			c->checked = true;
		}
		return;
	}
	/*
	 * Phase early had no figure: the tables' references give it, measured
	 * now on the boot CPU as the quick estimate phase early would have
	 * made (the SMP timeouts need it; the APs' measurements refine it as
	 * they refine early's). With none, 1 GHz is assumed for the timeouts,
	 * and a warning names what is missing: every time of this boot is a
	 * guess, and says so (method "assumed", uncertainty unknown, in the
	 * first figure's record and the `boot` record; every stamp and record
	 * marked, kernel/services/console/out/render.c).
	 */
	const uint64_t t0 = arch_counter();

	arch_clock_first_late(t, &c->first);
	c->first.phase = "acpi";
	c->first.cycles += arch_counter() - t0;
	if (c->first.hz == 0) {
		c->first.hz = 1000000000ULL;
		c->first.method = "assumed";
		c->first.uncertainty_ppm = CLOCKCAL_UNKNOWN_PPM;
		c->first.known = ARCH_CLOCK_ASSUMED;
		pr_warn(ARCH_COUNTER_TAG ": no clock reference (missing: %s); assuming 1 GHz: every "
			"time this boot prints is unreliable", c->first.missing);
	}
	first_in_force(c);
	/* The debug key holds for this first figure too (a measured one: an
	 * assumed figure stays what it is, time_coarsen()), whose record
	 * keeps the figure as measured. */
	if (coarse)
		time_coarsen();
}

/*
 * The AP to measure on: the highest-numbered idle one off the boot CPU's
 * node (where the store probe and the boot CPU's own share of memory init
 * run), else the highest-numbered idle one; 0 if none is idle.
 */
static uint32_t measuring_ap(void)
{
	const uint32_t boot_node = job_platform_node(0);
	uint32_t any = 0;

	for (uint32_t cpu = job_platform_max_cpus(); cpu-- > 1;) {
		if (!job_platform_online(cpu) || job_platform_busy(cpu))
			continue;
		if (job_platform_node(cpu) != boot_node)
			return cpu;
		if (!any)
			any = cpu;
	}
	return any;
}

/* What the AP runs (and the boot CPU, for what no AP measured). */
static void measure_check(void *arg)
{
	struct clock_check *k = arg;

	arch_clock_ref_measure(&k->ref, &k->res);
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
}

const char *clock_known_name(enum arch_clock_known k)
{
	return k == ARCH_CLOCK_GIVEN ? "given" : k == ARCH_CLOCK_CALIBRATED ? "calibrated" : "assumed";
}

void clock_checks_start(struct clock_state *c)
{
	uint32_t opened = 0, cpu;

	c->pending = false;
	if (c->checked)
		return;
	if (c->nr_checks == 0) {
		pr_info(ARCH_COUNTER_TAG ": the %s figure (%s) is not cross-checked: no second "
			"reference", c->first.method, clock_known_name(c->first.known));
		return;
	}
	c->pending = true;
	/* Opened here, by the boot CPU: the APs only read. */
	for (uint32_t i = 0; i < c->nr_checks; i++) {
		c->checks[i].open = arch_clock_ref_open(&c->checks[i].ref);
		opened += c->checks[i].open;
	}
	/*
	 * One reference now, on an idle AP, the last one: the measurement is
	 * of the counter's rate, which every CPU's counter shares. The first
	 * the architecture lists (the finest). Off the boot CPU's node, whose
	 * APs the store probe wants (phase memmap). Memory init may begin
	 * before it is done (the figure is needed only once memory is usable,
	 * phase clockcheck): a vCPU that measures on a host with fewer cores
	 * than vCPUs takes time from memory init's, so the other references,
	 * cross-checks, are measured in phase clockcheck, after it (two
	 * measuring APs made meminit 2 ms slower in a busy spell of a 2-core
	 * host).
	 */
	if (!opened || !(cpu = measuring_ap()))
		return;                  /* the boot CPU measures them all in _finish() */
	for (uint32_t i = 0; i < c->nr_checks; i++) {
		if (!c->checks[i].open)
			continue;
		c->checks[i].cpu = cpu;
		job_platform_post(cpu, measure_check, &c->checks[i]);
		return;
	}
}

/* @k's measurement is in and its CPU is back in its idle loop, so later
 * jobs find it idle; unless the CPU was lost since, in memory init
 * (kernel/services/jobs/job.h): then its mailbox stays busy for good. */
static void wait_measured(const struct clock_check *k)
{
	while (!__atomic_load_n(&k->done, __ATOMIC_ACQUIRE) ||
	       (k->cpu && job_platform_online(k->cpu) && job_platform_busy(k->cpu)))
		job_platform_relax();
}

/* The measurements in: the best one refines the quick estimate if it is
 * better than it (time_refine), and every reference is reported. */
static void refine_from_checks(struct clock_state *c)
{
	struct clockcal_candidate cand[ARCH_CLOCK_MAX_REFS];
	uint32_t n = 0, at[ARCH_CLOCK_MAX_REFS];

	/* What no AP measured, the boot CPU does now (the APs are idle:
	 * memory is usable). */
	for (uint32_t i = 0; i < c->nr_checks; i++)
		if (c->checks[i].open && c->checks[i].cpu == 0)
			measure_check(&c->checks[i]);
	for (uint32_t i = 0; i < c->nr_checks; i++) {
		const struct clock_check *k = &c->checks[i];

		if (!k->open)
			continue;
		wait_measured(k);
		at[n] = i;
		cand[n++] = (struct clockcal_candidate){ k->ref.name, k->res.hz,
							 k->res.uncertainty_ppm, true };
	}
	int best = clockcal_choose(cand, n, 0);
	/* The one that refines the figure is reported by time_refine(); every
	 * other reference, the best too when the quick estimate was better
	 * still (a host that descheduled the measuring CPU), is cross-checked:
	 * each reference always has its clock_check record. */
	int refined = best >= 0 && cand[best].uncertainty_ppm < counter_uncertainty_ppm ? best : -1;

	if (refined >= 0) {
		const struct clock_check *k = &c->checks[at[refined]];

		time_refine(k->ref.name, k->ref.where_key, k->ref.where, &k->res);
	}
	for (uint32_t j = 0; j < n; j++)
		if ((int)j != refined)
			report_check(&c->checks[at[j]]);
	c->pending = false;
}

void clock_checks_finish(struct clock_state *c)
{
	if (c->pending)
		refine_from_checks(c);
	/* Whatever the references gave (nothing to measure, or nothing better
	 * than the quick estimate: a long first window, measuring CPUs the
	 * host descheduled), the figure in force is now the precise one, and
	 * what waits in the log ring may be printed. */
	if (!clock_final)
		time_init(counter_hz, counter_method, counter_uncertainty_ppm);
}

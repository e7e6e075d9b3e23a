/*
 * phase.c: phase records. The start is kept as a raw counter value and
 * converted at the end, so the first phase (which finds the counter's rate)
 * is timed too.
 *
 * The consoles are drained here, after the phase's clock has stopped and
 * before the next one starts: printing costs console time (reported by
 * console_report()), never a phase's. A watchdog with less time than the
 * boot's is petted here too (kernel/services/watchdog/watchdog.h).
 */
#include "kernel/init/phase.h"

#include "arch/counter.h"
#include "kernel/services/console.h"
#include "kernel/services/console/ring.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/services/report/summary.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/watchdog/watchdog.h"
#include "mm/numa.h"
#include "mm/physmem.h"

/* Every AP's busy cycles in work it has finished, and the APs online. Each
 * AP times its work with its own counter (no other CPU's offset enters,
 * whatever the counter check says), so a work is counted whole in the phase
 * in which it ends. An AP counted lost (offline from then on) still counts
 * what it did: leaving it out of the sum at a phase's end that included it
 * at the start made the difference wrap below zero. */
static uint64_t ap_busy_total(uint32_t *aps)
{
	uint64_t sum = 0;

	*aps = 0;
	for (uint32_t cpu = 1; cpu < nr_cpu_ids; cpu++) {
		const struct cpu_state *cs = cpu_state_of(cpu);
		if (!cs)
			continue;
		sum += __atomic_load_n(&cs->busy_cycles, __ATOMIC_RELAXED);
		*aps += cs->online != 0;
	}
	return sum;
}

/* A phase's figures, in counter cycles, until its record is made. */
struct phase_figures {
	const char *name;
	uint64_t start_counter, cycles, ap_busy, ap_idle;
	uint32_t aps;
};

static void phase_report(void *arg)
{
	const struct phase_figures *f = arg;
	struct record r;

	/* Counter values, rendered when printed (kernel/services/report/record.h), so phases that
	 * end on the clock's quick estimate print with its precise figure. */
	rec_begin(&r, "phase");
	rec_str(&r, "name", f->name);
	rec_counter_stamp(&r, "start_ns", f->start_counter);
	rec_cycles_ns(&r, "ns", f->cycles);
	/* What the APs did meanwhile: the boot CPU's own time is `ns`; the
	 * APs' busy time (running jobs: memory init, huge pools, the clock's
	 * and the store's measurements) and their idle time (halted, waiting
	 * for work) together are `aps` x `ns`. */
	rec_u64(&r, "aps", f->aps);
	rec_cycles_ns(&r, "ap_busy_ns", f->ap_busy);
	rec_cycles_ns(&r, "ap_idle_ns", f->ap_idle);
	record_report(&r, LOG_INFO, "phase {name}: {ns:ms} ms");
}

/*
 * The records of the phases that end while the consoles are held (before
 * memory is usable) are made when they drain, in their place of the log
 * (console_defer()): building a record is code that runs for the first
 * time, and under QEMU's TCG the record builder's first run (about 1,000
 * translated instructions, the phase record's and the others' of those
 * phases together) was 1.5 ms of the path to usable memory. The figures
 * wait in the console's copy (console_defer_copy()).
 */

static const char *const phase_names[BOOT_PHASE_COUNT] = {
#define PHASE_NAME_(name, when, takes, builds) [BOOT_PHASE_##name] = #name,
	BOOT_PHASES(PHASE_NAME_)
#undef PHASE_NAME_
};

const char *boot_phase_name(enum boot_phase phase)
{
	ASSERT(phase < BOOT_PHASE_COUNT, "boot phase %u beyond the table", (unsigned)phase);
	return phase_names[phase];
}

uint64_t phase_ap_busy(void)
{
	uint32_t aps;

	return ap_busy_total(&aps);
}

void phase_end(enum boot_phase phase, uint64_t start_counter, uint64_t start_ap_busy)
{
	const char *name = boot_phase_name(phase);
	uint64_t end_counter = arch_counter();
	uint32_t aps;
	uint64_t busy = ap_busy_total(&aps);
	uint64_t ap_busy = busy - start_ap_busy;
	uint64_t ap_time = (end_counter - start_counter) * aps;
	const bool held = !(clock_final && summary_usable_ns());
	/* Also when the consoles are about to drain with late records still
	 * to make: this one after them, as in the log. */
	const bool late = held || console_defers_pending();
	struct phase_figures f = {
		.name = name, .start_counter = start_counter, .cycles = end_counter - start_counter,
		.ap_busy = ap_busy, .ap_idle = ap_time > ap_busy ? ap_time - ap_busy : 0, .aps = aps,
	};

	if (late) {
		console_defer_copy(phase_report, &f, sizeof(f), 2 * CONSOLE_DEFER_ITEM_BYTES);
	} else {
		phase_report(&f);
	}
	summary_phase(name, f.cycles, f.ap_busy, f.ap_idle);
	/* A watchdog that counts less than the boot may take is petted here. */
	watchdog_phase_end();
	/* Not while the clock runs on its quick estimate: what is printed
	 * waits in the ring for the precise figure (kernel/services/clock/time.h). Nor
	 * before memory is usable: printing (milliseconds a screenful on a
	 * serial line) is then never on the path to usable memory. An error
	 * line, a full ring and the exit still drain at once. */
	if (!held)
		console_drain();
}

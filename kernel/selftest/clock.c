/*
 * clock.c: memboot.selftest=clock, a busy-wait of memboot.clock_ms by the
 * counter between two records.
 *
 * The kernel cannot judge its own clock; tools/memboot --host-times stamps
 * both lines with the host's clock, and the guest test compares the two
 * intervals (tests/guest).
 */
#include <stdint.h>

#include "arch/counter.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/select.h"
#include "kernel/selftest/tests.h"
#include "kernel/services/clock/time.h"

bool selftest_clock(const struct selftest_ctx *ctx, const char **skipped)
{
	struct record r;
	uint64_t want_ns = selftest_settings.clock_ms * 1000000ULL;
	uint64_t t0, cycles;

	pr_info("clock: busy-waiting %llu ms by the " ARCH_COUNTER_NAME " (%llu Hz)",
		(unsigned long long)selftest_settings.clock_ms, (unsigned long long)counter_hz);
	rec_begin(&r, "clock_start");
	rec_u64(&r, "requested_ns", want_ns);
	record_emit(&r);
	/* Both records must leave as they are made: the host stamps them. */
	console_flush();
	t0 = arch_counter();
	cycles = time_delay_ns(want_ns);
	rec_begin(&r, "clock");
	rec_u64(&r, "requested_ns", want_ns);
	rec_u64(&r, "ns", cycles_to_ns(arch_counter() - t0));
	rec_u64(&r, "tsc_hz", counter_hz);
	record_emit(&r);
	console_flush();
	return cycles > 0;
}

/*
 * watchdog.c: the machine's watchdog for the boot, and the watch on one
 * piece of work (kernel/services/watchdog/watchdog.h).
 */
#include "kernel/services/watchdog/watchdog.h"

#include <stdio.h>
#include <string.h>

#include "arch/watchdog.h"
#include "kernel/services/clock/time.h"
#include "kernel/services/console.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

/* The boot's watchdog: what phase watchdog armed. */
static struct {
	struct watchdog_device dev;
	bool found, armed, pets;
	uint32_t want_s, hw_s;
	uint64_t end_ns;            /* the boot's time runs out: no pet after */
	const char *source;
	char why[160];
} wd;

/* The architecture's own, behind struct watchdog_device. */
static struct arch_watchdog own;

static uint32_t own_arm(void *ctx, uint32_t seconds, char *why, size_t why_bytes)
{
	return arch_watchdog_arm(ctx, seconds, why, why_bytes);
}

static void own_pet(void *ctx)
{
	arch_watchdog_pet(ctx);
}

static void own_disarm(void *ctx)
{
	arch_watchdog_disarm(ctx);
}

bool watchdog_find_own(struct watchdog_device *dev, char *why, size_t why_bytes)
{
	if (!arch_watchdog_find(&own, why, why_bytes))
		return false;
	*dev = (struct watchdog_device){ .name = own.name, .id = own.id, .min_s = own.min_s,
					 .max_s = own.max_s, .fired = own.fired, .arm = own_arm,
					 .pet = own_pet, .disarm = own_disarm, .ctx = &own };
	return true;
}

/* The record and its line, when the consoles drain (console_defer()). */
static void watchdog_report(void *arg)
{
	struct record r;
	char line[256];

	(void)arg;
	rec_begin(&r, "watchdog");
	rec_str(&r, "device", wd.found ? wd.dev.name : "none");
	if (wd.found && wd.dev.id)
		rec_hex(&r, "device_id", wd.dev.id);
	rec_bool(&r, "armed", wd.armed);
	if (wd.armed) {
		rec_u64(&r, "seconds", wd.want_s);
		rec_u64(&r, "hw_seconds", wd.hw_s);
		rec_bool(&r, "pets", wd.pets);
	}
	if (wd.found)
		rec_u64(&r, "max_seconds", wd.dev.max_s);
	rec_str(&r, "source", wd.source);
	if (wd.found)
		rec_bool(&r, "fired_before", wd.dev.fired);
	if (!wd.armed)
		rec_str(&r, "reason", wd.why);
	if (wd.armed && wd.pets)
		snprintf(line, sizeof(line), "watchdog: {device} armed for {hw_seconds} s, petted at "
			 "each phase's end until the boot's {seconds} s ({source}) are over: the "
			 "machine resets if the boot hangs");
	else if (wd.armed)
		snprintf(line, sizeof(line), "watchdog: {device} armed: the machine resets unless the "
			 "boot ends within {hw_seconds} s ({source})");
	else
		snprintf(line, sizeof(line), "watchdog: %s: {reason}",
			 wd.found ? "{device} not armed" : "none");
	record_report(&r, LOG_INFO, line);
}

void watchdog_start(const struct watchdog_device *dev, uint32_t want_s, const char *source,
		    const char *none_why)
{
	struct watchdog_plan plan;

	wd.source = source;
	wd.want_s = want_s;
	if (!dev) {
		strncpy(wd.why, none_why, sizeof(wd.why) - 1);
		console_defer(watchdog_report, NULL, CONSOLE_DEFER_ITEM_BYTES * 2);
		return;
	}
	wd.dev = *dev;
	wd.found = true;
	if (wd.dev.fired)
		pr_warn("watchdog: %s says it reset the machine at the end of the previous boot",
			wd.dev.name);
	plan = watchdog_plan(want_s, wd.dev.min_s, wd.dev.max_s);
	wd.hw_s = wd.dev.arm(wd.dev.ctx, plan.arm_s, wd.why, sizeof(wd.why));
	if (!wd.hw_s)
		pr_warn("watchdog: %s refused to arm: %s", wd.dev.name, wd.why);
	wd.armed = wd.hw_s != 0;
	wd.pets = wd.armed && plan.pets;
	if (wd.want_s < wd.hw_s)
		wd.want_s = wd.hw_s;     /* the hardware's shortest is the boot's time */
	wd.end_ns = ktime_ns() + (uint64_t)wd.want_s * 1000000000ull;
	console_defer(watchdog_report, NULL, CONSOLE_DEFER_ITEM_BYTES * 2);
}

void watchdog_phase_end(void)
{
	if (wd.armed && wd.pets && ktime_ns() < wd.end_ns)
		wd.dev.pet(wd.dev.ctx);
}

void watchdog_disarm(void)
{
	if (!wd.armed)
		return;
	wd.armed = false;
	wd.dev.disarm(wd.dev.ctx);
}

/* ---- the watch ---- */

static struct arch_tick_firmware tick_fw;
static struct {
	volatile bool active;
	uint64_t end_ns;
	void (*expired)(void *arg);
	void *arg;
} watch;

void watchdog_set_tick(const struct arch_tick_firmware *fw)
{
	tick_fw = *fw;
}

/* On the boot CPU, as an NMI, several times a second while a watch is on. */
static void watch_tick(void)
{
	if (!watch.active || ktime_ns() < watch.end_ns)
		return;
	watch.active = false;
	arch_watch_tick_stop();
	watch.expired(watch.arg);
}

bool watchdog_watch(uint64_t limit_ns, void (*expired)(void *arg), void *arg, char *why,
		    size_t why_bytes)
{
	watch.expired = expired;
	watch.arg = arg;
	watch.end_ns = ktime_ns() + limit_ns;
	__atomic_store_n(&watch.active, true, __ATOMIC_RELEASE);
	if (!arch_watch_tick_start(&tick_fw, watch_tick, why, why_bytes)) {
		watch.active = false;
		return false;
	}
	return true;
}

void watchdog_unwatch(void)
{
	__atomic_store_n(&watch.active, false, __ATOMIC_RELEASE);
	arch_watch_tick_stop();
}

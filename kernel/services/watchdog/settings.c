/*
 * settings.c: memboot.watchdog, what a boot may take, and how a watchdog
 * is used for it (kernel/services/watchdog/watchdog.h). Pure: the host
 * tests parse the key and check the arithmetic with this same file.
 */
#include "kernel/services/watchdog/watchdog.h"

#include <stdio.h>
#include <string.h>

#include "kernel/services/cmdline.h"

struct watchdog_settings watchdog_settings = { .off = false, .seconds = 0 };

/* auto, off, or whole seconds 1..WATCHDOG_MAX_S. */
static bool parse_watchdog(const char *value, void *ptr, char *err, size_t err_bytes)
{
	struct watchdog_settings *set = ptr;
	uint64_t s;

	if (strcmp(value, "auto") == 0 || strcmp(value, "off") == 0) {
		set->off = value[1] == 'f';
		set->seconds = 0;
		return true;
	}
	if (!cmdline_parse_u64(value, &s) || s < 1 || s > WATCHDOG_MAX_S) {
		snprintf(err, err_bytes, "auto, off or seconds in 1..%u", WATCHDOG_MAX_S);
		return false;
	}
	set->off = false;
	set->seconds = (uint32_t)s;
	return true;
}

static const struct param watchdog_params[] = {
	{ .key = "memboot.watchdog", .type = PARAM_FUNC, .ptr = &watchdog_settings,
	  .fn = parse_watchdog,
	  .help = "the machine's watchdog: auto (armed for what the boot may take), off, or SECONDS" },
};
PARAM_TABLE(watchdog_param_table, "watchdog", watchdog_params);

/* @ms as whole seconds, rounded up; @none when there is no such deadline. */
static uint64_t seconds_of(uint64_t ms, uint64_t none)
{
	return ms ? (ms + 999) / 1000 : none;
}

uint32_t watchdog_budget_s(const struct watchdog_budget *b)
{
	uint64_t gib = (b->memory_bytes + (1ULL << 30) - 1) >> 30;
	uint64_t s = WATCHDOG_BASE_S;

	s += seconds_of(b->smp_timeout_ms, WATCHDOG_UNBOUNDED_S);
	s += 2 * seconds_of(b->init_deadline_ms, WATCHDOG_UNBOUNDED_S);
	/* Descriptors and freeing: 1 s per GiB; a memtest pass writes and
	 * reads every byte: 4 s per GiB (256 MiB/s, an emulated CPU's pace). */
	s += gib * (1 + 4 * (b->memtest_passes < 1000 ? b->memtest_passes : 1000));
	s += (uint64_t)b->selftests * seconds_of(b->selftest_deadline_ms, WATCHDOG_UNBOUNDED_S);
	if (b->bench)
		s += WATCHDOG_UNBOUNDED_S;
	return s > WATCHDOG_MAX_S ? WATCHDOG_MAX_S : (uint32_t)s;
}

struct watchdog_plan watchdog_plan(uint32_t want_s, uint32_t min_s, uint32_t max_s)
{
	struct watchdog_plan p = { .arm_s = want_s, .pets = false };

	if (p.arm_s < min_s)
		p.arm_s = min_s;
	if (max_s && p.arm_s > max_s) {
		p.arm_s = max_s;
		p.pets = true;
	}
	return p;
}

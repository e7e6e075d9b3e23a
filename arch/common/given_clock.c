/*
 * given_clock.c: arch/clock.h for a port whose counter rate the firmware
 * gives (arm64's CNTFRQ_EL0, Arm ARM D11.1.2; POWER's timebase-frequency,
 * Power ISA Book II "Time Base") and that has no second reference to check
 * it against: the figure is marked given, never checked, and no reference
 * is offered to phase clockcheck. The port says where the rate comes from
 * (port/given_clock.h).
 */
#include <string.h>

#include "arch/clock.h"
#include "arch/counter.h"
#include "kernel/services/log.h"
#include "port/given_clock.h"

void arch_clock_first(struct arch_clock_first *out)
{
	struct given_clock_source src = { 0 };

	memset(out, 0, sizeof(*out));
	out->hz = given_clock_hz(&src);
	out->method = src.method;
	out->known = ARCH_CLOCK_GIVEN;
	out->uncertainty_ppm = 0;
	out->phase = "early";
	out->never_checked = true;   /* arch_clock_refs() names none */
	if (out->hz == 0) {
		pr_warn("clock: %s: the firmware gave no counter frequency", src.missing);
		out->method = "none";
	}
}

void arch_clock_first_late(const struct arch_clock_tables *t, struct arch_clock_first *f)
{
	(void)t;
	f->missing[0] = '\0';   /* no timer of the tables is measured here */
}

/* A line only: the `tsc` record is x86_64's (docs/records.md); the `boot`
 * record carries the figure and its method on every architecture. */
void arch_clock_first_report(const struct arch_clock_first *f)
{
	if (f->hz)
		pr_info(ARCH_COUNTER_TAG ": %llu.%03llu MHz counter (%s: given by the firmware, no second reference to check it)",
			(unsigned long long)(f->hz / 1000000),
			(unsigned long long)(f->hz / 1000 % 1000), f->method);
	else
		pr_warn(ARCH_COUNTER_TAG ": no counter frequency (the firmware gave none)");
}

uint32_t arch_clock_refs(const struct arch_clock_tables *t, struct arch_clock_ref *refs,
			 uint32_t cap)
{
	(void)t; (void)refs; (void)cap;
	return 0;
}

bool arch_clock_ref_open(struct arch_clock_ref *ref)
{
	(void)ref;
	return false;
}

bool arch_clock_ref_measure(struct arch_clock_ref *ref, struct clockcal_result *out)
{
	(void)ref;
	memset(out, 0, sizeof(*out));
	return false;
}

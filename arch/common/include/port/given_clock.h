/*
 * port/given_clock.h: the clock of a port whose counter runs at a rate the
 * firmware gives and that has no second reference to check it against
 * (arch/common/given_clock.c implements arch/clock.h's calls for it).
 */
#ifndef MEMBOOT_PORT_GIVEN_CLOCK_H
#define MEMBOOT_PORT_GIVEN_CLOCK_H

#include <stdint.h>

/* Where a port's counter rate comes from, and what to say when it is 0. */
struct given_clock_source {
	const char *method;   /* "cntfrq", "timebase-frequency": boot.tsc_method */
	const char *missing;  /* why the rate is 0: "CNTFRQ_EL0 reads 0" */
};

/* The port's counter rate in Hz (0: none given), and @src's words. */
uint64_t given_clock_hz(struct given_clock_source *src);

#endif

/*
 * port/no_watchdog.h: a port that drives no watchdog and no watch tick yet
 * (arch/common/no_watchdog.c implements arch/watchdog.h's calls for it,
 * every one refusing with the port's reasons, so the service reports
 * "none" with them, as on a PC without a TCO).
 */
#ifndef MEMBOOT_PORT_NO_WATCHDOG_H
#define MEMBOOT_PORT_NO_WATCHDOG_H

struct no_watchdog_reasons {
	const char *find;   /* why no watchdog is found: the hardware not driven */
	const char *arm;    /* why none can be armed */
	const char *tick;   /* why no watch tick starts */
};

/* Defined by the port: its reasons. */
extern const struct no_watchdog_reasons no_watchdog_reasons;

#endif

/*
 * p64/opal.h (ppc64le): OPAL, the firmware interface skiboot leaves
 * resident on a PowerNV machine (bare metal: the kernel is the
 * hypervisor). The calls memboot makes, their tokens and statuses
 * (skiboot's opal-api.h), and the call itself (entry.S).
 */
#ifndef MEMBOOT_P64_OPAL_H
#define MEMBOOT_P64_OPAL_H

#include <stdbool.h>
#include <stdint.h>

#define OPAL_SUCCESS 0
#define OPAL_PARAMETER (-1)
#define OPAL_BUSY (-2)
#define OPAL_HARDWARE (-6)
#define OPAL_WRONG_STATE (-14)
#define OPAL_BUSY_EVENT (-12)

#define OPAL_CONSOLE_WRITE 1        /* terminal, &length (big-endian), buffer */
#define OPAL_CEC_POWER_DOWN 5       /* request: 0 */
#define OPAL_CEC_REBOOT 6
#define OPAL_POLL_EVENTS 10         /* &events or 0: lets OPAL make progress */
#define OPAL_START_CPU 41           /* server number (PIR), start address */
#define OPAL_REINIT_CPUS 70         /* flags, for every CPU at once */
#define OPAL_REINIT_CPUS_HILE_BE 0x1
#define OPAL_REINIT_CPUS_MMU_RADIX 0x8

/* r8 and r9 at a PowerNV entry (entry.S); both 0 on pseries. */
extern uint64_t ppc_opal_base, ppc_opal_entry;

/* One OPAL call (entry.S): @token with up to four arguments; OPAL's
 * status (OPAL_SUCCESS 0, negative an error). PowerNV only. */
int64_t ppc_opal_call(uint64_t token, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);

/* Entered by skiboot (PowerNV, OPAL present) rather than by Open
 * Firmware (pseries). */
static inline bool ppc_powernv(void)
{
	return ppc_opal_entry != 0;
}

/* The message for an OPAL status. */
static inline const char *ppc_opal_error(int64_t rc)
{
	switch (rc) {
	case OPAL_SUCCESS: return "success";
	case OPAL_PARAMETER: return "parameter error";
	case OPAL_BUSY: return "busy";
	case OPAL_HARDWARE: return "hardware error";
	case OPAL_BUSY_EVENT: return "busy (events pending)";
	case OPAL_WRONG_STATE: return "wrong state";
	default: return "an unknown status";
	}
}

#endif

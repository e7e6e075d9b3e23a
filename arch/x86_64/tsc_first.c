/*
 * tsc_first.c: the first figure's reference and the missing ones' names
 * (x86/tsc_first.h). Pure: the host tests build it as it is.
 */
#include "x86/tsc_first.h"

#include <stddef.h>

enum tsc_first tsc_first(unsigned have, bool acpi_read)
{
	if (have & (TSC_HAVE_CPUID | TSC_HAVE_PIT))
		return TSC_FIRST_EARLY;
	if (!acpi_read)
		return TSC_FIRST_WAIT;
	if (have & TSC_HAVE_HPET)
		return TSC_FIRST_HPET;
	if (have & TSC_HAVE_PM_TIMER)
		return TSC_FIRST_PM_TIMER;
	return TSC_FIRST_ASSUMED;
}

uint32_t tsc_missing(unsigned have, char *buf, uint32_t len)
{
	static const struct { unsigned bit; const char *name; } refs[] = {
		{ TSC_HAVE_CPUID, "cpuid" },
		{ TSC_HAVE_PIT, "pit" },
		{ TSC_HAVE_HPET, "hpet" },
		{ TSC_HAVE_PM_TIMER, "pm_timer" },
	};
	uint32_t at = 0;

	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		if (have & refs[i].bit)
			continue;
		for (const char *p = at ? "," : ""; *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
		for (const char *p = refs[i].name; *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
	}
	if (len)
		buf[at < len ? at : len - 1] = '\0';
	return at;
}

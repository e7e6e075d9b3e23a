/*
 * x86/tsc_first.h: which of x86's references gives the boot its first TSC
 * figure (the quick estimate), from what the machine has, and the names of
 * the ones it lacks: pure, host-tested (tests/host/test_clockcal.c).
 */
#ifndef MEMBOOT_X86_TSC_FIRST_H
#define MEMBOOT_X86_TSC_FIRST_H

#include <stdbool.h>
#include <stdint.h>

/* The references, as a mask: */
enum {
	TSC_HAVE_CPUID = 1u << 0,     /* CPUID 0x40000010, 0x15 or 0x16 gave a figure */
	TSC_HAVE_PIT = 1u << 1,       /* PIT channel 2 counts */
	TSC_HAVE_HPET = 1u << 2,      /* an HPET table, its registers mapped */
	TSC_HAVE_PM_TIMER = 1u << 3,  /* the FADT names a PM timer port */
	TSC_HAVE_ALL = 0xf,
};
enum tsc_first {
	/* CPUID or the PIT, in phase early (clockcal_choose() picks between
	 * the two when both exist). */
	TSC_FIRST_EARLY,
	/* Neither, and the ACPI tables are not read yet: no figure until they
	 * are. Nothing times anything before phase acpi but the consoles,
	 * whose timeouts take a 4 GHz upper bound meanwhile
	 * (kernel/services/console/out/). */
	TSC_FIRST_WAIT,
	TSC_FIRST_HPET,       /* phase acpi: the HPET (a memory read, the finer) */
	TSC_FIRST_PM_TIMER,   /* phase acpi: the PM timer, where no HPET measured */
	/* Nothing at all: a figure must be assumed, and every time the boot
	 * prints is unreliable. */
	TSC_FIRST_ASSUMED,
};
/* @have: TSC_HAVE_* bits, of a reference known to be there (a reference
 * that was tried and gave no figure is taken out by the caller, which asks
 * again); @acpi_read: whether the HPET and PM timer bits are known yet.
 * Never TSC_FIRST_ASSUMED while a reference is there. */
enum tsc_first tsc_first(unsigned have, bool acpi_read);

/* The references missing from @have, named for a line and a record
 * ("pit,hpet", "" when none is missing) into @buf of @len bytes (cut to
 * fit, always terminated when @len > 0). Returns the names' length. */
uint32_t tsc_missing(unsigned have, char *buf, uint32_t len);

#endif

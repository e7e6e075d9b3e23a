/*
 * arch/watchdog.h: the machine's watchdog timer, the registers an ACPI
 * WDAT's instructions name, and the watch tick.
 *
 * The policy (which watchdog, armed for how long, when it is petted and
 * disarmed, memboot.watchdog, the `watchdog` record) is the service's
 * (kernel/services/watchdog/); a watchdog the firmware describes in an ACPI
 * WDAT is parsed by kernel/firmware/acpi/wdat.c and run by the service
 * through arch_watchdog_reg_read/write(). What each architecture has of
 * its own:
 *
 *   x86_64   the TCO watchdog of Intel's LPC bridge at PCI 00:1f.0 in its
 *            ICH6..ICH10 and 5- to 8-series PCH form (Linux's iTCO_wdt
 *            "version 2", QEMU's q35): its I/O registers at the PM base +
 *            0x60, the NO_REBOOT bit in the chipset's GCS register (root
 *            complex base + 0x3410); later PCHs (TCO version 4 and on,
 *            Skylake's and after: the TCO base in the SMBus function, the
 *            NO_REBOOT bit in the PMC) are not driven, nor is an IPMI BMC's
 *            watchdog. The watch tick: PIT channel 0 through the I/O APIC
 *            line the MADT gives ISA IRQ 0, delivered as an NMI to the boot
 *            CPU.
 *   arm64    the SBSA generic watchdog (ACPI GTDT) and a pseudo-NMI tick:
 *            not yet, none
 *   POWER    none
 */
#ifndef MEMBOOT_ARCH_WATCHDOG_H
#define MEMBOOT_ARCH_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The machine's own watchdog, as arch_watchdog_find() found it. */
struct arch_watchdog {
	const char *name;        /* the device, for the record ("tco") */
	uint32_t min_s, max_s;   /* what arch_watchdog_arm() takes: seconds from a pet to the reset */
	bool fired;              /* its status said the previous boot was ended by it (cleared now) */
	uint32_t id;             /* the device's own identity (x86_64: the PCI device ID) */
	uint64_t arch[4];        /* the architecture's (x86_64: the I/O and register bases) */
};

/*
 * Look for the machine's own watchdog: true and @wd filled when there is one
 * memboot can drive (it is left as found: not armed, not stopped); false
 * with @why saying what is missing ("no Intel LPC bridge at PCI 00:1f.0").
 */
bool arch_watchdog_find(struct arch_watchdog *wd, char *why, size_t why_bytes);

/*
 * Arm @wd to reset the machine @seconds (min_s..max_s) from now unless
 * petted; returns the seconds the hardware counts (its unit rounds), 0 with
 * @why filled when the device refused (the reset cannot be enabled, or the
 * timer did not start).
 */
uint32_t arch_watchdog_arm(struct arch_watchdog *wd, uint32_t seconds, char *why,
			   size_t why_bytes);
/* Start the armed time again from now. */
void arch_watchdog_pet(const struct arch_watchdog *wd);
/* Stop it: the machine is not reset. */
void arch_watchdog_disarm(const struct arch_watchdog *wd);

/*
 * A register an ACPI Generic Address Structure names (ACPI 6.5 5.2.3.2):
 * @space 0 system memory, 1 system I/O; @bytes 1, 2, 4 (or 8 in memory).
 * False, and nothing read or written, where this machine has no such space
 * or the address is not mapped.
 */
#define ARCH_GAS_MEMORY 0
#define ARCH_GAS_IO 1
bool arch_watchdog_reg_read(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value);
bool arch_watchdog_reg_write(uint8_t space, uint64_t address, unsigned bytes, uint64_t value);

/* What the firmware says of the tick's timer (x86_64: the MADT's I/O APIC
 * that holds ISA IRQ 0's global system interrupt, after its overrides). */
struct arch_tick_firmware {
	bool valid;
	uint64_t controller_phys;    /* the interrupt controller with the timer's line */
	uint32_t controller_gsi_base;
	uint32_t timer_gsi;          /* the timer's global system interrupt */
	uint16_t timer_flags;        /* its MPS INTI flags (polarity, trigger) */
};

/*
 * The watch tick: @fn called on the boot CPU as a non-maskable interrupt
 * several times a second (x86_64: about 18), whatever that CPU is doing (a
 * loop with interrupts off included), until arch_watch_tick_stop(). @fn runs in
 * NMI context: it must not wait for anything the interrupted code may hold;
 * it may end the boot (it never returns then). False, with @why filled,
 * when there is no such timer here.
 */
bool arch_watch_tick_start(const struct arch_tick_firmware *fw, void (*fn)(void), char *why,
			   size_t why_bytes);
void arch_watch_tick_stop(void);

#endif

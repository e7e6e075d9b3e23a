/*
 * watch_tick.c: the watch tick on x86_64 (arch/watchdog.h): PIT channel 0
 * as a rate generator, its line on the I/O APIC programmed to deliver an
 * NMI to the boot CPU, so the tick reaches that CPU with interrupts off.
 *
 *   PIT (Intel 8254): port 0x43 control word 0x34 = channel 0, low then
 *   high byte, mode 2 (rate generator); port 0x40 the divisor of its
 *   1.193182 MHz: 0 is 65536, the slowest, 18.2 ticks a second. memboot's
 *   clock uses channel 2 only (tsc.c).
 *
 *   I/O APIC (Intel's 82093AA datasheet, 3.2): IOREGSEL at +0x00, IOWIN at
 *   +0x10; register 0x01 bits 23:16 the last redirection entry; entry n at
 *   registers 0x10 + 2n (low: bits 10:8 delivery mode, 100b NMI; bit 11
 *   logical destination; bit 13 active low; bit 15 level; bit 16 masked)
 *   and 0x11 + 2n (bits 31:24 the destination APIC ID). An NMI is edge
 *   triggered (the vector is ignored). The entry found is put back at stop.
 *
 * The 8259 PICs stay masked (tlb.c), so the PIT's line reaches nothing
 * else. The MADT's interrupt source override for ISA IRQ 0 (QEMU: GSI 2)
 * gives the line and its polarity.
 */
#include "arch/watchdog.h"

#include <stdio.h>

#include "arch/cpu.h"
#include "arch/map.h"
#include "x86/io.h"

#define PIT_CH0 0x40
#define PIT_CMD 0x43

#define IOAPIC_VER 0x01
#define IOAPIC_REDIR(n) (0x10 + 2 * (n))
#define REDIR_NMI (4u << 8)
#define REDIR_ACTIVE_LOW (1u << 13)
#define REDIR_LEVEL (1u << 15)
#define REDIR_MASKED (1u << 16)

static volatile uint32_t *ioapic;
static uint32_t pin, saved_lo, saved_hi;
static void (*volatile tick_fn)(void);

/* The tick once stopped: an edge already on its way when the line was
 * masked may still arrive, and must not be taken for a hardware NMI (a
 * fatal exception). So after the first watch an NMI is a tick's and is
 * ignored: the boot's other NMIs (the MADT's LINT wiring: a BMC's button,
 * a chipset error) are then ignored too, which the docs say. */
static void tick_stopped(void)
{
}

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic[0] = reg;
	return ioapic[4];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic[0] = reg;
	ioapic[4] = v;
}

bool arch_watch_tick_start(const struct arch_tick_firmware *fw, void (*fn)(void), char *why,
			   size_t why_bytes)
{
	uint32_t last, lo, hwid = arch_cpu_hwid();

	if (!fw->valid) {
		snprintf(why, why_bytes, "the MADT lists no I/O APIC for ISA IRQ 0");
		return false;
	}
	if (!arch_map_phys(NULL, fw->controller_phys, 0x20)) {
		snprintf(why, why_bytes, "the I/O APIC at 0x%llx is not mapped",
			 (unsigned long long)fw->controller_phys);
		return false;
	}
	/* Level or active-low NMIs are not for a PIT. */
	if ((fw->timer_flags & 0xc) == 0xc) {
		snprintf(why, why_bytes, "ISA IRQ 0 (GSI %u) is level triggered", fw->timer_gsi);
		return false;
	}
	if (hwid > 0xff) {
		snprintf(why, why_bytes, "the boot CPU's APIC ID %u is beyond an I/O APIC's 8 bits",
			 hwid);
		return false;
	}
	ioapic = (volatile uint32_t *)(uintptr_t)fw->controller_phys;
	last = ioapic_read(IOAPIC_VER) >> 16 & 0xff;
	if (fw->timer_gsi < fw->controller_gsi_base || fw->timer_gsi - fw->controller_gsi_base > last) {
		snprintf(why, why_bytes, "GSI %u is not among the I/O APIC's %u lines from GSI %u",
			 fw->timer_gsi, last + 1, fw->controller_gsi_base);
		return false;
	}
	pin = fw->timer_gsi - fw->controller_gsi_base;
	tick_fn = fn;
	if (!saved_lo && !saved_hi) {
		saved_lo = ioapic_read(IOAPIC_REDIR(pin));
		saved_hi = ioapic_read(IOAPIC_REDIR(pin) + 1);
	}
	outb(PIT_CMD, 0x34);
	outb(PIT_CH0, 0);
	outb(PIT_CH0, 0);
	lo = REDIR_NMI | ((fw->timer_flags & 3) == 3 ? REDIR_ACTIVE_LOW : 0);
	ioapic_write(IOAPIC_REDIR(pin) + 1, hwid << 24);
	ioapic_write(IOAPIC_REDIR(pin), lo);
	return true;
}

void arch_watch_tick_stop(void)
{
	if (!ioapic)
		return;
	ioapic_write(IOAPIC_REDIR(pin), REDIR_MASKED);
	ioapic_write(IOAPIC_REDIR(pin) + 1, saved_hi);
	ioapic_write(IOAPIC_REDIR(pin), saved_lo | REDIR_MASKED);
	tick_fn = tick_stopped;
}

/* trap.c: an NMI while the tick runs is the tick's. */
bool x86_watch_tick_nmi(void)
{
	void (*fn)(void) = tick_fn;

	if (!fn)
		return false;
	fn();
	return true;
}

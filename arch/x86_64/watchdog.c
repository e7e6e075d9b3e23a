/*
 * watchdog.c: the TCO watchdog of Intel's LPC bridge (arch/watchdog.h),
 * and the registers a WDAT's instructions name.
 *
 * The registers (Intel's ICH9 datasheet, 13.1 "LPC interface bridge"
 * configuration registers and 13.9 "TCO registers"; the same rules as
 * Linux's drivers/watchdog/iTCO_wdt.c for its version 2; QEMU's
 * hw/acpi/ich9_tco.c implements them for q35):
 *
 *   PCI 00:1f.0   vendor 0x8086, class 0x0601 (ISA bridge)
 *     0x40 PMBASE     the ACPI PM I/O block's base (bits 15:7)
 *     0x44 ACPI_CNTL  bit 7 ACPI_EN: the PM block decodes
 *     0xf0 RCBA       the root complex's register block (bits 31:14), bit 0 enabled
 *   RCBA + 0x3410 GCS  bit 5 NO_REBOOT: a timeout does not reset (a strap
 *                      or the firmware may set it; it must be cleared)
 *   PMBASE + 0x60 TCO block:
 *     0x00 TCO_RLD    any write reloads the timer
 *     0x04 TCO1_STS   bit 3 TIMEOUT (first expiry; write 1 to clear)
 *     0x06 TCO2_STS   bit 1 SECOND_TO_STS (the second expiry reset the
 *                     machine), bit 2 BOOT_STS; write 1 to clear
 *     0x08 TCO1_CNT   bit 11 TCO_TMR_HLT: the timer is halted
 *     0x12 TCO_TMR    bits 9:0, the count in 0.6 s ticks
 *
 * The timer counts TCO_TMR down twice: the first expiry sets TIMEOUT (and
 * an SMI where the firmware asked for one) and reloads, the second resets
 * the machine, so @seconds is two counts: TCO_TMR = seconds / 1.2 rounded
 * up, 4 to 1023 (Linux's limits), 5 to 1227 seconds in all.
 *
 * QEMU's model writes status registers as values where the hardware clears
 * the bits written as 1; clearing writes the 1 first, then 0 where the bit
 * is still set (a 0 changes nothing on hardware).
 */
#include "arch/watchdog.h"

#include <stdio.h>

#include "arch/map.h"
#include "x86/io.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define LPC_DEVFN ((0x1fu << 3) | 0)   /* bus 0, device 31, function 0 */

#define LPC_PMBASE 0x40
#define LPC_ACPI_CNTL 0x44
#define LPC_ACPI_EN (1u << 7)
#define LPC_RCBA 0xf0
#define LPC_RCBA_EN 1u
#define RCBA_GCS 0x3410
#define GCS_NO_REBOOT (1u << 5)

#define TCO_OFFSET 0x60
#define TCO_RLD 0x00
#define TCO1_STS 0x04
#define TCO2_STS 0x06
#define TCO1_CNT 0x08
#define TCO_TMR 0x12
#define TCO1_TIMEOUT (1u << 3)
#define TCO2_SECOND_TO (1u << 1)
#define TCO2_BOOT_STS (1u << 2)
#define TCO_TMR_HLT (1u << 11)
#define TCO_TMR_MASK 0x3ffu
#define TCO_TMR_MIN 4u

/* struct arch_watchdog's arch words. */
enum { WD_TCO_BASE, WD_GCS_ADDR };

static uint32_t pci_read32(uint32_t devfn, uint32_t reg)
{
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | devfn << 8 | (reg & 0xfc));
	return inl(PCI_CONFIG_DATA);
}

static uint16_t tco_read(const struct arch_watchdog *wd, uint16_t reg)
{
	return inw((uint16_t)(wd->arch[WD_TCO_BASE] + reg));
}

static void tco_write(const struct arch_watchdog *wd, uint16_t reg, uint16_t v)
{
	outw((uint16_t)(wd->arch[WD_TCO_BASE] + reg), v);
}

/* Clear status bits @bits of @reg, on hardware (write 1) and on QEMU's
 * model (write the value) alike. */
static void tco_clear(const struct arch_watchdog *wd, uint16_t reg, uint16_t bits)
{
	tco_write(wd, reg, bits);
	if (tco_read(wd, reg) & bits)
		tco_write(wd, reg, (uint16_t)(tco_read(wd, reg) & ~bits));
}

static volatile uint32_t *gcs(const struct arch_watchdog *wd)
{
	return (volatile uint32_t *)(uintptr_t)wd->arch[WD_GCS_ADDR];
}

bool arch_watchdog_find(struct arch_watchdog *wd, char *why, size_t why_bytes)
{
	uint32_t id = pci_read32(LPC_DEVFN, 0x00), class = pci_read32(LPC_DEVFN, 0x08) >> 8;
	uint32_t pmbase, acpi_cntl, rcba;

	*wd = (struct arch_watchdog){ .name = "tco" };
	if ((id & 0xffff) != 0x8086 || class != 0x060100) {
		snprintf(why, why_bytes, "no Intel LPC bridge at PCI 00:1f.0 (%04x:%04x, class %06x)",
			 id & 0xffff, id >> 16, class);
		return false;
	}
	wd->id = id >> 16;
	pmbase = pci_read32(LPC_DEVFN, LPC_PMBASE) & 0xff80;
	acpi_cntl = pci_read32(LPC_DEVFN, LPC_ACPI_CNTL) & 0xff;
	rcba = pci_read32(LPC_DEVFN, LPC_RCBA);
	if (!pmbase || !(acpi_cntl & LPC_ACPI_EN)) {
		snprintf(why, why_bytes, "Intel LPC bridge %04x: its PM I/O block is off "
			 "(PMBASE 0x%x, ACPI_CNTL 0x%x)", wd->id, pmbase, acpi_cntl);
		return false;
	}
	/* Skylake's PCH and later have no root complex block here (the
	 * register reads 0 or all ones): their TCO is elsewhere. */
	if (!(rcba & LPC_RCBA_EN) || rcba == 0xffffffffu || !(rcba & ~0x3fffu)) {
		snprintf(why, why_bytes, "Intel LPC bridge %04x has no root complex register block "
			 "(RCBA 0x%x): not a TCO version 2 chipset (ICH6..ICH10, 5- to 8-series PCH)",
			 wd->id, rcba);
		return false;
	}
	wd->arch[WD_TCO_BASE] = pmbase + TCO_OFFSET;
	wd->arch[WD_GCS_ADDR] = (rcba & ~0x3fffu) + RCBA_GCS;
	if (!arch_map_phys(NULL, wd->arch[WD_GCS_ADDR], 4)) {
		snprintf(why, why_bytes, "Intel LPC bridge %04x: its GCS register at 0x%llx is not "
			 "mapped", wd->id, (unsigned long long)wd->arch[WD_GCS_ADDR]);
		return false;
	}
	wd->min_s = 5;
	wd->max_s = TCO_TMR_MASK * 12 / 10;
	wd->fired = (tco_read(wd, TCO2_STS) & TCO2_SECOND_TO) != 0;
	if (wd->fired)
		tco_clear(wd, TCO2_STS, TCO2_SECOND_TO | TCO2_BOOT_STS);
	return true;
}

uint32_t arch_watchdog_arm(struct arch_watchdog *wd, uint32_t seconds, char *why,
			   size_t why_bytes)
{
	/* Each of the two counts, in 0.6 s: at least @seconds in all. */
	uint32_t ticks = (uint32_t)(((uint64_t)seconds * 10 + 11) / 12);
	uint16_t v;

	if (ticks < TCO_TMR_MIN)
		ticks = TCO_TMR_MIN;
	if (ticks > TCO_TMR_MASK)
		ticks = TCO_TMR_MASK;
	v = tco_read(wd, TCO_TMR);
	tco_write(wd, TCO_TMR, (uint16_t)((v & ~TCO_TMR_MASK) | ticks));
	if ((tco_read(wd, TCO_TMR) & TCO_TMR_MASK) != ticks) {
		snprintf(why, why_bytes, "TCO_TMR did not take %u", ticks);
		return 0;
	}
	*gcs(wd) &= ~GCS_NO_REBOOT;
	if (*gcs(wd) & GCS_NO_REBOOT) {
		snprintf(why, why_bytes, "the NO_REBOOT bit (GCS 0x%x) stays set: the firmware or a "
			 "strap forbids the reset", *gcs(wd));
		return 0;
	}
	tco_clear(wd, TCO1_STS, TCO1_TIMEOUT);
	tco_write(wd, TCO_RLD, 1);
	tco_write(wd, TCO1_CNT, (uint16_t)(tco_read(wd, TCO1_CNT) & ~TCO_TMR_HLT));
	if (tco_read(wd, TCO1_CNT) & TCO_TMR_HLT) {
		snprintf(why, why_bytes, "the timer stays halted (TCO1_CNT 0x%x; TCO_LOCK?)",
			 tco_read(wd, TCO1_CNT));
		return 0;
	}
	return ticks * 12 / 10;
}

void arch_watchdog_pet(const struct arch_watchdog *wd)
{
	/* The reload, and the first expiry forgotten: two full counts again. */
	tco_write(wd, TCO_RLD, 1);
	tco_clear(wd, TCO1_STS, TCO1_TIMEOUT);
}

void arch_watchdog_disarm(const struct arch_watchdog *wd)
{
	tco_write(wd, TCO1_CNT, (uint16_t)(tco_read(wd, TCO1_CNT) | TCO_TMR_HLT));
	/* As Linux leaves it: no reset even if something starts it again. */
	*gcs(wd) |= GCS_NO_REBOOT;
}

bool arch_watchdog_reg_read(uint8_t space, uint64_t address, unsigned bytes, uint64_t *value)
{
	if (space == ARCH_GAS_IO) {
		if (address > 0xffff || address + bytes > 0x10000)
			return false;
		switch (bytes) {
		case 1: *value = inb((uint16_t)address); return true;
		case 2: *value = inw((uint16_t)address); return true;
		case 4: *value = inl((uint16_t)address); return true;
		default: return false;
		}
	}
	if (space != ARCH_GAS_MEMORY || (address & (bytes - 1)) || !arch_map_phys(NULL, address, bytes))
		return false;
	switch (bytes) {
	case 1: *value = *(volatile uint8_t *)(uintptr_t)address; return true;
	case 2: *value = *(volatile uint16_t *)(uintptr_t)address; return true;
	case 4: *value = *(volatile uint32_t *)(uintptr_t)address; return true;
	case 8: *value = *(volatile uint64_t *)(uintptr_t)address; return true;
	default: return false;
	}
}

bool arch_watchdog_reg_write(uint8_t space, uint64_t address, unsigned bytes, uint64_t value)
{
	if (space == ARCH_GAS_IO) {
		if (address > 0xffff || address + bytes > 0x10000)
			return false;
		switch (bytes) {
		case 1: outb((uint16_t)address, (uint8_t)value); return true;
		case 2: outw((uint16_t)address, (uint16_t)value); return true;
		case 4: outl((uint16_t)address, (uint32_t)value); return true;
		default: return false;
		}
	}
	if (space != ARCH_GAS_MEMORY || (address & (bytes - 1)) || !arch_map_phys(NULL, address, bytes))
		return false;
	switch (bytes) {
	case 1: *(volatile uint8_t *)(uintptr_t)address = (uint8_t)value; return true;
	case 2: *(volatile uint16_t *)(uintptr_t)address = (uint16_t)value; return true;
	case 4: *(volatile uint32_t *)(uintptr_t)address = (uint32_t)value; return true;
	case 8: *(volatile uint64_t *)(uintptr_t)address = value; return true;
	default: return false;
	}
}

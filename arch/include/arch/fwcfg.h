/*
 * arch/fwcfg.h: QEMU's firmware configuration device (QEMU's
 * docs/specs/fw_cfg.rst): select an item, then read its bytes from the
 * start. Where it is depends on the architecture:
 *
 *   x86_64   I/O ports 0x510 (selector) and 0x511 (data), DMA at 0x514:
 *            fixed, nothing to locate
 *   arm64    memory-mapped where the firmware says (a device tree's
 *            "qemu,fw-cfg-mmio" node); QEMU virt's 0x9020000 where only
 *            the ACPI DSDT says (AML, not parsed: boot/boot.c's fallback,
 *            on a machine that says it is QEMU's)
 *   POWER    none on pseries or powernv
 *
 * Only under a hypervisor (arch_cpu_info.has_hypervisor): hardware has no
 * such device and whatever answers there is not it.
 */
#ifndef MEMBOOT_ARCH_FWCFG_H
#define MEMBOOT_ARCH_FWCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The item every fw_cfg device has: the four bytes "QEMU". */
#define ARCH_FWCFG_SIGNATURE 0x0000

/* Where the device is on a QEMU machine of this architecture when the
 * firmware's tables name no place: @bytes 0 where it is not memory-mapped
 * (x86's ports, always there); @name for messages. */
struct arch_fwcfg_regs {
	uint64_t base, bytes;
	const char *name;
};

/* QEMU's place for the device on this architecture (@out); false where
 * QEMU gives it none (POWER): every read then fails. */
bool arch_fwcfg_default(struct arch_fwcfg_regs *out);

/* A memory-mapped device's registers are at @base (mapped, clear of RAM:
 * the caller checked) from now on; 0: there is none, every read fails,
 * as before the first call. Ignored where the device is not
 * memory-mapped. */
void arch_fwcfg_use(uint64_t base);

/* Select item @select; the next read starts at its first byte. */
void arch_fwcfg_select(uint16_t select);

/*
 * The next @len bytes of the selected item into @buf (through the DMA
 * interface where the device has one). False if the device reported an
 * error: what @buf holds is then not the item's, and the caller must not
 * use it.
 */
bool arch_fwcfg_read(void *buf, size_t len);

#endif

/*
 * arch/fwcfg.h: QEMU's firmware configuration device (QEMU's
 * docs/specs/fw_cfg.rst): select an item, then read its bytes from the
 * start. Where it is depends on the architecture:
 *
 *   x86_64   I/O ports 0x510 (selector) and 0x511 (data), DMA at 0x514
 *   arm64    QEMU virt: MMIO at 0x9020000 (the device tree's
 *            "qemu,fw-cfg-mmio" node says so)
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

/*
 * fwcfg.h: QEMU's firmware configuration device through its I/O ports
 * (docs/specs/fw_cfg.rst in QEMU): a 16-bit selector at 0x510, then the
 * selected item's bytes, sequentially from its start. Only to be touched
 * under a hypervisor (bare metal has no device).
 */
#ifndef MEMBOOT_ARCH_FWCFG_H
#define MEMBOOT_ARCH_FWCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000    /* the item that reads "QEMU" */

/* Select item @select; the next read starts at its first byte. */
void fwcfg_select(uint16_t select);

/*
 * The next @len bytes of the selected item into @buf: through the DMA
 * interface where the device has one (a port write per 4 KiB), a byte a
 * port read otherwise. False if the device reported a DMA error: what @buf
 * holds is then not the item's, and the caller must not use it.
 */
bool fwcfg_read(void *buf, size_t len);

#endif

/*
 * fwcfg.h: QEMU's firmware configuration device through its I/O ports
 * (docs/specs/fw_cfg.txt in QEMU): a 16-bit selector at 0x510, data read a
 * byte at a time from 0x511, sequentially from the start of the selected
 * item. Only to be touched under a hypervisor (bare metal has no device).
 */
#ifndef MEMBOOT_ARCH_FWCFG_H
#define MEMBOOT_ARCH_FWCFG_H

#include <stddef.h>
#include <stdint.h>

#include "arch/io.h"

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511

static inline void fwcfg_select(uint16_t select)
{
	outw(FW_CFG_PORT_SEL, select);
}

/* The next @len bytes of the selected item. */
static inline void fwcfg_read(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = inb(FW_CFG_PORT_DATA);
}

#endif

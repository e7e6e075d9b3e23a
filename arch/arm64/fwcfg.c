/*
 * fwcfg.c (arm64): QEMU's fw_cfg device on virt, memory-mapped at
 * 0x9020000 (the device tree's "qemu,fw-cfg-mmio" node): the data register
 * at +0 (8 bytes wide, read as bytes here), the selector at +8, big-endian
 * (QEMU docs/specs/fw_cfg.rst, "MMIO register interface"). No DMA: the
 * items memboot reads are small.
 */
#include "arch/fwcfg.h"

#define FWCFG_VIRT_BASE 0x9020000ULL
#define FWCFG_DATA (FWCFG_VIRT_BASE + 0)
#define FWCFG_SELECTOR (FWCFG_VIRT_BASE + 8)

void arch_fwcfg_select(uint16_t select)
{
	*(volatile uint16_t *)(uintptr_t)FWCFG_SELECTOR = __builtin_bswap16(select);
}

bool arch_fwcfg_read(void *buf, size_t len)
{
	uint8_t *b = buf;

	for (size_t i = 0; i < len; i++)
		b[i] = *(volatile uint8_t *)(uintptr_t)FWCFG_DATA;
	return true;
}

/*
 * fwcfg.c (arm64): QEMU's fw_cfg device, memory-mapped: the data register
 * at +0 (8 bytes wide, read as bytes here), the selector at +8, big-endian
 * (QEMU docs/specs/fw_cfg.rst, "MMIO register interface"). Where it is,
 * boot/boot.c finds (arch_fwcfg_use()): the device tree's
 * "qemu,fw-cfg-mmio" node, else QEMU virt's fixed place (hw/arm/virt.c's
 * VIRT_FW_CFG: 0x9020000, 0x18 bytes). No DMA: the items memboot reads
 * are small.
 */
#include "arch/fwcfg.h"

#define FWCFG_VIRT_BASE 0x9020000ULL
#define FWCFG_VIRT_BYTES 0x18ULL
#define FWCFG_DATA 0
#define FWCFG_SELECTOR 8

/* 0 until located: no device, every read fails. */
static uint64_t fwcfg_base;

bool arch_fwcfg_default(struct arch_fwcfg_regs *out)
{
	*out = (struct arch_fwcfg_regs){ FWCFG_VIRT_BASE, FWCFG_VIRT_BYTES,
					 "QEMU virt's fixed place" };
	return true;
}

void arch_fwcfg_use(uint64_t base)
{
	fwcfg_base = base;
}

void arch_fwcfg_select(uint16_t select)
{
	if (fwcfg_base)
		*(volatile uint16_t *)(uintptr_t)(fwcfg_base + FWCFG_SELECTOR) =
			__builtin_bswap16(select);
}

bool arch_fwcfg_read(void *buf, size_t len)
{
	uint8_t *b = buf;

	if (!fwcfg_base)
		return false;
	for (size_t i = 0; i < len; i++)
		b[i] = *(volatile uint8_t *)(uintptr_t)(fwcfg_base + FWCFG_DATA);
	return true;
}

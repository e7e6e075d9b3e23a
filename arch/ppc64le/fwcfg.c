/*
 * fwcfg.c (ppc64le): QEMU gives pseries and powernv no fw_cfg device
 * (arch/fwcfg.h): every read fails, so the kernel finds no fw_cfg file and
 * takes its command line from the device tree's /chosen bootargs.
 */
#include "arch/fwcfg.h"

bool arch_fwcfg_default(struct arch_fwcfg_regs *out)
{
	*out = (struct arch_fwcfg_regs){ 0, 0, "none" };
	return false;
}

void arch_fwcfg_use(uint64_t base)
{
	(void)base;
}

void arch_fwcfg_select(uint16_t select)
{
	(void)select;
}

bool arch_fwcfg_read(void *buf, size_t len)
{
	(void)buf;
	(void)len;
	return false;
}

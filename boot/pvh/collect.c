/*
 * collect.c: PVH as one of boot_collect()'s protocols (QEMU -kernel on
 * x86_64: EBX the start info's 32-bit address, memboot's PVH entry passes
 * the magic beside it).
 */
#include <stdint.h>

#include "arch/map.h"
#include "boot/boot.h"
#include "boot/pvh/pvh.h"
#include "kernel/services/log.h"

static enum boot_match pvh_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				     const struct dt_machine **dt)
{
	(void)dt;
	if (arg0 > UINT32_MAX || arg1 > UINT32_MAX || (uint32_t)arg0 != PVH_BOOT_MAGIC)
		return BOOT_NOT_MINE;
	const uint32_t info = (uint32_t)arg1;
	enum pvh_status st = pvh_parse((uint32_t)arg0, info, arch_map_phys, NULL, bi);
	if (st == PVH_OK)
		return BOOT_OK;
	pr_err("boot: PVH start info at 0x%x unusable (%s)", info, pvh_status_name(st));
	return BOOT_BAD;
}
BOOT_PROTOCOL(pvh_protocol, "PVH", pvh_collect);

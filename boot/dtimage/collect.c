/*
 * collect.c: the device tree in x0 as one of boot_collect()'s protocols
 * (Linux's arm64 boot protocol: x0 the tree's physical address, x1-x3
 * zero). A tree is recognised by its magic where x0 points, read through
 * the boot map, so no other protocol's registers are mistaken for one.
 */
#include <stdint.h>

#include "arch/map.h"
#include "boot/boot.h"
#include "boot/dtimage/dtimage.h"
#include "kernel/services/log.h"

/* The machine the tree describes, for phase numa (boot_collect()'s @dt):
 * large (8192 CPUs, FORM2 tables), so only this protocol's kernels have it. */
static struct dt_machine machine;

static enum boot_match dt_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				     const struct dt_machine **dt)
{
	const void *p;

	if (arg1 != 0 || arg0 == 0 || (arg0 & 7) ||
	    (p = arch_map_phys(NULL, arg0, 4)) == NULL || !dtimage_is_tree(p))
		return BOOT_NOT_MINE;
	enum dtimage_status st = dtimage_parse(arg0, arch_map_phys, NULL, bi, &machine);
	if (st == DTIMAGE_OK) {
		*dt = &machine;
		return BOOT_OK;
	}
	pr_err("boot: device tree at 0x%llx unusable (%s)", (unsigned long long)arg0,
	       dtimage_status_name(st));
	return BOOT_BAD;
}
BOOT_PROTOCOL(dt_protocol, "a device tree in x0", dt_collect);

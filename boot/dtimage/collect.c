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
#include "boot/efi_config.h"
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
/* b1b621d5-f19c-41a5-830b-d9152c69aae0 (UEFI 2.10 4.6.1.3, EFI_DTB_TABLE_GUID),
 * in the byte order EFI_GUID lies in memory. */
static const uint8_t dtb_guid[16] = {
	0xd5, 0x21, 0xb6, 0xb1, 0x9c, 0xf1, 0xa5, 0x41,
	0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0,
};

/*
 * The tree a UEFI firmware without ACPI published (boot/boot.h, efi_tree):
 * the EFI memory map stays the authority on memory, as Linux's EFI stub
 * makes it (the tree's /memory nodes then only say which node a range is
 * on, and its /chosen bootargs give way to the loader's command line); the
 * tree's bytes are reserved (the firmware may have put it in boot-services
 * memory, which the map gives back).
 */
static const struct dt_machine *efi_tree(struct bootinfo *bi)
{
	uint64_t phys = boot_efi_config_find(bi, dtb_guid, "device tree");
	struct dt_blob dt;

	if (!phys)
		return NULL;
	if (dtimage_open(phys, arch_map_phys, NULL, &dt) != DTIMAGE_OK)
		return NULL;
	if (!dt_machine_parse(&dt, &machine)) {
		pr_err("boot: the device tree of the EFI configuration table at 0x%llx describes no machine; none read",
		       (unsigned long long)phys);
		return NULL;
	}
	bi->dtb_phys = phys;
	bi->dtb_bytes = dt.total_bytes;
	bootinfo_add_raw(bi, phys, dt.total_bytes, MEM_RESERVED);
	bootinfo_normalize(bi);
	return &machine;
}
BOOT_TREE_PROTOCOL(dt_protocol, "a device tree in x0", dt_collect, efi_tree);

/*
 * boot.h: the only entry into boot/ from the kernel: turn whatever the loader
 * handed over into struct bootinfo.
 */
#ifndef MEMBOOT_BOOT_BOOT_H
#define MEMBOOT_BOOT_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"

/*
 * @arg0 and @arg1 are the two registers the entry received (arch/entry.h:
 * for Multiboot2, PVH and memboot's UEFI loader, a protocol's magic and the
 * address of its information); the protocol they belong to is recognised
 * here.
 * Fills @bi, appends the QEMU fw_cfg command line if there is one, and
 * returns false if the boot information was missing or corrupt (the problem
 * has been logged; @bi then holds what could be read).
 */
bool boot_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi);

#endif

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
 * @magic and @info are the two registers the 32-bit entry received (EAX and
 * EBX for Multiboot2). Fills @bi, appends the QEMU fw_cfg command line if
 * there is one, and returns false if the boot information was missing or
 * corrupt (the problem has been logged; @bi then holds what could be read).
 */
bool boot_collect(uint32_t magic, uint32_t info, struct bootinfo *bi);

#endif

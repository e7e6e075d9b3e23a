/*
 * loader_arch.h: what the UEFI loader (loader.c) does differently on each
 * architecture, one file each (loader_NAME.c): the firmware states it
 * cannot follow, ending a failed run under an emulator, and the jump into
 * the kernel once boot services are gone.
 */
#ifndef MEMBOOT_BOOT_EFI_LOADER_ARCH_H
#define MEMBOOT_BOOT_EFI_LOADER_ARCH_H

#include <efi.h>

#include "boot/efi/kelf.h"

/* The kernel ELF's e_machine this loader loads (62 x86_64, 183 AArch64). */
extern const UINT16 loader_elf_machine;

/* Why the firmware's CPU state cannot be followed into the kernel (x86_64:
 * 5-level paging on), or NULL. */
const CHAR16 *loader_arch_refuse(void);

/* A fatal problem before the kernel ran: under an emulator that has an exit
 * device the loader can find safely, end the run with @status; else return. */
void loader_arch_stop(unsigned status);

/* Enter the kernel at @entry with the hand-off block @block (@block_bytes)
 * in the registers boot/handoff.h names, after boot services are gone:
 * whatever the architecture's boot protocol asks first (arm64: the kernel
 * and the block cleaned to the point of coherency, MMU and caches off). */
void loader_arch_enter(const struct kelf_image *img, UINT64 entry, UINT64 block,
		       UINT64 block_bytes) __attribute__((noreturn));

#endif

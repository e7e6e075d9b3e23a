/*
 * asm/efi.h (ppc64le): POWER machines boot without UEFI (OPAL, SLOF), so no
 * UEFI function is ever called (arch/efi.h); the attribute is empty.
 */
#ifndef MEMBOOT_ASM_EFI_H
#define MEMBOOT_ASM_EFI_H

#define ARCH_EFIAPI

#endif

/*
 * asm/efi.h (arm64): UEFI functions follow AAPCS64 (UEFI 2.10, 2.3.6), the
 * kernel's own convention (arch/efi.h).
 */
#ifndef MEMBOOT_ASM_EFI_H
#define MEMBOOT_ASM_EFI_H

#define ARCH_EFIAPI

#endif

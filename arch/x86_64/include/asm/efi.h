/*
 * asm/efi.h (x86_64): UEFI functions take the Microsoft x64 convention
 * (UEFI 2.10, 2.3.4.2), which GCC generates for ms_abi (arch/efi.h).
 */
#ifndef MEMBOOT_ASM_EFI_H
#define MEMBOOT_ASM_EFI_H

#define ARCH_EFIAPI __attribute__((ms_abi))

#endif

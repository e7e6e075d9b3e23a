/*
 * arch/efi.h: calling UEFI's runtime services, which follow the
 * architecture's UEFI calling convention (UEFI 2.10, 2.3 "Calling
 * Conventions"), not always the kernel's own.
 *
 * Defined by asm/efi.h:
 *
 * ARCH_EFIAPI
 *	The attribute of a pointer to a UEFI function: x86_64's is the
 *	Microsoft x64 convention (2.3.4.2: RCX, RDX, R8, R9, shadow space),
 *	GCC's ms_abi; arm64's is AAPCS64 (2.3.6), the kernel's own, so empty.
 *	POWER has no UEFI: empty, and nothing calls one there.
 */
#ifndef MEMBOOT_ARCH_EFI_H
#define MEMBOOT_ARCH_EFI_H

#include "asm/efi.h"

#endif

/*
 * arch/entry.h: the kernel's entry from the architecture's entry code.
 *
 * The entry code (x86_64: arch/x86_64/entry32.S and entry64.S) sets up a
 * stack, paging and the C environment, then calls kernel_main() on the boot
 * CPU with the two register-sized values the loader handed over, as they
 * came. Which protocol they belong to is boot/'s to find out
 * (boot_collect(), boot/boot.h):
 *
 *   x86_64   Multiboot2 (EAX magic, EBX info), PVH (magic, start info),
 *            memboot's UEFI loader (magic, hand-off)
 *   arm64    Linux's arm64 boot protocol: x0 the device tree's address
 *   POWER    r3 the device tree's address (OPAL and kexec alike)
 */
#ifndef MEMBOOT_ARCH_ENTRY_H
#define MEMBOOT_ARCH_ENTRY_H

#include <stdint.h>

/* The boot (kernel/init/main.c). Never returns: the boot ends in
 * kernel_exit(). */
void kernel_main(uintptr_t boot_arg0, uintptr_t boot_arg1);

#endif

/*
 * x86/machine.h: QEMU's isa-debug-exit device on x86 (arch/machine.h's
 * emulator exit): an I/O port, as tools/memboot and the tests start QEMU
 * (`-device isa-debug-exit,iobase=0xf4,iosize=0x04`). Writing V makes QEMU
 * exit with (V << 1) | 1; the kernel writes EXIT_QEMU_BASE + status
 * (kernel/services/exit.h). Defines only: the EFI loader (boot/efi) and
 * the entry code use it too.
 */
#ifndef MEMBOOT_X86_MACHINE_H
#define MEMBOOT_X86_MACHINE_H

#define X86_QEMU_EXIT_PORT 0xf4

#endif

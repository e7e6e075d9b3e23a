# arch/x86_64/arch.mk: what the build knows of x86_64, the one port.
#
# The top Makefile includes every arch/NAME/arch.mk, and `ARCH=NAME` picks
# one (x86_64 by default). Each variable begins with the architecture's name,
# so all of them are read at once: the kernel build reads ARCH's,
# `make cross-check` every architecture's compiler and flags,
# tools/check-includes.py the boot protocols, tools/mbtools/facts.py the
# QEMU lines (tools/memboot run --arch). docs/design.md, "Adding an
# architecture", says what a new one writes here.

# A port: the kernel links and boots here (make ARCH=x86_64, the default).
x86_64_PORT := yes
# The C compiler and the linker for kernel code: the host's own on an x86_64 host.
x86_64_CC := gcc
x86_64_LD := ld
# Code generation for kernel code (docs/building.md): addresses are
# sign-extended 32-bit (-mcmodel=kernel, as newlib is built), no red zone (an
# interrupt pushes onto the stack it interrupts, SysV ABI 3.2.2), general
# registers only (the trap paths never save SSE state).
x86_64_KCFLAGS := -mcmodel=kernel -mno-red-zone -mgeneral-regs-only
# newlib's target (tools/build-newlib.sh) and the link script.
x86_64_NEWLIB := x86_64-elf
x86_64_LDS := linker/x86_64.ld
# The boot protocols, directories of boot/: mb2's objects are in the kernel
# by wildcard, pvh's by boot/pvh/pvh.mk, efi is the UEFI loader
# (boot/efi/efi.mk). They may include this architecture's own headers.
x86_64_BOOT := mb2 pvh efi
# Pure x86_64 code the host builds link and test: the local APIC mode
# decision, the caches from CPUID leaves, the first clock figure's choice.
x86_64_PURE := arch/x86_64/apic_mode.c arch/x86_64/cpu_caches.c arch/x86_64/tsc_first.c
# QEMU: the system emulator and its machines, the default first.
x86_64_QEMU := qemu-system-x86_64
x86_64_QEMU_MACHINES := q35 pc
# tools/memboot run: the boot path by default (--boot), and what QEMU needs
# for the kernel's exit status: the isa-debug-exit device at port 0xf4.
x86_64_RUN_BOOT := grub
x86_64_QEMU_EXIT := -device isa-debug-exit,iobase=0xf4,iosize=0x04
# The UEFI loader: gnu-efi's name for the architecture and the
# removable-media boot file (UEFI 2.10, 3.5.1.1: \EFI\BOOT\BOOTX64.EFI).
x86_64_EFI_ARCH := x86_64
x86_64_EFI_APP := BOOTX64.EFI
# Its code generation (no red zone: the firmware's interrupts use the stack)
# and the conversion of the linked object into a PE32+ application.
x86_64_EFI_CFLAGS := -mno-red-zone -maccumulate-outgoing-args
x86_64_EFI_OBJCOPY := --target efi-app-x86_64 --subsystem=10
# What `make` builds to boot: the hybrid BIOS+UEFI ISO (tools/mkiso.sh).
x86_64_IMAGE := memboot.iso

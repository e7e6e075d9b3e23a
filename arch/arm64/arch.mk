# arch/arm64/arch.mk: arm64 (AArch64) before its port.
#
# Not a port yet: `make cross-check` compiles the architecture-neutral code
# for arm64 with Debian's cross compiler (tools/setup-deps.sh installs it)
# against the interface's inline headers in arch/arm64/include/asm/, so that
# nothing x86 creeps into generic code. The port adds `arm64_PORT := yes`
# with the rest of the variables arch/x86_64/arch.mk sets.
arm64_CC := aarch64-linux-gnu-gcc
# Kernel code uses general registers only (no FP/SIMD state to save on a
# trap) and no out-of-line atomics (their helpers read HWCAP from a libc the
# kernel does not have: inline LSE or LL/SC sequences instead).
arm64_KCFLAGS := -mgeneral-regs-only -mno-outline-atomics

# The port: `make ARCH=arm64` links the kernel and a flat Image that QEMU's
# -kernel (or any loader of Linux's arm64 boot protocol) enters at EL1 or
# EL2 with the device tree's address in x0 (docs/boot-paths.md).
arm64_PORT := yes
arm64_LD := aarch64-linux-gnu-ld
arm64_NEWLIB := aarch64-elf
arm64_LDS := linker/arm64.ld
# The boot protocols: boot/dtimage, the device tree handed over in x0; efi,
# the UEFI loader (boot/efi/efi.mk) entering the kernel with x0 =
# HANDOFF_ENTRY_MAGIC and x1 = the hand-off block (boot/handoff.h).
arm64_BOOT := dtimage efi
# What this port shares with other ports (arch/common/NAME.c, headers
# port/NAME.h): a counter rate the firmware gives with no second reference,
# no watchdog driven yet.
arm64_COMMON := given_clock no_watchdog
# The UEFI loader: gnu-efi's name for the architecture, the removable-media
# boot file (UEFI 2.10, 3.5.1.1: \EFI\BOOT\BOOTAA64.EFI), and Debian's
# gnu-efi:arm64, unpacked into the build cache by tools/fetch-deb.sh
# (never installed: the package is not Multi-Arch). gnu-efi 3.0.15's
# aarch64 crt0 carries the PE header itself: the link sets the subsystem
# (10, an application), objcopy -O binary makes the file, padded to the
# image's SizeOfImage (a multiple of 512) or AAVMF refuses it.
arm64_EFI_ARCH := aarch64
arm64_EFI_APP := BOOTAA64.EFI
arm64_EFI_DEB := arm64
arm64_EFI_CFLAGS :=
arm64_EFI_LDFLAGS := --defsym=EFI_SUBSYSTEM=0xa --no-warn-rwx-segments
arm64_EFI_OBJCOPY := -O binary
arm64_EFI_PAD := 512
# Network boots (tools/memboot netboot --arch arm64): GRUB's arm64-efi
# modules, Debian's grub-efi-arm64-bin:arm64 unpacked into the build cache
# (the package exists only for arm64 hosts), from which netboot makes
# GRUB's network image; GRUB chainloads efi/memboot-net.efi, the loader with
# the kernel inside (boot/efi/efi.mk).
arm64_NETBOOT_GRUB := grub-efi-arm64-bin
arm64_NETBOOT_GRUB_PLATFORM := arm64-efi
# What `make` builds to boot: the flat Image with Linux's arm64 header.
arm64_IMAGE := Image
# QEMU: virt with a GICv3 and the most capable CPU TCG emulates.
arm64_QEMU := qemu-system-aarch64
arm64_QEMU_MACHINES := virt
# tools/memboot run: the Image through QEMU -kernel by default (--boot
# image); the exit status through semihosting's SYS_EXIT; GICv3, which
# takes more than 8 CPUs (QEMU's default for virt is a GICv2).
arm64_RUN_BOOT := image
# --boot efi: BOOTAA64.EFI from the ESP image under AAVMF (Debian's
# qemu-efi-aarch64), its code read-only and a copy of its variable store.
arm64_RUN_BOOTS := image efi
arm64_UEFI_CODE := /usr/share/AAVMF/AAVMF_CODE.fd
arm64_UEFI_VARS := /usr/share/AAVMF/AAVMF_VARS.fd
arm64_QEMU_EXIT := -semihosting-config enable=on,target=native
arm64_QEMU_FLAGS := -machine gic-version=3

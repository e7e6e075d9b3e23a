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
# The boot protocol: boot/dtimage, the device tree handed over in x0.
arm64_BOOT := dtimage
# What `make` builds to boot: the flat Image with Linux's arm64 header.
arm64_IMAGE := Image
# QEMU: virt with a GICv3 and the most capable CPU TCG emulates.
arm64_QEMU := qemu-system-aarch64
arm64_QEMU_MACHINES := virt
# tools/memboot run: the Image through QEMU -kernel by default (--boot
# image); the exit status through semihosting's SYS_EXIT; GICv3, which
# takes more than 8 CPUs (QEMU's default for virt is a GICv2).
arm64_RUN_BOOT := image
arm64_QEMU_EXIT := -semihosting-config enable=on,target=native
arm64_QEMU_FLAGS := -machine gic-version=3

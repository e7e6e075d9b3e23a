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

# arch/ppc64le/arch.mk: 64-bit little-endian POWER before its port.
#
# Not a port yet: `make cross-check` compiles the architecture-neutral code
# for ppc64le with Debian's cross compiler (tools/setup-deps.sh installs it)
# against the interface's inline headers in arch/ppc64le/include/asm/, so
# that nothing x86 creeps into generic code. The port adds
# `ppc64le_PORT := yes` with the rest of the variables arch/x86_64/arch.mk
# sets.
ppc64le_CC := powerpc64le-linux-gnu-gcc
# Kernel code uses general registers only: no floating point, VMX or VSX
# state to save on an interrupt (as Linux builds its ppc64 kernel).
ppc64le_KCFLAGS := -msoft-float -mno-altivec -mno-vsx

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
ppc64le_KCFLAGS := -msoft-float -mno-altivec -mno-vsx -mlong-double-64

# The port: `make ARCH=ppc64le` links the kernel ELF that QEMU's pseries
# machine loads (-kernel) and enters through its Open Firmware (VOF, the
# default, or SLOF): big-endian at the ELF's first byte with r5 the client
# interface's entry (docs/boot-paths.md). The entry walks the firmware's
# tree through that interface and hands the kernel a flattened copy.
ppc64le_PORT := yes
ppc64le_LD := powerpc64le-linux-gnu-ld
ppc64le_NEWLIB := powerpc64le-elf
ppc64le_LDS := linker/ppc64le.ld
# The boot protocols: boot/ofw flattens the Open Firmware tree (the entry
# path), boot/opal takes what the arch needs first from the tree skiboot
# hands a PowerNV kernel, boot/dtimage reads the flattened tree handed to
# kernel_main.
ppc64le_BOOT := dtimage ofw opal
# What this port shares with other ports (arch/common/NAME.c, headers
# port/NAME.h): a counter rate the firmware gives with no second reference,
# no watchdog driven yet.
ppc64le_COMMON := given_clock no_watchdog
# What `make` builds to boot: the ELF itself (QEMU -kernel loads it).
ppc64le_IMAGE := memboot.elf
ppc64le_QEMU := qemu-system-ppc64
ppc64le_QEMU_MACHINES := pseries
ppc64le_QEMU_CPU := power9
# tools/memboot run: the ELF through -kernel under VOF (--boot vof); no
# device carries an exit status on pseries, so the kernel powers off
# through RTAS and the runner takes the status from the `done` record on
# the console (EXIT_FROM console). The speculation-barrier capabilities
# are declared absent: TCG has none and QEMU warns on every boot otherwise.
ppc64le_RUN_BOOT := vof
# --boot powernv: the same ELF under skiboot on QEMU's powernv10 (PowerNV:
# OPAL's console, CPUs and power-off; tools/memboot sets its machine, CPU
# and -smp sockets itself, pseries's QEMU_FLAGS do not apply).
ppc64le_RUN_BOOTS := vof slof powernv
ppc64le_QEMU_EXIT :=
ppc64le_EXIT_FROM := console
# pseries has no fw_cfg device (arch/ppc64le/fwcfg.c): run --replay, whose
# trace only fw_cfg carries, is refused by name.
ppc64le_FW_CFG := no
ppc64le_QEMU_FLAGS := -machine x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off

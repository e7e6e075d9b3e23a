# boot/pvh/pvh.mk: the PVH path's objects in the kernel (QEMU -kernel).
#
# The top Makefile includes this file when pvh is one of ARCH's boot
# protocols (NAME_BOOT in arch/NAME/arch.mk), and its KERNEL_C/KERNEL_S
# wildcards then leave boot/pvh/ to it. The link recipe expands
# $(KERNEL_OBJS) when it runs, so appending here is enough; the extra
# prerequisite makes the ELF relink when these objects change.

PVH_OBJS := $(O)/boot/pvh/pvh.o $(O)/boot/pvh/collect.o $(O)/boot/pvh/pvh_entry.o
KERNEL_OBJS += $(PVH_OBJS)
$(O)/memboot.elf: $(PVH_OBJS)

# boot/pvh/pvh.mk: the PVH path's objects in the kernel (QEMU -kernel).
#
# The top Makefile's KERNEL_C/KERNEL_S wildcards do not reach boot/pvh/, and
# it includes only boot/efi/efi.mk, which includes this file. The link recipe
# expands $(KERNEL_OBJS) when it runs, so appending here is enough; the extra
# prerequisite makes the ELF relink when these objects change.

PVH_OBJS := $(O)/boot/pvh/pvh.o $(O)/boot/pvh/pvh_entry.o
KERNEL_OBJS += $(PVH_OBJS)
$(O)/memboot.elf: $(PVH_OBJS)

# boot/efi/efi.mk: the direct UEFI loader and its ESP image (included by the
# top Makefile when efi is one of ARCH's boot protocols, NAME_BOOT).
#
#   make esp      $(O)/efi/BOOTX64.EFI (arm64: BOOTAA64.EFI) and $(O)/memboot-esp.img
#   make efi-net  $(O)/efi/memboot-net.efi: the same loader with the kernel
#                 inside (boot/efi/embed.S), for network boots (tools/memboot
#                 netboot --arch arm64); `make` builds it too
#
# The loader is a gnu-efi application for ARCH (NAME_EFI_ARCH, gnu-efi's name
# of it, and NAME_EFI_APP, the removable-media file name, in arch/NAME/arch.mk):
# compiled -fpic, linked as a shared object against gnu-efi's crt0 and linker
# script, then turned into a PE32+ EFI application by objcopy. The ESP is a
# FAT image written with mtools (no root, no loop device) and no partition
# table:
#   \EFI\BOOT\BOOTX64.EFI          the loader (the removable-media default path)
#   \EFI\memboot\memboot.elf       the kernel, the same ELF GRUB and PVH boot
#   \EFI\memboot\cmdline.txt       only with MEMBOOT_CMDLINE="..." (the loader
#                                  passes it to the kernel)
# `make` and `make test` build the image: the guest tests boot it (--boot efi).

EFI_O := $(O)/efi
ESP_IMG := $(O)/memboot-esp.img
ESP_MIB ?= 8
EFI_ARCH := $($(ARCH)_EFI_ARCH)
EFI_APP := $($(ARCH)_EFI_APP)
# gnu-efi: the host's own package, or (NAME_EFI_DEB) Debian's package of
# that architecture unpacked into the build cache (tools/fetch-deb.sh).
ifneq ($($(ARCH)_EFI_DEB),)
EFI_ROOT := $(EFI_O)/gnu-efi
EFI_STAMP := $(EFI_ROOT)/usr/lib/libefi.a
$(EFI_STAMP): tools/fetch-deb.sh | $(DEPS)
	@tools/fetch-deb.sh $(NEWLIB_CACHE) $(EFI_ROOT) gnu-efi $($(ARCH)_EFI_DEB) usr/lib/libefi.a
	@test -f $@
else
EFI_ROOT :=
EFI_STAMP :=
endif
EFI_INC := $(EFI_ROOT)/usr/include/efi
EFI_LIB := $(EFI_ROOT)/usr/lib
EFI_CFLAGS := -std=gnu11 -O2 -g -I$(EFI_INC) -I$(EFI_INC)/$(EFI_ARCH) -I$(EFI_INC)/protocol -I. \
	-Iarch/include -Iarch/$(ARCH)/include \
	-fpic -ffreestanding -fno-stack-protector -fno-stack-check -fshort-wchar \
	$($(ARCH)_EFI_CFLAGS) -mgeneral-regs-only \
	-Wall -Wextra -Wno-unused-parameter -Werror \
	-DMEMBOOT_EFI_LOADER -DMEMBOOT_VERSION='"$(VERSION)"' -MMD -MP
EFI_LDFLAGS := -shared -Bsymbolic -nostdlib -znocombreloc --no-undefined -L$(EFI_LIB) \
	-T $(EFI_LIB)/elf_$(EFI_ARCH)_efi.lds $($(ARCH)_EFI_LDFLAGS)
# The loader's own code for each architecture: its checks of the firmware's
# CPU state, ending a failed run, and the jump into the kernel.
EFI_SRCS := boot/efi/loader.c boot/efi/kelf.c boot/efi/loader_$(ARCH).c
EFI_OBJS := $(patsubst %.c,$(EFI_O)/%.o,$(EFI_SRCS))
# The network loader: the same objects, with embed.S assembled around the
# kernel (debug sections stripped: they are a third of what TFTP would carry)
# instead of around nothing.
EFI_NET_APP := $(EFI_O)/memboot-net.efi
EFI_NET_KERNEL := $(EFI_O)/kernel-net.elf

# GRUB's network image for the architecture's UEFI clients (NAME_NETBOOT_GRUB
# in arch/NAME/arch.mk, where the host has no package of it): Debian's
# package of GRUB's modules for that architecture, unpacked into the build
# cache, where tools/memboot netboot --arch NAME finds them
# ($(O)/efi/grub/usr/lib/grub/PLATFORM).
ifneq ($($(ARCH)_NETBOOT_GRUB),)
NETBOOT_GRUB_STAMP := $(EFI_O)/grub/usr/lib/grub/$($(ARCH)_NETBOOT_GRUB_PLATFORM)/moddep.lst
$(NETBOOT_GRUB_STAMP): tools/fetch-deb.sh | $(DEPS)
	@tools/fetch-deb.sh $(NEWLIB_CACHE) $(EFI_O)/grub $($(ARCH)_NETBOOT_GRUB) $($(ARCH)_EFI_DEB) \
		usr/lib/grub/$($(ARCH)_NETBOOT_GRUB_PLATFORM)/moddep.lst
	@test -f $@
efi-net: $(NETBOOT_GRUB_STAMP)
endif

.PHONY: esp efi efi-net
efi: $(EFI_O)/$(EFI_APP)
efi-net: $(EFI_NET_APP)
esp: $(ESP_IMG)
all: efi-net
test: efi-net
# A plain `make` builds the image too, so it always holds the kernel just
# built: guest tests run straight from tests/run.py boot it (--boot efi), and
# a stale image would boot yesterday's kernel.
all: esp
test: esp

$(EFI_O)/%.o: %.c $(EFI_STAMP) | $(DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  EFICC   $<")
	$(Q)$($(ARCH)_CC) $(EFI_CFLAGS) -c $< -o $@

$(EFI_O)/embed.o: boot/efi/embed.S boot/efi/embed.h $(EFI_STAMP) | $(DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  EFIAS   $@")
	$(Q)$($(ARCH)_CC) -I. -c $< -o $@

$(EFI_NET_KERNEL): $(O)/memboot.elf
	@mkdir -p $(@D)
	$(Q)$(patsubst %gcc,%objcopy,$($(ARCH)_CC)) --strip-debug $< $@

$(EFI_O)/embed-kernel.o: boot/efi/embed.S boot/efi/embed.h $(EFI_NET_KERNEL) $(EFI_STAMP) | $(DEPS)
	@$(if $(Q),echo "  EFIAS   $@")
	$(Q)$($(ARCH)_CC) -I. -DEMBED_FILE='"$(EFI_NET_KERNEL)"' \
		-DEMBED_BYTES=$$(stat -c %s $(EFI_NET_KERNEL)) -c $< -o $@

$(EFI_O)/loader.so: $(EFI_OBJS) $(EFI_O)/embed.o
	@$(if $(Q),echo "  EFILD   $@")
	$(Q)$($(ARCH)_LD) $(EFI_LDFLAGS) $(EFI_LIB)/crt0-efi-$(EFI_ARCH).o $^ -o $@ -lefi -lgnuefi

$(EFI_O)/loader-net.so: $(EFI_OBJS) $(EFI_O)/embed-kernel.o
	@$(if $(Q),echo "  EFILD   $@")
	$(Q)$($(ARCH)_LD) $(EFI_LDFLAGS) $(EFI_LIB)/crt0-efi-$(EFI_ARCH).o $^ -o $@ -lefi -lgnuefi

$(EFI_O)/$(EFI_APP): $(EFI_O)/loader.so
$(EFI_NET_APP): $(EFI_O)/loader-net.so
$(EFI_O)/$(EFI_APP) $(EFI_NET_APP):
	@$(if $(Q),echo "  EFIAPP  $@")
	$(Q)$(patsubst %gcc,%objcopy,$($(ARCH)_CC)) -j .text -j .sdata -j .data -j .dynamic \
		-j .dynsym -j .rel -j .rela -j .rel.* -j .rela.* -j .reloc $($(ARCH)_EFI_OBJCOPY) $< $@
	$(Q)$(if $($(ARCH)_EFI_PAD),truncate -s %$($(ARCH)_EFI_PAD) $@)

# The image is rebuilt from scratch each time (under 0.1 s), so that a file
# removed from the recipe does not linger in it. The command line is baked in
# only on request; its value is a prerequisite through the stamp file the ISO
# shares (top Makefile).
$(ESP_IMG): $(EFI_O)/$(EFI_APP) $(O)/memboot.elf $(O)/cmdline.stamp
	@$(if $(Q),echo "  ESP     $@")
	$(Q)rm -f $@.tmp && truncate -s $(ESP_MIB)M $@.tmp && \
		mformat -i $@.tmp -v MEMBOOT :: && \
		mmd -i $@.tmp ::/EFI ::/EFI/BOOT ::/EFI/memboot && \
		mcopy -i $@.tmp $(EFI_O)/$(EFI_APP) ::/EFI/BOOT/$(EFI_APP) && \
		mcopy -i $@.tmp $(O)/memboot.elf ::/EFI/memboot/memboot.elf
	$(Q)if [ -n "$$MEMBOOT_CMDLINE" ]; then \
		printf '%s\n' "$$MEMBOOT_CMDLINE" > $(EFI_O)/cmdline.txt && \
		mcopy -i $@.tmp $(EFI_O)/cmdline.txt ::/EFI/memboot/cmdline.txt; fi
	$(Q)mv $@.tmp $@

-include $(EFI_OBJS:.o=.d)

# memboot: build, run, test, bench, fuzz.
#
#   make              kernel ELF, hybrid BIOS+UEFI ISO, ESP image and memboot-topo
#                     (MODE=debug by default)
#   make run          boot it in QEMU: 2 nodes x 2 CPUs x 1 GiB
#   make test         host unit tests, tool tests, guest boot tests; ends "N passed, N failed"
#   make fuzz         run each libFuzzer target for FUZZ_SECONDS
#   make host-tests   the cmocka unit tests; make fuzz-build: the fuzz targets
#   make cross-check  the architecture-neutral code compiled for every architecture
#   make MODE=release the release build (no DEBUG_ASSERT, no poisoning)
#   make DESC_BYTES=64 page descriptors padded to 32 or 64 bytes (build/MODE-descN/)
#   make ARCH=x86_64  the architecture (arch/NAME/arch.mk; x86_64, the default, is the one port)
#   make clean        remove build/ (the newlib cache in NEWLIB_CACHE is kept)
#
# Every target first runs tools/setup-deps.sh, which installs missing Debian
# packages, and builds newlib from Debian's newlib-source into a cache keyed by
# its inputs. The host builds alone (host-tests, fuzz-build, topo, the host
# benchmarks) need only `tools/setup-deps.sh host`: gcc, clang and cmocka.

MODE ?= debug
ifeq ($(filter $(MODE),debug release),)
$(error MODE must be debug or release, not '$(MODE)')
endif

# The architectures: one arch/NAME/arch.mk each, its variables prefixed with
# NAME (arch/x86_64/arch.mk says which). ARCH picks the one the kernel is built
# for; an architecture without a port yet (NAME_PORT) is compiled only by
# `make cross-check`.
ARCH ?= x86_64
ARCHES := $(sort $(patsubst arch/%/arch.mk,%,$(wildcard arch/*/arch.mk)))
include $(foreach a,$(ARCHES),arch/$(a)/arch.mk)
PORTS := $(strip $(foreach a,$(ARCHES),$(if $(filter yes,$($(a)_PORT)),$(a))))
ifeq ($(filter $(ARCH),$(ARCHES)),)
$(error ARCH=$(ARCH): there is no arch/$(ARCH)/arch.mk; the architectures are $(ARCHES), \
	the ports $(PORTS) (docs/design.md, "Adding an architecture"))
endif
# What builds for any ARCH: the checks of generic code, the host builds and
# the rest that never compile kernel code for ARCH.
ARCH_FREE_GOALS := cross-check check-includes help clean distclean deps host-deps \
	host-tests fuzz-build fuzz topo
ifneq ($($(ARCH)_PORT),yes)
ifneq ($(filter-out $(ARCH_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error ARCH=$(ARCH): memboot has no $(ARCH) port yet (arch/$(ARCH) holds what \
	`make cross-check` needs to compile the generic code for it); the ports: $(PORTS))
endif
endif
# The host builds' architecture, the one $(CC) compiles for (gcc's
# -dumpmachine, as arch/NAME names it): its headers are on their include
# path, so the interface's inline part (asm/) is its own, and its pure code
# (NAME_PURE) is in their library. A cross build of the lab
# (CC=aarch64-linux-gnu-gcc, bench/bench.mk) is arm64's.
cc_arch = $(patsubst aarch64,arm64,$(patsubst powerpc64le,ppc64le,$(firstword \
	$(subst -, ,$(shell $(1) -dumpmachine 2>/dev/null)))))
HOST_ARCH := $(or $(call cc_arch,$(CC)),x86_64)
HOST_ARCH_DIR := arch/$(HOST_ARCH)

# Page descriptor size (16, 32 or 64 bytes): the build option that lets a
# benchmark compare init time against descriptor size. Objects go to their
# own directory so the sizes never mix.
DESC_BYTES ?= 16
ifeq ($(filter $(DESC_BYTES),16 32 64),)
$(error DESC_BYTES must be 16, 32 or 64, not '$(DESC_BYTES)')
endif
# Each architecture's kernel objects in a directory of their own: x86_64's in
# build/MODE/ (as before any other existed), another's in build/NAME/MODE/.
BUILD_FLAVOUR := $(MODE)$(if $(filter-out 16,$(DESC_BYTES)),-desc$(DESC_BYTES))
arch_out = build/$(if $(filter-out x86_64,$(1)),$(1)/)$(BUILD_FLAVOUR)
O := $(call arch_out,$(ARCH))
HOST_O := build/host
FUZZ_O := build/fuzz
NEWLIB_CACHE ?= $(if $(HOME),$(HOME)/.cache/memboot,/var/tmp/memboot-cache)
NEWLIB := build/newlib
# Each port's newlib (NAME_NEWLIB, tools/build-newlib.sh's target) behind a
# link of its own: x86_64's is $(NEWLIB), another's $(NEWLIB)-NAME.
newlib_of = $(NEWLIB)$(if $(filter-out x86_64,$(1)),-$(1))
NEWLIB_TARBALL := $(firstword $(wildcard /usr/src/newlib/newlib-*.tar.*))
DEPS := build/.deps-ok
HOST_DEPS := build/.host-deps-ok
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
FUZZ_SECONDS ?= 60

CC := gcc
LD := ld
# Quiet by default; `make V=1` shows every command.
Q := $(if $(V),,@)
# Kernel code for architecture $(1): the common flags, the architecture's code
# generation (NAME_KCFLAGS in its arch.mk) and its include directory.
# On x86_64 the kernel is linked at 1 MiB, identity mapped; -mcmodel=kernel
# matches the newlib build (sign-extended 32-bit addresses, valid below 2 GiB).
# Kernel code itself uses general registers only, so exception and interrupt
# paths never clobber the SSE state newlib may be using; the one SSE user in
# kernel code, mm/memmap.c's 16-byte non-temporal store, keeps its registers
# within one asm statement (tests/tools/test_sse_users.py lists the users).
KWARNFLAGS := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Werror
KCFLAGS_COMMON := -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-builtin-printf $(KWARNFLAGS) -nostdinc
# newlib's headers for architecture $(1): its own build's (NAME_NEWLIB, a
# port's); until it has one, x86_64's, which are architecture-neutral enough
# for the compile check (their fixed-width types come from the compiler's
# predefined macros).
newlib_include = $(if $($(1)_NEWLIB),$(call newlib_of,$(1))/$($(1)_NEWLIB),$(NEWLIB)/$(x86_64_NEWLIB))/include
# The newlib a compile for architecture $(1) waits for.
newlib_stamp = $(if $($(1)_NEWLIB),$(call newlib_of,$(1)),$(NEWLIB))/.stamp
# The compiler's own headers (stddef.h, stdint.h...), asked once per make and
# only when a recipe needs them, so a missing cross compiler stops only the
# compiles that use it.
$(foreach a,$(ARCHES),$(eval $(a)_CC_INCLUDE = $$(eval $(a)_CC_INCLUDE := \
	$$(shell $$($(a)_CC) -print-file-name=include))$$($(a)_CC_INCLUDE)))
kcflags = $(KCFLAGS_COMMON) $($(1)_KCFLAGS) -isystem $(call newlib_include,$(1)) \
	-isystem $($(1)_CC_INCLUDE) -I. -Iarch/include -Iarch/$(1)/include -Iarch/common/include \
	-DMEMBOOT_VERSION='"$(VERSION)"' -MMD -MP $(KDEFINES)
KDEFINES := -DMEMMAP_DESC_BYTES=$(DESC_BYTES)
ifeq ($(MODE),release)
KDEFINES += -DNDEBUG
else
KDEFINES += -DMEMBOOT_DEBUG
endif
KCFLAGS = $(call kcflags,$(ARCH))
KASFLAGS := -g -fno-pic -fno-pie -I. -Iarch/include -Iarch/$(ARCH)/include -Iarch/common/include -MMD -MP
KLDFLAGS := -nostdlib -static -no-pie -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T $($(ARCH)_LDS)

# Every directory's sources by wildcard: a new file in a layer's directory is
# built with no list to edit (docs/design.md, "Where things go").
MM_DIRS := mm mm/alloc mm/hugetlb mm/pt
# kernel/services/console/out/ is the console's kernel-only side (the ring's writer,
# the drain, the UARTs and the screen): kept out of kernel/services/console/, whose
# files are pure and host-built by wildcard below.
# A boot protocol of ARCH (NAME_BOOT in its arch.mk) is a directory of boot/:
# one with a make fragment of its own (boot/P/P.mk) adds its objects or images
# there, another is built by wildcard like the rest.
BOOT_PROTOCOLS := $(addprefix boot/,$($(ARCH)_BOOT))
BOOT_MK := $(wildcard $(foreach p,$(BOOT_PROTOCOLS),$(p)/$(notdir $(p)).mk))
KERNEL_DIRS := boot $(filter-out $(patsubst %/,%,$(dir $(BOOT_MK))),$(BOOT_PROTOCOLS)) \
	kernel/init kernel/selftest kernel/bench kernel/fault kernel/vm \
	kernel/firmware kernel/firmware/acpi kernel/services kernel/services/clock \
	kernel/services/console kernel/services/console/out kernel/services/jobs \
	kernel/services/report kernel/services/watchdog arch/$(ARCH) $(MM_DIRS)
# Code a port shares with others (NAME_COMMON in its arch.mk: arch/common/).
KERNEL_C := $(wildcard $(addsuffix /*.c,$(KERNEL_DIRS))) \
	$(addprefix arch/common/,$(addsuffix .c,$($(ARCH)_COMMON)))
KERNEL_S := $(wildcard $(addsuffix /*.S,$(KERNEL_DIRS)))
KERNEL_OBJS := $(patsubst %.c,$(O)/%.o,$(KERNEL_C)) $(patsubst %.S,$(O)/%.o,$(KERNEL_S))

# Pure C that also builds on the host: the same files the kernel links.
PURE_SRCS := boot/bootinfo.c boot/efi_map.c boot/mb2/mb2.c kernel/services/cmdline.c \
	kernel/services/report/record.c kernel/services/report/format.c kernel/services/jobs/plan.c kernel/services/clock/clockcal.c kernel/services/clock/counter_sync.c $(wildcard kernel/firmware/*.c kernel/firmware/acpi/*.c) \
	$(wildcard $(addsuffix /*.c,$(MM_DIRS)))
PURE_SRCS += boot/handoff.c boot/pvh/pvh.c boot/efi/kelf.c boot/ofw/flatten.c boot/ofw/rtas.c
# The consoles' drawing, log ring and option parsing (no hardware in them):
# every file in kernel/services/console/ itself; the kernel-only side is in
# kernel/services/console/out/, which this wildcard does not reach.
PURE_SRCS += $(wildcard kernel/services/console/*.c)
# The boot report's dump keys (memboot.dump_mmap, _acpi, _bootinfo).
PURE_SRCS += kernel/services/report/bootreport_keys.c
# Each subsystem's command-line keys and their parsing (kernel/services/cmdline.h).
PURE_SRCS += kernel/services/smp_settings.c kernel/services/exit_method.c kernel/selftest/select.c kernel/bench/settings.c \
	kernel/vm/vm_settings.c kernel/services/watchdog/settings.c
# The replay file's checks (kernel/selftest/replay.c reads the file).
PURE_SRCS += kernel/selftest/replay_file.c
# The numaperf self-test's permutation and arithmetic.
PURE_SRCS += kernel/selftest/numaperf_calc.c
# The pure code of the host's own architecture (NAME_PURE in its arch.mk; on
# x86_64 the local APIC mode decision and ICR encodings, the caches from CPUID
# leaves): the generic pure sources above build for any architecture
# (make cross-check builds them for each), these for theirs.
GENERIC_PURE_SRCS := $(PURE_SRCS)
PURE_SRCS += $($(HOST_ARCH)_PURE)
# The one host shim of log_printf/panic/record_emit (tests, fuzzers, benchmarks
# and memboot-topo; each picks its behaviour with host_shim_configure()).
HOST_SUPPORT := tests/host/host_support.c
# Host-only code the tests and fuzzers exercise too: the acpidump text reader
# of tools/memboot topo (the kernel only writes that text).
HOST_TOOL_SRCS := tools/topo/acpidump_text.c
# The host builds include the architecture interface (arch/include/arch/) and
# the host's own architecture's headers, as the kernel includes ARCH's: the
# interface's inline parts (asm/) and the pure arch code's own headers.
HOST_INCLUDES := -I. -Iarch/include -I$(HOST_ARCH_DIR)/include
HOST_CFLAGS := -std=gnu11 -g -O1 $(HOST_INCLUDES) -Wall -Wextra -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DMEMBOOT_HOST
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(HOST_INCLUDES) -Wall -Wno-unused-parameter \
	-DMEMBOOT_HOST -DMEMBOOT_FUZZ -fno-sanitize-recover=all
HOST_TESTS := $(patsubst tests/host/%.c,$(HOST_O)/%,$(wildcard tests/host/test_*.c))
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all kernel iso run test check-includes cross-check topo release-check host-tests fuzz-build fuzz bench clean distclean deps host-deps newlib help deb test-spare

# Everything a documented command needs: the ISO (make run, tools/memboot run),
# the ESP (boot/efi/efi.mk) and memboot-topo (tools/memboot topo).
all: $(O)/$($(ARCH)_IMAGE) $(HOST_O)/memboot-topo

# `make help`: every target a user runs, with the variables that change them.
help:
	@echo 'memboot make targets:'
	@echo '  make                  debug kernel $(O)/memboot.elf, hybrid BIOS+UEFI ISO $(O)/memboot.iso,'
	@echo '                        ESP image and $(HOST_O)/memboot-topo: all that tools/memboot needs'
	@echo '  make kernel | iso     only the kernel ELF | the ISO'
	@echo '  make esp              UEFI loader and ESP image $(O)/memboot-esp.img (boot without GRUB)'
	@echo '  make run              boot the ISO in QEMU: 2 nodes x 2 CPUs x 1 GiB (RUN_ARGS="..." for tools/memboot run)'
	@echo '  make test             host unit tests, fuzz regressions, tool tests, guest boots; ends "N passed, N failed"'
	@echo '  make test-spare       the slow spare-server guest tests alone (Secure Boot, BootNext, the package)'
	@echo '  make host-tests       build the cmocka unit tests (ASan/UBSan) in build/host/ (needs only gcc, clang, cmocka)'
	@echo '  make fuzz-build       build the libFuzzer targets in build/fuzz/'
	@echo '  make check-includes   check that includes follow the layering rules (part of make test)'
	@echo '  make cross-check      compile the architecture-neutral code for $(CROSS_ARCHES) (part of make test)'
	@echo '  make topo             build/host/memboot-topo, behind `tools/memboot topo` (part of make)'
	@echo '  make host-deps        install only what the host builds need (tools/setup-deps.sh host)'
	@echo '  make fuzz             run every libFuzzer target for FUZZ_SECONDS (default 60)'
	@echo '  make bench            host benchmark of descriptor init; make bench-qemu: per-node init in QEMU'
	@echo '  make bench-usable     time to usable memory by phase; make bench-translated: the same, counted'
	@echo '  make bench-pt         page-fault benchmark of the page-table locks (PT_BENCH_ARGS="--threads N")'
	@echo '  make bench-arm64-user the host benchmark built for arm64, a short run under qemu-aarch64 (a check, not figures)'
	@echo '  make release-check    build the release kernel (warnings are errors)'
	@echo '  make deb              build/deb/memboot_VERSION_amd64.deb: kernel, UEFI loader and the memboot'
	@echo '                        command (install, uninstall, efivars) for a server (docs/spare-metal.md)'
	@echo '  make clean | distclean  remove build/ | also the newlib cache'
	@echo '  make help             this list'
	@echo 'variables:'
	@echo '  MODE=debug|release    build flavour, in build/MODE/ (default debug)'
	@echo '  DESC_BYTES=16|32|64   page descriptor size (default 16)'
	@echo '  ARCH=NAME             the architecture, arch/NAME/arch.mk (default x86_64; ports: $(PORTS))'
	@echo '  MEMBOOT_CMDLINE="..." kernel command line baked into the ISO and the ESP (real hardware)'
	@echo '  V=1                   show every command'
	@echo 'debugging: tools/memboot run --gdb [PORT] starts QEMU halted with a gdb stub (docs/tools.md)'

kernel: $(O)/memboot.elf
iso: $(O)/memboot.iso
deps: $(DEPS)
host-deps: $(HOST_DEPS)
newlib: $(call newlib_stamp,$(ARCH))

$(DEPS): tools/setup-deps.sh
	@tools/setup-deps.sh
	@mkdir -p $(@D) && touch $@

# The host builds wait only on gcc, clang and cmocka. When the goals need the
# full setup too (`make`, `make test`, `make run`, ...), the light check waits
# for it, so two apt-get runs never race for the dpkg lock under -j.
HOST_ONLY_GOALS := host-tests fuzz-build fuzz topo host-deps check-includes \
	bench-build bench-host bench-pt bench-pt-build bench-pcp help clean \
	$(HOST_O)/% $(FUZZ_O)/% build/bench/%
$(HOST_DEPS): tools/setup-deps.sh
	@tools/setup-deps.sh host
	@mkdir -p $(@D) && touch $@
ifneq ($(filter-out $(HOST_ONLY_GOALS),$(or $(MAKECMDGOALS),all)),)
$(HOST_DEPS): | $(DEPS)
endif

define NEWLIB_RULE
$(call newlib_of,$(1))/.stamp: tools/build-newlib.sh $(NEWLIB_TARBALL) | $$(DEPS)
	@tools/build-newlib.sh $$(NEWLIB_CACHE) $(call newlib_of,$(1)) $($(1)_NEWLIB)
	@test -f $$@
endef
$(foreach a,$(ARCHES),$(if $($(a)_NEWLIB),$(eval $(call NEWLIB_RULE,$(a)))))

# Kernel C for each architecture, into its own directory (arch_out) with its
# compiler and flags: ARCH's objects are the kernel's, every other's are what
# `make cross-check` compiles.
define KERNEL_CC_RULE
$(call arch_out,$(1))/%.o: %.c | $(call newlib_stamp,$(1))
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  $(if $(filter $(ARCH),$(1)),CC    ,CC-$(1))  $$<")
	$$(Q)$$($(1)_CC) $$(call kcflags,$(1)) -c $$< -o $$@
endef
$(foreach a,$(ARCHES),$(eval $(call KERNEL_CC_RULE,$(a))))

$(O)/%.o: %.S | $(DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$($(ARCH)_CC) $(KASFLAGS) -c $< -o $@

# The image must carry what ARCH's boot protocols look for (Multiboot2's
# header for GRUB, when mb2 is one of them).
$(O)/memboot.elf: $(KERNEL_OBJS) $($(ARCH)_LDS) $(call newlib_stamp,$(ARCH))
	@$(if $(Q),echo "  LD      $@")
	$(Q)$($(ARCH)_LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS) \
		$(call newlib_of,$(ARCH))/$($(ARCH)_NEWLIB)/lib/libc.a \
		$(shell $($(ARCH)_CC) -print-libgcc-file-name)
	$(if $(filter boot/mb2,$(BOOT_PROTOCOLS)),@grub-file --is-x86-multiboot2 $@ || \
		{ echo "$@: no valid Multiboot2 header" >&2; rm -f $@; exit 1; })

# The command line baked into the ISO's grub.cfg (and the ESP's cmdline.txt)
# is a prerequisite through a stamp that changes only when the line does, so
# `make MEMBOOT_CMDLINE="..."` on a built tree rebuilds both and a plain `make`
# afterwards rebuilds them back. The value travels through the environment
# (make exports command-line variables), never through shell quoting.
$(O)/cmdline.stamp: cmdline-always
	@mkdir -p $(@D)
	@printf '%s\n' "$$MEMBOOT_CMDLINE" | cmp -s - $@ || printf '%s\n' "$$MEMBOOT_CMDLINE" > $@

.PHONY: cmdline-always
cmdline-always:

# The flat Image of Linux's arm64 boot protocol (QEMU -kernel): the ELF's
# loaded bytes from its first, whose header arch/arm64/entry.S writes.
$(O)/Image: $(O)/memboot.elf
	@$(if $(Q),echo "  IMAGE   $@")
	$(Q)$(patsubst %gcc,%objcopy,$($(ARCH)_CC)) -O binary $< $@
	@od -A n -t x1 -j 56 -N 4 $@ | grep -q '41 52 4d 64' || \
		{ echo "$@: no arm64 Image magic at 0x38" >&2; rm -f $@; exit 1; }

$(O)/memboot.iso: $(O)/memboot.elf tools/mkiso.sh $(O)/cmdline.stamp
	@tools/mkiso.sh $< $@

# arm64 boots its Image (QEMU -kernel) and ppc64le its ELF (QEMU pseries
# -kernel under VOF) with one CPU a node: the other CPUs are not started
# there yet.
RUN_IMAGE_x86_64 := --iso $(O)/memboot.iso --cpus-per-node 2
RUN_IMAGE_arm64 := --boot image --image $(O)/Image --cpus-per-node 1
RUN_IMAGE_ppc64le := --boot vof --image $(O)/memboot.elf --cpus-per-node 1
run: all
	tools/memboot run --arch $(ARCH) $(RUN_IMAGE_$(ARCH)) --nodes 2 --mem-per-node 1G $(RUN_ARGS)

# The host builds: each pure source is compiled ONCE per flavour into an
# object of its own under the flavour's directory, with a .d file (-MMD -MP)
# naming the headers it really includes, so touching one header recompiles
# only the objects that include it. The objects make one static library per
# flavour, which every binary of that flavour links with its own file:
#
#   flavour  objects           library                      compiler and flags
#   host     build/host/obj/   build/host/libmemboot-host.a gcc, ASan+UBSan, -DMEMBOOT_HOST
#   fuzz     build/fuzz/obj/   build/fuzz/libmemboot-fuzz.a clang, fuzzer-no-link+ASan+UBSan,
#                                                           -DMEMBOOT_FUZZ
#   tool     build/host/tool/  (TOPO_OBJS)                  gcc -O2, no sanitizers (memboot-topo)
#   bench    build/bench/N/    (bench/bench.mk)             gcc -O2, kernel code generation,
#                                                           one set per descriptor size N
#
# The cmocka tests' library also holds their helpers (the job runner on
# pthreads, the memory map checks and simulator, the clock's story over a
# simulated architecture's hooks), the fuzzers' the job runner.
# A binary takes from a library only the objects it needs.
HOST_OBJ := $(HOST_O)/obj
FUZZ_OBJ := $(FUZZ_O)/obj
HOST_LIB := $(HOST_O)/libmemboot-host.a
FUZZ_LIB := $(FUZZ_O)/libmemboot-fuzz.a
HOST_TEST_HELPERS := tests/host/map_check.c kernel/services/jobs/job.c tests/host/job_host.c \
	tests/host/sim_memmap.c kernel/services/clock/clock.c kernel/services/clock/time.c
FUZZ_HELPERS := kernel/services/jobs/job.c tests/host/job_host.c
HOST_LIB_SRCS := $(PURE_SRCS) $(HOST_TOOL_SRCS) $(HOST_SUPPORT) $(HOST_TEST_HELPERS)
FUZZ_LIB_SRCS := $(PURE_SRCS) $(HOST_TOOL_SRCS) $(HOST_SUPPORT) $(FUZZ_HELPERS)
# Entry code's assembly macros, each wrapped as a function the tests call.
HOST_ASM_HELPERS := tests/host/bss_clear_host.S
HOST_LIB_OBJS := $(patsubst %.c,$(HOST_OBJ)/%.o,$(HOST_LIB_SRCS)) \
	$(patsubst %.S,$(HOST_OBJ)/%.o,$(HOST_ASM_HELPERS))
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(FUZZ_LIB_SRCS))

$(HOST_OBJ)/%.o: %.c | $(HOST_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(HOST_OBJ)/%.o: %.S | $(HOST_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTAS  $<")
	$(Q)$(CC) $(HOST_INCLUDES) -MMD -MP -c $< -o $@

$(FUZZ_OBJ)/%.o: %.c | $(HOST_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

# Rebuilt whole (a few ms), so an object whose source is gone never lingers.
$(HOST_LIB): $(HOST_LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# A host test: its own file and the library. (Test objects are kept, not
# removed as intermediates, so a rebuild recompiles only what changed.)
HOST_TEST_OBJS := $(patsubst %,$(HOST_OBJ)/%.o,$(HOST_TESTS:$(HOST_O)/%=tests/host/%))
FUZZ_TARGET_OBJS := $(patsubst %,$(FUZZ_OBJ)/%.o,$(FUZZ_TARGETS:$(FUZZ_O)/%=tests/fuzz/%))
.SECONDARY: $(HOST_TEST_OBJS) $(FUZZ_TARGET_OBJS)
$(HOST_O)/test_%: $(HOST_OBJ)/tests/host/test_%.o $(HOST_LIB)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $< $(HOST_LIB) -lcmocka

$(FUZZ_O)/fuzz_%: $(FUZZ_OBJ)/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_LIB)

# tools/memboot topo: the kernel's ACPI and NUMA code on the host, optimised
# and without sanitizers (a user's tool; its own messages, not a sanitizer's).
TOOL_OBJ := $(HOST_O)/tool
TOOL_CFLAGS := -std=gnu11 -O2 -g $(HOST_INCLUDES) -Wall -Wextra -Wno-unused-parameter -DMEMBOOT_HOST
TOPO_SRCS := tools/topo/memboot-topo.c tools/topo/acpidump_text.c boot/bootinfo.c \
	boot/dtimage/dtimage.c \
	kernel/services/report/record.c $(wildcard kernel/firmware/*.c kernel/firmware/acpi/*.c) \
	$(wildcard mm/numa*.c) mm/tiers.c mm/machine.c $(HOST_SUPPORT) \
	arch/x86_64/apic_mode.c
# (apic_mode.c: the `apic` record's local APIC mode for the machine whose
# tables are read, an x86_64 decision whatever the host.)
TOPO_OBJS := $(patsubst %.c,$(TOOL_OBJ)/%.o,$(TOPO_SRCS))
$(TOOL_OBJ)/%.o: %.c | $(HOST_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@
$(HOST_O)/memboot-topo: $(TOPO_OBJS)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(CC) $(TOOL_CFLAGS) -o $@ $(TOPO_OBJS)
topo: $(HOST_O)/memboot-topo

host-tests: $(HOST_TESTS) $(HOST_O)/memboot-topo
fuzz-build: $(FUZZ_TARGETS)

# The release kernel must build too (warnings are errors in both modes).
release-check:
	@$(MAKE) --no-print-directory MODE=release kernel

# The include rules (docs/design.md): dependencies point one way.
check-includes:
	@tools/check-includes.py

# make cross-check: every architecture-neutral kernel file (all of kernel/,
# mm/ and boot/ but the boot protocols, boot/*/) compiled with each
# architecture's compiler and kernel flags, warnings as errors, into that
# architecture's own directory (arch_out: for ARCH, the kernel's objects
# themselves); and, for each architecture but the host's, the host library's
# pure sources built hosted with its compiler and C library (no sanitizers),
# into build/NAME/host/. With Debian's aarch64-linux-gnu-gcc and
# powerpc64le-linux-gnu-gcc (tools/setup-deps.sh), so that nothing x86 creeps
# back into generic code. Incremental like the kernel (-MMD -MP).
# CROSS_ARCHES=arm64 narrows it.
CROSS_ARCHES ?= $(ARCHES)
GENERIC_C := $(sort $(shell find kernel mm -name '*.c') $(wildcard boot/*.c))
CROSS_HOST_FLAGS := -std=gnu11 -O1 -I. -Iarch/include -Wall -Wextra -Wno-unused-parameter \
	-Werror -DMEMBOOT_HOST -MMD -MP
# The host library's sources but cmocka's side (map_check.c: its header is the
# host's own, not the cross C library's).
cross_host_srcs = $(GENERIC_PURE_SRCS) $($(1)_PURE) $(HOST_TOOL_SRCS) $(HOST_SUPPORT) \
	$(filter-out tests/host/map_check.c,$(HOST_TEST_HELPERS))

cross_objs = $(patsubst %.c,$(call arch_out,$(1))/%.o,$(GENERIC_C))
cross_host_objs = $(patsubst %.c,build/$(1)/host/obj/%.o,$(call cross_host_srcs,$(1)))
CROSS_HOST_ARCHES := $(filter-out $(HOST_ARCH),$(CROSS_ARCHES))
define CROSS_RULES
.PHONY: cross-check-$(1)
cross-check-$(1): $(call cross_objs,$(1)) \
		$(if $(filter $(1),$(CROSS_HOST_ARCHES)),build/$(1)/host/libmemboot-host.a)
	@echo "cross-check: $(1): $(words $(call cross_objs,$(1))) generic files compile$(if $(filter \
		$(1),$(CROSS_HOST_ARCHES)),; the host library's $(words $(call cross_host_objs,$(1))) \
		files build)"
build/$(1)/host/obj/%.o: %.c | $$(DEPS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  HOSTCC-$(1) $$<")
	$$(Q)$$($(1)_CC) $$(CROSS_HOST_FLAGS) -Iarch/$(1)/include -c $$< -o $$@
build/$(1)/host/libmemboot-host.a: $(call cross_host_objs,$(1))
	@$$(if $$(Q),echo "  AR      $$@")
	$$(Q)rm -f $$@ && $$(patsubst %gcc,%ar,$$($(1)_CC)) rcs $$@ $$^
-include $$(patsubst %.o,%.d,$(call cross_objs,$(1)) $(call cross_host_objs,$(1)))
endef
$(foreach a,$(CROSS_ARCHES),$(eval $(call CROSS_RULES,$(a))))
.PHONY: cross-check
cross-check: $(addprefix cross-check-,$(CROSS_ARCHES))

# The other ports' boot images (each by its own make: ARCH is one a run),
# for their guest tests (tests/guest/test_arm64*.py, test_ppc64le.py,
# test_powernv.py): the image, and the ESP where the port boots through
# UEFI too (arm64's --boot efi: `make ARCH=arm64 esp`), and the network loader
# with GRUB's modules (`efi-net`: netboot --arch arm64).
OTHER_PORTS := $(filter-out $(ARCH),$(PORTS))
.PHONY: ports
ports:
	$(Q)$(foreach p,$(OTHER_PORTS),$(MAKE) --no-print-directory ARCH=$(p) \
		$(call arch_out,$(p))/$($(p)_IMAGE) \
		$(if $(filter efi,$($(p)_RUN_BOOTS)),esp efi-net) &&) true

test: check-includes cross-check all ports host-tests fuzz-build release-check bench-build
	@python3 tests/run.py --iso $(O)/memboot.iso --elf $(O)/memboot.elf $(TEST_ARGS)

# The spare-server loop's slow guest tests alone (Secure Boot, BootNext, the
# package in a Debian root, docs/spare-metal.md's rehearsal, the arm64 round
# trip with Debian's arm64 Linux under AAVMF): minutes a boot
# under TCG, so `make test` skips them; CI runs them with it (.ci/run).
test-spare: all ports
	@MEMBOOT_SPARE_TESTS=1 python3 tests/run.py --only guest -k '$(SPARE_TESTS)' \
		--iso $(O)/memboot.iso --elf $(O)/memboot.elf $(TEST_ARGS)
SPARE_TESTS := secure_boot|bootnext|package_root|spare_docs|spare_roundtrip_arm64

fuzz: fuzz-build
	@tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The server package (tools/mbtools/package.py, dpkg-deb): this MODE's kernel
# and UEFI loader, and the tools' install, uninstall and efivars with the
# kernel tree's facts generated into it.
.PHONY: deb
deb: $(O)/memboot.elf $(O)/efi/BOOTX64.EFI
	@python3 tools/mbtools/package.py --elf $(O)/memboot.elf --loader $(O)/efi/BOOTX64.EFI \
		--out build/deb --version '$(VERSION)'

clean:
	rm -rf build

distclean: clean
	rm -rf $(NEWLIB_CACHE)

# Host benchmarks: `make bench`.
-include bench/bench.mk

# ARCH's boot protocols with a make fragment of their own: on x86_64 the
# PVH path's objects (boot/pvh/pvh.mk) and the direct UEFI loader with its ESP
# image (boot/efi/efi.mk, `make esp`).
include $(BOOT_MK)

-include $(KERNEL_OBJS:.o=.d)
-include $(HOST_LIB_OBJS:.o=.d) $(HOST_TEST_OBJS:.o=.d)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_TARGET_OBJS:.o=.d)
-include $(TOPO_OBJS:.o=.d)

# memboot: build, run, test, bench, fuzz.
#
#   make              kernel ELF, hybrid BIOS+UEFI ISO, ESP image and memboot-topo
#                     (MODE=debug by default)
#   make run          boot it in QEMU: 2 nodes x 2 CPUs x 1 GiB
#   make test         host unit tests, tool tests, guest boot tests; ends "N passed, N failed"
#   make fuzz         run each libFuzzer target for FUZZ_SECONDS
#   make host-tests   the cmocka unit tests; make fuzz-build: the fuzz targets
#   make MODE=release the release build (no DEBUG_ASSERT, no poisoning)
#   make DESC_BYTES=64 page descriptors padded to 32 or 64 bytes (build/MODE-descN/)
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

O := build/$(MODE)
HOST_O := build/host
FUZZ_O := build/fuzz
NEWLIB_CACHE ?= $(if $(HOME),$(HOME)/.cache/memboot,/var/tmp/memboot-cache)
NEWLIB := build/newlib
NEWLIB_TARBALL := $(firstword $(wildcard /usr/src/newlib/newlib-*.tar.*))
DEPS := build/.deps-ok
HOST_DEPS := build/.host-deps-ok
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
FUZZ_SECONDS ?= 60

CC := gcc
LD := ld
# Quiet by default; `make V=1` shows every command.
Q := $(if $(V),,@)
# The kernel is linked at 1 MiB, identity mapped; -mcmodel=kernel matches the
# newlib build (sign-extended 32-bit addresses, valid below 2 GiB).
# Kernel code itself uses general registers only, so exception and interrupt
# paths never clobber the SSE state newlib may be using; the one SSE user in
# kernel code, mm/memmap.c's 16-byte non-temporal store, keeps its registers
# within one asm statement (tests/tools/test_sse_users.py lists the users).
KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie -mno-red-zone \
	-mcmodel=kernel -mgeneral-regs-only -fno-stack-protector \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-builtin-printf \
	-Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Werror \
	-nostdinc -isystem $(NEWLIB)/x86_64-elf/include \
	-isystem $(shell $(CC) -print-file-name=include) \
	-I. -Iarch/include -Iarch/x86_64/include -DMEMBOOT_VERSION='"$(VERSION)"' -MMD -MP
# Page descriptor size (16, 32 or 64 bytes): the build option that lets a
# benchmark compare init time against descriptor size. Objects go to their
# own directory so the sizes never mix.
DESC_BYTES ?= 16
ifeq ($(filter $(DESC_BYTES),16 32 64),)
$(error DESC_BYTES must be 16, 32 or 64, not '$(DESC_BYTES)')
endif
ifneq ($(DESC_BYTES),16)
O := build/$(MODE)-desc$(DESC_BYTES)
endif
KCFLAGS += -DMEMMAP_DESC_BYTES=$(DESC_BYTES)
ifeq ($(MODE),release)
KCFLAGS += -DNDEBUG
else
KCFLAGS += -DMEMBOOT_DEBUG
endif
KASFLAGS := -g -fno-pic -fno-pie -I. -Iarch/include -Iarch/x86_64/include -MMD -MP
KLDFLAGS := -nostdlib -static -no-pie -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T linker/kernel.ld

# Every directory's sources by wildcard: a new file in a layer's directory is
# built with no list to edit (docs/design.md, "Where things go").
MM_DIRS := mm mm/alloc mm/hugetlb mm/pt
# kernel/services/console/out/ is the console's kernel-only side (the ring's writer,
# the drain, the UARTs and the screen): kept out of kernel/services/console/, whose
# files are pure and host-built by wildcard below.
KERNEL_DIRS := boot boot/mb2 kernel/init kernel/selftest kernel/bench kernel/fault kernel/vm \
	kernel/firmware kernel/firmware/acpi kernel/services kernel/services/clock \
	kernel/services/console kernel/services/console/out kernel/services/jobs \
	kernel/services/report arch/x86_64 $(MM_DIRS)
KERNEL_C := $(wildcard $(addsuffix /*.c,$(KERNEL_DIRS)))
KERNEL_S := $(wildcard boot/mb2/*.S arch/x86_64/*.S)
KERNEL_OBJS := $(patsubst %.c,$(O)/%.o,$(KERNEL_C)) $(patsubst %.S,$(O)/%.o,$(KERNEL_S))

# Pure C that also builds on the host: the same files the kernel links.
PURE_SRCS := boot/bootinfo.c boot/efi_map.c boot/mb2/mb2.c kernel/services/cmdline.c \
	kernel/services/report/record.c kernel/services/report/format.c kernel/services/jobs/plan.c kernel/services/clock/clockcal.c kernel/services/clock/counter_sync.c $(wildcard kernel/firmware/*.c kernel/firmware/acpi/*.c) \
	$(wildcard $(addsuffix /*.c,$(MM_DIRS)))
PURE_SRCS += boot/handoff.c boot/pvh/pvh.c boot/efi/kelf.c
# The consoles' drawing, log ring and option parsing (no hardware in them):
# every file in kernel/services/console/ itself; the kernel-only side is in
# kernel/services/console/out/, which this wildcard does not reach.
PURE_SRCS += $(wildcard kernel/services/console/*.c)
# The boot report's dump keys (memboot.dump_mmap, _acpi, _bootinfo).
PURE_SRCS += kernel/services/report/bootreport_keys.c
# The local APIC mode decision and ICR encodings; the caches from CPUID leaves.
PURE_SRCS += arch/x86_64/apic_mode.c arch/x86_64/cpu_caches.c arch/x86_64/tsc_first.c
# Each subsystem's command-line keys and their parsing (kernel/services/cmdline.h).
PURE_SRCS += kernel/services/smp_settings.c kernel/services/exit_method.c kernel/selftest/select.c kernel/bench/settings.c \
	kernel/vm/vm_settings.c
# The replay file's checks (kernel/selftest/replay.c reads the file).
PURE_SRCS += kernel/selftest/replay_file.c
# The numaperf self-test's permutation and arithmetic.
PURE_SRCS += kernel/selftest/numaperf_calc.c
# The one host shim of log_printf/panic/record_emit (tests, fuzzers, benchmarks
# and memboot-topo; each picks its behaviour with host_shim_configure()).
HOST_SUPPORT := tests/host/host_support.c
# Host-only code the tests and fuzzers exercise too: the acpidump text reader
# of tools/memboot topo (the kernel only writes that text).
HOST_TOOL_SRCS := tools/topo/acpidump_text.c
# arch/pte.h (entry bits, no instructions), arch/apic_mode.h (the APIC mode
# decision) and arch/cpu_caches.h (the caches from CPUID leaf values) are the
# arch headers pure code includes; the host build uses
# them as they are.
HOST_CFLAGS := -std=gnu11 -g -O1 -I. -Iarch/include -Iarch/x86_64/include -Wall -Wextra -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DMEMBOOT_HOST
FUZZ_CFLAGS := -std=gnu11 -g -O1 -I. -Iarch/include -Iarch/x86_64/include -Wall -Wno-unused-parameter \
	-DMEMBOOT_HOST -DMEMBOOT_FUZZ -fno-sanitize-recover=all
HOST_TESTS := $(patsubst tests/host/%.c,$(HOST_O)/%,$(wildcard tests/host/test_*.c))
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all kernel iso run test check-includes topo release-check host-tests fuzz-build fuzz bench clean distclean deps host-deps newlib help deb test-spare

# Everything a documented command needs: the ISO (make run, tools/memboot run),
# the ESP (boot/efi/efi.mk) and memboot-topo (tools/memboot topo).
all: $(O)/memboot.iso $(HOST_O)/memboot-topo

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
	@echo '  make topo             build/host/memboot-topo, behind `tools/memboot topo` (part of make)'
	@echo '  make host-deps        install only what the host builds need (tools/setup-deps.sh host)'
	@echo '  make fuzz             run every libFuzzer target for FUZZ_SECONDS (default 60)'
	@echo '  make bench            host benchmark of descriptor init; make bench-qemu: per-node init in QEMU'
	@echo '  make bench-usable     time to usable memory by phase; make bench-translated: the same, counted'
	@echo '  make bench-pt         page-fault benchmark of the page-table locks (PT_BENCH_ARGS="--threads N")'
	@echo '  make release-check    build the release kernel (warnings are errors)'
	@echo '  make deb              build/deb/memboot_VERSION_amd64.deb: kernel, UEFI loader and the memboot'
	@echo '                        command (install, uninstall, efivars) for a server (docs/spare-metal.md)'
	@echo '  make clean | distclean  remove build/ | also the newlib cache'
	@echo '  make help             this list'
	@echo 'variables:'
	@echo '  MODE=debug|release    build flavour, in build/MODE/ (default debug)'
	@echo '  DESC_BYTES=16|32|64   page descriptor size (default 16)'
	@echo '  MEMBOOT_CMDLINE="..." kernel command line baked into the ISO and the ESP (real hardware)'
	@echo '  V=1                   show every command'
	@echo 'debugging: tools/memboot run --gdb [PORT] starts QEMU halted with a gdb stub (docs/tools.md)'

kernel: $(O)/memboot.elf
iso: $(O)/memboot.iso
deps: $(DEPS)
host-deps: $(HOST_DEPS)
newlib: $(NEWLIB)/.stamp

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

$(NEWLIB)/.stamp: tools/build-newlib.sh $(NEWLIB_TARBALL) | $(DEPS)
	@tools/build-newlib.sh $(NEWLIB_CACHE) $(NEWLIB)
	@test -f $@

$(O)/%.o: %.c | $(NEWLIB)/.stamp
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(O)/%.o: %.S | $(DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -c $< -o $@

$(O)/memboot.elf: $(KERNEL_OBJS) linker/kernel.ld $(NEWLIB)/.stamp
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS) $(NEWLIB)/x86_64-elf/lib/libc.a \
		$(shell $(CC) -print-libgcc-file-name)
	@grub-file --is-x86-multiboot2 $@ || { echo "$@: no valid Multiboot2 header" >&2; rm -f $@; exit 1; }

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

$(O)/memboot.iso: $(O)/memboot.elf tools/mkiso.sh $(O)/cmdline.stamp
	@tools/mkiso.sh $< $@

run: all
	tools/memboot run --iso $(O)/memboot.iso --nodes 2 --cpus-per-node 2 --mem-per-node 1G $(RUN_ARGS)

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
	$(Q)$(CC) -I. -Iarch/include -Iarch/x86_64/include -MMD -MP -c $< -o $@

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
TOOL_CFLAGS := -std=gnu11 -O2 -g -I. -Iarch/include -Iarch/x86_64/include -Wall -Wextra -Wno-unused-parameter -DMEMBOOT_HOST
TOPO_SRCS := tools/topo/memboot-topo.c tools/topo/acpidump_text.c boot/bootinfo.c \
	kernel/services/report/record.c $(wildcard kernel/firmware/*.c kernel/firmware/acpi/*.c) \
	$(wildcard mm/numa*.c) mm/tiers.c mm/machine.c arch/x86_64/apic_mode.c \
	$(HOST_SUPPORT)
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

test: check-includes all host-tests fuzz-build release-check bench-build
	@python3 tests/run.py --iso $(O)/memboot.iso --elf $(O)/memboot.elf $(TEST_ARGS)

# The spare-server loop's slow guest tests alone (Secure Boot, BootNext, the
# package in a Debian root, docs/spare-metal.md's rehearsal): minutes a boot
# under TCG, so `make test` skips them; CI runs them with it (.ci/run).
test-spare: all
	@MEMBOOT_SPARE_TESTS=1 python3 tests/run.py --only guest -k '$(SPARE_TESTS)' \
		--iso $(O)/memboot.iso --elf $(O)/memboot.elf $(TEST_ARGS)
SPARE_TESTS := secure_boot|bootnext|package_root|spare_docs

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

# The direct UEFI loader (BOOTX64.EFI) and its ESP image: `make esp`.
-include boot/efi/efi.mk

-include $(KERNEL_OBJS:.o=.d)
-include $(HOST_LIB_OBJS:.o=.d) $(HOST_TEST_OBJS:.o=.d)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_TARGET_OBJS:.o=.d)
-include $(TOPO_OBJS:.o=.d)

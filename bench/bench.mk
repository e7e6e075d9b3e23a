# Benchmarks (included by the top Makefile).
#
#   make bench          quick host and guest benchmarks: tables on stdout,
#                       about a minute, no file in the checkout written
#   make results        the full host benchmark and the QEMU boots, and
#                       rewrite their sections of docs/results.md (explicitly)
#   make seeds          the seed threads' tables beside the seeds' figures
#   make bench-host BENCH_ARGS='--threads 1,2,4,8,16'   host benchmark, full size
#   make bench-qemu     per-node init and huge pools from QEMU boots (tables)
#   make bench-usable   time to usable memory, every phase, release and debug (tables)
#   make bench-translated  instructions QEMU translates before memory is usable, by phase
#   make compare-linux  Debian's Linux cloud kernel beside memboot (downloads it once)
#   make bench-pt       seed 003's page-table fault-in benchmark (below)
#   make bench-memtest  the memory test's passes against the store limit, per pattern
#   bench/device.sh     all host benchmarks at 1-16 threads on a many-core machine
#
# memmap: mm/memmap.c, mm/alloc/buddy.c and kernel/services/jobs/plan.c built natively,
# once per descriptor size (16, 32, 64 bytes), with the kernel's code
# generation where it matters for speed (-O2 -mgeneral-regs-only: 8-byte
# general-register stores, as in the kernel) and without sanitizers; the
# driver (bench/memmap_bench.c, which needs floating point and SSE for
# clflush) is built apart and linked with them. bench/memmap_results.py runs
# the three binaries and prints the tables (with --results it rewrites its
# own section of docs/results.md).
#
# Objects, one per source as in the other host builds (top Makefile), each
# with its .d file, so a header change recompiles only what includes it:
#   build/bench/N/...     kernel sources for descriptor size N (BENCH_KCFLAGS)
#   build/bench/N/bench/  the memmap driver for size N (BENCH_HOST_CFLAGS)
#   build/bench/host/...  host-side code: the other drivers, the host shim
#                         (tests/host/host_support.c), mm/pt/pt.c for bench-pt

BENCH_O := build/bench
BENCH_DESC_SIZES := 16 32 64
BENCH_ARGS ?=
# Every allocator of mm/alloc/ by wildcard: a new one (mm/alloc/table.h) links
# here with no list to edit. kernel/services/report/record.c: the host shim's record_emit()
# finishes records with it.
# Every allocator and the per-CPU lists, with the services their pure code
# calls (records; the shared list and number parsers of their keys).
BENCH_ALLOC_SRCS := $(wildcard mm/alloc/*.c) kernel/services/cmdline.c
# (With the caches the store choice of mm/memmap.c reads: the host's
# architecture's pure cpu_caches.c, of NAME_PURE in arch/NAME/arch.mk.)
MEMMAP_BENCH_KSRCS := mm/memmap.c kernel/services/jobs/plan.c $(BENCH_ALLOC_SRCS) kernel/services/report/record.c \
	$(filter %/cpu_caches.c,$($(HOST_ARCH)_PURE))
MEMMAP_BENCH_BINS := $(addprefix $(BENCH_O)/memmap_bench_,$(BENCH_DESC_SIZES))
# The host builds' include path (HOST_INCLUDES, the top Makefile): the
# architecture $(CC) compiles for gives the inline half of the arch interface
# (arch/NAME/include/asm/: the counter, the stores and fences of
# mm/memmap.c), so a cross build of the lab (CC=aarch64-linux-gnu-gcc) takes
# arm64's, not the TSC.
BENCH_CFLAGS := -std=gnu11 -O2 -g $(HOST_INCLUDES) -Wall -Wextra -Wno-unused-parameter -Werror -DNDEBUG
BENCH_KCFLAGS := $(BENCH_CFLAGS) -mgeneral-regs-only -ffreestanding -fno-builtin-printf
BENCH_HOST_CFLAGS := $(BENCH_CFLAGS) -pthread
BENCH_SUPPORT_OBJ := $(BENCH_O)/host/tests/host/host_support.o

# build/bench/16/mm/memmap.o ...: kernel sources, one set per descriptor size
# (the more specific bench/ rule builds the driver of that size).
define BENCH_SIZE_RULES
$(BENCH_O)/$(1)/%.o: %.c bench/bench.mk | $(HOST_DEPS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  BENCHCC $$@")
	$$(Q)$$(CC) $$(BENCH_KCFLAGS) -DMEMMAP_DESC_BYTES=$(1) -MMD -MP -c $$< -o $$@
$(BENCH_O)/$(1)/bench/%.o: bench/%.c bench/bench.mk | $(HOST_DEPS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  BENCHCC $$@")
	$$(Q)$$(CC) $$(BENCH_HOST_CFLAGS) -DMEMMAP_DESC_BYTES=$(1) -MMD -MP -c $$< -o $$@
$(BENCH_O)/memmap_bench_$(1): $(BENCH_O)/$(1)/bench/memmap_bench.o \
		$(BENCH_O)/$(1)/bench/memmap_host_$(HOST_ARCH).o \
		$(patsubst %.c,$(BENCH_O)/$(1)/%.o,$(MEMMAP_BENCH_KSRCS)) $(BENCH_SUPPORT_OBJ)
	@$$(if $$(Q),echo "  BENCHLD $$@")
	$$(Q)$$(CC) $$(BENCH_HOST_CFLAGS) -o $$@ $$^
endef
$(foreach n,$(BENCH_DESC_SIZES),$(eval $(call BENCH_SIZE_RULES,$(n))))

$(BENCH_O)/host/%.o: %.c bench/bench.mk | $(HOST_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  BENCHCC $@")
	$(Q)$(CC) $(BENCH_HOST_CFLAGS) -MMD -MP -c $< -o $@

.PHONY: bench-build
# Every host benchmark binary (make test builds them all, so a link line
# that breaks fails the tests, not a user's first `make bench-pt`).
bench-build: $(MEMMAP_BENCH_BINS) $(BENCH_O)/pt_bench $(BENCH_O)/pcp_bench $(BENCH_O)/lab \
	$(BENCH_O)/lab-counted $(BENCH_O)/lab-stress

BENCH_QUICK_ARGS := --quick --reps 15 --budget-s 15 --what init,init_plain,init_nt,lim_memset,lim_store,lim_nt,lim_ntdq

# SMOKE=1: every benchmark target at its smallest, one repetition or boot of
# the least work that still runs each step and prints each table: a check
# that the command works (tests/guest/test_commands.py runs every documented
# command so), never figures to keep. The arguments go first: BENCH_ARGS and
# the others still win.
SMOKE ?=
ifneq ($(SMOKE),)
SMOKE_MEMMAP_ARGS := --pages 1200000 --reps 1 --threads 1
SMOKE_TOOL_BENCH_ARGS := --boots 1 --axis topo=1x1x512M --axis init=deferred --axis threads=1
SMOKE_TOPO_ARGS := --nodes 1 --cpus-per-node 1 --mem-per-node 512M
SMOKE_BOOT_ARGS := --boots 1 $(SMOKE_TOPO_ARGS)
SMOKE_QEMU_ARGS := --boots 1 --policies deferred --nodes 1 --cpus-per-node 1 --mem-per-node 512M
SMOKE_SEED_ARGS := --boots 1
SMOKE_LINUX_ARGS := --nodes 1 --cpus-per-node 1 --mem-per-node 1G
PT_BENCH_ARGS ?= --threads 1 --mib 16 --reps 1
PCP_BENCH_ARGS ?= --threads 1 --repeats 1 --allocs 2000 --mix kbuild
PCP_GUEST_ARGS ?= --nodes 1 --cpus-per-node 2 --mem-per-node 512M --repeats 1 --allocs 500
FUZZ_SECONDS := 1
endif

.PHONY: bench bench-host bench-qemu bench-usable bench-translated results seeds compare-linux
bench: $(MEMMAP_BENCH_BINS) all
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) --command "make bench" \
		-- $(BENCH_QUICK_ARGS) $(SMOKE_MEMMAP_ARGS) $(BENCH_ARGS)
	@tools/memboot bench --quick $(SMOKE_TOOL_BENCH_ARGS)

bench-host: $(MEMMAP_BENCH_BINS)
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) \
		--command "make bench-host$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" -- \
		$(SMOKE_MEMMAP_ARGS) $(BENCH_ARGS)

# Per-node init figures from real boots (QEMU, 2 nodes x 2 CPUs x 2 GiB).
bench-qemu: all
	@python3 bench/qemu_meminit.py --iso $(O)/memboot.iso $(SMOKE_QEMU_ARGS)

# Time to usable memory and every phase, release against debug, both with
# guest RAM preallocated (bench/usable.py; BENCH_ARGS='--boots 9 --config ...').
bench-usable: all
	@$(MAKE) --no-print-directory MODE=release kernel
	@python3 bench/usable.py $(SMOKE_BOOT_ARGS) $(BENCH_ARGS)

# The same boots counted, not timed: the instructions QEMU's TCG translates
# before memory is usable, by phase (bench/translated.py; BENCH_ARGS as above).
bench-translated: all
	@$(MAKE) --no-print-directory MODE=release kernel
	@python3 bench/translated.py $(SMOKE_TOPO_ARGS) $(BENCH_ARGS)

# The only benchmark target that writes a tracked file.
results: $(MEMMAP_BENCH_BINS) all
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) --results docs/results.md \
		--command "make results$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" -- \
		$(SMOKE_MEMMAP_ARGS) $(BENCH_ARGS)
	@python3 bench/qemu_meminit.py --iso $(O)/memboot.iso --results docs/results.md \
		--command "make results" $(SMOKE_QEMU_ARGS)

seeds: all
	@tools/memboot bench --seed all $(SMOKE_SEED_ARGS)

compare-linux: all
	@tools/memboot compare-linux $(SMOKE_LINUX_ARGS)

# Page-table fault-in (seed 003's thp_memscale shape): mm/pt/pt.c natively with
# pthreads; prints a table, writes no file.
#   make bench-pt [PT_BENCH_ARGS='--threads 16 --mib 1024 --reps 5']
PT_BENCH_ARGS ?=
PT_BENCH_OBJS := $(BENCH_O)/host/bench/pt_bench.o $(BENCH_O)/host/mm/pt/pt.o \
	$(BENCH_O)/host/kernel/services/cmdline.o $(BENCH_O)/host/kernel/services/report/record.o $(BENCH_SUPPORT_OBJ)
$(BENCH_O)/pt_bench: $(PT_BENCH_OBJS)
	@$(if $(Q),echo "  BENCHLD $@")
	$(Q)$(CC) $(BENCH_HOST_CFLAGS) -o $@ $^

# The host benchmark of descriptor init built for arm64 with Debian's cross
# compiler and run under qemu-aarch64 (qemu-user from bookworm-backports,
# tools/setup-deps.sh), every descriptor size: its checks of every
# descriptor and buddy zone pass there, the store probe and the limits run
# in arm64's own instructions (bench/memmap_host_arm64.c). A check of the
# build, not figures: qemu-user times its translator, not memory.
# BENCH_ARM64_ARGS: memmap_bench's arguments (a short run by default).
BENCH_ARM64_O := build/bench-arm64
BENCH_ARM64_CC := aarch64-linux-gnu-gcc
BENCH_ARM64_SYSROOT := /usr/aarch64-linux-gnu
BENCH_ARM64_ARGS ?= --pages 1200000 --reps 1 --threads 1,2
.PHONY: bench-arm64-user
bench-arm64-user:
	@$(MAKE) --no-print-directory CC=$(BENCH_ARM64_CC) BENCH_O=$(BENCH_ARM64_O) \
		$(addprefix $(BENCH_ARM64_O)/memmap_bench_,$(BENCH_DESC_SIZES))
	@for n in $(BENCH_DESC_SIZES); do \
		qemu-aarch64 -L $(BENCH_ARM64_SYSROOT) $(BENCH_ARM64_O)/memmap_bench_$$n \
			$(BENCH_ARM64_ARGS) || exit 1; \
	done

.PHONY: bench-pt bench-pt-build
bench-pt-build: $(BENCH_O)/pt_bench
bench-pt: $(BENCH_O)/pt_bench
	@$(BENCH_O)/pt_bench $(PT_BENCH_ARGS)

# Per-CPU page lists: mm/alloc/pcp.c and the churn workload (mm/alloc/churn.c) in front
# of mm/alloc/buddy.c, on pthreads; prints seed 002's table, one row per step set
# of Linux's PCP auto-tuning series. Writes no file.
#   make bench-pcp PCP_BENCH_ARGS='--threads 16 --mix all'
# The kernel objects are the 16-byte descriptor set (the size the kernel
# builds by default) of the memmap benchmark.
PCP_BENCH_KSRCS := mm/memmap.c $(BENCH_ALLOC_SRCS) kernel/services/report/record.c
PCP_BENCH_ARGS ?= --mix all
PCP_BENCH_OBJS := $(BENCH_O)/host/bench/pcp_bench.o $(patsubst %.c,$(BENCH_O)/16/%.o,$(PCP_BENCH_KSRCS)) \
	$(BENCH_SUPPORT_OBJ)
$(BENCH_O)/pcp_bench: $(PCP_BENCH_OBJS)
	@$(if $(Q),echo "  BENCHLD $@")
	$(Q)$(CC) $(BENCH_HOST_CFLAGS) -o $@ $^

.PHONY: bench-pcp bench-pcp-build
bench-pcp-build: $(BENCH_O)/pcp_bench
bench-pcp: $(BENCH_O)/pcp_bench
	@$(BENCH_O)/pcp_bench $(PCP_BENCH_ARGS)

# The same rows from guest boots (memboot.selftest=churn, 2 nodes x 4 CPUs):
#   make bench-pcp-guest PCP_GUEST_ARGS='--repeats 5 --mix deep'
#   make ARCH=arm64 bench-pcp-guest   (the arm64 Image, the device tree boot)
PCP_GUEST_ARGS ?=
PCP_GUEST_KERNEL_x86_64 := $(O)/memboot.elf
PCP_GUEST_KERNEL_arm64 := $(O)/Image
PCP_GUEST_OPTS_x86_64 := --elf $(O)/memboot.elf
PCP_GUEST_OPTS_arm64 := --arch arm64 --image $(O)/Image
.PHONY: bench-pcp-guest
bench-pcp-guest: $(PCP_GUEST_KERNEL_$(ARCH))
	@python3 bench/pcp_guest.py $(PCP_GUEST_OPTS_$(ARCH)) $(PCP_GUEST_ARGS)

# The allocator lab's harness (tools/memboot lab): every allocator of
# mm/alloc/table.h, built natively (-march=native, no sanitizers), on
# pthreads. tools/memboot lab builds it on demand.
# The host's own CPU by default; a cross build (another architecture's
# compiler as CC) names its own or none: make CC=aarch64-linux-gnu-gcc
# LAB_MARCH= BENCH_O=build/bench-arm64 build/bench-arm64/lab
# Two more builds of the same sources (bench/lab.c says what each is for):
#   build/bench/lab-counted  no -march at all: valgrind runs it (tools/memboot
#                            lab --counted), and it counts the same
#                            instructions on every x86-64 host
#   build/bench/lab-stress   every allocator compiled with bench/lab_stress.h
#                            first: its lock operations are points where
#                            --stress hands the CPU to another thread
LAB_MARCH ?= -march=native
LAB_KSRCS := mm/memmap.c $(BENCH_ALLOC_SRCS) kernel/services/report/record.c
# $(1): objects' directory, $(2): the binary, $(3): flags of the driver,
# $(4): flags of the kernel sources.
define LAB_BUILD_RULES
$(BENCH_O)/$(1)/bench/%.o: bench/%.c bench/bench.mk | $(HOST_DEPS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  BENCHCC $$@")
	$$(Q)$$(CC) $$(BENCH_HOST_CFLAGS) $(3) -MMD -MP -c $$< -o $$@
$(BENCH_O)/$(1)/%.o: %.c bench/bench.mk | $(HOST_DEPS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  BENCHCC $$@")
	$$(Q)$$(CC) $$(BENCH_KCFLAGS) $(4) -MMD -MP -c $$< -o $$@
$(BENCH_O)/$(2): $(BENCH_O)/$(1)/bench/lab.o $(patsubst %.c,$(BENCH_O)/$(1)/%.o,$(LAB_KSRCS)) \
		$(BENCH_SUPPORT_OBJ)
	@$$(if $$(Q),echo "  BENCHLD $$@")
	$$(Q)$$(CC) $$(BENCH_HOST_CFLAGS) -o $$@ $$^
endef
$(eval $(call LAB_BUILD_RULES,labobj,lab,$(LAB_MARCH),$(LAB_MARCH)))
$(eval $(call LAB_BUILD_RULES,countobj,lab-counted,,))
$(eval $(call LAB_BUILD_RULES,stressobj,lab-stress,$(LAB_MARCH) -DLAB_STRESS_BUILD,\
	$(LAB_MARCH) -include bench/lab_stress.h))
LAB_BINS := $(BENCH_O)/lab $(BENCH_O)/lab-counted $(BENCH_O)/lab-stress
LAB_OBJS := $(foreach d,labobj countobj stressobj,$(BENCH_O)/$(d)/bench/lab.o \
	$(patsubst %.c,$(BENCH_O)/$(d)/%.o,$(LAB_KSRCS))) $(BENCH_SUPPORT_OBJ)

.PHONY: lab-build
lab-build: $(LAB_BINS)

-include $(patsubst %.o,%.d,$(foreach n,$(BENCH_DESC_SIZES),$(BENCH_O)/$(n)/bench/memmap_bench.o \
	$(patsubst %.c,$(BENCH_O)/$(n)/%.o,$(MEMMAP_BENCH_KSRCS))) $(BENCH_SUPPORT_OBJ) \
	$(PT_BENCH_OBJS) $(PCP_BENCH_OBJS) $(LAB_OBJS))

# The memory test's passes (mm/memtest.c, kernel code generation) against the
# store limit, bytes per second per pattern (bench/memtest_bench.c; not part
# of `make bench`: about 10 s at 256 MiB).
MEMTEST_BENCH_KSRCS := mm/memtest.c kernel/services/cmdline.c kernel/services/report/record.c kernel/services/report/format.c
$(BENCH_O)/memtest_bench: $(BENCH_O)/host/bench/memtest_bench.o \
		$(patsubst %.c,$(BENCH_O)/16/%.o,$(MEMTEST_BENCH_KSRCS)) $(BENCH_SUPPORT_OBJ)
	@$(if $(Q),echo "  BENCHLD $@")
	$(Q)$(CC) $(BENCH_HOST_CFLAGS) -o $@ $^
.PHONY: bench-memtest
bench-memtest: $(BENCH_O)/memtest_bench
	@$(BENCH_O)/memtest_bench $(BENCH_ARGS)

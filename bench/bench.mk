# Benchmarks (included by the top Makefile).
#
#   make bench          quick host and guest benchmarks: tables on stdout,
#                       about 3 minutes, no file in the checkout written
#   make results        the full host benchmark and the QEMU boots, and
#                       rewrite their sections of docs/results.md (explicitly)
#   make seeds          the seed threads' tables beside the seeds' figures
#   make bench-host BENCH_ARGS='--threads 1,2,4,8,16'   host benchmark, full size
#   make bench-qemu     per-node init and huge pools from QEMU boots (tables)
#   make compare-linux  Debian's Linux cloud kernel beside memboot (downloads it once)
#   make bench-pt       seed 003's page-table fault-in benchmark (below)
#   bench/device.sh     all host benchmarks at 1-16 threads on a many-core machine
#
# memmap: mm/memmap.c, mm/alloc/buddy.c and kernel/job_plan.c built natively,
# once per descriptor size (16, 32, 64 bytes), with the kernel's code
# generation where it matters for speed (-O2 -mgeneral-regs-only: 8-byte
# general-register stores, as in the kernel) and without sanitizers; the
# driver (bench/memmap_bench.c, which needs floating point and SSE for
# clflush) is built apart and linked with them. bench/memmap_results.py runs
# the three binaries and prints the tables (with --results it rewrites its
# own section of docs/results.md).

BENCH_O := build/bench
BENCH_DESC_SIZES := 16 32 64
BENCH_ARGS ?=
# Every allocator of mm/alloc/ by wildcard: a new one (mm/alloc/table.h) links
# here with no list to edit.
BENCH_ALLOC_SRCS := $(wildcard mm/alloc/*.c)
MEMMAP_BENCH_KSRCS := mm/memmap.c kernel/job_plan.c $(BENCH_ALLOC_SRCS)
MEMMAP_BENCH_HDRS := mm/page.h mm/memmap.h $(wildcard mm/alloc/*.h) kernel/job_plan.h kernel/spinlock.h \
	kernel/panic.h kernel/log.h
MEMMAP_BENCH_BINS := $(addprefix $(BENCH_O)/memmap_bench_,$(BENCH_DESC_SIZES))
BENCH_CFLAGS := -std=gnu11 -O2 -g -I. -Wall -Wextra -Wno-unused-parameter -Werror -DNDEBUG
BENCH_KCFLAGS := $(BENCH_CFLAGS) -mgeneral-regs-only -ffreestanding -fno-builtin-printf

# build/bench/16/mm/memmap.o ...: kernel sources, one set per descriptor size.
$(BENCH_O)/%/k.o: $(MEMMAP_BENCH_KSRCS) $(MEMMAP_BENCH_HDRS) bench/bench.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  BENCHCC $@")
	$(Q)for f in $(MEMMAP_BENCH_KSRCS); do \
		$(CC) $(BENCH_KCFLAGS) -DMEMMAP_DESC_BYTES=$* -c $$f \
			-o $(@D)/$$(basename $$f .c).o || exit 1; \
	done
	$(Q)ld -r -o $@ $(addprefix $(@D)/,$(notdir $(MEMMAP_BENCH_KSRCS:.c=.o)))

$(BENCH_O)/memmap_bench_%: $(BENCH_O)/%/k.o bench/memmap_bench.c bench/bench_support.c \
		$(MEMMAP_BENCH_HDRS) bench/bench.mk
	@$(if $(Q),echo "  BENCHLD $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -pthread -DMEMMAP_DESC_BYTES=$* -o $@ \
		bench/memmap_bench.c bench/bench_support.c $(BENCH_O)/$*/k.o

.PRECIOUS: $(BENCH_O)/%/k.o
.PHONY: bench-build
bench-build: $(MEMMAP_BENCH_BINS)

BENCH_QUICK_ARGS := --quick --what init,init_plain,init_nt,lim_memset,lim_store,lim_nt

.PHONY: bench bench-host bench-qemu results seeds compare-linux
bench: $(MEMMAP_BENCH_BINS) all
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) --command "make bench" \
		-- $(BENCH_QUICK_ARGS) $(BENCH_ARGS)
	@tools/memboot bench --quick

bench-host: $(MEMMAP_BENCH_BINS)
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) \
		--command "make bench-host$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" -- $(BENCH_ARGS)

# Per-node init figures from real boots (QEMU, 2 nodes x 2 CPUs x 2 GiB).
bench-qemu: all
	@python3 bench/qemu_meminit.py --iso $(O)/memboot.iso

# The only benchmark target that writes a tracked file.
results: $(MEMMAP_BENCH_BINS) all
	@python3 bench/memmap_results.py --bin-dir $(BENCH_O) --results docs/results.md \
		--command "make results$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" -- $(BENCH_ARGS)
	@python3 bench/qemu_meminit.py --iso $(O)/memboot.iso --results docs/results.md \
		--command "make results"

seeds: all
	@tools/memboot bench --seed all

compare-linux: all
	@tools/memboot compare-linux

# Page-table fault-in (seed 003's thp_memscale shape): mm/pt/pt.c natively with
# pthreads; prints a table, writes no file.
#   make bench-pt [PT_BENCH_ARGS='--threads 16 --mib 1024 --reps 5']
PT_BENCH_ARGS ?=
$(BENCH_O)/pt_bench: bench/pt_bench.c mm/pt/pt.c mm/pt/pt.h mm/page.h kernel/spinlock.h \
		arch/x86_64/include/arch/pte.h tests/host/pt_arena.h bench/bench.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  BENCHCC $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -Iarch/x86_64/include -pthread -o $@ bench/pt_bench.c mm/pt/pt.c

.PHONY: bench-pt bench-pt-build
bench-pt-build: $(BENCH_O)/pt_bench
bench-pt: $(BENCH_O)/pt_bench
	@$(BENCH_O)/pt_bench $(PT_BENCH_ARGS)

# Per-CPU page lists: mm/alloc/pcp.c and the churn workload (mm/alloc/churn.c) in front
# of mm/alloc/buddy.c, on pthreads; prints seed 002's table, one row per step set
# of Linux's PCP auto-tuning series. Writes no file.
#   make bench-pcp PCP_BENCH_ARGS='--threads 16 --mix all'
PCP_BENCH_KSRCS := mm/memmap.c $(BENCH_ALLOC_SRCS)
PCP_BENCH_ARGS ?= --mix all
$(BENCH_O)/pcp_bench: $(PCP_BENCH_KSRCS) bench/pcp_bench.c bench/bench_support.c \
		mm/alloc/pcp.h mm/alloc/churn.h tests/host/pcp_buddy_zone.h $(MEMMAP_BENCH_HDRS) bench/bench.mk
	@mkdir -p $(@D)/pcpk
	@$(if $(Q),echo "  BENCHCC $@")
	$(Q)for f in $(PCP_BENCH_KSRCS); do \
		$(CC) $(BENCH_KCFLAGS) -c $$f -o $(@D)/pcpk/$$(basename $$f .c).o || exit 1; \
	done
	$(Q)$(CC) $(BENCH_CFLAGS) -pthread -o $@ bench/pcp_bench.c bench/bench_support.c \
		$(addprefix $(@D)/pcpk/,$(notdir $(PCP_BENCH_KSRCS:.c=.o)))

.PHONY: bench-pcp
bench-pcp: $(BENCH_O)/pcp_bench
	@$(BENCH_O)/pcp_bench $(PCP_BENCH_ARGS)

# The same rows from guest boots (memboot.selftest=churn, 2 nodes x 4 CPUs):
#   make bench-pcp-guest PCP_GUEST_ARGS='--repeats 5 --mix deep'
PCP_GUEST_ARGS ?=
.PHONY: bench-pcp-guest
bench-pcp-guest: $(O)/memboot.elf
	@python3 bench/pcp_guest.py --elf $(O)/memboot.elf $(PCP_GUEST_ARGS)

# The allocator lab's harness (tools/memboot lab): every allocator of
# mm/alloc/table.h, built natively (-O2 -march=native, no sanitizers), on
# pthreads. tools/memboot lab builds it on demand.
LAB_KSRCS := mm/memmap.c $(BENCH_ALLOC_SRCS)
$(BENCH_O)/lab: bench/lab.c bench/bench_support.c $(LAB_KSRCS) $(MEMMAP_BENCH_HDRS) bench/bench.mk
	@mkdir -p $(@D)/labk
	@$(if $(Q),echo "  BENCHCC $@")
	$(Q)for f in $(LAB_KSRCS); do \
		$(CC) $(BENCH_KCFLAGS) -march=native -c $$f -o $(@D)/labk/$$(basename $$f .c).o || exit 1; \
	done
	$(Q)$(CC) $(BENCH_CFLAGS) -march=native -pthread -o $@ bench/lab.c bench/bench_support.c \
		$(addprefix $(@D)/labk/,$(notdir $(LAB_KSRCS:.c=.o)))

.PHONY: lab-build
lab-build: $(BENCH_O)/lab

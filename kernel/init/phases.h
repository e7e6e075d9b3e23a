/*
 * phases.h: the boot's phases, in the order kernel/init/main.c runs them,
 * each with what it takes and what it builds (`bs.` is main.c's boot
 * state). This is the one list: PHASE() in main.c names its phase from it
 * (a phase not listed here does not compile), and tests/tools/test_phases.py
 * checks that main.c runs them in this order and that the docs point here
 * and cite only phases listed here; the guest tests read their expected
 * order from it (tools/mbtools/facts.py). Each phase NAME is
 * kernel/init/NAME.c, entry point init_NAME() (tests/tools/test_recipes.py
 * adds one in a scratch copy).
 *
 * X(name, when, takes, builds): @name is the `phase` record's and the
 * summary's; @when is ALWAYS, or WITH_KEY for a phase only a command-line
 * key runs (its key is named in @takes), or STEP for a step between two
 * phases that is not timed as one (no `phase` record: main.c runs it with
 * STEP(), a phase with PHASE(); the wrong one does not compile).
 */
#ifndef MEMBOOT_KERNEL_INIT_PHASES_H
#define MEMBOOT_KERNEL_INIT_PHASES_H

#define BOOT_PHASES(X) \
	X(early, ALWAYS, \
	  "the CPU as the loader left it", \
	  "console on the first serial port, CPU identity, descriptor tables, the clock's first figure (`bs.clock`)") \
	X(bootinfo, ALWAYS, \
	  "the loader's registers", \
	  "`bs.bootinfo`: the normalized memory map (sorted, disjoint, page aligned), RSDP, command line, boot path") \
	X(cmdline, ALWAYS, \
	  "`bs.bootinfo`'s command line", \
	  "each subsystem's settings, parsed by its own key table (docs/cmdline.md)") \
	X(console, ALWAYS, \
	  "the `console=` settings, `bs.bootinfo`'s framebuffer", \
	  "the consoles people read") \
	X(report, ALWAYS, \
	  "`bs.bootinfo`", \
	  "the `boot`, `mem_range` and `mem_summary` records (made when the consoles drain, printed here: docs/console.md, \"Reports made late\"; so are the ACPI table list of `acpi`, the NUMA report of `numa` and the SMP report of `smp`)") \
	X(physmem, ALWAYS, \
	  "`bs.bootinfo`'s usable ranges", \
	  "`bs.physmem`: the early allocator, with page 0 and the kernel image reserved") \
	X(acpi, ALWAYS, \
	  "`bs.bootinfo`'s RSDP", \
	  "`bs.acpi`: MADT (CPUs), SRAT (CPU and memory affinity), SLIT (distances), validated; the timers the clock measures its counter against, handed to `bs.clock` (measured here only when the first figure is poor, or is none), S5 (only with `memboot.exit=poweroff`, its one user), SPCR") \
	X(numa, ALWAYS, \
	  "`bs.bootinfo`, `bs.acpi`", \
	  "`bs.topo`: nodes, each CPU's node, each range's node, distances; `bs.physmem` learns the nodes and distances") \
	X(tiers, ALWAYS, \
	  "`bs.acpi` (HMAT, SRAT), `bs.topo`", \
	  "`bs.tiers`: the HMAT checked against the SRAT (warnings only), each node's best initiator's figures and memory tier (mm/tiers.c, Linux's abstract distance), the SRAT's generic initiators and ports reported; a CPU-less node's `init_node` in `bs.topo`: the node whose CPUs initialise its memory (HMAT, else SLIT)") \
	X(hugetlb1g, ALWAYS, \
	  "`bs.topo`, `bs.physmem`", \
	  "`bs.hugetlb`'s 1 GiB pages, reserved on their exact node before anything large is allocated") \
	X(pagetables, ALWAYS, \
	  "`bs.bootinfo`, `bs.physmem`", \
	  "the kernel's own W^X page tables, kept below 4 GiB, their pages from `bs.physmem`") \
	X(smp, ALWAYS, \
	  "`bs.acpi`, `bs.topo`, `bs.physmem`, `bs.clock`", \
	  "how CPUs are started and signalled (arch/smp.h); every CPU up, its per-CPU area and stack from `bs.physmem` on its own node (their counters are checked in `tscsync`); one of the clock's second references posted to an idle AP to measure") \
	X(memmap, ALWAYS, \
	  "`bs.topo`, `bs.physmem`", \
	  "`bs.memmap`: one page descriptor array per node, in that node's memory") \
	X(memprep, ALWAYS, \
	  "`bs.topo`, `bs.hugetlb`, `bs.physmem`, `bs.memmap`", \
	  "the allocator started, the per-CPU lists' memory reserved, the free ranges taken as the init engine's work, the fixed descriptors written (reserved pages, holes, 1 GiB pool heads); `bs.physmem` retires; `bs.census`: the baseline. While the APs measure the clock") \
	X(meminit, ALWAYS, \
	  "`bs.memmap`", \
	  "every free page initialised by its own node's CPUs and handed to the allocator (1 GiB pool pages get a head descriptor only), in 4 MiB steps that a node's other CPUs finish if one is lost mid-chunk; with `memtest=N` each piece is tested first, its bad pages kept out (docs/memory.md, \"memtest\"); the nodes' jobs are posted as the phase starts, and the phase ends when memory is usable") \
	X(clockcheck, ALWAYS, \
	  "`bs.clock` (an AP measured the finest second reference from the end of `smp`; the boot CPU measures the others here)", \
	  "the precise figure of the counter's rate, the `clock_check` records (docs/measuring.md): once memory is usable, since nothing before needs it (nothing is printed or converted for good until then)") \
	X(tscsync, ALWAYS, \
	  "the online CPUs, `bs.smp`, `bs.clock`", \
	  "every AP's counter checked against the boot CPU's where the architecture does not promise they agree (`tsc_sync` records, made with the smp report), a known offset corrected from here on") \
	X(meminit_report, STEP, \
	  "`bs.topo`, `bs.physmem` (its retired reservations), tscsync's offsets", \
	  "meminit's figures (`node_init`, `node_cpu`, `alloc`, `physmem_retire`; the boot's usable_ns), the APs' chunk times corrected by tscsync's offsets and every time converted at the precise rate: nothing on the path to usable memory waits for the check") \
	X(machine, ALWAYS, \
	  "`bs.bootinfo`'s SMBIOS entry point (boot/ found it in the BIOS area or the EFI configuration table), `bs.topo`", \
	  "`bs.machine`: firmware, system, board, sockets and memory devices (kernel/firmware/smbios.c), each device on its node; the `machine`, `dimm` and `node_dimms` records. After memory is usable: nothing before needs it") \
	X(hugetlb, ALWAYS, \
	  "`bs.topo`, `bs.memmap`, the allocator", \
	  "`bs.hugetlb`'s 2 MiB pools per node, filled in parallel") \
	X(vm, ALWAYS, \
	  "`bs.memmap`, `bs.hugetlb`", \
	  "the #PF handler and the TLB shootdown vector, for address spaces (kernel/vm/)") \
	X(census, ALWAYS, \
	  "`bs.topo`, `bs.memmap`, `bs.census`", \
	  "every page counted exactly once; a lost page fails the boot (status 5)") \
	X(pcp, ALWAYS, \
	  "the allocator, the online CPUs", \
	  "per-CPU page lists in front of the allocator") \
	X(selftest, ALWAYS, \
	  "`bs.topo`, `bs.memmap`, `bs.hugetlb`, the census (a `struct selftest_ctx`), what the command line asks", \
	  "the self-tests of kernel/selftest/list.h, each followed by a census (`memboot.selftest=list` prints the table)") \
	X(bench, WITH_KEY, \
	  "`bs.topo`, `bs.memmap`, `memboot.bench=pt`", \
	  "seed 003's page-table fault-in benchmark in the guest (`pt_bench` records): only with `memboot.bench`")

enum boot_phase_when { BOOT_WHEN_ALWAYS, BOOT_WHEN_WITH_KEY, BOOT_WHEN_STEP };

/* Each entry's kind, for PHASE() and STEP() to check. */
enum boot_phase_kind {
#define BOOT_PHASE_KIND_(name, when, takes, builds) BOOT_KIND_##name = BOOT_WHEN_##when,
	BOOT_PHASES(BOOT_PHASE_KIND_)
#undef BOOT_PHASE_KIND_
};

enum boot_phase {
#define BOOT_PHASE_ENUM_(name, when, takes, builds) BOOT_PHASE_##name,
	BOOT_PHASES(BOOT_PHASE_ENUM_)
#undef BOOT_PHASE_ENUM_
	BOOT_PHASE_COUNT
};

/* The phase's name, as its record and the summary give it. */
const char *boot_phase_name(enum boot_phase phase);

#endif

/*
 * params.h: the kernel's command-line parameters, parsed once at boot.
 * docs/cmdline.md describes each; a host test checks the two agree.
 */
#ifndef MEMBOOT_KERNEL_PARAMS_H
#define MEMBOOT_KERNEL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/cmdline.h"
#include "kernel/console/options.h"
#include "mm/pcp.h"

enum selftest_bits {
	SELFTEST_CLOCK = 1u << 0,
	SELFTEST_JOBS = 1u << 1,
	SELFTEST_ALLOC = 1u << 2,
	SELFTEST_HUGETLB = 1u << 3,
	SELFTEST_PT = 1u << 4,
	SELFTEST_CHURN = 1u << 5,
};

/* Per-CPU page lists (kernel/pcp_setup.h, docs/pcp.md). */
struct pcp_params {
	unsigned policy;           /* enum pcp_policy: memboot.pcp */
	uint32_t steps;            /* PCP_STEP() bits: memboot.pcp_steps */
	uint64_t high_fraction;    /* memboot.pcp_high_fraction */
	char churn_mix[16];        /* memboot.churn_mix */
	uint64_t churn_allocs;     /* memboot.churn_allocs */
	uint64_t churn_seed;
};

enum init_threads_mode { INIT_THREADS_ONE, INIT_THREADS_NODE, INIT_THREADS_ALL, INIT_THREADS_N };

enum fault_kind {
	FAULT_NONE, FAULT_DE, FAULT_UD, FAULT_GP, FAULT_PF, FAULT_DF,
	FAULT_PANIC, FAULT_ASSERT, FAULT_AP_UD, FAULT_AP_GUARD, FAULT_WRITE_TEXT,
	FAULT_EXEC_DATA, FAULT_LOSE_PAGE,
};

struct kernel_params {
	uint64_t selftests;        /* enum selftest_bits */
	uint64_t clock_ms;         /* memboot.clock_ms */
	unsigned fault;            /* enum fault_kind */
	unsigned exit;             /* enum exit_method */
	bool dump_mmap;
	bool dump_bootinfo;
	bool dump_acpi;
	uint64_t maxcpus;          /* Linux maxcpus=: CPUs brought up, boot CPU included */
	bool nosmp;
	uint64_t smp_timeout_ms;
	uint64_t smp_skip_apic;    /* debug: never start this APIC ID */
	unsigned init_policy;      /* enum meminit_policy */
	unsigned init_threads_mode;
	uint64_t init_threads;     /* with INIT_THREADS_N */
	uint64_t early_pages;      /* deferred/lazy: filled by the boot CPU first */
	uint64_t early_alloc_pages;   /* debug: early allocations before the parallel part */
	bool trace;
	char alloc[16];             /* memboot.alloc: the allocator behind the seam */
	struct console_options console;   /* console=, one word per console */
	/* page tables (kernel/vm.c, docs/pagetables.md) */
	unsigned ptlock;           /* enum pt_lock_mode: split (default) or global */
	bool pt_zero;              /* zero each faulted-in frame (as Linux does) */
	bool bench_pt;             /* memboot.bench=pt: the fault-in benchmark */
	uint64_t ptbench_mib;
	uint64_t ptbench_reps;
	unsigned apic;                    /* memboot.apic: enum apic_request */
	struct pcp_params pcp;
};

extern struct kernel_params kparams;
extern const struct param kernel_param_table[];
extern const size_t kernel_param_count;
extern const struct param_table kernel_params_table;

#endif

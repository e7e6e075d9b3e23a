/*
 * vm_keys.h: the keys of the page-table self-test and benchmark
 * (docs/cmdline.md, docs/pagetables.md): memboot.ptlock, memboot.pt_zero,
 * memboot.bench, memboot.ptbench_mib and memboot.ptbench_reps. Parsed by
 * vm_param_table (kernel/vm_keys.c); read by kernel/vm_test.c, and by
 * main.c for whether to run the benchmark.
 */
#ifndef MEMBOOT_KERNEL_VM_KEYS_H
#define MEMBOOT_KERNEL_VM_KEYS_H

#include <stdbool.h>
#include <stdint.h>

struct vm_settings {
	unsigned ptlock;           /* enum pt_lock_mode (mm/pt.h): split (default) or global */
	bool pt_zero;              /* zero each faulted-in frame (as Linux does) */
	bool bench_pt;             /* memboot.bench=pt: the fault-in benchmark */
	uint64_t ptbench_mib;
	uint64_t ptbench_reps;
};

extern struct vm_settings vm_settings;
struct param_table;
extern const struct param_table vm_param_table;

#endif

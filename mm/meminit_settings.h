/*
 * meminit_settings.h: memory init's command-line keys (docs/cmdline.md,
 * "meminit"): the policy, the threads per node, the boot CPU's first
 * section, the debug allocations and trace, the lost-CPU deadline. Pure:
 * parsed by the key table (kernel/services/cmdline.h), read by main.c,
 * which hands them to phases memprep and meminit.
 */
#ifndef MEMBOOT_MM_MEMINIT_SETTINGS_H
#define MEMBOOT_MM_MEMINIT_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

/* memboot.init_threads=1|node|all|N */
enum init_threads_mode { INIT_THREADS_ONE, INIT_THREADS_NODE, INIT_THREADS_ALL, INIT_THREADS_N };

struct meminit_settings {
	unsigned policy;              /* memboot.init: enum mminit_policy (mm/mminit.h) */
	unsigned threads_mode;        /* enum init_threads_mode */
	uint64_t threads;             /* with INIT_THREADS_N */
	uint64_t early_pages;         /* deferred/lazy: filled by the boot CPU first */
	uint64_t early_alloc_pages;   /* debug: early allocations before the parallel part */
	bool trace;                   /* a record per init chunk and per huge pool page */
	uint64_t deadline_ms;         /* a node CPU silent this long mid-chunk is lost */
};

extern struct meminit_settings meminit_settings;
struct param_table;
extern const struct param_table meminit_param_table;

#endif

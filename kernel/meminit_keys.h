/*
 * meminit_keys.h: the keys of memory init (docs/cmdline.md, docs/memory.md):
 * memboot.init, memboot.init_threads, memboot.early_pages,
 * memboot.early_alloc_pages and memboot.trace. Parsed by
 * meminit_param_table (kernel/meminit_keys.c); read by kernel/meminit.c.
 */
#ifndef MEMBOOT_KERNEL_MEMINIT_KEYS_H
#define MEMBOOT_KERNEL_MEMINIT_KEYS_H

#include <stdbool.h>
#include <stdint.h>

/* memboot.init_threads=1|node|all|N */
enum init_threads_mode { INIT_THREADS_ONE, INIT_THREADS_NODE, INIT_THREADS_ALL, INIT_THREADS_N };

struct meminit_settings {
	unsigned policy;              /* memboot.init: enum meminit_policy (kernel/meminit.h) */
	unsigned threads_mode;        /* enum init_threads_mode */
	uint64_t threads;             /* with INIT_THREADS_N */
	uint64_t early_pages;         /* deferred/lazy: filled by the boot CPU first */
	uint64_t early_alloc_pages;   /* debug: early allocations before the parallel part */
	bool trace;                   /* a record per init chunk and per huge pool page */
};

extern struct meminit_settings meminit_settings;
struct param_table;
extern const struct param_table meminit_param_table;

#endif

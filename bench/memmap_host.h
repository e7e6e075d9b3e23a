/*
 * memmap_host.h: what bench/memmap_bench.c needs of the machine it runs on,
 * one file per host architecture (bench/memmap_host_NAME.c, NAME as
 * arch/NAME: the one $(CC) compiles for, bench/bench.mk): the caches, and
 * the store-limit loops written in that machine's own instructions.
 */
#ifndef MEMBOOT_BENCH_MEMMAP_HOST_H
#define MEMBOOT_BENCH_MEMMAP_HOST_H

#include <stdint.h>

struct bench_caches {
	const char *vendor;     /* "intel", "amd", "other" */
	uint64_t llc_bytes;     /* the largest data or unified cache; 0: unknown */
	const char *llc_source; /* where it came from; "none" when unknown */
	uint64_t slice_bytes;   /* one CPU's share of the caches; 0: unknown */
};

/* This machine's caches, read the way the kernel reads them. */
void bench_host_caches(struct bench_caches *c);

/* The limits (bench/memmap_bench.c): [@p, @end) written with the 64-byte
 * @line repeated, one line an iteration: 8-byte general-register stores,
 * 8-byte non-temporal stores, 16-byte non-temporal stores (as mm/memmap.c's
 * store_nt() writes descriptors); the non-temporal ones end fenced. */
void bench_store_loop(uint64_t *p, uint64_t *end, const uint64_t line[8]);
void bench_nt_loop(uint64_t *p, uint64_t *end, const uint64_t line[8]);
void bench_ntdq_loop(uint64_t *p, uint64_t *end, const uint64_t line[8]);

#endif

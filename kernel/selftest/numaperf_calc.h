/*
 * numaperf_calc.h: the pure parts of memboot.selftest=numaperf
 * (kernel/selftest/numaperf.c): the random cyclic permutation the pointer
 * chase follows, and the figures' arithmetic. Host-tested
 * (tests/host/test_numaperf.c).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_NUMAPERF_CALC_H
#define MEMBOOT_KERNEL_SELFTEST_NUMAPERF_CALC_H

#include <stdint.h>

/* Where element i of the permutation lives (a line of a buffer of blocks
 * that are not contiguous, or an array in the host tests). */
typedef uint64_t *(*numaperf_slot_fn)(void *arg, uint64_t i);

/*
 * Make slots 0..n-1 one cycle through all n of them: *slot(i) becomes the
 * index after i, in a random order from @seed (Sattolo's algorithm: a
 * Fisher-Yates shuffle that swaps each element only with one below it,
 * which yields a single n-cycle, uniformly among them). A chase that starts
 * anywhere then visits every slot before it comes back, and no hardware
 * prefetcher can guess the next line. n 0 and 1: slot 0 points at itself.
 */
void numaperf_cycle(uint64_t n, uint64_t seed, numaperf_slot_fn slot, void *arg);

/* The next of a 64-bit generator (splitmix64): 0..2^64-1. */
uint64_t numaperf_rand(uint64_t *state);

/* @num / @den in thousandths, rounded to nearest; 0 when @den is 0. A
 * ratio to the local figure: 1000 for the local pair itself, exactly. */
uint64_t numaperf_ratio_milli(uint64_t num, uint64_t den);

/* @bytes over @ns as MB/s (10^6 bytes a second), rounded down; 0 when @ns
 * is 0. */
uint64_t numaperf_mbps(uint64_t bytes, uint64_t ns);

#endif

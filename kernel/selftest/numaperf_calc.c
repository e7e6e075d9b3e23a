/*
 * numaperf_calc.c: the permutation and the arithmetic of the numaperf
 * self-test (numaperf_calc.h). Pure: no globals, no hardware.
 */
#include "kernel/selftest/numaperf_calc.h"

uint64_t numaperf_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void numaperf_cycle(uint64_t n, uint64_t seed, numaperf_slot_fn slot, void *arg)
{
	uint64_t state = seed;

	if (n == 0)
		return;
	for (uint64_t i = 0; i < n; i++)
		*slot(arg, i) = i;
	/* Sattolo: j strictly below i, so no element stays in place and the
	 * permutation i -> a[i] is one cycle. The modulo's bias is below
	 * n / 2^64: nothing a chase can notice. */
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = numaperf_rand(&state) % i;
		uint64_t *a = slot(arg, i), *b = slot(arg, j), t = *a;
		*a = *b;
		*b = t;
	}
}

uint64_t numaperf_ratio_milli(uint64_t num, uint64_t den)
{
	if (den == 0)
		return 0;
	/* Figures are nanoseconds and MB/s: far below 2^54, so * 1000 fits. */
	return (num * 1000 + den / 2) / den;
}

uint64_t numaperf_mbps(uint64_t bytes, uint64_t ns)
{
	if (ns == 0)
		return 0;
	/* bytes / ns is GB/s; * 1000 is MB/s. Bytes are at most a few GiB. */
	return bytes * 1000 / ns;
}

/*
 * time.c: TSC to nanoseconds with a 32.32 fixed-point multiplier, so the
 * conversion costs one 64x64->128 multiply and no division.
 */
#include "kernel/time.h"

#include "arch/cpu.h"

uint64_t tsc_hz;
static uint64_t ns_per_cycle_q32;   /* (1e9 << 32) / tsc_hz */

void time_init(uint64_t hz)
{
	tsc_hz = hz;
	ns_per_cycle_q32 = hz ? (uint64_t)(((unsigned __int128)1000000000ULL << 32) / hz) : 0;
}

uint64_t tsc_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_per_cycle_q32) >> 32);
}

uint64_t tsc_to_boot_ns(uint64_t tsc)
{
	return tsc > boot_tsc_at_entry ? tsc_cycles_to_ns(tsc - boot_tsc_at_entry) : 0;
}

uint64_t ktime_ns(void)
{
	return tsc_to_boot_ns(rdtsc());
}

uint64_t time_delay_ns(uint64_t ns)
{
	uint64_t start = rdtsc();
	uint64_t cycles = (uint64_t)((unsigned __int128)ns * tsc_hz / 1000000000ULL);
	uint64_t now;

	do {
		__asm__ volatile("pause");
		now = rdtsc();
	} while (now - start < cycles);
	return now - start;
}

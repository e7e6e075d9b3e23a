/*
 * memmap_host_arm64.c: bench/memmap_host.h on arm64 (an arm64 server, or
 * qemu-aarch64 for the correctness of the build: `make bench-arm64-user`).
 * The cache ID registers are EL1's, not a program's: the caches are unknown
 * here (the quick mode then times 128 MiB of descriptors). The limits in
 * STP, and STNP of two 32-bit and of two 64-bit registers (arm64 has no
 * 8-byte non-temporal store of one register: mm/memmap.c's arch_store_nt8()
 * is STNP of its halves).
 */
#include "arch/memory.h"
#include "bench/memmap_host.h"

void bench_host_caches(struct bench_caches *c)
{
	*c = (struct bench_caches){ "other", 0, "none", 0 };
}

void bench_store_loop(uint64_t *p, uint64_t *end, const uint64_t l[8])
{
	for (; p + 8 <= end; p += 8)
		__asm__ volatile("stp %1, %2, [%0]\n\tstp %3, %4, [%0, #16]\n\t"
				 "stp %5, %6, [%0, #32]\n\tstp %7, %8, [%0, #48]"
				 : : "r"(p), "r"(l[0]), "r"(l[1]), "r"(l[2]), "r"(l[3]), "r"(l[4]),
				   "r"(l[5]), "r"(l[6]), "r"(l[7]) : "memory");
	for (unsigned i = 0; p < end; p++, i++)
		*(volatile uint64_t *)p = l[i % 8];
}

void bench_nt_loop(uint64_t *p, uint64_t *end, const uint64_t l[8])
{
	for (unsigned i = 0; p < end; p++, i++)
		arch_store_nt8(p, l[i % 8]);
	arch_fence_store();
}

void bench_ntdq_loop(uint64_t *p, uint64_t *end, const uint64_t l[8])
{
	for (; p + 8 <= end; p += 8)
		__asm__ volatile("stnp %1, %2, [%0]\n\tstnp %3, %4, [%0, #16]\n\t"
				 "stnp %5, %6, [%0, #32]\n\tstnp %7, %8, [%0, #48]"
				 : : "r"(p), "r"(l[0]), "r"(l[1]), "r"(l[2]), "r"(l[3]), "r"(l[4]),
				   "r"(l[5]), "r"(l[6]), "r"(l[7]) : "memory");
	bench_nt_loop(p, end, l);        /* the tail, and its fence */
}

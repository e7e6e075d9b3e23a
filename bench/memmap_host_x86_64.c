/*
 * memmap_host_x86_64.c: bench/memmap_host.h on x86-64: the caches from the
 * CPUID instruction through the kernel's own reader (x86/cpu_caches.h), the
 * limits in MOV, MOVNTI and MOVNTDQ.
 */
#include <emmintrin.h>

#include "bench/memmap_host.h"
#include "x86/cpu.h"
#include "x86/cpu_caches.h"

static void cpuid_instruction(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	(void)ctx;
	cpuid(leaf, subleaf, r);
}

void bench_host_caches(struct bench_caches *c)
{
	static const char *const vendors[] = { "other", "intel", "amd" };
	struct cpu_caches cc;

	cpu_caches_decode(cpuid_instruction, NULL, &cc);
	*c = (struct bench_caches){ vendors[cc.vendor], cc.llc_bytes, cc.llc_source,
				    cc.slice_bytes };
}

void bench_store_loop(uint64_t *p, uint64_t *end, const uint64_t l[8])
{

	for (; p + 8 <= end; p += 8)
		__asm__ volatile("mov %1, 0(%0); mov %2, 8(%0); mov %3, 16(%0); mov %4, 24(%0);"
				 "mov %5, 32(%0); mov %6, 40(%0); mov %7, 48(%0); mov %8, 56(%0)"
				 : : "r"(p), "r"(l[0]), "r"(l[1]), "r"(l[2]), "r"(l[3]), "r"(l[4]),
				   "r"(l[5]), "r"(l[6]), "r"(l[7]) : "memory");
	for (unsigned i = 0; p < end; p++, i++)
		*p = l[i % 8];
}

void bench_nt_loop(uint64_t *p, uint64_t *end, const uint64_t l[8])
{

	for (; p + 8 <= end; p += 8)
		__asm__ volatile("movnti %1, 0(%0); movnti %2, 8(%0); movnti %3, 16(%0);"
				 "movnti %4, 24(%0); movnti %5, 32(%0); movnti %6, 40(%0);"
				 "movnti %7, 48(%0); movnti %8, 56(%0)"
				 : : "r"(p), "r"(l[0]), "r"(l[1]), "r"(l[2]), "r"(l[3]), "r"(l[4]),
				   "r"(l[5]), "r"(l[6]), "r"(l[7]) : "memory");
	for (unsigned i = 0; p < end; p++, i++)
		__asm__ volatile("movnti %1, %0" : "=m"(*p) : "r"(l[i % 8]));
	__asm__ volatile("sfence" ::: "memory");
}

/* 16-byte non-temporal stores (SSE2), as store_nt() in mm/memmap.c writes
 * descriptors: four to a line. */
void bench_ntdq_loop(uint64_t *p, uint64_t *end, const uint64_t line[8])
{
	const __m128i *l = (const __m128i *)line;
	const __m128i a = _mm_load_si128(&l[0]), b = _mm_load_si128(&l[1]);
	const __m128i c = _mm_load_si128(&l[2]), d = _mm_load_si128(&l[3]);

	for (; p + 8 <= end; p += 8) {
		_mm_stream_si128((__m128i *)p, a);
		_mm_stream_si128((__m128i *)p + 1, b);
		_mm_stream_si128((__m128i *)p + 2, c);
		_mm_stream_si128((__m128i *)p + 3, d);
	}
	bench_nt_loop(p, end, line);     /* the tail, and its sfence */
}

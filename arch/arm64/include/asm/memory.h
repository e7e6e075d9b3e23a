/*
 * asm/memory.h (arm64): the inline half of arch/memory.h, whose comment
 * gives each definition's contract. The instructions (Arm ARM, A64):
 *
 *   flush       DC CIVAC: clean and invalidate the line by virtual address
 *               to the point of coherency; complete after a DSB (DMB does
 *               not wait for cache maintenance).
 *   fences      DMB ISHST orders earlier stores (STNP and DC ZVA count as
 *               stores) before later ones in the inner shareable domain,
 *               every CPU of the machine; DMB ISH orders loads and stores.
 *   nt stores   STNP: a store pair with a non-temporal hint (the line need
 *               not be allocated in the caches). With W registers it
 *               stores 8 bytes, with X registers 16.
 *   zeroing     DC ZVA zeroes a whole block without reading it; the block
 *               is 4 << DCZID_EL0.BS bytes (BS = 4 on the cores the seeds
 *               name: 64 bytes), and DCZID_EL0.DZP set prohibits it.
 *               Both are readable at EL0 under Linux, so the host build
 *               (the allocator lab on arm64) runs them too.
 *
 * Lines: 64 bytes on every Armv8 server core named so far (Neoverse,
 * Ampere, Graviton); CTR_EL0.DminLine gives a CPU's own smallest line.
 */
#ifndef MEMBOOT_ASM_ARM64_MEMORY_H
#define MEMBOOT_ASM_ARM64_MEMORY_H

#include <stdint.h>

#define ARCH_CACHE_LINE_BYTES 64
#define ARCH_STORE_NT_REAL 1
#define ARCH_STORE_KINDS_OFFERED (ARCH_STORE_BIT(ARCH_STORE_PLAIN) | \
				  ARCH_STORE_BIT(ARCH_STORE_NT) | ARCH_STORE_BIT(ARCH_STORE_ZERO))
/* The cache sizes come from the cache ID registers (CLIDR_EL1, CCSIDR_EL1). */
#define ARCH_CACHES_FROM "CCSIDR"

static inline void arch_cache_flush_line(const volatile void *p)
{
	__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
}

static inline void arch_cache_flush_done(void)
{
	__asm__ volatile("dsb ish" ::: "memory");
}

static inline void arch_fence_store(void)
{
	__asm__ volatile("dmb ishst" ::: "memory");
}

static inline void arch_fence_full(void)
{
	__asm__ volatile("dmb ish" ::: "memory");
}

static inline void arch_store_nt8(uint64_t *dst, uint64_t v)
{
	__asm__ volatile("stnp %w1, %w2, %0"
			 : "=Q"(*dst) : "r"((uint32_t)v), "r"((uint32_t)(v >> 32)));
}

#define ARCH_ARM64_STNP(off) "stnp %1, %2, [%0, #" #off "]\n\t"
#define ARCH_ARM64_STNP0(off) "stnp xzr, xzr, [%0, #" #off "]\n\t"

static inline void arch_store_nt16_x4(void *dst, uint64_t lo, uint64_t hi, unsigned stride)
{
	if (stride == 16)
		__asm__ volatile(ARCH_ARM64_STNP(0) ARCH_ARM64_STNP(16)
				 ARCH_ARM64_STNP(32) ARCH_ARM64_STNP(48)
				 : : "r"(dst), "r"(lo), "r"(hi) : "memory");
	else if (stride == 32)
		__asm__ volatile(ARCH_ARM64_STNP(0) ARCH_ARM64_STNP0(16)
				 ARCH_ARM64_STNP(32) ARCH_ARM64_STNP0(48)
				 ARCH_ARM64_STNP(64) ARCH_ARM64_STNP0(80)
				 ARCH_ARM64_STNP(96) ARCH_ARM64_STNP0(112)
				 : : "r"(dst), "r"(lo), "r"(hi) : "memory");
	else
		__asm__ volatile(ARCH_ARM64_STNP(0) ARCH_ARM64_STNP0(16)
				 ARCH_ARM64_STNP0(32) ARCH_ARM64_STNP0(48)
				 ARCH_ARM64_STNP(64) ARCH_ARM64_STNP0(80)
				 ARCH_ARM64_STNP0(96) ARCH_ARM64_STNP0(112)
				 ARCH_ARM64_STNP(128) ARCH_ARM64_STNP0(144)
				 ARCH_ARM64_STNP0(160) ARCH_ARM64_STNP0(176)
				 ARCH_ARM64_STNP(192) ARCH_ARM64_STNP0(208)
				 ARCH_ARM64_STNP0(224) ARCH_ARM64_STNP0(240)
				 : : "r"(dst), "r"(lo), "r"(hi) : "memory");
}

static inline uint64_t arch_zero_block_bytes(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
	return (v & 0x10) ? 0 : 4ULL << (v & 0xf);
}

static inline void arch_zero_block(void *dst)
{
	__asm__ volatile("dc zva, %0" : : "r"(dst) : "memory");
}

static inline const char *arch_store_kind_name(enum arch_store_kind k)
{
	return k == ARCH_STORE_PLAIN ? "plain" : k == ARCH_STORE_NT ? "stnp" :
	       k == ARCH_STORE_ZERO ? "dczva" : "?";
}

#endif

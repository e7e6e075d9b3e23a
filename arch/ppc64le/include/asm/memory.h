/*
 * asm/memory.h (ppc64le): the inline half of arch/memory.h, whose comment
 * gives each definition's contract. The instructions (Power ISA 3.0,
 * Book II):
 *
 *   flush       dcbf: write the block back if modified and invalidate it in
 *               every cache; complete after sync.
 *   fences      lwsync orders earlier stores before later ones (dcbz
 *               counts as a store), cumulatively: Linux's smp_wmb(); sync
 *               orders every load and store.
 *   nt stores   none: POWER has no non-temporal store, so these are plain
 *               stores (ARCH_STORE_NT_REAL 0) and the probe is not offered
 *               them.
 *   zeroing     dcbz zeroes a whole cache block without reading it: 128
 *               bytes on POWER9 and POWER10 (and every 64-bit POWER since
 *               POWER4), the block this port assumes.
 */
#ifndef MEMBOOT_ASM_PPC64LE_MEMORY_H
#define MEMBOOT_ASM_PPC64LE_MEMORY_H

#include <stdint.h>

#define ARCH_CACHE_LINE_BYTES 128
#define ARCH_STORE_NT_REAL 0
#define ARCH_STORE_KINDS_OFFERED (ARCH_STORE_BIT(ARCH_STORE_PLAIN) | ARCH_STORE_BIT(ARCH_STORE_ZERO))
/* The cache sizes come from the device tree's cpu nodes (d-cache-size...). */
#define ARCH_CACHES_FROM "DT"

static inline void arch_cache_flush_line(const volatile void *p)
{
	__asm__ volatile("dcbf 0, %0" : : "r"(p) : "memory");
}

static inline void arch_cache_flush_done(void)
{
	__asm__ volatile("sync" ::: "memory");
}

static inline void arch_fence_store(void)
{
	__asm__ volatile("lwsync" ::: "memory");
}

static inline void arch_fence_full(void)
{
	__asm__ volatile("sync" ::: "memory");
}

static inline void arch_store_nt8(uint64_t *dst, uint64_t v)
{
	*(volatile uint64_t *)dst = v;
}

static inline void arch_store_nt16_x4(void *dst, uint64_t lo, uint64_t hi, unsigned stride)
{
	volatile uint64_t *d = dst;

	for (unsigned k = 0; k < 4; k++) {
		d[k * stride / 8] = lo;
		d[k * stride / 8 + 1] = hi;
		for (unsigned i = 2; i < stride / 8; i++)
			d[k * stride / 8 + i] = 0;
	}
}

static inline uint64_t arch_zero_block_bytes(void)
{
	return 128;
}

static inline void arch_zero_block(void *dst)
{
	__asm__ volatile("dcbz 0, %0" : : "r"(dst) : "memory");
}

static inline const char *arch_store_kind_name(enum arch_store_kind k)
{
	return k == ARCH_STORE_PLAIN ? "plain" : k == ARCH_STORE_ZERO ? "dcbz" : "?";
}

#endif

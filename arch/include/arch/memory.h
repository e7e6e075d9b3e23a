/*
 * arch/memory.h: the architecture interface for how memory is written and
 * flushed: the cache line and its flush, the fences, the non-temporal
 * stores, the zeroing of a whole block, the store kinds the store probe
 * times against each other, and the data caches' sizes.
 *
 * Generic code (mm/memmap.c's descriptor fills and store probe, mm/memtest.c's
 * passes, the numaperf self-test, the per-CPU lists' sizes) includes only
 * this header. What must be inline is each architecture's asm/memory.h:
 *
 *   arch/x86_64/include/asm/memory.h    CLFLUSH, SFENCE/MFENCE, MOVNTI and
 *                                       MOVNTDQ (SDM vol. 2); no block zeroing
 *   arch/arm64/include/asm/memory.h     DC CIVAC, DMB/DSB, STNP, DC ZVA
 *                                       (Arm ARM, DCZID_EL0 for the block)
 *   arch/ppc64le/include/asm/memory.h   dcbf, sync/lwsync, plain stores for
 *                                       non-temporal ones, dcbz (Power ISA)
 *
 * Each defines, with the contract given here:
 *
 *   ARCH_CACHE_LINE_BYTES
 *       The data cache line, in bytes: what a flush steps by and what a
 *       latency measurement spaces its loads by. The smallest line of any
 *       CPU the architecture runs on, so a loop of flushes at this stride
 *       misses no line (it flushes some twice where lines are longer).
 *   void arch_cache_flush_line(const volatile void *p)
 *       Write back (if dirty) and invalidate the line holding @p in every
 *       cache of the coherence domain (clean+invalidate to the point of
 *       coherency). Not complete until arch_cache_flush_done().
 *   void arch_cache_flush_done(void)
 *       Every earlier arch_cache_flush_line() has completed before any
 *       later load or store: after it, the lines come from memory.
 *   void arch_fence_store(void)
 *       Every earlier store, non-temporal stores and block zeroing
 *       included, is visible to every CPU before any later store: what
 *       ends a fill another CPU will be told is done, or a pass that is
 *       read back.
 *   void arch_fence_full(void)
 *       Every earlier load and store before any later load or store.
 *   void arch_store_nt8(uint64_t *dst, uint64_t v)
 *       Store @v at @dst (8-byte aligned), non-temporally where the
 *       architecture can: the line is written around the caches, without
 *       being read first. Weakly ordered: arch_fence_store() orders it.
 *   void arch_store_nt16_x4(void *dst, uint64_t lo, uint64_t hi, unsigned stride)
 *       Four non-temporal 16-byte stores of (lo, hi) (little endian: @lo
 *       at the lower address) at @dst, @dst + @stride, + 2 @stride and
 *       + 3 @stride, and zeros in the rest of each @stride: four 16-, 32-
 *       or 64-byte records (@stride a constant 16, 32 or 64; @dst 16-byte
 *       aligned). One or more whole lines a call, which is what a
 *       write-combining store wants. Ordered by arch_fence_store().
 *   ARCH_STORE_NT_REAL
 *       1 when the stores above really write around the caches; 0 when the
 *       architecture has no such store and they are plain stores.
 *   uint64_t arch_zero_block_bytes(void)
 *       The bytes arch_zero_block() zeroes (a power of two, at least 16),
 *       or 0 when the architecture has no block zeroing (or it is
 *       prohibited on this CPU).
 *   void arch_zero_block(void *dst)
 *       Zero the whole block at @dst (aligned to arch_zero_block_bytes())
 *       without reading it from memory first. Only when
 *       arch_zero_block_bytes() is not 0. Ordered by arch_fence_store().
 *   ARCH_STORE_KINDS_OFFERED
 *       The store kinds (enum arch_store_kind, below) the architecture has,
 *       a bit each (ARCH_STORE_BIT()); ARCH_STORE_PLAIN always.
 *   const char *arch_store_kind_name(enum arch_store_kind k)
 *       Each offered kind's name, as the memmap and store_probe records
 *       give it (x86_64: "plain", "nt"; arm64: "plain", "stnp", "dczva";
 *       POWER: "plain", "dcbz"); "?" for a kind not offered.
 *   ARCH_CACHES_FROM
 *       A word naming where arch_caches() took the sizes from, for the
 *       memmap line ("CPUID" on x86_64, before its leaf).
 */
#ifndef MEMBOOT_ARCH_MEMORY_H
#define MEMBOOT_ARCH_MEMORY_H

#include <stdint.h>

/*
 * How a fill writes memory: the kinds the store probe (mm/memmap.h,
 * memmap_store_probe()) times against each other and memory init then
 * writes page descriptors with.
 */
enum arch_store_kind {
	ARCH_STORE_PLAIN = 0,   /* ordinary stores: every architecture has them */
	ARCH_STORE_NT,          /* arch_store_nt16_x4()/arch_store_nt8(), then arch_fence_store() */
	ARCH_STORE_ZERO,        /* arch_zero_block() over whole blocks, then plain stores of
				 * the words that are not zero, then arch_fence_store() */
	ARCH_STORE_NR_KINDS
};

#define ARCH_STORE_BIT(kind) (1u << (kind))

#include "asm/memory.h"

/* True when this architecture offers store kind @k. */
static inline int arch_store_offered(enum arch_store_kind k)
{
	return (unsigned)k < ARCH_STORE_NR_KINDS && (ARCH_STORE_KINDS_OFFERED & ARCH_STORE_BIT(k));
}

/* Flush every line of [p, p + bytes) out of the caches
 * (arch_cache_flush_line()) and wait for the flushes
 * (arch_cache_flush_done()): afterwards the range is cold. */
static inline void arch_cache_flush_range(const void *p, uint64_t bytes)
{
	for (const char *c = p, *end = c + bytes; c < end; c += ARCH_CACHE_LINE_BYTES)
		arch_cache_flush_line(c);
	arch_cache_flush_done();
}

/*
 * The data caches, as generic code weighs its choices with them (the
 * descriptor store, the per-CPU lists' high mark, the numaperf buffers).
 */
struct arch_caches {
	/* The largest data or unified cache; 0: unknown. */
	uint64_t llc_bytes;
	/* Where llc_bytes came from, as the memmap record gives it after
	 * ARCH_CACHES_FROM (x86_64: "leaf4", "leaf0x8000001d",
	 * "leaf0x80000006"; "none" when unknown). */
	const char *llc_source;
	/* Each data or unified cache divided by the CPUs sharing it, summed:
	 * one CPU's share (Linux's cacheinfo size_data); 0: unknown. */
	uint64_t slice_bytes;
};

/* This machine's caches, as the boot CPU's identification found them
 * (x86_64: CPUID, in phase early); all zero ("none") before that. */
struct arch_caches arch_caches(void);

#endif

/*
 * asm/memory.h (x86_64): the inline half of arch/memory.h, whose comment
 * gives each definition's contract. The instructions (SDM vol. 2):
 *
 *   flush       CLFLUSH: writes a dirty line back and invalidates it in
 *               every cache of the coherence domain; ordered by MFENCE
 *               ("CLFLUSH ... is ordered with respect to MFENCE").
 *   fences      SFENCE orders the weakly ordered stores (MOVNTI, MOVNTDQ)
 *               before later stores; MFENCE orders every load and store.
 *   nt stores   MOVNTI (8 bytes, a general register) and MOVNTDQ (16 bytes
 *               from an XMM register, SSE2: every x86-64 CPU has it, and
 *               both entries enable it, CR4.OSFXSR). They write around the
 *               caches through write-combining buffers, without the
 *               read-for-ownership a plain store to a cold line pays.
 *   zeroing     none (no instruction zeroes a line without owning it).
 *
 * The SSE rule. The kernel is built -mgeneral-regs-only: no handler saves
 * or clobbers SSE state, and the compiler keeps nothing in XMM registers.
 * arch_store_nt16_x4() loads xmm0 and xmm1 in the same asm statement that
 * stores them, so only a handler using SSE could disturb them, and none
 * does; tests/tools/test_sse_users.py lists the functions it is inlined
 * into (always_inline: it never stands as a function of its own). In a
 * host build the compiler may use XMM registers itself, so there the
 * statement names them as clobbered (it cannot under -mgeneral-regs-only).
 */
#ifndef MEMBOOT_ASM_X86_64_MEMORY_H
#define MEMBOOT_ASM_X86_64_MEMORY_H

#include <stdint.h>

#define ARCH_CACHE_LINE_BYTES 64
#define ARCH_STORE_NT_REAL 1
#define ARCH_STORE_KINDS_OFFERED (ARCH_STORE_BIT(ARCH_STORE_PLAIN) | ARCH_STORE_BIT(ARCH_STORE_NT))
#define ARCH_CACHES_FROM "CPUID"

#ifdef __SSE2__
#define ARCH_X86_XMM_CLOBBERS , "xmm0", "xmm1"
#else
#define ARCH_X86_XMM_CLOBBERS
#endif

static inline __attribute__((always_inline)) void arch_cache_flush_line(const volatile void *p)
{
	__asm__ volatile("clflush %0" : "+m"(*(volatile char *)p));
}

static inline __attribute__((always_inline)) void arch_cache_flush_done(void)
{
	__asm__ volatile("mfence" ::: "memory");
}

static inline __attribute__((always_inline)) void arch_fence_store(void)
{
	__asm__ volatile("sfence" ::: "memory");
}

static inline __attribute__((always_inline)) void arch_fence_full(void)
{
	__asm__ volatile("mfence" ::: "memory");
}

static inline __attribute__((always_inline)) void arch_store_nt8(uint64_t *dst, uint64_t v)
{
	__asm__ volatile("movnti %1, %0" : "=m"(*dst) : "r"(v));
}

#define ARCH_X86_NTDQ(reg, off) "movntdq %%xmm" #reg ", " #off "(%0)\n\t"
/* xmm0 = (lo, hi), xmm1 = 0, then @stores, in one statement. */
#define ARCH_X86_NT16_STORES(stores)                                            \
	__asm__ volatile("movq %1, %%xmm0\n\t"                                  \
			 "movq %2, %%xmm1\n\t"                                  \
			 "punpcklqdq %%xmm1, %%xmm0\n\t"                        \
			 "pxor %%xmm1, %%xmm1\n\t"                              \
			 stores                                                 \
			 : : "r"(dst), "r"(lo), "r"(hi) : "memory" ARCH_X86_XMM_CLOBBERS)

/*
 * A pattern (@lo == @hi known to the compiler, as in the memory test's
 * fill) needs only xmm0: one register loaded and spread, four stores of it.
 */
static inline __attribute__((always_inline)) void arch_store_nt16_x4(void *dst, uint64_t lo,
								     uint64_t hi, unsigned stride)
{
	if (stride == 16 && __builtin_constant_p(lo == hi) && lo == hi)
		__asm__ volatile("movq %1, %%xmm0\n\t"
				 "punpcklqdq %%xmm0, %%xmm0\n\t"
				 ARCH_X86_NTDQ(0, 0) ARCH_X86_NTDQ(0, 16)
				 ARCH_X86_NTDQ(0, 32) ARCH_X86_NTDQ(0, 48)
				 : : "r"(dst), "r"(lo) : "memory" ARCH_X86_XMM_CLOBBERS);
	else if (stride == 16)
		ARCH_X86_NT16_STORES(ARCH_X86_NTDQ(0, 0) ARCH_X86_NTDQ(0, 16)
				     ARCH_X86_NTDQ(0, 32) ARCH_X86_NTDQ(0, 48));
	else if (stride == 32)
		ARCH_X86_NT16_STORES(ARCH_X86_NTDQ(0, 0) ARCH_X86_NTDQ(1, 16)
				     ARCH_X86_NTDQ(0, 32) ARCH_X86_NTDQ(1, 48)
				     ARCH_X86_NTDQ(0, 64) ARCH_X86_NTDQ(1, 80)
				     ARCH_X86_NTDQ(0, 96) ARCH_X86_NTDQ(1, 112));
	else
		ARCH_X86_NT16_STORES(ARCH_X86_NTDQ(0, 0) ARCH_X86_NTDQ(1, 16)
				     ARCH_X86_NTDQ(1, 32) ARCH_X86_NTDQ(1, 48)
				     ARCH_X86_NTDQ(0, 64) ARCH_X86_NTDQ(1, 80)
				     ARCH_X86_NTDQ(1, 96) ARCH_X86_NTDQ(1, 112)
				     ARCH_X86_NTDQ(0, 128) ARCH_X86_NTDQ(1, 144)
				     ARCH_X86_NTDQ(1, 160) ARCH_X86_NTDQ(1, 176)
				     ARCH_X86_NTDQ(0, 192) ARCH_X86_NTDQ(1, 208)
				     ARCH_X86_NTDQ(1, 224) ARCH_X86_NTDQ(1, 240));
}

static inline uint64_t arch_zero_block_bytes(void)
{
	return 0;
}

static inline void arch_zero_block(void *dst)
{
	(void)dst;     /* never called: arch_zero_block_bytes() is 0 */
}

static inline const char *arch_store_kind_name(enum arch_store_kind k)
{
	/* "nt": MOVNTDQ over whole lines, MOVNTI for the rest (the names the
	 * memmap and store_probe records have always given). */
	return k == ARCH_STORE_PLAIN ? "plain" : k == ARCH_STORE_NT ? "nt" : "?";
}

#endif

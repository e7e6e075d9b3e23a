/*
 * arch/tlb.h: TLB invalidation on this CPU, address-space switches, and
 * how an invalidation reaches the other CPUs.
 *
 * An architecture reaches other CPUs' TLBs in one of two ways, and says
 * which with ARCH_TLB_BROADCAST (asm/tlb.h):
 *  - 0, by IPIs (x86_64: SDM vol. 3A 4.10.5, "propagation of
 *    paging-structure changes to multiple processors"): the CPU that changed
 *    an entry invalidates its own TLB and interrupts every other CPU that
 *    may cache the space; each invalidates and acknowledges. kernel/vm's
 *    shootdown does this with arch_tlb_ipi_init() and arch_tlb_ipi_send();
 *  - 1, by broadcast instructions that every CPU in the shareability domain
 *    obeys (arm64: TLBI ...IS then DSB ISH; POWER: tlbie then eieio;
 *    tlbsync; ptesync): arch_tlb_invalidate_broadcast() returns once every
 *    CPU has dropped the entries, and no IPI, mask or acknowledgement is
 *    needed.
 *
 * A space is named by its root: the physical address of its root table.
 */
#ifndef MEMBOOT_ARCH_TLB_H
#define MEMBOOT_ARCH_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu.h"
#include "kernel/services/limits.h"

#include "asm/tlb.h"

/* A set of CPUs by logical id (generic: the same on every architecture).
 * Changed with atomics; a reader sees each word whole. */
#define ARCH_CPUMASK_WORDS ((MEMBOOT_MAX_CPUS + 63) / 64)

struct arch_cpumask {
	volatile uint64_t bits[ARCH_CPUMASK_WORDS];
};

static inline void arch_cpumask_set(struct arch_cpumask *m, uint32_t cpu)
{
	__atomic_fetch_or(&m->bits[cpu / 64], 1ULL << (cpu % 64), __ATOMIC_SEQ_CST);
}

static inline void arch_cpumask_clear(struct arch_cpumask *m, uint32_t cpu)
{
	__atomic_fetch_and(&m->bits[cpu / 64], ~(1ULL << (cpu % 64)), __ATOMIC_SEQ_CST);
}

static inline bool arch_cpumask_test(const struct arch_cpumask *m, uint32_t cpu)
{
	return (__atomic_load_n(&m->bits[cpu / 64], __ATOMIC_ACQUIRE) >> (cpu % 64)) & 1;
}

/* CPUs in @m. */
static inline uint32_t arch_cpumask_weight(const struct arch_cpumask *m)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < ARCH_CPUMASK_WORDS; i++)
		n += (uint32_t)__builtin_popcountll(__atomic_load_n(&m->bits[i], __ATOMIC_RELAXED));
	return n;
}

/* Drop this CPU's translation of the page at @va, whatever its size, and
 * every paging-structure cache entry (x86: INVLPG, SDM vol. 3A 4.10.4.1). */
void arch_tlb_invalidate_page(uint64_t va);

/* Drop this CPU's non-global translations (x86: a CR3 reload). */
void arch_tlb_invalidate_all(void);

/* The root of the space this CPU runs on. */
uint64_t arch_space_current(void);

/* Run this CPU on the space rooted at @root. Non-global translations of
 * the space it leaves are dropped (x86: a CR3 load without PCIDs; arm64
 * and POWER tag them with the ASID or PID instead). */
void arch_space_switch(uint64_t root);

/* ARCH_TLB_BROADCAST 1: drop [va, va + bytes) (one page; everything of the
 * space when @bytes is 0) of the space rooted at @root from every CPU's
 * TLB, and return when all have. Not defined where ARCH_TLB_BROADCAST is
 * 0: callers test it first. */
void arch_tlb_invalidate_broadcast(uint64_t root, uint64_t va, uint64_t bytes);

/* ARCH_TLB_BROADCAST 0: install @handler as the shootdown IPI's, called on
 * the target CPU with interrupts off; arch acknowledges the interrupt
 * controller after it returns. Boot CPU, once, before any send. x86 also
 * masks the legacy 8259 PIC here: with interrupts enabled its timer would
 * arrive on vector 8, which is #DF's. */
void arch_tlb_ipi_init(void (*handler)(void));

/* ARCH_TLB_BROADCAST 0: send the shootdown IPI to the CPU of logical id
 * @cpu (it must be online). */
void arch_tlb_ipi_send(uint32_t cpu);

/* Interrupts on, returning the previous state for arch_irq_restore():
 * around code that must answer shootdown IPIs while it waits (kernel/vm). */
static inline uint64_t arch_irq_save_enable(void);
/* Interrupts back as @flags (from arch_irq_save_enable()) had them. */
static inline void arch_irq_restore(uint64_t flags);

#endif

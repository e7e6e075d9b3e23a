/*
 * arch/tlb.h: TLB invalidation on this CPU and on others (shootdown IPIs),
 * address-space switches, and probing an address that may fault.
 *
 * Shootdown (Intel SDM vol. 3A 4.10.5, "propagation of paging-structure
 * changes to multiple processors"): the CPU that changed an entry flushes
 * its own TLB and sends an IPI to every other CPU that may cache the space;
 * each invalidates and acknowledges, and the sender waits for all of them
 * before the old frame or table may be reused. Only one shootdown is in
 * flight at a time (one request slot under a lock), as in early Linux
 * flush_tlb_others().
 *
 * A CPU waiting for acknowledgements must itself answer IPIs, or two CPUs
 * shooting at each other would wait forever: call arch_tlb_shootdown() with
 * interrupts enabled whenever another CPU may be targeted, and never from a
 * context that holds a lock an IPI target could be spinning on with
 * interrupts off.
 */
#ifndef MEMBOOT_ARCH_TLB_H
#define MEMBOOT_ARCH_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu.h"   /* interrupts on around code that must answer shootdowns */
#include "x86/percpu.h"

#define APIC_TLB_VECTOR 0xf1
#define ARCH_CPUMASK_WORDS (MAX_CPUS / 64)

struct arch_cpumask {
	volatile uint64_t bits[ARCH_CPUMASK_WORDS];
};

/* Install the shootdown vector (boot CPU, before other CPUs need it) and
 * mask the legacy 8259 PIC: with interrupts enabled its timer would arrive
 * on vector 8, which is #DF's. */
void arch_tlb_init(void);

/*
 * Flush [va, va + bytes) (one page, or all with @bytes 0) of the space whose
 * root is @cr3 on this CPU if it runs on it and on every other CPU of @mask,
 * and wait until they all have. The mask is read under the shootdown lock.
 */
void arch_tlb_shootdown(struct arch_cpumask *mask, uint64_t cr3, uint64_t va, uint64_t bytes);

/* Switch this CPU to the space rooted at @cr3: joins @mask (may be NULL
 * when leaving), and leaves @old_mask (may be NULL) so that no shootdown
 * of that space waits for it any more. */
void arch_switch_space(uint64_t cr3, struct arch_cpumask *mask, struct arch_cpumask *old_mask);

/* Shootdowns this CPU answered (for the self-test's record). */
uint64_t arch_tlb_ipis_received(void);

/*
 * Read (write) 8 bytes at @va; false instead of a fault if it is not mapped
 * (or not writable). The #PF handler recognises the one instruction that
 * may fault here and resumes at a fixup (an exception table of one entry).
 */
bool arch_probe_read(uint64_t va, uint64_t *val);
bool arch_probe_write(uint64_t va, uint64_t val);

#endif

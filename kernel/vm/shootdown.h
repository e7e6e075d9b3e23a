/*
 * shootdown.h: TLB invalidation of a space on every CPU that may cache it,
 * and the space switches that keep its CPU mask (arch/tlb.h says how an
 * architecture reaches other CPUs).
 *
 * Where the architecture has no broadcast invalidation (ARCH_TLB_BROADCAST
 * 0), a shootdown: the CPU that changed an entry invalidates its own
 * TLB and, under one request lock, sends the shootdown IPI to every other
 * CPU in the space's mask, then waits until each has invalidated and
 * acknowledged; only one is in flight at a time (one request slot, as in
 * early Linux flush_tlb_others()). The frame or table may be reused only
 * after that.
 *
 * A CPU waiting for acknowledgements must itself answer IPIs, or two CPUs
 * shooting at each other would wait forever: call vm_tlb_flush() with
 * interrupts enabled whenever another CPU may be targeted, and never from a
 * context that holds a lock an IPI target could be spinning on with
 * interrupts off.
 *
 * Where the architecture broadcasts (arm64, POWER), vm_tlb_flush() is one
 * arch_tlb_invalidate_broadcast(): no IPI, no mask, no wait of ours.
 */
#ifndef MEMBOOT_KERNEL_VM_SHOOTDOWN_H
#define MEMBOOT_KERNEL_VM_SHOOTDOWN_H

#include <stdint.h>

#include "arch/tlb.h"

/* Install the shootdown IPI's handler (boot CPU, once, before other CPUs
 * enter spaces). */
void vm_tlb_init(void);

/*
 * Invalidate [va, va + bytes) (one page, or everything non-global with
 * @bytes 0) of the space rooted at @root on this CPU if it runs on it and
 * on every other CPU of @mask, and wait until they all have. The mask is
 * read under the request lock.
 */
void vm_tlb_flush(const struct arch_cpumask *mask, uint64_t root, uint64_t va, uint64_t bytes);

/* Run this CPU on the space rooted at @root and join @mask (before the
 * switch, so a shootdown after it includes this CPU). */
void vm_tlb_enter(uint64_t root, struct arch_cpumask *mask);

/* Run this CPU on @root (the kernel's) and leave @old_mask, so that no
 * shootdown of the old space waits for it any more. */
void vm_tlb_leave(uint64_t root, struct arch_cpumask *old_mask);

/* Shootdown IPIs this CPU's handler answered, all CPUs together (for the
 * self-test's record; 0 where the architecture broadcasts). */
uint64_t vm_tlb_ipis_received(void);

#endif

/*
 * a64/trap.h: an exception's saved state, as arch/arm64/vectors.S builds
 * it on the exception stack.
 */
#ifndef MEMBOOT_A64_TRAP_H
#define MEMBOOT_A64_TRAP_H

#include <stdbool.h>
#include <stdint.h>

struct a64_frame {
	uint64_t x[31];         /* x0..x30 (x29 the frame pointer, x30 the link register) */
	uint64_t sp;            /* the interrupted context's stack pointer */
	uint64_t elr, spsr;     /* where it was, its PSTATE */
	uint64_t esr, far;      /* the syndrome and the faulting address */
};
_Static_assert(sizeof(struct a64_frame) == 36 * 8, "the frame matches vectors.S");

/* Called by every vector (@vector 0..15, Arm ARM D1.10.2's order). Returns
 * only when the exception is resolved: a page fault arch_page_fault_hook
 * mapped, or a probe's fault (ELR then at its fixup). */
void arm64_trap(struct a64_frame *f, uint64_t vector);

/* Read the 32-bit device register at @va into @val; false instead of a
 * fault when nothing answers there (an external abort: QEMU virt's
 * unassigned MMIO, a bus with no device). For probes of devices firmware
 * names (a PL011 an SPCR or a tree gives). vectors.S, resumed by
 * arm64_trap() like arch_probe_read(). */
bool a64_probe_read32(uint64_t va, uint32_t *val);

#endif

/*
 * p64/trap.h (ppc64le): an interrupt's saved state, as
 * arch/ppc64le/vectors.S builds it on the exception stack.
 */
#ifndef MEMBOOT_P64_TRAP_H
#define MEMBOOT_P64_TRAP_H

#include <stdint.h>

struct ppc_frame {
	uint64_t r[32];         /* r1 the interrupted stack pointer */
	uint64_t srr0, srr1;    /* where it was, its MSR */
	uint64_t lr, cr;
	uint64_t dar, dsisr;    /* a storage interrupt's address and cause */
};
_Static_assert(sizeof(struct ppc_frame) == 38 * 8, "the frame matches vectors.S");

/* The vectors at address 0 (big-endian, as interrupts arrive). Called
 * by entry.S after the firmware's last call. */
void ppc_traps_init(void);

/* Called by every vector with its offset (0x300, ...); never returns. */
void ppc_trap(struct ppc_frame *f, uint64_t vector);

#endif

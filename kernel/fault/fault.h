/*
 * fault.h: memboot.fault, a fault raised on purpose, to check that each is
 * reported and ends the boot with its exit status (docs/exit-status.md).
 * Not a self-test: nothing is checked here, the boot's reaction is.
 */
#ifndef MEMBOOT_KERNEL_FAULT_H
#define MEMBOOT_KERNEL_FAULT_H

#include <stdint.h>

struct memmap;

/* Raise the fault named by memboot.fault, if any (does not return then);
 * memboot.fault=lose-page wipes a descriptor in @mm. */
void fault_inject(struct memmap *mm);
/* memboot.fault=ap-park is armed before memory init (it acts inside it),
 * unless memory init's deadline for a silent CPU is @deadline_ns 0: the
 * boot would wait for the parked CPU for ever, so it is refused, named. */
void fault_before_meminit(uint64_t deadline_ns);

#endif

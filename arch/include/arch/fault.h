/*
 * arch/fault.h: what generic code needs of a page fault, the hook the
 * kernel's address spaces install (kernel/vm/vm.c), probing an address
 * that may fault, and the faults memboot.fault= raises on purpose
 * (kernel/fault/inject.c).
 *
 * Every other exception is fatal in memboot: arch reports it (vector,
 * registers, a backtrace) and ends the boot with the exception status.
 */
#ifndef MEMBOOT_ARCH_FAULT_H
#define MEMBOOT_ARCH_FAULT_H

#include <stdbool.h>
#include <stdint.h>

/* A page fault as generic code sees it (x86: #PF's error code, CR2 and
 * the saved RIP and RFLAGS; arm64: ESR_EL1, FAR_EL1, ELR_EL1, SPSR_EL1;
 * POWER: DSISR, DAR, SRR0, SRR1). */
struct arch_fault {
	uint64_t addr;          /* the address whose access faulted */
	uint64_t pc;            /* the faulting instruction */
	bool write;             /* a write (else a read or an instruction fetch) */
	bool fetch;             /* an instruction fetch */
	bool present;           /* a translation exists: a permission fault, not a missing page */
	bool user;              /* from user mode */
	bool irqs_on;           /* interrupts were enabled in the faulting context */
};

/*
 * Set by the kernel's address spaces: called for a page fault with
 * interrupts off; true if it mapped the page, and the instruction runs
 * again. It may enable interrupts while it works when the faulting context
 * had them on (@f->irqs_on), and returns with them off. NULL, or false:
 * the fault is fatal.
 */
extern bool (*arch_page_fault_hook)(const struct arch_fault *f);

/*
 * Read (write) 8 bytes at @va; false instead of a fault if it is not mapped
 * (or not writable). The fault handler recognises the one instruction that
 * may fault here and resumes at a fixup (an exception table of one entry).
 */
bool arch_probe_read(uint64_t va, uint64_t *val);
bool arch_probe_write(uint64_t va, uint64_t val);

/* Print "  [<addr>]" lines: @pc, then the return addresses of the
 * frame-pointer chain from @frame (the kernel keeps frame pointers:
 * x86_64 RBP, arm64 x29, POWER r1's back chain). */
void arch_backtrace(uint64_t pc, uint64_t frame);

/*
 * The faults of memboot.fault=, in asm/fault.h as macros: each must fault
 * in the caller's own frame, so the report's first line names the caller
 * (tools/memboot debug symbolizes it). A macro that did not fault (it
 * cannot happen, but a broken map could allow a load) returns, and the
 * caller says so.
 *
 *   ARCH_FAULT_DIVIDE()           divide by zero (x86 #DE); an architecture
 *                                 whose division does not trap raises its
 *                                 nearest: a software trap
 *   ARCH_FAULT_UNDEFINED()        an undefined instruction (x86 UD2)
 *   ARCH_FAULT_BAD_ADDRESS        an address no mapping can have (x86: not
 *                                 canonical, #GP)
 *   ARCH_FAULT_UNMAPPED_ADDRESS   an address the kernel's maps leave unmapped
 *                                 (a page fault)
 *   ARCH_FAULT_STACK_OVERFLOW()   the stack pointer on unmapped memory, then
 *                                 a push: the fault cannot be delivered on
 *                                 that stack (x86: #DF on its own stack)
 *   ARCH_FAULT_RETURN_INSN        the bytes of a return instruction, an
 *                                 array initializer: copied into data, then
 *                                 called (data is not executable)
 *
 * and what the boot's lines call three of them, in the architecture's
 * words: ARCH_FAULT_DIVIDE_WHAT ("dividing by zero"),
 * ARCH_FAULT_UNDEFINED_WHAT ("executing ud2"), ARCH_FAULT_BAD_ADDRESS_WHAT
 * ("loading a non-canonical address").
 */
#include "asm/fault.h"

#endif

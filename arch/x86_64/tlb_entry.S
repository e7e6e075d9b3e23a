/*
 * tlb_entry.S: the shootdown IPI's entry stub and the probe instructions.
 */
#include "x86/irq_stub.h"

	.text
	.code64

/* Shootdown IPI: the C handler flushes, acknowledges and sends the EOI. */
	IRQ_STUB apic_tlb_stub, arch_tlb_ipi

/* bool arch_probe_read(uint64_t va, uint64_t *val) */
	.globl arch_probe_read, arch_probe_read_insn, arch_probe_read_fixup
arch_probe_read:
arch_probe_read_insn:
	movq (%rdi), %rax
	movq %rax, (%rsi)
	movl $1, %eax
	ret
arch_probe_read_fixup:
	xorl %eax, %eax
	ret

/* bool arch_probe_write(uint64_t va, uint64_t val) */
	.globl arch_probe_write, arch_probe_write_insn, arch_probe_write_fixup
arch_probe_write:
arch_probe_write_insn:
	movq %rsi, (%rdi)
	movl $1, %eax
	ret
arch_probe_write_fixup:
	xorl %eax, %eax
	ret

/*
 * tlb_entry.S: the shootdown IPI's entry stub and the probe instructions.
 */
	.text
	.code64

/* Shootdown IPI: the C handler flushes, acknowledges and sends the EOI.
 * Caller-saved registers only: the C code saves the rest. */
	.globl apic_tlb_stub
apic_tlb_stub:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	cld
	call arch_tlb_ipi
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq

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

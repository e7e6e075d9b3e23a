/*
 * trampoline.S: how an application processor gets from the real mode a
 * Startup IPI leaves it in to the kernel's 64-bit code.
 *
 * The code between trampoline_start and trampoline_end is copied to a page
 * below 1 MiB (the SIPI vector is that page number; Intel SDM vol. 3A,
 * 9.4.4). It is position independent in the only way real mode allows: every
 * absolute address is written as (label - trampoline_start) plus the page's
 * address, which the boot CPU patches into tramp_base before sending SIPIs.
 * 16-bit code addresses data relative to CS, which the SIPI sets to the page.
 *
 * All APs start at once and share this page; each finds its own stack by its
 * APIC ID in smp_boot_table (ap_entry64 below).
 */
#define EFER_MSR 0xc0000080
#define OFF(label) ((label) - trampoline_start)

	.section .rodata
	.balign 16
#include "x86/irq_stub.h"

	.globl trampoline_start, trampoline_end
	.code16
trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	/* Turn the 16-bit far pointers into linear addresses: the page is
	 * at CS << 4. */
	movl %cs, %ebx
	shll $4, %ebx
	leal OFF(tramp_gdt)(%ebx), %eax
	movl %eax, OFF(tramp_gdt_ptr) + 2
	leal OFF(tramp_pm32)(%ebx), %eax
	movl %eax, OFF(tramp_pm32_ptr)
	lgdtl OFF(tramp_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax
	movl %eax, %cr0
	ljmpl *OFF(tramp_pm32_ptr)

	.code32
tramp_pm32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $((1 << 5) | (1 << 9) | (1 << 10)), %eax     /* PAE, OSFXSR, OSXMMEXCPT */
	movl %eax, %cr4
	movl OFF(tramp_cr3)(%ebx), %eax
	movl %eax, %cr3
	movl $EFER_MSR, %ecx
	rdmsr
	orl OFF(tramp_efer)(%ebx), %eax                  /* LME, and NXE if the BSP has it */
	wrmsr
	movl %cr0, %eax
	andl $~((1 << 2) | (1 << 3)), %eax               /* EM off, TS off */
	orl $((1 << 31) | (1 << 16) | (1 << 1) | (1 << 0)), %eax   /* PG, WP, MP, PE: WP as the boot CPU, so read-only binds ring 0 here too */
	movl %eax, %cr0
	leal OFF(tramp_lm64)(%ebx), %eax
	movl %eax, OFF(tramp_lm64_ptr)(%ebx)
	ljmpl *OFF(tramp_lm64_ptr)(%ebx)

	.code64
tramp_lm64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movl %ebx, %ebx                 /* upper half is undefined after the mode switch */
	movq OFF(tramp_entry)(%rbx), %rax
	jmp *%rax

	.balign 8
tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
tramp_gdt_end:
tramp_gdt_ptr:
	.short tramp_gdt_end - tramp_gdt - 1
	.long 0                         /* patched: linear address of tramp_gdt */
	.balign 4
tramp_pm32_ptr:
	.long 0                         /* patched: linear address of tramp_pm32 */
	.short 0x08
	.balign 4
tramp_lm64_ptr:
	.long 0
	.short 0x18
	.balign 8
	.globl tramp_cr3, tramp_efer, tramp_entry
tramp_cr3:
	.long 0
tramp_efer:
	.long 0
tramp_entry:
	.quad 0
trampoline_end:

/*
 * ap_entry64: first kernel code on an AP, on no stack yet. Look up this CPU's
 * APIC ID in smp_boot_table (entries of 24 bytes: apic_id, pad, stack top,
 * struct percpu *) and call ap_main(percpu).
 */
	.text
	.code64
	.globl ap_entry64
ap_entry64:
	xorl %eax, %eax
	cpuid
	cmpl $0xb, %eax
	jb 1f
	movl $0xb, %eax
	xorl %ecx, %ecx
	cpuid
	testl %ebx, %ebx
	jz 1f
	movl %edx, %edi                 /* x2APIC ID */
	jmp 2f
1:	movl $1, %eax
	cpuid
	shrl $24, %ebx
	movl %ebx, %edi                 /* initial xAPIC ID */
2:	movq smp_boot_table(%rip), %rsi
	movl smp_boot_count(%rip), %ecx
3:	testl %ecx, %ecx
	jz 5f
	cmpl (%rsi), %edi
	je 4f
	addq $24, %rsi
	decl %ecx
	jmp 3b
4:	movq 8(%rsi), %rsp
	movq 16(%rsi), %rdi
	xorl %ebp, %ebp
	call ap_main
5:	cli                             /* not in the table: never used */
	hlt
	jmp 5b

/* Wake-up IPI: nothing to do but acknowledge; the idle loop looks at the
 * mailbox after hlt returns. */
	IRQ_STUB apic_wake_stub, apic_eoi
	.globl apic_spurious_stub
apic_spurious_stub:
	iretq                           /* spurious interrupts need no EOI */

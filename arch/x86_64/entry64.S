/*
 * entry64.S: the kernel's entry for loaders that start it in 64-bit mode
 * (memboot's UEFI loader, boot/efi/; see boot/handoff.h).
 *
 * Entered at _start64 in long mode with RDI = the loader's magic and
 * RSI = the physical address of its boot information (below 4 GiB), on the
 * firmware's identity-mapped page tables, GDT and stack, interrupts in any
 * state. It leaves the CPU as arch_entry32 (entry32.S) does, so that nothing
 * after it can tell the paths apart:
 *  - interrupts off, TSC recorded first (time zero of every timestamp),
 *  - .bss cleared, the boot stack in use,
 *  - boot_pml4/boot_pdpt/boot_pd (entry32.S's tables) filled the same way:
 *    the first BOOT_MAP_GIB GiB identity-mapped with 1 GiB pages where the CPU
 *    has them (else 2 MiB pages), and loaded
 *    in CR3 (the AP trampoline copies the boot CPU's CR3, so it must be them),
 *  - CR4 = PAE | OSFXSR | OSXMMEXCPT, CR0.EM/TS clear and CR0.MP set (SSE for
 *    newlib), EFER.NXE set when the CPU has NX,
 *  - a GDT with 64-bit code at 0x08 and data at 0x10, CS reloaded by a far
 *    return, then kernel_main(magic, info) (arch/entry.h: two register-sized
 *    arguments, the 32-bit values zero-extended).
 * Firmware with 5-level paging on (CR4.LA57) cannot be followed here: LA57
 * can only change outside long mode, and the loader refuses such firmware
 * before ExitBootServices; this entry checks again and stops with a message.
 *
 * The ELF note below (name "memboot", type HANDOFF_NOTE_ENTRY64) tells the
 * loader where _start64 is; boot/handoff.h describes it.
 */
#include "x86/bss_clear.h"

#define BOOT_MAP_GIB 64                 /* as entry32.S and arch/paging.h */
#define EFER_MSR 0xc0000080
#define COM1 0x3f8
#define CR4_LA57 (1 << 12)
#define HANDOFF_NOTE_ENTRY64 0x6d620001 /* boot/handoff.h */
#define HANDOFF_VERSION 1

	.section .note.memboot, "a", @note
	.balign 4
	.long 8                         /* namesz: "memboot\0" */
	.long 16                        /* descsz: struct handoff_note_entry64 */
	.long HANDOFF_NOTE_ENTRY64
	.asciz "memboot"
	.balign 4
	.quad _start64                  /* entry_lo, entry_hi */
	.long HANDOFF_VERSION
	.long 0

	.section .text.boot64, "ax"
	.code64
	.globl _start64
_start64:
	cli
	cld
	movq %rdi, %r12                 /* magic; callee-saved across what follows */
	movq %rsi, %r13                 /* boot information */
	rdtsc
	movl %eax, arch_counter_at_entry(%rip)
	movl %edx, arch_counter_at_entry + 4(%rip)

	movq %cr4, %rax
	testq $CR4_LA57, %rax
	jnz la57_on

	/* SSE on before .bss is cleared with it (arch/bss_clear.h); CR4 exactly
	 * as the 32-bit entry leaves it, which also drops PGE and so flushes
	 * the firmware's global TLB entries. */
	movl $((1 << 5) | (1 << 9) | (1 << 10)), %eax  /* PAE, OSFXSR, OSXMMEXCPT */
	movq %rax, %cr4
	movq %cr0, %rax
	andq $~((1 << 2) | (1 << 3)), %rax      /* EM off, TS off */
	orq $(1 << 1), %rax                     /* MP */
	movq %rax, %cr0

	/* .bss: 16-byte aligned at both ends (linker/x86_64.ld). */
	movl $__bss_start, %edi
	movl $__bss_end, %esi
	CLEAR_16B_ALIGNED %rdi, %rsi
	movq $boot_stack_top, %rsp

	/* CPUID 0x80000001 EDX: bit 26 1 GiB pages, bit 20 NX (below). */
	movl $0x80000001, %eax
	cpuid
	movl %edx, %r14d

	/* PML4[0] -> PDPT; with 1 GiB pages PDPT entry i maps i GiB, as in
	 * entry32.S; else PDPT[i] -> PD page i and PD entry i maps i * 2 MiB. */
	movq $boot_pdpt, %rax
	orq $0x3, %rax                  /* present, writable */
	movq %rax, boot_pml4(%rip)
	testl $(1 << 26), %r14d
	jz 5f
	xorl %ecx, %ecx
6:	movq %rcx, %rax
	shlq $30, %rax
	orq $0x83, %rax                 /* present, writable, PS */
	movq %rax, boot_pdpt(, %rcx, 8)
	incl %ecx
	cmpl $BOOT_MAP_GIB, %ecx
	jb 6b
	jmp 7f
5:	movq $boot_pd, %rax
	orq $0x3, %rax
	xorl %ecx, %ecx
1:	movq %rax, boot_pdpt(, %rcx, 8)
	addq $4096, %rax
	incl %ecx
	cmpl $BOOT_MAP_GIB, %ecx
	jb 1b
	xorl %ecx, %ecx
2:	movq %rcx, %rax
	shlq $21, %rax
	orq $0x83, %rax                 /* present, writable, PS */
	movq %rax, boot_pd(, %rcx, 8)
	incl %ecx
	cmpl $(BOOT_MAP_GIB * 512), %ecx
	jb 2b

7:	movq $boot_pml4, %rax
	movq %rax, %cr3

	movl $EFER_MSR, %ecx
	testl $(1 << 20), %r14d         /* NX */
	jz 3f
	rdmsr
	orl $(1 << 11), %eax            /* NXE */
	wrmsr
3:
	lgdt boot64_gdt_ptr(%rip)
	pushq $0x08
	leaq 4f(%rip), %rax
	pushq %rax
	lretq
4:	movl $0x10, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorl %eax, %eax
	movw %ax, %fs
	movw %ax, %gs
	fninit
	xorl %ebp, %ebp
	movl %r12d, %edi                /* kernel_main(arg0, arg1): zero-extended */
	movl %r13d, %esi
	call kernel_main
5:	cli
	hlt
	jmp 5b

la57_on:
	/* Say so on COM1 (the firmware left it set up), exit QEMU with status 1
	 * as entry32.S does for a CPU without long mode, halt. */
	leaq la57_msg(%rip), %rsi
6:	movb (%rsi), %al
	testb %al, %al
	jz 7f
	movw $COM1, %dx
	outb %al, %dx
	incq %rsi
	jmp 6b
7:	movw $0xf4, %dx
	movl $0x11, %eax
	outl %eax, %dx
8:	hlt
	jmp 8b

	.section .rodata
la57_msg:
	.asciz "memboot: entered with 5-level paging (CR4.LA57) on; memboot needs 4-level paging\r\n"

	.section .data
	.balign 8
boot64_gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
boot64_gdt_end:
	.balign 8
	.short 0, 0, 0                  /* so that the base below is 8-byte aligned */
boot64_gdt_ptr:
	.short boot64_gdt_end - boot64_gdt - 1
	.quad boot64_gdt

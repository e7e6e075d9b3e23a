/*
 * entry32.S: from 32-bit protected mode to 64-bit long mode.
 *
 * Entered by every 32-bit boot path with EDI = the loader's magic and
 * ESI = the physical address of its boot information. It
 *  - clears .bss (every loader should, but a stray one costs nothing here),
 *  - records the TSC as early as possible (time zero of every timestamp),
 *  - identity maps the first BOOT_MAP_GIB GiB with 2 MiB pages,
 *  - enables SSE (newlib is compiled with it: CR0.EM=0, CR0.MP=1,
 *    CR4.OSFXSR, CR4.OSXMMEXCPT), PAE, EFER.LME and EFER.NXE when present,
 *  - turns paging on, loads a 64-bit GDT and calls kernel_main(magic, info).
 * Intel SDM vol. 3A, section 9.8.5 "Initializing IA-32e Mode".
 */
#define BOOT_MAP_GIB 64
#define EFER_MSR 0xc0000080
#define COM1 0x3f8

	.section .text.boot32, "ax"
	.code32
	.globl arch_entry32
arch_entry32:
	cli
	cld
	movl %edi, boot_arg_magic
	movl %esi, boot_arg_info
	rdtsc
	movl %eax, boot_tsc_at_entry
	movl %edx, boot_tsc_at_entry + 4

	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl
	movl $boot_stack_top, %esp

	/* Long mode available? CPUID 0x80000001 EDX bit 29. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode
	movl %edx, %ebp                 /* bit 20: NX */

	/* FXSR, SSE and SSE2 (CPUID 1 EDX bits 24-26): newlib's code uses
	 * SSE registers, and CR4.OSFXSR below needs FXSR. Every 64-bit CPU
	 * has them architecturally, but a virtual one can be configured
	 * without (QEMU -cpu max,-sse,-sse2): refuse it here with a message
	 * instead of dying on the first SSE instruction with a bare #UD. */
	movl $1, %eax
	cpuid
	andl $(7 << 24), %edx
	cmpl $(7 << 24), %edx
	jne no_sse

	/* PML4[0] -> PDPT; PDPT[i] -> PD page i. */
	movl $boot_pdpt, %eax
	orl $0x3, %eax                  /* present, writable */
	movl %eax, boot_pml4
	movl $boot_pd, %eax
	xorl %ecx, %ecx
1:	movl %eax, %edx
	orl $0x3, %edx
	movl %edx, boot_pdpt(, %ecx, 8)
	addl $4096, %eax
	incl %ecx
	cmpl $BOOT_MAP_GIB, %ecx
	jb 1b

	/* PD entry i maps [i * 2 MiB, (i + 1) * 2 MiB): present, writable, PS. */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax
	movl %ecx, %edx
	shrl $11, %edx                  /* bits 32.. of i * 2 MiB */
	movl %eax, boot_pd(, %ecx, 8)
	movl %edx, boot_pd + 4(, %ecx, 8)
	incl %ecx
	cmpl $(BOOT_MAP_GIB * 512), %ecx
	jb 2b

	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $((1 << 5) | (1 << 9) | (1 << 10)), %eax    /* PAE, OSFXSR, OSXMMEXCPT */
	movl %eax, %cr4
	movl $EFER_MSR, %ecx
	rdmsr
	orl $(1 << 8), %eax                              /* LME */
	testl $(1 << 20), %ebp
	jz 3f
	orl $(1 << 11), %eax                             /* NXE */
3:	wrmsr
	movl %cr0, %eax
	andl $~((1 << 2) | (1 << 3)), %eax               /* EM off, TS off */
	orl $((1 << 31) | (1 << 1) | (1 << 0)), %eax     /* PG, MP, PE */
	movl %eax, %cr0
	lgdt boot_gdt_ptr
	ljmp $0x08, $long_mode_entry

no_long_mode:
	movl $no_lm_msg, %esi
	movl $no_lm_done, %edi
	jmp cpu_unusable
no_sse:
	movl $no_sse_msg, %esi
	movl $no_sse_done, %edi

	/*
	 * This CPU cannot run the kernel: say so on COM1 as a line and as the
	 * done record (docs/records.md: done is always last, also here), then
	 * leave with status 1 like kernel_exit(): QEMU's isa-debug-exit only
	 * under a hypervisor (CPUID 1 ECX bit 31), else halt.
	 */
cpu_unusable:
	call com1_puts
	movl %edi, %esi
	call com1_puts
	movl $1, %eax
	cpuid
	testl $(1 << 31), %ecx
	jz 6f
	movw $0xf4, %dx
	movl $0x11, %eax                /* 0x10 + status 1 */
	outl %eax, %dx
6:	hlt
	jmp 6b

/* Write the NUL-terminated string at ESI to COM1. */
com1_puts:
	movw $COM1, %dx
4:	movb (%esi), %al
	testb %al, %al
	jz 5f
	outb %al, %dx
	incl %esi
	jmp 4b
5:	ret

	.code64
long_mode_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	fninit
	xorl %ebp, %ebp
	movl boot_arg_magic(%rip), %edi
	movl boot_arg_info(%rip), %esi
	call kernel_main
7:	cli
	hlt
	jmp 7b

	.section .rodata
no_lm_msg:
	.asciz "memboot: this CPU has no 64-bit long mode; cannot boot\r\n"
no_lm_done:
	.asciz "MEMBOOT {\"event\":\"done\",\"ok\":false,\"status\":1,\"reason\":\"cpu: no 64-bit long mode\",\"warnings\":0,\"errors\":1,\"total_ns\":0}\r\n"
no_sse_msg:
	.asciz "memboot: this CPU has no FXSR/SSE/SSE2 (CPUID 1 EDX bits 24-26); cannot boot\r\n"
no_sse_done:
	.asciz "MEMBOOT {\"event\":\"done\",\"ok\":false,\"status\":1,\"reason\":\"cpu: no SSE2\",\"warnings\":0,\"errors\":1,\"total_ns\":0}\r\n"

	.section .data
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt
	.globl boot_tsc_at_entry
boot_tsc_at_entry:
	.quad 0
boot_arg_magic:
	.long 0
boot_arg_info:
	.long 0

	.section .bss
	.balign 4096
	.globl boot_pml4, boot_pdpt, boot_pd   /* also filled by entry64.S */
boot_pml4:
	.skip 4096
boot_pdpt:
	.skip 4096
boot_pd:
	.skip 4096 * BOOT_MAP_GIB
	.globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
	.skip 65536
boot_stack_top:

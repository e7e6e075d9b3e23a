/*
 * entry32.S: from 32-bit protected mode to 64-bit long mode.
 *
 * Entered by every 32-bit boot path with EDI = the loader's magic and
 * ESI = the physical address of its boot information. It
 *  - clears .bss (every loader should; one that did not would leave every
 *    static variable undefined): the page tables first, the rest once in
 *    long mode,
 *  - records the TSC as early as possible (time zero of every timestamp),
 *  - identity maps the first BOOT_MAP_GIB GiB with 1 GiB pages where the
 *    CPU has them, else 2 MiB pages,
 *  - enables SSE (newlib is compiled with it: CR0.EM=0, CR0.MP=1,
 *    CR4.OSFXSR, CR4.OSXMMEXCPT), PAE, EFER.LME and EFER.NXE when present,
 *  - turns paging on, loads a 64-bit GDT and calls kernel_main(magic, info)
 *    (arch/entry.h: two register-sized arguments, zero-extended here).
 * Intel SDM vol. 3A, section 9.8.5 "Initializing IA-32e Mode".
 */
#include "x86/bss_clear.h"

#define BOOT_MAP_GIB 64
#define EFER_MSR 0xc0000080
#define COM1 0x3f8
#define MB2_MAGIC 0x36d76289            /* boot/mb2/mb2.h */
#define PVH_MAGIC 0x336ec578            /* boot/pvh/pvh.h */
#define MB2_TAG_MMAP 6

	.section .text.boot32, "ax"
	.code32
	.globl arch_entry32
arch_entry32:
	cli
	cld
	movl %edi, boot_arg_magic
	movl %esi, boot_arg_info
	rdtsc
	movl %eax, arch_counter_at_entry
	movl %edx, arch_counter_at_entry + 4

	jmp image_check
image_ok:
	/* Of .bss only the two tables whose first entries are written below:
	 * the PD is written whole, and the rest of .bss (megabytes) is cleared
	 * in long mode sixteen bytes a store (long_mode_entry, arch/bss_clear.h):
	 * under QEMU's TCG, eight-byte stores took a quarter of the time
	 * four-byte stores took here, and sixteen-byte ones half of that. */
	movl $boot_pml4, %edi
	movl $(2 * 4096 / 4), %ecx      /* boot_pml4 and boot_pdpt */
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

	/* PML4[0] -> PDPT. */
	movl $boot_pdpt, %eax
	orl $0x3, %eax                  /* present, writable */
	movl %eax, boot_pml4

	/* With 1 GiB pages (CPUID 0x80000001 EDX bit 26, SDM vol. 3A 4.5.4)
	 * PDPT entry i maps [i GiB, (i + 1) GiB) itself: 64 entries instead
	 * of 32768 PD entries, a loop that took 0.2 ms under QEMU's TCG. */
	testl $(1 << 26), %ebp
	jz 4f
	xorl %ecx, %ecx
5:	movl %ecx, %eax
	shll $30, %eax
	orl $0x83, %eax                 /* present, writable, PS */
	movl %ecx, %edx
	shrl $2, %edx                   /* bits 32.. of i GiB */
	movl %eax, boot_pdpt(, %ecx, 8)
	movl %edx, boot_pdpt + 4(, %ecx, 8)
	incl %ecx
	cmpl $BOOT_MAP_GIB, %ecx
	jb 5b
	jmp 6f

	/* Else PDPT[i] -> PD page i, each entry a 2 MiB page. */
4:	movl $boot_pd, %eax
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

6:	movl $boot_pml4, %eax
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

/*
 * Before the first write to the image beyond what the loader wrote (the
 * .bss clear, the boot page tables and stack live in .bss): the loader
 * placed the image where the memory map may say it must not be. With
 * QEMU -kernel and a few MiB of RAM, SeaBIOS puts the ACPI tables in
 * reserved memory where .bss lies, or .bss runs past the end of RAM; clearing
 * it would wipe the tables or write to nothing. Checked here, from the map
 * the loader passed (Multiboot2 tag 6, PVH hvm_start_info v1 memmap):
 *  - every byte of [__kernel_start, __kernel_end) must be RAM (type 1),
 *  - no entry of another type may overlap it,
 *  - the boot information itself must not lie inside it.
 * The UEFI loader checks its segments against the UEFI map itself
 * (boot/efi/kelf.c). Registers only, no stack: the stack is in .bss.
 * EDI = magic and ESI = info must survive (boot_arg_* hold them too).
 */
image_check:
	/*
	 * The boot information where .bss will be cleared. Loaders may put
	 * it in the padding between the image's segments (GRUB does, after
	 * .text): harmless, since only [__bss_start, __kernel_end) is written.
	 * Its length: Multiboot2's total_size, PVH's 56-byte hvm_start_info.
	 */
	movl $56, %eax
	cmpl $PVH_MAGIC, %edi
	je 9f
	cmpl $MB2_MAGIC, %edi
	jne 10f
	movl (%esi), %eax
9:	addl %esi, %eax                 /* end of the information */
	jc 8f
	cmpl $__bss_start, %eax
	jbe 10f
	cmpl $__kernel_end, %esi
	jae 10f
8:	movl $info_in_image_msg, %esi
	jmp bad_boot_info
10:	movl $0, image_ram_bytes
	movl $0, image_reserved_hit
	movl $0, image_ram_past
	cmpl $PVH_MAGIC, %edi
	je image_check_pvh
	cmpl $MB2_MAGIC, %edi
	jne image_ok                    /* no map to check here: C reports it */

	/* Multiboot2: tags from info + 8, each 8-aligned; type 0 ends them. */
	movl boot_arg_info, %ebx
	movl (%ebx), %ecx               /* total_size */
	addl %ebx, %ecx                 /* end of the information */
	addl $8, %ebx
11:	leal 8(%ebx), %eax
	cmpl %ecx, %eax
	ja image_check_done             /* no room for a tag header */
	movl (%ebx), %eax               /* type */
	testl %eax, %eax
	jz image_check_done
	cmpl $MB2_TAG_MMAP, %eax
	je 12f
	movl 4(%ebx), %eax              /* size */
	cmpl $8, %eax
	jb image_check_done
	addl $7, %eax
	andl $~7, %eax
	addl %eax, %ebx
	jmp 11b
12:	/* Memory map: entry_size at +8, entries from +16 to +size. */
	movl 4(%ebx), %eax
	addl %ebx, %eax
	movl %eax, image_map_end
	movl 8(%ebx), %eax
	cmpl $24, %eax
	jb image_check_done             /* implausible: C reports it */
	movl %eax, image_map_stride
	leal 16(%ebx), %ebx
	jmp image_check_entries

image_check_pvh:
	movl boot_arg_info, %ebx
	cmpl $1, 4(%ebx)                /* version 1 has the memory map */
	jb image_ok
	cmpl $0, 44(%ebx)               /* memmap_paddr above 4 GiB */
	jne image_ok
	movl 48(%ebx), %eax             /* memmap_entries */
	cmpl $4096, %eax
	ja image_ok                     /* implausible: C reports it */
	imull $24, %eax
	movl 40(%ebx), %ebx             /* memmap_paddr */
	addl %ebx, %eax
	movl %eax, image_map_end
	movl $24, image_map_stride

	/*
	 * Both maps have base (u64) at +0, length (u64) at +8, type (u32) at
	 * +16; type 1 is RAM in both. For each entry [base, base + len) below
	 * 4 GiB, its overlap with the image: RAM adds to image_ram_bytes,
	 * anything else is a refusal.
	 */
image_check_entries:
13:	movl image_map_stride, %eax
	addl %ebx, %eax
	cmpl image_map_end, %eax
	ja image_check_done
	/* RAM that reaches past the image's end: the guest has room for the
	 * image, so a reserved overlap is where the loader put it. */
	cmpl $1, 16(%ebx)
	jne 20f
	cmpl $0, 4(%ebx)
	jne 21f                         /* RAM above 4 GiB */
	movl (%ebx), %eax
	movl 8(%ebx), %edx
	addl %eax, %edx
	jc 21f
	cmpl $0, 12(%ebx)
	jne 21f
	cmpl $__kernel_end, %edx
	jb 20f
21:	movl $1, image_ram_past
20:
	cmpl $0, 4(%ebx)                /* base above 4 GiB: not the image's */
	jne 16f
	movl (%ebx), %eax               /* start = max(base, kernel_start) */
	movl 8(%ebx), %edx              /* end = base + len, clipped to 4 GiB */
	addl %eax, %edx
	jc 14f
	cmpl $0, 12(%ebx)
	je 15f
14:	movl $0xfffff000, %edx
15:	cmpl $__kernel_start, %eax
	jae 17f
	movl $__kernel_start, %eax
17:	cmpl $__kernel_end, %edx
	jbe 18f
	movl $__kernel_end, %edx
18:	cmpl %edx, %eax
	jae 16f                         /* no overlap */
	cmpl $1, 16(%ebx)
	jne 19f
	subl %eax, %edx
	addl %edx, image_ram_bytes
	jmp 16f
19:	movl $1, image_reserved_hit     /* refused once the map is read */
16:	addl image_map_stride, %ebx
	jmp 13b

image_check_done:
	cmpl $0, image_map_stride
	je image_ok                     /* no map found: C reports it */
	cmpl $0, image_reserved_hit
	je 22f
	/* No RAM past the image: the guest is smaller than the image, and
	 * the firmware's tables at the top of its RAM sit where .bss goes. */
	movl $image_small_msg, %esi
	cmpl $0, image_ram_past
	je bad_boot_info
	movl $image_reserved_msg, %esi
	jmp bad_boot_info
22:
	movl $__kernel_end, %eax
	subl $__kernel_start, %eax
	cmpl %eax, image_ram_bytes
	jae image_ok
	movl $image_no_ram_msg, %esi

	/* Status 3, bad boot information: the message, then a done record. */
bad_boot_info:
	movl $bad_info_done, %edi
	movl $0x13, image_exit_value
	jmp cpu_unusable_with

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
	movl $0x11, image_exit_value    /* 0x10 + status 1 */
	/* No stack (it is in .bss, maybe not RAM): the strings inline. */
cpu_unusable_with:
	movw $COM1, %dx
4:	movb (%esi), %al
	testb %al, %al
	jz 5f
	outb %al, %dx
	incl %esi
	jmp 4b
5:	movb (%edi), %al
	testb %al, %al
	jz 7f
	outb %al, %dx
	incl %edi
	jmp 5b
7:	movl $1, %eax
	cpuid
	testl $(1 << 31), %ecx
	jz 6f
	movw $0xf4, %dx
	movl image_exit_value, %eax
	outl %eax, %dx
6:	hlt
	jmp 6b

	.code64
long_mode_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	/* The rest of .bss: all of it but the live page tables (SSE is on:
	 * CR4 and CR0 above). */
	movq $__bss_start, %rdi
	movq $boot_pml4, %rsi
	CLEAR_16B_ALIGNED %rdi, %rsi
	movq $boot_pd_end, %rdi
	movq $__bss_end, %rsi
	CLEAR_16B_ALIGNED %rdi, %rsi
	movq $boot_stack_top, %rsp
	fninit
	xorl %ebp, %ebp
	movl boot_arg_magic(%rip), %edi /* kernel_main(arg0, arg1): zero-extended */
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
info_in_image_msg:
	.asciz "memboot: the loader put its boot information where the kernel's .bss is, which clearing it would overwrite; cannot boot\r\n"
image_reserved_msg:
	.asciz "memboot: the kernel image overlaps memory the memory map reserves (firmware data such as ACPI tables); the loader put it there and clearing .bss would overwrite it; cannot boot\r\n"
image_small_msg:
	.asciz "memboot: the guest is too small for the kernel: its RAM ends inside the kernel image (through .bss), where the firmware keeps its tables at the top of RAM; give the guest more memory (tools/memboot run --mem-per-node: docs/tools.md gives the least each boot path boots with); cannot boot\r\n"
image_no_ram_msg:
	.asciz "memboot: the kernel image (through .bss) is not all RAM in the memory map: too little memory for the kernel (give the guest more, e.g. -m 16M); cannot boot\r\n"
bad_info_done:
	.asciz "MEMBOOT {\"event\":\"done\",\"ok\":false,\"status\":3,\"reason\":\"boot: the kernel image does not fit the memory map\",\"warnings\":0,\"errors\":1,\"total_ns\":0}\r\n"
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
	.globl arch_counter_at_entry
arch_counter_at_entry:
	.quad 0
boot_arg_magic:
	.long 0
boot_arg_info:
	.long 0
/* image_check's working values: .data, since .bss is not usable yet. */
image_ram_bytes:
	.long 0
image_map_end:
	.long 0
image_map_stride:
	.long 0
image_exit_value:
	.long 0
image_reserved_hit:                     /* a reserved entry overlaps the image */
	.long 0
image_ram_past:                         /* some RAM reaches past the image's end */
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
boot_pd_end:
	.globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
	.skip 65536
boot_stack_top:

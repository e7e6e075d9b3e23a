/*
 * pvh_entry.S: the PVH ELF note and entry (QEMU `-kernel memboot.elf`).
 *
 * The note (name "Xen", type XEN_ELFNOTE_PHYS32_ENTRY) holds the physical
 * address of _start_pvh as an 8-byte value: QEMU reads a 64-bit ELF's entry
 * as 8 bytes and finds the descriptor by aligning the name to the PT_NOTE's
 * alignment, so the section stays 4-byte aligned (linker/x86_64.ld keeps it
 * and ld emits the PT_NOTE).
 *
 * The PVH boot ABI enters in 32-bit protected mode, paging off, flat
 * segments, interrupts off, no stack, with EBX = the physical address of
 * struct hvm_start_info. _start_pvh passes PVH_BOOT_MAGIC in EDI and that
 * address in ESI to arch_entry32, which does the rest exactly as for
 * Multiboot2; boot_collect() recognises the magic (boot/pvh/pvh.h).
 */
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define PVH_BOOT_MAGIC 0x336ec578       /* boot/pvh/pvh.h */

	.section .note.Xen, "a", @note
	.balign 4
	.long 2f - 1f                   /* namesz */
	.long 4f - 3f                   /* descsz */
	.long XEN_ELFNOTE_PHYS32_ENTRY
1:	.asciz "Xen"
2:	.balign 4
3:	.quad _start_pvh
4:	.balign 4

	.section .text.boot32, "ax"
	.code32
	.globl _start_pvh
_start_pvh:
	movl $PVH_BOOT_MAGIC, %edi
	movl %ebx, %esi
	jmp arch_entry32

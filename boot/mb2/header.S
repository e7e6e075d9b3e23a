/*
 * header.S: the Multiboot2 header and entry point.
 *
 * Multiboot2 spec 1.6, section 3.1: the header must sit 8-byte aligned within
 * the first 32 KiB of the image. It asks for a framebuffer (3.1.10, tag 5,
 * marked optional: a loader without one boots us in text mode, and the
 * console falls back to VGA text) of 1024x768 at 32 bits, a mode nearly
 * every BIOS VBE and UEFI GOP offers; GRUB picks the closest. GRUB then loads
 * the ELF segments at their physical addresses and enters _start in 32-bit
 * protected mode, paging off, with EAX = 0x36d76289 and EBX = the physical
 * address of the boot information.
 */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_ARCH_I386 0

	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long 0x100000000 - (MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	.balign 8
	.short 5                /* framebuffer tag: type 5, flags 1 (optional), size 20 */
	.short 1
	.long 20
	.long 1024              /* width, height, depth: a preference */
	.long 768
	.long 32
	.balign 8
	.short 0                /* end tag: type 0, flags 0, size 8 */
	.short 0
	.long 8
mb2_header_end:

	.section .text.boot32, "ax"
	.code32
	.globl _start
_start:
	movl %eax, %edi         /* boot magic */
	movl %ebx, %esi         /* boot information */
	jmp arch_entry32

/*
 * embed.S: the kernel the UEFI loader carries inside its own image, for a
 * loader that has no volume to read it from (a network boot: GRUB's
 * chainloader over TFTP, or the firmware's own PXE or HTTP boot). Assembled
 * twice by boot/efi/efi.mk: without EMBED_FILE for the plain loader (a head
 * that says "no kernel inside"), and with EMBED_FILE, the kernel ELF, and
 * EMBED_BYTES, its size as the build measured it, for the network loader.
 * The loader checks both magics and that the size the head records is the
 * size between them before it reads a byte of the kernel (loader.c).
 * Directives only: the same text for every architecture.
 */
#include "boot/efi/embed.h"

	.section .data.memboot_kernel, "aw"
	.balign 16
	.globl loader_embed_head
loader_embed_head:
	.ascii EMBED_MAGIC
#ifdef EMBED_FILE
	.quad EMBED_BYTES
	.quad 0
	.incbin EMBED_FILE
#else
	.quad 0
	.quad 0
#endif
	.globl loader_embed_tail
loader_embed_tail:
	.ascii EMBED_MAGIC

	/* No executable stack: the loader is linked with ld's default checks. */
	.section .note.GNU-stack, "", %progbits

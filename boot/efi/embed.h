/*
 * embed.h: the head and tail around the kernel the network loader carries
 * inside its image (boot/efi/embed.S; docs/boot-paths.md, "The network
 * loader"). Included by assembly and by loader.c.
 */
#ifndef MEMBOOT_BOOT_EFI_EMBED_H
#define MEMBOOT_BOOT_EFI_EMBED_H

/* 16 bytes, before the head's size and again after the kernel. */
#define EMBED_MAGIC "memboot-kernel-1"
#define EMBED_MAGIC_BYTES 16

#ifndef __ASSEMBLER__
#include <efi.h>

struct embed_head {
	char magic[EMBED_MAGIC_BYTES];   /* EMBED_MAGIC */
	UINT64 bytes;                    /* the kernel's size; 0: none inside */
	UINT64 reserved;
	/* the kernel ELF, then EMBED_MAGIC again (loader_embed_tail) */
};

extern const struct embed_head loader_embed_head;
extern const char loader_embed_tail[EMBED_MAGIC_BYTES];
#endif

#endif

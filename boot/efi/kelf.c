/*
 * kelf.c: kernel ELF checks and load plan for the UEFI loader (pure C).
 *
 * Layouts are the System V gABI's Elf64_Ehdr, Elf64_Phdr and note header,
 * declared here so that the loader needs no system <elf.h>. Every field is
 * copied out with memcpy: the file buffer need not be aligned.
 */
#include "boot/efi/kelf.h"

#include <string.h>

#include "boot/handoff.h"

struct elf64_ehdr {
	unsigned char ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
_Static_assert(sizeof(struct elf64_ehdr) == 64, "Elf64_Ehdr");

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
_Static_assert(sizeof(struct elf64_phdr) == 56, "Elf64_Phdr");

struct elf_note {
	uint32_t namesz, descsz, type;
};

#define ET_EXEC 2
#define EM_X86_64 62
#define EM_AARCH64 183
#define PT_LOAD 1
#define PT_NOTE 4
#define MAX_PHDRS 256

static uint64_t align4(uint64_t v)
{
	return (v + 3) & ~3ULL;
}

/* Look for the memboot entry note in the notes at [off, off + size). */
static void scan_notes(const unsigned char *file, size_t len, uint64_t off,
		       uint64_t size, struct kelf_image *out)
{
	const char name[] = HANDOFF_NOTE_NAME;

	if (off > len || size > len - off)
		return;
	while (size >= sizeof(struct elf_note)) {
		struct elf_note n;
		uint64_t name_at, desc_at, next;

		memcpy(&n, file + off, sizeof(n));
		name_at = sizeof(n);
		desc_at = name_at + align4(n.namesz);
		next = desc_at + align4(n.descsz);
		if (next > size)
			return;   /* a truncated note ends the scan */
		if (n.type == HANDOFF_NOTE_ENTRY64 && n.namesz == sizeof(name) &&
		    memcmp(file + off + name_at, name, sizeof(name)) == 0 &&
		    n.descsz >= sizeof(struct handoff_note_entry64)) {
			struct handoff_note_entry64 d;
			memcpy(&d, file + off + desc_at, sizeof(d));
			out->entry64 = (uint64_t)d.entry_hi << 32 | d.entry_lo;
			out->handoff_version = d.handoff_version;
		}
		off += next;
		size -= next;
	}
}

static enum kelf_status bad(struct kelf_image *out, enum kelf_status st, uint32_t i,
			    uint64_t start, uint64_t end)
{
	out->bad_phdr = i;
	out->bad_start = start;
	out->bad_end = end;
	return st;
}

enum kelf_status kelf_check(const void *file, size_t len, struct kelf_image *out)
{
	const unsigned char *f = file;
	struct elf64_ehdr eh;
	uint64_t table_bytes;

	memset(out, 0, sizeof(*out));
	if (file == NULL || len < sizeof(eh))
		return KELF_ERR_SHORT;
	memcpy(&eh, f, sizeof(eh));
	if (memcmp(eh.ident, "\177ELF", 4) != 0 || eh.ident[4] != 2 /* ELFCLASS64 */ ||
	    eh.ident[5] != 1 /* ELFDATA2LSB */)
		return KELF_ERR_IDENT;
	if ((eh.machine != EM_X86_64 && eh.machine != EM_AARCH64) || eh.type != ET_EXEC)
		return KELF_ERR_TYPE;
	out->machine = eh.machine;
	out->elf_entry = eh.entry;
	if (eh.phnum == 0 || eh.phnum > MAX_PHDRS || eh.phentsize < sizeof(struct elf64_phdr))
		return KELF_ERR_PHDRS;
	table_bytes = (uint64_t)eh.phnum * eh.phentsize;
	if (eh.phoff > len || table_bytes > len - eh.phoff)
		return KELF_ERR_PHDRS;

	for (uint32_t i = 0; i < eh.phnum; i++) {
		struct elf64_phdr ph;
		struct kelf_segment *s;

		memcpy(&ph, f + eh.phoff + (uint64_t)i * eh.phentsize, sizeof(ph));
		if (ph.type == PT_NOTE) {
			scan_notes(f, len, ph.offset, ph.filesz, out);
			continue;
		}
		if (ph.type != PT_LOAD || ph.memsz == 0)
			continue;
		if (ph.paddr > KELF_LOAD_LIMIT || ph.memsz > KELF_LOAD_LIMIT - ph.paddr)
			return bad(out, KELF_ERR_SEGMENT, i, ph.paddr, ph.paddr);
		if (ph.filesz > ph.memsz || ph.offset > len || ph.filesz > len - ph.offset ||
		    ph.vaddr != ph.paddr)
			return bad(out, KELF_ERR_SEGMENT, i, ph.paddr, ph.paddr + ph.memsz);
		if (out->nr_seg > 0) {
			const struct kelf_segment *p = &out->seg[out->nr_seg - 1];
			if (ph.paddr < p->paddr + p->memsz)
				return bad(out, KELF_ERR_OVERLAP, i, ph.paddr, ph.paddr + ph.memsz);
		}
		if (out->nr_seg == KELF_MAX_SEGMENTS)
			return bad(out, KELF_ERR_TOO_MANY, i, ph.paddr, ph.paddr + ph.memsz);
		s = &out->seg[out->nr_seg++];
		*s = (struct kelf_segment){ .paddr = ph.paddr, .memsz = ph.memsz,
			.filesz = ph.filesz, .offset = ph.offset, .flags = ph.flags, .phdr = i };
	}
	if (out->nr_seg == 0)
		return KELF_ERR_NO_LOAD;
	for (uint32_t i = 0; i < out->nr_seg; i++) {
		const struct kelf_segment *s = &out->seg[i];
		if ((s->flags & KELF_PF_X) && out->entry64 >= s->paddr &&
		    out->entry64 < s->paddr + s->memsz)
			return KELF_OK;
	}
	return bad(out, KELF_ERR_NO_ENTRY, 0, out->entry64, out->entry64);
}

const char *kelf_status_name(enum kelf_status status)
{
	switch (status) {
	case KELF_OK:          return "ok";
	case KELF_ERR_SHORT:   return "file shorter than an ELF header";
	case KELF_ERR_IDENT:   return "not a little-endian ELF64 file";
	case KELF_ERR_TYPE:    return "not an x86-64 or AArch64 executable";
	case KELF_ERR_PHDRS:   return "program header table malformed or outside the file";
	case KELF_ERR_SEGMENT: return "PT_LOAD segment malformed (outside the file, filesz > memsz, "
				      "vaddr != paddr, or not below 4 GiB)";
	case KELF_ERR_OVERLAP: return "PT_LOAD segments overlap or are out of order";
	case KELF_ERR_TOO_MANY: return "too many PT_LOAD segments";
	case KELF_ERR_NO_LOAD: return "no PT_LOAD segment";
	case KELF_ERR_NO_ENTRY: return "no memboot entry note, or its entry is outside executable code";
	default:               return "unknown";
	}
}

/*
 * test_handoff.c: both ends of the UEFI loader's hand-off.
 *
 *  - handoff_parse() (boot/handoff.c) on blocks memboot's loader really
 *    wrote under OVMF (tests/host/fixtures/efi/, captured from the kernel's
 *    `memboot.dump_bootinfo` blobs; NAME.txt is the map the kernel printed)
 *    and on hostile blocks built here;
 *  - kelf_check() (boot/efi/kelf.c), the loader's check of the kernel ELF,
 *    on ELF images built here and on the kernel itself when it is built.
 *
 * Run from the repository root (fixture paths are relative to it).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "boot/bootinfo.h"
#include "boot/efi/kelf.h"
#include "boot/efi_map.h"
#include "boot/handoff.h"
#include "boot/mb2/mb2.h"
#include "tests/host/host_support.h"
#include "tests/host/map_check.h"

#define FIXTURE_DIR "tests/host/fixtures/"
#define PAGE PAGE_SIZE_BYTES
#define KERNEL_ELF "build/debug/memboot.elf"

static struct bootinfo bi;

static int reset(void **state)
{
	(void)state;
	host_log_reset();
	return 0;
}

static size_t warnings_and_errors(void)
{
	return host_log_count(LOG_WARN) + host_log_count(LOG_ERR);
}

/* ---- captured blocks --------------------------------------------------- */

static unsigned char *parse_fixture(const char *name, size_t *len, uint32_t descriptors)
{
	char path[256];
	struct mem_range want[64];
	unsigned char *blk;
	uint32_t n;

	snprintf(path, sizeof(path), FIXTURE_DIR "efi/%s.bin", name);
	blk = fixture_load("", path, "", len);
	snprintf(path, sizeof(path), FIXTURE_DIR "efi/%s.txt", name);
	n = fixture_load_ranges("", path, "", want, 64);

	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, blk, *len, &bi), HANDOFF_OK);
	assert_int_equal(warnings_and_errors(), 0);   /* real firmware: no complaints */
	assert_int_equal(bi.path, BOOT_PATH_EFI);
	assert_string_equal(boot_path_name(bi.path), "efi");
	assert_string_equal(bi.map_source, "efi-mmap");
	assert_true(strncmp(bi.loader, "memboot-efi ", 12) == 0);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp_revision, 2);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	assert_int_equal(bi.raw.nr_entries, descriptors);
	assert_int_equal(bi.loader_info_bytes, *len);
	assert_true(bi.loader_info_phys == (uint64_t)(uintptr_t)blk);
	if (bi.nr_ranges != n)
		fail_msg("%s: %u ranges, the kernel printed %u", name, bi.nr_ranges, n);
	for (uint32_t i = 0; i < n; i++)
		if (bi.ranges[i].start != want[i].start || bi.ranges[i].end != want[i].end ||
		    bi.ranges[i].type != want[i].type)
			fail_msg("%s: range %u differs from the kernel's", name, i);
	check_map_invariants(&bi);
	return blk;
}

static void test_fixture_ovmf_q35_512m(void **state)
{
	size_t len;
	struct handoff_header h;
	unsigned char *blk = parse_fixture("ovmf-q35-512m", &len, 127);

	memcpy(&h, blk, sizeof(h));
	assert_int_equal(h.desc_size, 48);
	assert_int_equal(h.desc_version, 1);
	assert_int_equal(h.exit_tries, 1);
	assert_true(h.flags & HANDOFF_F_RSDP_ACPI20);
	free(blk);
}

static void test_fixture_ovmf_pc_512m(void **state)
{
	size_t len;
	free(parse_fixture("ovmf-pc-512m", &len, 122));
}

static void test_fixture_ovmf_q35_2x2g(void **state)
{
	size_t len;
	free(parse_fixture("ovmf-q35-2x2g", &len, 137));
}

/*
 * The loader's map and GRUB's Multiboot2 tag 17 come from the same
 * GetMemoryMap of the same firmware on the same machine: the normalized maps
 * must agree exactly (docs/boot-paths.md).
 */
static void agree_with_grub(const char *name)
{
	static struct bootinfo grub;
	char path[256];
	size_t len, mlen;
	unsigned char *blk, *mbi;

	snprintf(path, sizeof(path), FIXTURE_DIR "efi/%s.bin", name);
	blk = fixture_load("", path, "", &len);
	snprintf(path, sizeof(path), FIXTURE_DIR "mb2/%s.bin", name);
	mbi = fixture_load("", path, "", &mlen);
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, blk, len, &bi), HANDOFF_OK);
	assert_int_equal(mb2_parse(MB2_BOOTLOADER_MAGIC, mbi, mlen, &grub), MB2_OK);
	assert_int_equal(bootinfo_total_bytes(&bi, MEM_USABLE),
			 bootinfo_total_bytes(&grub, MEM_USABLE));
	assert_int_equal(bi.nr_ranges, grub.nr_ranges);
	assert_memory_equal(bi.ranges, grub.ranges, bi.nr_ranges * sizeof(bi.ranges[0]));
	assert_memory_equal(bi.rsdp, grub.rsdp, 36);
	free(blk);
	free(mbi);
}

static void test_agrees_with_grub_q35(void **state) { agree_with_grub("ovmf-q35-512m"); }
static void test_agrees_with_grub_pc(void **state) { agree_with_grub("ovmf-pc-512m"); }

/* Every shorter buffer is refused cleanly (ASan sees any overread). */
static void test_fixture_truncations(void **state)
{
	char path[] = FIXTURE_DIR "efi/ovmf-q35-512m.bin";
	size_t len;
	unsigned char *blk = fixture_load("", path, "", &len);

	for (size_t n = 0; n < len; n += (n < 128 ? 1 : 97)) {
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, blk, n);
		assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, n ? cut : NULL, n, &bi),
				 HANDOFF_ERR_HEADER);
		free(cut);
	}
	free(blk);
}

/* ---- a block builder for hostile inputs -------------------------------- */

struct parts {
	const void *map;
	uint32_t map_bytes, desc_size;
	const void *rsdp;
	uint32_t rsdp_bytes;
	const void *cmdline;
	uint32_t cmdline_bytes;
	const void *loader;
	uint32_t loader_bytes;
	uint32_t extra_header;   /* a longer header from a later loader */
};

/* A block of exactly its size (so ASan sees overreads): header, then the
 * parts in order. */
static unsigned char *build(const struct parts *p, size_t *len)
{
	struct handoff_header h = {
		.magic = HANDOFF_MAGIC, .version = HANDOFF_VERSION,
		.header_bytes = (uint16_t)(sizeof(h) + p->extra_header),
		.desc_size = p->desc_size, .desc_version = 1, .exit_tries = 1,
	};
	uint32_t off = h.header_bytes;
	unsigned char *b;

#define PLACE(field, src, n) do { h.field##_offset = (n) ? off : 0; \
		h.field##_bytes = (n); off += (n); } while (0)
	PLACE(map, p->map, p->map_bytes);
	PLACE(rsdp, p->rsdp, p->rsdp_bytes);
	PLACE(cmdline, p->cmdline, p->cmdline_bytes);
	PLACE(loader, p->loader, p->loader_bytes);
#undef PLACE
	h.total_bytes = off;
	b = calloc(1, off);
	assert_non_null(b);
	memcpy(b, &h, sizeof(h));
	if (p->map_bytes) memcpy(b + h.map_offset, p->map, p->map_bytes);
	if (p->rsdp_bytes) memcpy(b + h.rsdp_offset, p->rsdp, p->rsdp_bytes);
	if (p->cmdline_bytes) memcpy(b + h.cmdline_offset, p->cmdline, p->cmdline_bytes);
	if (p->loader_bytes) memcpy(b + h.loader_offset, p->loader, p->loader_bytes);
	*len = off;
	return b;
}

static unsigned char map2[96];
static const unsigned char rsdp_v2[36] = "RSD PTR \x11OEMID \x02\x00\x10\x00\x00\x24\x00\x00\x00"
					 "\x00\x20\x00\x00\x00\x00\x00\x00\x33\x00\x00\x00";

static struct parts good_parts(void)
{
	struct efi_memory_descriptor d[2] = {
		{ .type = EFI_CONVENTIONAL_MEMORY, .physical_start = 0x100000, .number_of_pages = 0x100 },
		{ .type = EFI_ACPI_RECLAIM_MEMORY, .physical_start = 0x200000, .number_of_pages = 2 },
	};
	memset(map2, 0, sizeof(map2));
	memcpy(map2, &d[0], sizeof(d[0]));
	memcpy(map2 + 48, &d[1], sizeof(d[1]));
	return (struct parts){ .map = map2, .map_bytes = 96, .desc_size = 48,
		.rsdp = rsdp_v2, .rsdp_bytes = 36, .cmdline = "a=1 b", .cmdline_bytes = 6,
		.loader = "memboot-efi test", .loader_bytes = 17 };
}

static enum handoff_status parse_parts(const struct parts *p)
{
	size_t len;
	unsigned char *b = build(p, &len);
	enum handoff_status st = handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi);

	free(b);
	return st;
}

static void test_minimal_valid(void **state)
{
	struct parts p = good_parts();

	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(warnings_and_errors(), 0);
	assert_string_equal(bi.cmdline, "a=1 b");
	assert_string_equal(bi.loader, "memboot-efi test");
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.nr_ranges, 2);
	assert_int_equal(bi.ranges[0].type, MEM_USABLE);
	assert_int_equal(bi.ranges[1].type, MEM_ACPI);
}

static void test_longer_header_accepted(void **state)
{
	struct parts p = good_parts();

	p.extra_header = 24;
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(warnings_and_errors(), 0);
	assert_int_equal(bi.nr_ranges, 2);
}

static void test_magics(void **state)
{
	struct parts p = good_parts();
	size_t len;
	unsigned char *b = build(&p, &len);

	assert_int_equal(handoff_parse(MB2_BOOTLOADER_MAGIC, b, len, &bi), HANDOFF_ERR_MAGIC);
	assert_int_equal(bi.path, BOOT_PATH_EFI);
	b[0] ^= 1;
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_MAGIC);
	assert_true(host_log_contains("block magic"));
	free(b);
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, NULL, 4096, &bi), HANDOFF_ERR_HEADER);
}

static void patch_u32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }
static void patch_u16(unsigned char *b, size_t off, uint16_t v) { memcpy(b + off, &v, 2); }

static void test_header_fields(void **state)
{
	struct parts p = good_parts();
	size_t len;
	unsigned char *b = build(&p, &len);

	patch_u16(b, 4, 2);                                  /* version 2 */
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_HEADER);
	assert_true(host_log_contains("version 2"));
	patch_u16(b, 4, HANDOFF_VERSION);
	patch_u16(b, 6, 40);                                 /* header smaller than v1 */
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_HEADER);
	patch_u16(b, 6, sizeof(struct handoff_header));
	patch_u32(b, 8, (uint32_t)len + 1);                  /* total beyond the buffer */
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_HEADER);
	patch_u32(b, 8, 60);                                 /* total below the header */
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_HEADER);
	patch_u32(b, 8, (uint32_t)len);
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_OK);
	/* A huge claimed total is refused even with a huge avail. */
	patch_u32(b, 8, HANDOFF_MAX_BYTES + 1);
	assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, SIZE_MAX, &bi), HANDOFF_ERR_HEADER);
	free(b);
}

/* (offset, bytes) pairs that leave the block, or overflow when added. */
static void test_ranges_outside(void **state)
{
	static const struct { size_t field; uint32_t off, bytes; } cases[] = {
		{ offsetof(struct handoff_header, map_offset), 0, 48 },          /* in the header */
		{ offsetof(struct handoff_header, map_offset), 72, 0x10000 },    /* past the end */
		{ offsetof(struct handoff_header, map_offset), 0xfffffff0u, 0x20 }, /* wraps */
		{ offsetof(struct handoff_header, rsdp_offset), 0xffffffffu, 36 },
		{ offsetof(struct handoff_header, cmdline_offset), 100, 0xffffffffu },
		{ offsetof(struct handoff_header, loader_offset), 0x7fffffffu, 0x80000002u },
	};
	struct parts p = good_parts();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		unsigned char *b = build(&p, &len);
		patch_u32(b, cases[i].field, cases[i].off);
		patch_u32(b, cases[i].field + 4, cases[i].bytes);
		host_log_reset();
		assert_int_equal(handoff_parse(HANDOFF_ENTRY_MAGIC, b, len, &bi), HANDOFF_ERR_RANGE);
		assert_true(host_log_contains("leaves the"));
		free(b);
	}
}

static void test_bad_descriptor_sizes(void **state)
{
	struct parts p = good_parts();
	static const uint32_t sizes[] = { 0, 1, 24, 39, 97, 0xffffffffu };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p.desc_size = sizes[i];
		host_log_reset();
		assert_int_equal(parse_parts(&p), HANDOFF_ERR_NO_MMAP);
		assert_true(host_log_count(LOG_ERR) >= 1);
	}
	p = good_parts();
	p.map_bytes = 0;
	assert_int_equal(parse_parts(&p), HANDOFF_ERR_NO_MMAP);
	assert_true(host_log_contains("no memory map"));
	/* A stride of exactly the structure works. */
	p = good_parts();
	p.desc_size = 40;
	p.map_bytes = 80;
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
}

static void test_strings_without_nul(void **state)
{
	struct parts p = good_parts();
	static char big[3000];

	p.cmdline = "abc";
	p.cmdline_bytes = 3;                         /* no NUL */
	p.loader = "LoaderNameWithoutNul";
	p.loader_bytes = 6;
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_string_equal(bi.cmdline, "abc");
	assert_string_equal(bi.loader, "Loader");
	assert_int_equal(host_log_count(LOG_WARN), 2);

	memset(big, 'x', sizeof(big));
	p.cmdline = big;
	p.cmdline_bytes = sizeof(big);
	p.loader = big;
	p.loader_bytes = 100;
	host_log_reset();
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	/* One word longer than the buffer: dropped whole, never cut. */
	assert_string_equal(bi.cmdline, "");
	assert_true(bi.cmdline_cut);
	assert_int_equal(strlen(bi.loader), BOOTINFO_LOADER_BYTES - 1);
	assert_true(host_log_contains("the loader's command line does not fit in 2047 bytes"));
	assert_true(host_log_contains("truncated"));   /* the loader name */

	p = good_parts();
	p.cmdline_bytes = 0;
	p.loader_bytes = 0;
	host_log_reset();
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_string_equal(bi.cmdline, "");
	assert_string_equal(bi.loader, "");
	assert_int_equal(warnings_and_errors(), 0);
}

static void test_rsdp_variants(void **state)
{
	struct parts p = good_parts();
	unsigned char v1[20], bad[36];

	memcpy(v1, rsdp_v2, 20);
	v1[15] = 0;
	p.rsdp = v1;
	p.rsdp_bytes = 20;
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(bi.rsdp_len, 20);
	assert_int_equal(bi.rsdp_revision, 0);
	assert_int_equal(warnings_and_errors(), 0);

	p.rsdp = rsdp_v2;                        /* revision 2, only 20 bytes */
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(bi.rsdp_len, 20);
	assert_true(host_log_contains("fewer than 36"));

	memcpy(bad, rsdp_v2, 36);
	bad[0] = 'X';
	p.rsdp = bad;
	p.rsdp_bytes = 36;
	host_log_reset();
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(bi.rsdp_len, 0);
	assert_true(host_log_contains("signature"));

	p.rsdp = rsdp_v2;
	p.rsdp_bytes = 12;
	host_log_reset();
	assert_int_equal(parse_parts(&p), HANDOFF_OK);
	assert_int_equal(bi.rsdp_len, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
}

static void test_status_names(void **state)
{
	for (int s = HANDOFF_OK; s <= HANDOFF_ERR_NO_MMAP; s++)
		assert_string_not_equal(handoff_status_name((enum handoff_status)s), "unknown");
	assert_string_equal(handoff_status_name((enum handoff_status)99), "unknown");
}

/* ---- kelf_check: the loader's view of the kernel ELF ------------------- */

struct elf_build {
	unsigned char buf[8192];
	size_t len;
};

/* ELF64 x86-64 ET_EXEC: text at 1 MiB (RX), data at 1 MiB + 8 KiB (RW), and a
 * PT_NOTE with the memboot entry note pointing 0x40 into the text. */
static void make_elf(struct elf_build *e)
{
	unsigned char *b = e->buf;
	const uint64_t phoff = 64;
	const uint16_t phnum = 3;
	uint64_t note_off = 0x200, text_off = 0x1000;

	memset(b, 0, sizeof(e->buf));
	memcpy(b, "\177ELF\2\1\1", 7);
	*(uint16_t *)(b + 16) = 2;            /* ET_EXEC */
	*(uint16_t *)(b + 18) = 62;           /* EM_X86_64 */
	*(uint32_t *)(b + 20) = 1;
	*(uint64_t *)(b + 24) = 0x100010;     /* e_entry */
	*(uint64_t *)(b + 32) = phoff;
	*(uint16_t *)(b + 52) = 64;
	*(uint16_t *)(b + 54) = 56;
	*(uint16_t *)(b + 56) = phnum;

	struct { uint32_t type, flags; uint64_t off, va, pa, fsz, msz, align; } ph[3] = {
		{ 1, 5, text_off, 0x100000, 0x100000, 0x800, 0x800, 0x1000 },
		{ 1, 6, text_off + 0x800, 0x102000, 0x102000, 0x100, 0x3000, 0x1000 },
		{ 4, 4, note_off, 0, 0, 20 + 36, 0, 4 },
	};
	memcpy(b + phoff, ph, sizeof(ph));

	unsigned char *n = b + note_off;
	/* An unrelated note first, then ours. */
	*(uint32_t *)(n + 0) = 4; *(uint32_t *)(n + 4) = 4; *(uint32_t *)(n + 8) = 1;
	memcpy(n + 12, "GNU", 4);
	n += 20;
	*(uint32_t *)(n + 0) = 8; *(uint32_t *)(n + 4) = 16;
	*(uint32_t *)(n + 8) = HANDOFF_NOTE_ENTRY64;
	memcpy(n + 12, "memboot", 8);
	struct handoff_note_entry64 d = { 0x100040, 0, HANDOFF_VERSION, 0 };
	memcpy(n + 20, &d, sizeof(d));
	e->len = text_off + 0x900;
}

static void set_ph(struct elf_build *e, int i, size_t field_off, uint64_t v)
{
	memcpy(e->buf + 64 + i * 56 + field_off, &v, 8);
}

static enum kelf_status check(struct elf_build *e, struct kelf_image *img)
{
	/* Exactly e->len bytes, so that ASan sees reads past the file. */
	unsigned char *copy = malloc(e->len ? e->len : 1);
	enum kelf_status st;

	memcpy(copy, e->buf, e->len);
	st = kelf_check(copy, e->len, img);
	free(copy);
	return st;
}

static void test_kelf_valid(void **state)
{
	struct elf_build e;
	struct kelf_image img;

	make_elf(&e);
	assert_int_equal(check(&e, &img), KELF_OK);
	assert_int_equal(img.nr_seg, 2);
	assert_int_equal(img.seg[0].paddr, 0x100000);
	assert_int_equal(img.seg[1].memsz, 0x3000);
	assert_int_equal(img.seg[1].filesz, 0x100);
	assert_int_equal(img.entry64, 0x100040);
	assert_int_equal(img.handoff_version, HANDOFF_VERSION);
	assert_int_equal(img.elf_entry, 0x100010);
}

static void test_kelf_header_refusals(void **state)
{
	struct elf_build e;
	struct kelf_image img;

	make_elf(&e);
	e.len = 63;
	assert_int_equal(check(&e, &img), KELF_ERR_SHORT);
	assert_int_equal(kelf_check(NULL, 100, &img), KELF_ERR_SHORT);
	make_elf(&e); e.buf[4] = 1;                      /* ELFCLASS32 */
	assert_int_equal(check(&e, &img), KELF_ERR_IDENT);
	make_elf(&e); e.buf[5] = 2;                      /* big-endian */
	assert_int_equal(check(&e, &img), KELF_ERR_IDENT);
	make_elf(&e); e.buf[1] = 'X';
	assert_int_equal(check(&e, &img), KELF_ERR_IDENT);
	make_elf(&e); e.buf[18] = 3;                     /* EM_386 */
	assert_int_equal(check(&e, &img), KELF_ERR_TYPE);
	make_elf(&e);                                    /* EM_X86_64 */
	assert_int_equal(check(&e, &img), KELF_OK);
	assert_int_equal(img.machine, 62);
	make_elf(&e); e.buf[18] = 183;                   /* EM_AARCH64: arm64's loader's */
	assert_int_equal(check(&e, &img), KELF_OK);
	assert_int_equal(img.machine, 183);
	make_elf(&e); e.buf[16] = 3;                     /* ET_DYN */
	assert_int_equal(check(&e, &img), KELF_ERR_TYPE);
	make_elf(&e); e.buf[54] = 32;                    /* e_phentsize < 56 */
	assert_int_equal(check(&e, &img), KELF_ERR_PHDRS);
	make_elf(&e); e.buf[56] = 0; e.buf[57] = 0;      /* no program headers */
	assert_int_equal(check(&e, &img), KELF_ERR_PHDRS);
	make_elf(&e); memset(e.buf + 32, 0xff, 8);       /* e_phoff far away */
	assert_int_equal(check(&e, &img), KELF_ERR_PHDRS);
	make_elf(&e); *(uint64_t *)(e.buf + 32) = e.len - 100;   /* table past the end */
	assert_int_equal(check(&e, &img), KELF_ERR_PHDRS);
}

static void test_kelf_segment_refusals(void **state)
{
	struct elf_build e;
	struct kelf_image img;

	make_elf(&e); set_ph(&e, 0, 32, 0x1000);         /* filesz > memsz */
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);
	assert_int_equal(img.bad_phdr, 0);
	make_elf(&e); set_ph(&e, 1, 8, 0xfffffffffffff000ULL);   /* offset outside */
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);
	assert_int_equal(img.bad_phdr, 1);
	make_elf(&e); set_ph(&e, 1, 32, e.len);          /* bytes past the file */
	set_ph(&e, 1, 40, e.len);
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);
	make_elf(&e); set_ph(&e, 0, 16, 0xffffffff80100000ULL);  /* vaddr != paddr */
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);
	make_elf(&e); set_ph(&e, 1, 16, 0xfffff000); set_ph(&e, 1, 24, 0xfffff000);
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);      /* ends past 4 GiB */
	assert_int_equal(img.bad_start, 0xfffff000);
	make_elf(&e); set_ph(&e, 1, 16, UINT64_MAX - 0x10); set_ph(&e, 1, 24, UINT64_MAX - 0x10);
	assert_int_equal(check(&e, &img), KELF_ERR_SEGMENT);      /* wraps */
	make_elf(&e); set_ph(&e, 1, 16, 0x100400); set_ph(&e, 1, 24, 0x100400);
	assert_int_equal(check(&e, &img), KELF_ERR_OVERLAP);
	assert_int_equal(img.bad_phdr, 1);
	make_elf(&e); set_ph(&e, 1, 16, 0x80000); set_ph(&e, 1, 24, 0x80000);
	assert_int_equal(check(&e, &img), KELF_ERR_OVERLAP);      /* out of order */
	make_elf(&e); e.buf[64] = 6; e.buf[64 + 56] = 6;          /* no PT_LOAD left */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_LOAD);
}

static void test_kelf_entry_note(void **state)
{
	struct elf_build e;
	struct kelf_image img;

	make_elf(&e); memcpy(e.buf + 0x200 + 20 + 12, "membooX", 8);   /* other owner */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_ENTRY);
	make_elf(&e); *(uint32_t *)(e.buf + 0x200 + 20 + 20) = 0x102100; /* in RW data */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_ENTRY);
	make_elf(&e); set_ph(&e, 2, 32, 20 + 30);        /* our note truncated */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_ENTRY);
	make_elf(&e); set_ph(&e, 2, 8, e.len - 10);       /* notes past the file */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_ENTRY);
	make_elf(&e); *(uint32_t *)(e.buf + 0x200) = 0xfffffff0; /* huge namesz */
	assert_int_equal(check(&e, &img), KELF_ERR_NO_ENTRY);
}

static void test_kelf_too_many_segments(void **state)
{
	struct elf_build e;
	struct kelf_image img;
	const int n = KELF_MAX_SEGMENTS + 1;

	make_elf(&e);
	*(uint16_t *)(e.buf + 56) = (uint16_t)n;
	*(uint64_t *)(e.buf + 32) = 0x1000;   /* program headers at 0x1000 */
	memset(e.buf + 0x1000, 0, n * 56);
	for (int i = 0; i < n; i++) {
		uint64_t pa = 0x100000 + (uint64_t)i * 0x1000;
		struct { uint32_t type, flags; uint64_t off, va, pa, fsz, msz, align; } ph =
			{ 1, 5, 0, pa, pa, 0, 0x1000, 0x1000 };
		memcpy(e.buf + 0x1000 + i * 56, &ph, 56);
	}
	e.len = 0x1000 + n * 56;
	assert_int_equal(check(&e, &img), KELF_ERR_TOO_MANY);
	assert_int_equal(img.bad_phdr, KELF_MAX_SEGMENTS);
}

/* The kernel this tree builds, when it is built: the loader must accept it. */
static void test_kelf_real_kernel(void **state)
{
	size_t len;
	void *elf;
	struct kelf_image img;

	if (access(KERNEL_ELF, R_OK) != 0)
		skip();
	elf = host_read_file(KERNEL_ELF, &len);
	assert_int_equal(kelf_check(elf, len, &img), KELF_OK);
	assert_true(img.nr_seg >= 2);
	assert_int_equal(img.seg[0].paddr, 0x100000);
	assert_int_equal(img.handoff_version, HANDOFF_VERSION);
	assert_true(img.entry64 > img.seg[0].paddr);
	assert_true(img.seg[0].flags & KELF_PF_X);
	free(elf);
}

static void test_kelf_status_names(void **state)
{
	for (int s = KELF_OK; s <= KELF_ERR_NO_ENTRY; s++)
		assert_string_not_equal(kelf_status_name((enum kelf_status)s), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fixture_ovmf_q35_512m, reset),
		cmocka_unit_test_setup(test_fixture_ovmf_pc_512m, reset),
		cmocka_unit_test_setup(test_fixture_ovmf_q35_2x2g, reset),
		cmocka_unit_test_setup(test_agrees_with_grub_q35, reset),
		cmocka_unit_test_setup(test_agrees_with_grub_pc, reset),
		cmocka_unit_test_setup(test_fixture_truncations, reset),
		cmocka_unit_test_setup(test_minimal_valid, reset),
		cmocka_unit_test_setup(test_longer_header_accepted, reset),
		cmocka_unit_test_setup(test_magics, reset),
		cmocka_unit_test_setup(test_header_fields, reset),
		cmocka_unit_test_setup(test_ranges_outside, reset),
		cmocka_unit_test_setup(test_bad_descriptor_sizes, reset),
		cmocka_unit_test_setup(test_strings_without_nul, reset),
		cmocka_unit_test_setup(test_rsdp_variants, reset),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_kelf_valid),
		cmocka_unit_test(test_kelf_header_refusals),
		cmocka_unit_test(test_kelf_segment_refusals),
		cmocka_unit_test(test_kelf_entry_note),
		cmocka_unit_test(test_kelf_too_many_segments),
		cmocka_unit_test(test_kelf_real_kernel),
		cmocka_unit_test(test_kelf_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

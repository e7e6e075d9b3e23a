/*
 * handoff.c: the UEFI loader's hand-off block into struct bootinfo (pure C,
 * host-tested, fuzzed).
 *
 * Every (offset, bytes) pair is checked against total_bytes before it is
 * read, with arithmetic that cannot overflow; strings need not be
 * NUL-terminated (they are cut at their range); the memory map is read by
 * efi_map_add(), which steps by the firmware's descriptor size.
 */
#include "boot/handoff.h"

#include <string.h>

#include "boot/efi_map.h"
#include "kernel/services/log.h"

/* Smallest header a version-1 reader understands. */
#define HEADER_V1_BYTES ((uint32_t)sizeof(struct handoff_header))

/* Does [off, off + bytes) lie inside the payload [header, total)? */
static bool range_ok(const struct handoff_header *h, uint32_t off, uint32_t bytes,
		     const char *what)
{
	if (bytes == 0)
		return true;
	if (off < h->header_bytes || off > h->total_bytes ||
	    bytes > h->total_bytes - off) {
		pr_err("handoff: %s at offset %u (%u bytes) leaves the %u-byte block",
		       what, off, bytes, h->total_bytes);
		return false;
	}
	return true;
}

static void copy_string(char *dst, size_t dst_bytes, const unsigned char *src,
			uint32_t src_bytes, const char *what)
{
	size_t n = strnlen((const char *)src, src_bytes);

	if (n == src_bytes && src_bytes)
		pr_warn("handoff: %s is not NUL-terminated within its %u bytes; using them",
			what, src_bytes);
	if (n >= dst_bytes) {
		pr_warn("handoff: %s is %zu bytes; truncated to %zu", what, n, dst_bytes - 1);
		n = dst_bytes - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void read_rsdp(struct bootinfo *bi, const unsigned char *p, uint32_t bytes)
{
	uint32_t want;

	if (bytes < 20) {
		pr_warn("handoff: RSDP of %u bytes is shorter than the 20 of ACPI 1.0; ignored",
			bytes);
		return;
	}
	if (memcmp(p, "RSD PTR ", 8) != 0) {
		pr_warn("handoff: RSDP lacks the 'RSD PTR ' signature; ignored");
		return;
	}
	want = p[15] >= 2 ? 36 : 20;
	if (bytes < want) {
		pr_warn("handoff: RSDP revision %u holds %u bytes, fewer than 36; using the ACPI 1.0 part",
			p[15], bytes);
		want = 20;
	}
	memcpy(bi->rsdp, p, want);
	bi->rsdp_len = want;
	bi->rsdp_revision = want == 36 ? p[15] : 0;
}

enum handoff_status handoff_parse(uint32_t entry_magic, const void *block,
				  size_t avail_bytes, struct bootinfo *bi)
{
	const unsigned char *base = block;
	struct handoff_header h;

	bootinfo_init(bi, BOOT_PATH_EFI);
	if (entry_magic != HANDOFF_ENTRY_MAGIC) {
		pr_err("handoff: entry magic is 0x%x, not 0x%x: not started by the memboot UEFI loader",
		       entry_magic, HANDOFF_ENTRY_MAGIC);
		return HANDOFF_ERR_MAGIC;
	}
	if (block == NULL || avail_bytes < HEADER_V1_BYTES) {
		pr_err("handoff: no hand-off block (%zu bytes available, %u needed)",
		       avail_bytes, HEADER_V1_BYTES);
		return HANDOFF_ERR_HEADER;
	}
	memcpy(&h, base, sizeof(h));
	if (h.magic != HANDOFF_MAGIC) {
		pr_err("handoff: block magic is 0x%08x, not 0x%08x", h.magic, HANDOFF_MAGIC);
		return HANDOFF_ERR_MAGIC;
	}
	if (h.version != HANDOFF_VERSION) {
		pr_err("handoff: block version %u; this kernel reads version %u",
		       h.version, HANDOFF_VERSION);
		return HANDOFF_ERR_HEADER;
	}
	if (h.header_bytes < HEADER_V1_BYTES || h.total_bytes < h.header_bytes ||
	    h.total_bytes > avail_bytes || h.total_bytes > HANDOFF_MAX_BYTES) {
		pr_err("handoff: header_bytes %u / total_bytes %u implausible (%u to %zu bytes allowed)",
		       h.header_bytes, h.total_bytes, HEADER_V1_BYTES,
		       avail_bytes < HANDOFF_MAX_BYTES ? avail_bytes : (size_t)HANDOFF_MAX_BYTES);
		return HANDOFF_ERR_HEADER;
	}
	if (!range_ok(&h, h.map_offset, h.map_bytes, "memory map") ||
	    !range_ok(&h, h.rsdp_offset, h.rsdp_bytes, "RSDP") ||
	    !range_ok(&h, h.cmdline_offset, h.cmdline_bytes, "command line") ||
	    !range_ok(&h, h.loader_offset, h.loader_bytes, "loader name"))
		return HANDOFF_ERR_RANGE;

	bi->loader_info_phys = (uint64_t)(uintptr_t)block;
	bi->loader_info_bytes = h.total_bytes;
	bi->efi_system_table = h.system_table;
	if (h.loader_bytes)
		copy_string(bi->loader, sizeof(bi->loader), base + h.loader_offset,
			    h.loader_bytes, "loader name");
	if (h.cmdline_bytes) {
		/* Whole words only if it is too long (bootinfo_put_cmdline). */
		const char *line = (const char *)base + h.cmdline_offset;
		size_t n = strnlen(line, h.cmdline_bytes);

		if (n == h.cmdline_bytes)
			pr_warn("handoff: command line is not NUL-terminated within its %u bytes; using them",
				h.cmdline_bytes);
		bootinfo_put_cmdline(bi, 0, line, n, '\0', "the loader's command line");
	}
	if (h.rsdp_bytes)
		read_rsdp(bi, base + h.rsdp_offset, h.rsdp_bytes);
	if (h.header_bytes >= HANDOFF_FB_OFFSET + sizeof(struct handoff_fb)) {
		struct handoff_fb fb;
		memcpy(&fb, base + HANDOFF_FB_OFFSET, sizeof(fb));
		bi->fb = (struct fb_info){
			.phys = fb.phys, .width_px = fb.width_px, .height_px = fb.height_px,
			.pitch_bytes = fb.pitch_bytes, .bpp = fb.bpp,
			.red_pos = fb.red_pos, .red_bits = fb.red_bits,
			.green_pos = fb.green_pos, .green_bits = fb.green_bits,
			.blue_pos = fb.blue_pos, .blue_bits = fb.blue_bits };
	}

	if (h.map_bytes == 0) {
		pr_err("handoff: the block carries no memory map");
		return HANDOFF_ERR_NO_MMAP;
	}
	if (h.desc_version != 1)
		pr_warn("handoff: EFI descriptor version %u (expected 1); reading it as version 1",
			h.desc_version);
	if (efi_map_add(bi, base + h.map_offset, h.map_bytes, h.desc_size) <= 0) {
		pr_err("handoff: memory map of %u bytes with descriptor size %u holds no descriptor",
		       h.map_bytes, h.desc_size);
		return HANDOFF_ERR_NO_MMAP;
	}
	bi->map_source = "efi-mmap";
	bootinfo_normalize(bi);
	return HANDOFF_OK;
}

const char *handoff_status_name(enum handoff_status status)
{
	switch (status) {
	case HANDOFF_OK:          return "ok";
	case HANDOFF_ERR_MAGIC:   return "bad magic";
	case HANDOFF_ERR_HEADER:  return "bad header";
	case HANDOFF_ERR_RANGE:   return "range outside the block";
	case HANDOFF_ERR_NO_MMAP: return "no memory map";
	default:                  return "unknown";
	}
}

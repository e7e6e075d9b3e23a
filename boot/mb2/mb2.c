/*
 * mb2.c: Multiboot2 information parser (pure C, host-testable, fuzzed).
 *
 * Rules obeyed (Multiboot2 spec 1.6, section 3.6):
 *  - the information starts with total_size and a reserved word, then tags,
 *    each 8-byte aligned, each with a size that includes its 8-byte header;
 *  - the list ends with a tag of type 0 and size 8;
 *  - tag 6 entries are entry_size bytes apart (at least 24);
 *  - tag 17 holds the UEFI memory map with the firmware's descriptor size.
 * GRUB under OVMF passes both 6 and 17; 17 is the firmware's own map and is
 * preferred. GRUB's tag 6 there contains a type 20 (EFI runtime code) that is
 * not a Multiboot2 type at all: unknown types are reserved.
 */
#include "boot/mb2/mb2.h"

#include <string.h>

#include "boot/efi_map.h"
#include "kernel/services/log.h"

static enum mem_type mb2_mem_type(uint32_t type)
{
	switch (type) {
	case MB2_MEM_AVAILABLE:        return MEM_USABLE;
	case MB2_MEM_ACPI_RECLAIMABLE: return MEM_ACPI;
	case MB2_MEM_NVS:              return MEM_NVS;
	case MB2_MEM_BADRAM:           return MEM_UNUSABLE;
	default:                       return MEM_RESERVED;
	}
}

/*
 * Tag 8, Multiboot2 1.6 section 3.6.12: address (u64), pitch, width, height
 * (u32 each), bpp and type (u8), two reserved bytes, then for type 1 (direct
 * RGB) the position and size of the red, green and blue fields. Type 2 is
 * EGA text, its width and height in characters; type 0 (a palette) is not
 * drawn on and is left out.
 */
static void read_framebuffer(struct bootinfo *bi, const unsigned char *tag, uint32_t size)
{
	struct fb_info fb = { 0 };
	uint8_t type;

	if (size < 32) {
		pr_warn("mb2: framebuffer tag of %u bytes is shorter than its 32-byte header; ignored",
			size);
		return;
	}
	memcpy(&fb.phys, tag + 8, 8);
	memcpy(&fb.pitch_bytes, tag + 16, 4);
	memcpy(&fb.width_px, tag + 20, 4);
	memcpy(&fb.height_px, tag + 24, 4);
	fb.bpp = tag[28];
	type = tag[29];
	if (type == 1) {
		if (size < 38) {
			pr_warn("mb2: RGB framebuffer tag of %u bytes has no colour fields; ignored", size);
			return;
		}
		fb.red_pos = tag[32];
		fb.red_bits = tag[33];
		fb.green_pos = tag[34];
		fb.green_bits = tag[35];
		fb.blue_pos = tag[36];
		fb.blue_bits = tag[37];
	} else if (type == 2) {
		fb.text = true;
	} else {
		pr_warn("mb2: framebuffer type %u (indexed colour) is not drawn on; ignored", type);
		return;
	}
	bi->fb = fb;
}

/* Copy a string tag's payload, which should be NUL-terminated inside it. */
static void copy_string(char *dst, size_t dst_bytes, const unsigned char *src,
			size_t src_bytes, const char *what)
{
	size_t n = strnlen((const char *)src, src_bytes);

	if (n == src_bytes)
		pr_warn("mb2: %s tag is not NUL-terminated; using its %zu bytes", what, n);
	if (n >= dst_bytes) {
		pr_warn("mb2: %s is %zu bytes; truncated to %zu", what, n, dst_bytes - 1);
		n = dst_bytes - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool read_mmap(struct bootinfo *bi, const unsigned char *tag, uint32_t size)
{
	struct mb2_tag_mmap h;
	size_t count;

	if (size < sizeof(h)) {
		pr_err("mb2: memory map tag of %u bytes is shorter than its header", size);
		return false;
	}
	memcpy(&h, tag, sizeof(h));
	if (h.entry_size < sizeof(struct mb2_mmap_entry)) {
		pr_err("mb2: memory map entry_size %u is below the 24 bytes of an entry",
		       h.entry_size);
		return false;
	}
	count = (size - sizeof(h)) / h.entry_size;
	if (count == 0) {
		pr_err("mb2: memory map tag has no entries");
		return false;
	}
	if ((size - sizeof(h)) % h.entry_size)
		pr_warn("mb2: memory map tag size %u is not header + n * %u; trailing bytes ignored",
			size, h.entry_size);
	for (size_t i = 0; i < count; i++) {
		struct mb2_mmap_entry e;
		memcpy(&e, tag + sizeof(h) + i * h.entry_size, sizeof(e));
		bootinfo_add_raw(bi, e.base_addr, e.length, mb2_mem_type(e.type));
	}
	bi->map_source = "mb2-mmap";
	return true;
}

static bool read_efi_mmap(struct bootinfo *bi, const unsigned char *tag, uint32_t size)
{
	struct mb2_tag_efi_mmap h;

	if (size < sizeof(h)) {
		pr_err("mb2: EFI memory map tag of %u bytes is shorter than its header", size);
		return false;
	}
	memcpy(&h, tag, sizeof(h));
	long count = efi_map_add(bi, tag + sizeof(h), size - sizeof(h), h.descr_size);
	if (count < 0)
		return false;
	if (count == 0) {
		pr_err("mb2: EFI memory map tag has no descriptors");
		return false;
	}
	bi->map_source = "mb2-efi-mmap";
	return true;
}

static void read_rsdp(struct bootinfo *bi, const unsigned char *payload,
		      size_t bytes, uint32_t tag_type)
{
	size_t want = tag_type == MB2_TAG_ACPI_NEW ? 36 : 20;

	if (bytes < want) {
		pr_warn("mb2: RSDP tag %u holds %zu bytes, fewer than the %zu of its RSDP; ignored",
			tag_type, bytes, want);
		return;
	}
	if (memcmp(payload, "RSD PTR ", 8) != 0) {
		pr_warn("mb2: RSDP tag %u lacks the 'RSD PTR ' signature; ignored", tag_type);
		return;
	}
	memcpy(bi->rsdp, payload, want);
	bi->rsdp_len = (uint32_t)want;
	bi->rsdp_revision = payload[15];
}

enum mb2_status mb2_parse(uint32_t magic, const void *info, size_t avail_bytes,
			  struct bootinfo *bi)
{
	const unsigned char *base = info;
	struct mb2_info_header hdr;
	size_t off;
	bool efi = false, end_seen = false;
	/* Offsets of the tags we use; the first of each kind wins. */
	size_t mmap_off = 0, efi_mmap_off = 0, rsdp_old_off = 0, rsdp_new_off = 0;
	uint32_t mmap_size = 0, efi_mmap_size = 0, rsdp_old_size = 0, rsdp_new_size = 0;

	bootinfo_init(bi, BOOT_PATH_MB2_BIOS);
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_err("mb2: boot magic is 0x%x, not 0x%x: not started by a Multiboot2 loader",
		       magic, MB2_BOOTLOADER_MAGIC);
		return MB2_ERR_MAGIC;
	}
	if (info == NULL || avail_bytes < sizeof(hdr)) {
		pr_err("mb2: no boot information (%zu bytes available)", avail_bytes);
		return MB2_ERR_HEADER;
	}
	memcpy(&hdr, base, sizeof(hdr));
	if (hdr.total_size < sizeof(hdr) + sizeof(struct mb2_tag) ||
	    hdr.total_size > avail_bytes || hdr.total_size > MB2_INFO_MAX_BYTES) {
		pr_err("mb2: boot information total_size %u is implausible (%zu to %zu bytes allowed)",
		       hdr.total_size, sizeof(hdr) + sizeof(struct mb2_tag),
		       avail_bytes < MB2_INFO_MAX_BYTES ? avail_bytes : (size_t)MB2_INFO_MAX_BYTES);
		return MB2_ERR_HEADER;
	}

	for (off = sizeof(hdr); off < hdr.total_size; off = (off + 7) & ~(size_t)7) {
		struct mb2_tag tag;

		if (hdr.total_size - off < sizeof(tag)) {
			pr_err("mb2: truncated tag header at offset %zu (total_size %u)",
			       off, hdr.total_size);
			return MB2_ERR_TAG;
		}
		memcpy(&tag, base + off, sizeof(tag));
		if (tag.size < sizeof(tag)) {
			pr_err("mb2: tag type %u at offset %zu has size %u, below its 8-byte header",
			       tag.type, off, tag.size);
			return MB2_ERR_TAG;
		}
		if (tag.size > hdr.total_size - off) {
			pr_err("mb2: tag type %u at offset %zu has size %u, running past total_size %u",
			       tag.type, off, tag.size, hdr.total_size);
			return MB2_ERR_TAG;
		}
		if (tag.type == MB2_TAG_END) {
			end_seen = true;
			break;
		}

		const unsigned char *payload = base + off + sizeof(tag);
		size_t payload_bytes = tag.size - sizeof(tag);

		switch (tag.type) {
		case MB2_TAG_CMDLINE: {
			/* Whole words only if it is too long (bootinfo_put_cmdline). */
			size_t n = strnlen((const char *)payload, payload_bytes);

			if (n == payload_bytes)
				pr_warn("mb2: command line tag is not NUL-terminated; using its %zu bytes",
					n);
			bootinfo_put_cmdline(bi, 0, (const char *)payload, n, '\0',
					     "the Multiboot2 command line");
			break;
		}
		case MB2_TAG_LOADER_NAME:
			copy_string(bi->loader, sizeof(bi->loader), payload,
				    payload_bytes, "loader name");
			break;
		case MB2_TAG_MMAP:
			if (!mmap_off) { mmap_off = off; mmap_size = tag.size; }
			else pr_warn("mb2: second memory map tag at offset %zu ignored", off);
			break;
		case MB2_TAG_EFI_MMAP:
			efi = true;
			if (!efi_mmap_off) { efi_mmap_off = off; efi_mmap_size = tag.size; }
			else pr_warn("mb2: second EFI memory map tag at offset %zu ignored", off);
			break;
		case MB2_TAG_FRAMEBUFFER:
			if (!bi->fb.phys)
				read_framebuffer(bi, base + off, tag.size);
			break;
		case MB2_TAG_ACPI_OLD:
			if (!rsdp_old_off) { rsdp_old_off = off; rsdp_old_size = tag.size; }
			break;
		case MB2_TAG_ACPI_NEW:
			if (!rsdp_new_off) { rsdp_new_off = off; rsdp_new_size = tag.size; }
			break;
		case MB2_TAG_EFI32:
			efi = true;
			break;
		case MB2_TAG_EFI64:
			/* Multiboot2 3.6.13: the 64-bit EFI system table pointer. */
			efi = true;
			if (tag.size >= sizeof(tag) + 8)
				memcpy(&bi->efi_system_table, base + off + sizeof(tag), 8);
			break;
		case MB2_TAG_EFI_BS:
			pr_warn("mb2: loader left EFI boot services running; memory map may be stale");
			break;
		default:
			break;
		}
		off += tag.size;
	}
	if (!end_seen) {
		pr_err("mb2: no end tag within total_size %u: boot information truncated",
		       hdr.total_size);
		return MB2_ERR_TAG;
	}

	bi->path = efi ? BOOT_PATH_MB2_UEFI : BOOT_PATH_MB2_BIOS;
	bi->loader_info_phys = (uint64_t)(uintptr_t)info;
	bi->loader_info_bytes = hdr.total_size;

	/* Prefer the firmware's own map (tag 17); fall back to tag 6. */
	bool have_map = false;
	if (efi_mmap_off) {
		have_map = read_efi_mmap(bi, base + efi_mmap_off, efi_mmap_size);
		if (!have_map && mmap_off) {
			pr_warn("mb2: EFI memory map unusable; falling back to the Multiboot2 memory map");
			memset(&bi->raw, 0, sizeof(bi->raw));
		}
	}
	if (!have_map && mmap_off)
		have_map = read_mmap(bi, base + mmap_off, mmap_size);
	if (!have_map) {
		pr_err("mb2: no usable memory map tag (6 or 17) in the boot information");
		return MB2_ERR_NO_MMAP;
	}

	/* Prefer the ACPI 2.0+ RSDP (XSDT); fall back to the 1.0 one (RSDT). */
	if (rsdp_new_off)
		read_rsdp(bi, base + rsdp_new_off + 8, rsdp_new_size - 8, MB2_TAG_ACPI_NEW);
	if (bi->rsdp_len == 0 && rsdp_old_off)
		read_rsdp(bi, base + rsdp_old_off + 8, rsdp_old_size - 8, MB2_TAG_ACPI_OLD);

	bootinfo_normalize(bi);
	return MB2_OK;
}

const char *mb2_status_name(enum mb2_status status)
{
	switch (status) {
	case MB2_OK:          return "ok";
	case MB2_ERR_MAGIC:   return "bad magic";
	case MB2_ERR_HEADER:  return "bad header";
	case MB2_ERR_TAG:     return "bad tag";
	case MB2_ERR_NO_MMAP: return "no memory map";
	default:              return "unknown";
	}
}

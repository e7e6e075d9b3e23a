/*
 * pvh.c: hvm_start_info parser (pure C, host-tested, fuzzed).
 *
 * Every physical address is read through the caller's map function, and
 * every length derived from firmware is checked for wrap-around before it is
 * asked for. A field that cannot be read costs only that field, except the
 * memory map, without which there is nothing to boot with.
 */
#include "boot/pvh/pvh.h"

#include <string.h>

#include "kernel/services/log.h"

static enum mem_type pvh_mem_type(uint32_t type)
{
	switch (type) {
	case PVH_MEMMAP_RAM:      return MEM_USABLE;
	case PVH_MEMMAP_ACPI:     return MEM_ACPI;
	case PVH_MEMMAP_NVS:      return MEM_NVS;
	case PVH_MEMMAP_UNUSABLE: return MEM_UNUSABLE;
	default:                  return MEM_RESERVED;   /* reserved, disabled, pmem, unknown */
	}
}

/* Whether the four bytes of @v are printable ASCII: start info overwritten
 * by a command line, not a stray pointer. */
static bool looks_like_text(uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		if ((v & 0xff) < 0x20 || (v & 0xff) > 0x7e)
			return false;
	return true;
}

static const void *map_checked(pvh_map_fn map, void *ctx, uint64_t phys, size_t len)
{
	if (phys == 0 || len == 0 || phys > UINT64_MAX - len)
		return NULL;
	return map(ctx, phys, len);
}

/* The command line, read byte by byte: its length is known only by its NUL,
 * and the bytes after it need not be mapped. */
static const char *cmdline_byte(uint64_t phys, size_t n, pvh_map_fn map, void *ctx)
{
	if (phys > UINT64_MAX - n)
		return NULL;
	return map_checked(map, ctx, phys + n, 1);
}

static void read_cmdline(struct bootinfo *bi, uint64_t phys, pvh_map_fn map, void *ctx)
{
	size_t n;

	for (n = 0; n < sizeof(bi->cmdline) - 1; n++) {
		const char *c = cmdline_byte(phys, n, map, ctx);

		if (c == NULL) {
			pr_warn("pvh: command line at 0x%llx unreadable after %zu bytes, before its NUL; using them",
				(unsigned long long)phys, n);
			break;
		}
		if (*c == '\0')
			break;
		bi->cmdline[n] = *c;
	}
	bi->cmdline[n] = '\0';
	if (n == sizeof(bi->cmdline) - 1) {
		const char *c = cmdline_byte(phys, n, map, ctx);
		/* Longer than the buffer: drop the word the buffer ends in
		 * (unless the next byte shows it ended there). */
		if (c == NULL || *c != '\0')
			bootinfo_put_cmdline(bi, 0, bi->cmdline, n, c ? (unsigned char)*c : -1,
					     "the PVH command line");
	}
}

static void read_rsdp(struct bootinfo *bi, uint64_t phys, pvh_map_fn map, void *ctx)
{
	const uint8_t *p = map_checked(map, ctx, phys, 20);

	if (p == NULL) {
		pr_warn("pvh: RSDP at 0x%llx cannot be mapped; ignored", (unsigned long long)phys);
		return;
	}
	if (memcmp(p, "RSD PTR ", 8) != 0) {
		pr_warn("pvh: no 'RSD PTR ' signature at rsdp_paddr 0x%llx; ignored",
			(unsigned long long)phys);
		return;
	}
	if (p[15] >= 2) {
		const uint8_t *p36 = map_checked(map, ctx, phys, 36);
		if (p36) {
			memcpy(bi->rsdp, p36, 36);
			bi->rsdp_len = 36;
			bi->rsdp_revision = p36[15];
			return;
		}
		pr_warn("pvh: RSDP revision %u at 0x%llx: its 36 bytes cannot be mapped; using the ACPI 1.0 part",
			p[15], (unsigned long long)phys);
	}
	memcpy(bi->rsdp, p, 20);
	bi->rsdp_len = 20;
	bi->rsdp_revision = 0;
}

static bool read_memmap(struct bootinfo *bi, uint64_t phys, uint32_t entries,
			pvh_map_fn map, void *ctx)
{
	const unsigned char *table;
	size_t bytes;

	if (entries == 0) {
		pr_err("pvh: hvm_start_info lists no memory map entries (memmap_entries 0)");
		return false;
	}
	if (entries > PVH_MAX_MEMMAP_ENTRIES) {
		pr_warn("pvh: memmap_entries %u is implausible; reading the first %u",
			entries, PVH_MAX_MEMMAP_ENTRIES);
		entries = PVH_MAX_MEMMAP_ENTRIES;
	}
	bytes = (size_t)entries * sizeof(struct pvh_memmap_entry);
	table = map_checked(map, ctx, phys, bytes);
	if (table == NULL) {
		pr_err("pvh: memory map at memmap_paddr 0x%llx (%u entries, %zu bytes) cannot be mapped",
		       (unsigned long long)phys, entries, bytes);
		return false;
	}
	for (uint32_t i = 0; i < entries; i++) {
		struct pvh_memmap_entry e;

		memcpy(&e, table + (size_t)i * sizeof(e), sizeof(e));
		bootinfo_add_raw(bi, e.addr, e.size, pvh_mem_type(e.type));
	}
	bi->map_source = "pvh-memmap";
	return true;
}

enum pvh_status pvh_parse(uint32_t entry_magic, uint64_t start_info,
			  pvh_map_fn map, void *ctx, struct bootinfo *bi)
{
	const void *p;
	struct pvh_start_info si;
	uint32_t bytes;

	bootinfo_init(bi, BOOT_PATH_PVH);
	memcpy(bi->loader, "PVH", 4);
	if (entry_magic != PVH_BOOT_MAGIC) {
		pr_err("pvh: entry magic is 0x%x, not 0x%x", entry_magic, PVH_BOOT_MAGIC);
		return PVH_ERR_MAGIC;
	}
	p = map_checked(map, ctx, start_info, PVH_START_INFO_V0_BYTES);
	if (p == NULL) {
		pr_err("pvh: hvm_start_info at 0x%llx cannot be mapped",
		       (unsigned long long)start_info);
		return PVH_ERR_MAP;
	}
	memset(&si, 0, sizeof(si));
	memcpy(&si, p, PVH_START_INFO_V0_BYTES);
	if (si.magic != PVH_START_MAGIC) {
		pr_err("pvh: hvm_start_info at 0x%llx has magic 0x%08x, not 0x%08x%s",
		       (unsigned long long)start_info, si.magic, PVH_START_MAGIC,
		       looks_like_text(si.magic) ?
		       " (its bytes are text: QEMU's PVH option ROM writes a command line of "
		       "more than 4096 bytes over its start info; pass a shorter -append)" : "");
		return PVH_ERR_MAGIC;
	}
	bytes = PVH_START_INFO_V0_BYTES;
	if (si.version >= 1) {
		p = map_checked(map, ctx, start_info, PVH_START_INFO_V1_BYTES);
		if (p == NULL) {
			pr_err("pvh: hvm_start_info version %u at 0x%llx: its %u bytes cannot be mapped",
			       si.version, (unsigned long long)start_info,
			       PVH_START_INFO_V1_BYTES);
			return PVH_ERR_MAP;
		}
		memcpy(&si, p, PVH_START_INFO_V1_BYTES);
		bytes = PVH_START_INFO_V1_BYTES;
		if (si.version > 1)
			pr_info("pvh: hvm_start_info version %u; reading its version 1 fields",
				si.version);
	}
	bi->loader_info_phys = start_info;
	bi->loader_info_bytes = bytes;

	if (si.cmdline_paddr)
		read_cmdline(bi, si.cmdline_paddr, map, ctx);
	if (si.rsdp_paddr)
		read_rsdp(bi, si.rsdp_paddr, map, ctx);

	if (si.version == 0) {
		pr_err("pvh: hvm_start_info version 0 has no memory map (memmap_paddr came in version 1); "
		       "cannot boot without one");
		return PVH_ERR_NO_MMAP;
	}
	if (!read_memmap(bi, si.memmap_paddr, si.memmap_entries, map, ctx))
		return PVH_ERR_NO_MMAP;
	bootinfo_normalize(bi);
	return PVH_OK;
}

const char *pvh_status_name(enum pvh_status status)
{
	switch (status) {
	case PVH_OK:          return "ok";
	case PVH_ERR_MAGIC:   return "bad magic";
	case PVH_ERR_MAP:     return "hvm_start_info unreadable";
	case PVH_ERR_NO_MMAP: return "no memory map";
	default:              return "unknown";
	}
}

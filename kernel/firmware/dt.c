/*
 * dt.c: the flattened device tree's header, its structure block walked one
 * token at a time, and property values (Devicetree Specification v0.4,
 * chapter 5). The machine's facts are read in dt_machine.c.
 */
#include "kernel/firmware/dt.h"

#include <string.h>

#include "kernel/firmware/bytes.h"
#include "kernel/services/log.h"

/* Header fields (5.2): big-endian 32-bit words. */
enum {
	HDR_MAGIC = 0,
	HDR_TOTALSIZE = 4,
	HDR_OFF_STRUCT = 8,
	HDR_OFF_STRINGS = 12,
	HDR_OFF_RSVMAP = 16,
	HDR_VERSION = 20,
	HDR_LAST_COMP = 24,
	HDR_BOOT_CPUID = 28,
	HDR_SIZE_STRINGS = 32,
	HDR_SIZE_STRUCT = 36,
};

const char *dt_status_name(int status)
{
	switch (status) {
	case DT_OK: return "ok";
	case DT_ERR_SHORT: return "truncated";
	case DT_ERR_MAGIC: return "not a device tree";
	case DT_ERR_VERSION: return "unsupported version";
	case DT_ERR_LAYOUT: return "blocks outside the blob";
	}
	return "?";
}

/* Whether [off, off + bytes) lies inside [DT_HEADER_BYTES, total) without
 * wrapping: no block may overlap the header (5.2) or leave the blob. */
static bool block_fits(uint32_t off, uint32_t bytes, uint32_t total)
{
	return off >= DT_HEADER_BYTES && off <= total && bytes <= total - off;
}

int dt_open(struct dt_blob *dt, const void *blob, size_t len)
{
	const uint8_t *b = blob;
	uint32_t total, off_struct, off_strings, off_rsv, size_struct, size_strings;
	const char *bad = NULL;

	memset(dt, 0, sizeof(*dt));
	if (!blob || len < DT_HEADER_BYTES) {
		pr_warn("DT: %zu bytes, fewer than a header's %u: no device tree", len,
			DT_HEADER_BYTES);
		return DT_ERR_SHORT;
	}
	if (fw_be32(b + HDR_MAGIC) != DT_MAGIC) {
		pr_warn("DT: magic 0x%08x, not 0x%08x: not a device tree",
			fw_be32(b + HDR_MAGIC), DT_MAGIC);
		return DT_ERR_MAGIC;
	}
	total = fw_be32(b + HDR_TOTALSIZE);
	if (total < DT_HEADER_BYTES || total > len) {
		pr_warn("DT: totalsize %u but %zu bytes given: truncated blob", total, len);
		return DT_ERR_SHORT;
	}
	dt->version = fw_be32(b + HDR_VERSION);
	if (dt->version < DT_MIN_VERSION || fw_be32(b + HDR_LAST_COMP) > 17) {
		pr_warn("DT: version %u (last compatible %u): only versions 16 and 17 are read",
			dt->version, fw_be32(b + HDR_LAST_COMP));
		return DT_ERR_VERSION;
	}
	off_struct = fw_be32(b + HDR_OFF_STRUCT);
	off_strings = fw_be32(b + HDR_OFF_STRINGS);
	off_rsv = fw_be32(b + HDR_OFF_RSVMAP);
	size_strings = fw_be32(b + HDR_SIZE_STRINGS);
	/* Version 16 has no size_dt_struct: the block runs to the blob's end. */
	size_struct = dt->version >= 17 ? fw_be32(b + HDR_SIZE_STRUCT)
					: (off_struct <= total ? total - off_struct : 0);
	/* The structure block is 4-byte aligned and the reservation block
	 * 8-byte aligned (5.3, 5.4). */
	if (!block_fits(off_struct, size_struct, total) || off_struct % 4 || size_struct % 4)
		bad = "structure block";
	else if (!block_fits(off_strings, size_strings, total))
		bad = "strings block";
	else if (!block_fits(off_rsv, 0, total) || off_rsv % 8)
		bad = "reservation block";
	if (bad) {
		pr_warn("DT: the %s lies outside the blob or is misaligned: structure 0x%x+0x%x, "
			"strings 0x%x+0x%x, reservations at 0x%x, totalsize 0x%x", bad,
			off_struct, size_struct, off_strings, size_strings, off_rsv, total);
		return DT_ERR_LAYOUT;
	}
	dt->base = b;
	dt->total_bytes = total;
	dt->boot_cpuid = fw_be32(b + HDR_BOOT_CPUID);
	dt->structs = b + off_struct;
	dt->struct_bytes = size_struct;
	dt->strings = (const char *)b + off_strings;
	dt->strings_bytes = size_strings;
	dt->rsvmap = b + off_rsv;
	dt->rsvmap_bytes = total - off_rsv;
	return DT_OK;
}

bool dt_rsv_entry(const struct dt_blob *dt, uint32_t idx, uint64_t *start, uint64_t *bytes)
{
	if (!dt->rsvmap || idx >= dt->rsvmap_bytes / 16)
		return false;
	*start = fw_be64(dt->rsvmap + (size_t)idx * 16);
	*bytes = fw_be64(dt->rsvmap + (size_t)idx * 16 + 8);
	return *start || *bytes;
}

void dt_iter_init(struct dt_iter *it, const struct dt_blob *dt)
{
	memset(it, 0, sizeof(*it));
	it->dt = dt;
	it->done = !dt->structs;
}

static bool iter_fail(struct dt_iter *it, const char *what, uint32_t off)
{
	pr_warn("DT: structure block offset 0x%x: %s; the walk ends there", off, what);
	it->error = true;
	it->done = true;
	return false;
}

/* The length of the NUL-terminated string at @s within @room bytes, or
 * @room when none ends there. */
static uint32_t bounded_strlen(const char *s, uint32_t room)
{
	const char *nul = memchr(s, 0, room);

	return nul ? (uint32_t)(nul - s) : room;
}

bool dt_iter_next(struct dt_iter *it, struct dt_token *tok)
{
	const struct dt_blob *dt = it->dt;
	uint32_t size = dt ? dt->struct_bytes : 0;

	while (!it->done) {
		uint32_t off = it->off;
		uint32_t token;

		if (size - off < 4)
			return iter_fail(it, "the block ends without FDT_END", off);
		token = fw_be32(dt->structs + off);
		off += 4;
		switch (token) {
		case DT_TOKEN_NOP:
			it->off = off;
			continue;
		case DT_TOKEN_BEGIN_NODE: {
			const char *name = (const char *)dt->structs + off;
			uint32_t n = bounded_strlen(name, size - off);

			if (n == size - off)
				return iter_fail(it, "a node name runs past the block", it->off);
			if (it->depth == 0 && it->root_seen)
				return iter_fail(it, "a second root node", it->off);
			it->root_seen = true;
			tok->kind = DT_NODE_BEGIN;
			tok->name = name;
			tok->value = 0;
			tok->len = 0;
			tok->depth = it->depth;
			tok->offset = it->off;
			it->depth++;
			/* Name, NUL, padding to 4 (5.4.1); n + 1 <= size - off here. */
			it->off = off + ((n + 1 + 3) & ~3u);
			if (it->off > size)
				it->off = size;
			return true;
		}
		case DT_TOKEN_END_NODE:
			if (it->depth == 0)
				return iter_fail(it, "FDT_END_NODE with no node open", it->off);
			it->depth--;
			tok->kind = DT_NODE_END;
			tok->name = "";
			tok->value = 0;
			tok->len = 0;
			tok->depth = it->depth;
			tok->offset = it->off;
			it->off = off;
			return true;
		case DT_TOKEN_PROP: {
			uint32_t len, nameoff, n;

			if (it->depth == 0)
				return iter_fail(it, "a property outside every node", it->off);
			if (size - off < 8)
				return iter_fail(it, "a property header runs past the block", it->off);
			len = fw_be32(dt->structs + off);
			nameoff = fw_be32(dt->structs + off + 4);
			off += 8;
			if (len > size - off)
				return iter_fail(it, "a property's length runs past the block", it->off);
			if (nameoff >= dt->strings_bytes)
				return iter_fail(it, "a property name's offset is past the strings block",
						 it->off);
			n = bounded_strlen(dt->strings + nameoff, dt->strings_bytes - nameoff);
			if (n == dt->strings_bytes - nameoff)
				return iter_fail(it, "a property name runs past the strings block",
						 it->off);
			tok->kind = DT_PROP;
			tok->name = dt->strings + nameoff;
			tok->value = dt->structs + off;
			tok->len = len;
			tok->depth = it->depth - 1;
			tok->offset = it->off;
			/* len <= size - off, so the padded end cannot wrap. */
			it->off = off + ((len + 3) & ~3u);
			if (it->off > size)
				it->off = size;
			return true;
		}
		case DT_TOKEN_END:
			if (it->depth)
				return iter_fail(it, "FDT_END with nodes still open", it->off);
			it->done = true;
			return false;
		default:
			return iter_fail(it, "an unknown token", it->off);
		}
	}
	return false;
}

bool dt_prop_is_string(const uint8_t *v, uint32_t len)
{
	return len && v[len - 1] == 0 && bounded_strlen((const char *)v, len) == len - 1;
}

bool dt_prop_has_string(const uint8_t *v, uint32_t len, const char *s)
{
	uint32_t want = (uint32_t)strlen(s);

	/* A string list: NUL-terminated strings back to back (2.2.4.1). */
	for (uint32_t off = 0; off < len;) {
		uint32_t n = bounded_strlen((const char *)v + off, len - off);

		if (n == len - off)
			return false;       /* an unterminated tail */
		if (n == want && !memcmp(v + off, s, n))
			return true;
		off += n + 1;
	}
	return false;
}

uint64_t dt_read_cells(const uint8_t *v, uint32_t cells)
{
	if (cells == 1)
		return fw_be32(v);
	if (cells == 2)
		return fw_be64(v);
	return 0;
}

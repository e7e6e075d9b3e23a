/*
 * bootinfo.c: the firmware-independent memory map and its normalization.
 *
 * Pure C: builds for the kernel and for the host unit tests and fuzzers.
 */
#include "boot/bootinfo.h"

#include <string.h>

#include "kernel/services/log.h"

/* Highest page-aligned address a half-open 64-bit end can name. */
#define TOP_ALIGNED_END (~0ULL & ~(PAGE_SIZE_BYTES - 1))

void bootinfo_init(struct bootinfo *bi, enum boot_path path)
{
	memset(bi, 0, sizeof(*bi));
	bi->path = path;
	bi->map_source = "none";
}

bool bootinfo_add_raw(struct bootinfo *bi, uint64_t start, uint64_t len,
		      enum mem_type type)
{
	struct mem_map_raw *raw = &bi->raw;
	uint64_t end;

	raw->nr_entries++;
	if (len == 0)
		return true;
	if (type <= MEM_NONE || type >= MEM_TYPE_COUNT)
		type = MEM_RESERVED;
	if (len > UINT64_MAX - start) {
		pr_warn("e820: range at 0x%llx of length 0x%llx wraps past 2^64; clipped",
			(unsigned long long)start, (unsigned long long)len);
		end = UINT64_MAX;
		if (start == end)
			return true;   /* nothing left of it */
	} else {
		end = start + len;
	}

	if (raw->nr_ranges > 0) {
		struct mem_range *prev = &raw->ranges[raw->nr_ranges - 1];
		if (prev->type == type && prev->end == start) {
			prev->end = end;
			return true;
		}
	}
	if (raw->nr_ranges >= BOOTINFO_MAX_RAW) {
		if (raw->nr_dropped++ == 0)
			pr_err("e820: more than %d distinct firmware ranges; dropping [0x%llx-0x%llx) and any after it",
			       BOOTINFO_MAX_RAW, (unsigned long long)start,
			       (unsigned long long)end);
		return false;
	}
	raw->ranges[raw->nr_ranges++] = (struct mem_range){
		.start = start, .end = end, .type = type };
	return true;
}

/*
 * Page-align one range: RAM shrinks inward so that a partial page is never
 * used; everything else grows outward so that it covers every page it
 * touches. Returns false if nothing of the range is left.
 */
static bool aligned_bounds(const struct mem_range *r, uint64_t *start, uint64_t *end)
{
	uint64_t s = r->start, e = r->end;

	if (e > TOP_ALIGNED_END)
		e = TOP_ALIGNED_END;
	if (r->type == MEM_USABLE) {
		if (s > TOP_ALIGNED_END)
			return false;
		s = (s + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
		e &= ~(PAGE_SIZE_BYTES - 1);
	} else {
		s &= ~(PAGE_SIZE_BYTES - 1);
		e = (e + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1);
	}
	*start = s;
	*end = e;
	return s < e;
}

/*
 * Sweep the address space from 0 upwards, one elementary interval (between
 * two consecutive range boundaries) at a time, and write the disjoint, sorted,
 * merged result to @out. The type of an interval is the most restrictive type
 * of the ranges covering it. With @align, each input range is page aligned
 * first (aligned_bounds). O(n^2) in the number of ranges, which is small
 * after merging (tens) and capped: milliseconds even for a hostile map, and
 * no scratch memory beyond @out. Returns the number of ranges written; the
 * count of those that did not fit goes to *@dropped.
 */
static uint32_t sweep(const struct mem_range *in, uint32_t n, bool align,
		      struct mem_range *out, uint32_t cap, uint32_t *dropped)
{
	uint64_t cur = 0;
	uint32_t nr_out = 0;

	*dropped = 0;
	for (;;) {
		uint64_t next = UINT64_MAX;
		uint32_t type = MEM_NONE;
		bool have_next = false;

		for (uint32_t i = 0; i < n; i++) {
			uint64_t s = in[i].start, e = in[i].end;
			if (align && !aligned_bounds(&in[i], &s, &e))
				continue;
			if (s <= cur && cur < e && in[i].type > type)
				type = in[i].type;
			if (s > cur && s <= next) {
				next = s;
				have_next = true;
			}
			if (e > cur && e <= next) {
				next = e;
				have_next = true;
			}
		}
		if (!have_next)
			break;

		if (type != MEM_NONE) {
			struct mem_range *prev = nr_out ? &out[nr_out - 1] : NULL;
			if (prev && prev->type == type && prev->end == cur)
				prev->end = next;
			else if (nr_out < cap)
				out[nr_out++] = (struct mem_range){
					.start = cur, .end = next, .type = type };
			else
				(*dropped)++;
		}
		cur = next;
	}
	return nr_out;
}

/*
 * Two sweeps: the first resolves overlaps and merges touching ranges of one
 * type at their exact byte boundaries, so that two usable entries meeting
 * inside a page keep that page; the second aligns the merged ranges to pages
 * and resolves the partial pages a usable range shares with a restrictive
 * one (the restrictive one wins).
 */
uint32_t bootinfo_normalize(struct bootinfo *bi)
{
	uint32_t exact, out, dropped;

	exact = sweep(bi->raw.ranges, bi->raw.nr_ranges, false, bi->scratch,
		      BOOTINFO_MAX_SCRATCH, &dropped);
	if (dropped)
		pr_err("e820: firmware map resolves to more than %d ranges; %u dropped (treated as holes)",
		       BOOTINFO_MAX_SCRATCH, dropped);
	out = sweep(bi->scratch, exact, true, bi->ranges, BOOTINFO_MAX_RANGES, &dropped);
	if (dropped)
		pr_err("e820: normalized map needs more than %d ranges; %u dropped (treated as holes)",
		       BOOTINFO_MAX_RANGES, dropped);
	bi->nr_ranges = out;
	return out;
}

static bool cmdline_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void bootinfo_put_cmdline(struct bootinfo *bi, size_t at, const char *src, size_t len,
			  int next, const char *source)
{
	size_t room, keep, i, d, whole = len;
	int after_whole = next;
	bool quoted = false;

	if (at > sizeof(bi->cmdline) - 1)
		at = sizeof(bi->cmdline) - 1;
	room = sizeof(bi->cmdline) - 1 - at;
	if (len > room) {
		next = (unsigned char)src[room];
		len = room;
	}
	keep = len;
	if (next != '\0') {
		/*
		 * Cut: keep only words that ended before the cut. A word ends at
		 * a space outside quotes; the last one kept may end exactly at
		 * the cut if the byte after it is such a space.
		 */
		size_t boundary = 0;
		for (i = 0; i < len; i++) {
			if (src[i] == '"')
				quoted = !quoted;
			else if (!quoted && cmdline_space((unsigned char)src[i]))
				boundary = i;
		}
		if (!quoted && next >= 0 && cmdline_space(next))
			boundary = len;
		keep = boundary;
		/* The first dropped word, for the message. */
		for (i = keep; i < whole && cmdline_space((unsigned char)src[i]); i++)
			;
		if (!bi->cmdline_cut) {
			for (d = 0; d + 1 < sizeof(bi->cmdline_dropped) && i + d < whole &&
				    !cmdline_space((unsigned char)src[i + d]); d++)
				bi->cmdline_dropped[d] = src[i + d];
			bi->cmdline_dropped[d] = '\0';
			pr_warn("cmdline: %s does not fit in %d bytes; its words from '%s%s' on are dropped (a cut word is never applied)",
				source, BOOTINFO_CMDLINE_BYTES - 1, bi->cmdline_dropped,
				(i + d < whole && !cmdline_space((unsigned char)src[i + d])) ||
				(i + d == whole && after_whole != '\0') ? "..." : "");
		}
		bi->cmdline_cut = true;
	}
	while (keep > 0 && cmdline_space((unsigned char)src[keep - 1]))
		keep--;
	memmove(bi->cmdline + at, src, keep);
	bi->cmdline[at + keep] = '\0';
}

void bootinfo_append_cmdline(struct bootinfo *bi, const char *s)
{
	bootinfo_append_cmdline_from(bi, s, "the command line");
}

void bootinfo_append_cmdline_from(struct bootinfo *bi, const char *s, const char *source)
{
	size_t have = strnlen(bi->cmdline, sizeof(bi->cmdline));
	size_t add = strlen(s);

	if (add == 0)
		return;
	if (bi->cmdline_cut)
		return;   /* full: its one warning named where the dropping began */
	if (have > 0 && have < sizeof(bi->cmdline) - 1)
		bi->cmdline[have++] = ' ';
	bootinfo_put_cmdline(bi, have, s, add, '\0', source);
	/* Nothing of @s fitted: no dangling separator. */
	have = strlen(bi->cmdline);
	while (have > 0 && bi->cmdline[have - 1] == ' ')
		bi->cmdline[--have] = '\0';
}

uint64_t bootinfo_total_bytes(const struct bootinfo *bi, enum mem_type type)
{
	return mem_ranges_bytes(bi->ranges, bi->nr_ranges, type);
}

const char *mem_type_name(enum mem_type type)
{
	switch (type) {
	case MEM_USABLE:   return "usable";
	case MEM_ACPI:     return "acpi";
	case MEM_NVS:      return "nvs";
	case MEM_UNUSABLE: return "unusable";
	case MEM_RESERVED: return "reserved";
	default:           return "none";
	}
}

const char *mem_type_linux_name(enum mem_type type)
{
	switch (type) {
	case MEM_USABLE:   return "usable";
	case MEM_ACPI:     return "ACPI data";
	case MEM_NVS:      return "ACPI NVS";
	case MEM_UNUSABLE: return "unusable";
	case MEM_RESERVED: return "reserved";
	default:           return "hole";
	}
}

const char *boot_path_name(enum boot_path path)
{
	switch (path) {
	case BOOT_PATH_MB2_BIOS: return "mb2-bios";
	case BOOT_PATH_MB2_UEFI: return "mb2-uefi";
	case BOOT_PATH_EFI:      return "efi";
	case BOOT_PATH_PVH:      return "pvh";
	case BOOT_PATH_DT:       return "dt";
	default:                 return "unknown";
	}
}

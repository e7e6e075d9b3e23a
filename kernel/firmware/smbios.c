/*
 * smbios.c: SMBIOS entry points and structure table (kernel/firmware/smbios.h).
 *
 * Rules obeyed (DMTF DSP0134 3.7):
 *  - 2.1 entry point (5.2.1): "_SM_", checksum over its length byte's bytes
 *    (0x1f; 2.1's own text said 0x1e, which firmware of that time wrote and
 *    Linux accepts), "_DMI_" at 0x10 with its own checksum over 0x10-0x1e,
 *    the table's length at 0x16, its 32-bit address at 0x18 and the number
 *    of structures at 0x1c;
 *  - 3.0 entry point (5.2.2): "_SM3_", checksum over its length (0x18), the
 *    table's maximum size at 0x0c and its 64-bit address at 0x10;
 *  - a structure (6.1.2) is type, length (of the formatted part, at least
 *    4), handle, then its strings, each NUL-terminated, the set ending in a
 *    second NUL (two NULs when there are none); string number 0 is "none";
 *  - type 127 ends the table (6.1.3); types 0x80-0xff are the OEM's;
 *  - fields newer than a structure's length are absent, never zero-filled:
 *    every field is read only when the length covers it.
 */
#include "kernel/firmware/smbios.h"

#include <stddef.h>
#include <string.h>

#include "kernel/firmware/bytes.h"
#include "kernel/services/log.h"

#define PREFIX "DMI: "

/* smbios_parse() clears the counts with everything before `sockets`. */
_Static_assert(offsetof(struct smbios_info, nr_device_ranges) < offsetof(struct smbios_info, sockets),
	       "every count of struct smbios_info lies before its arrays");

/* Warnings about single structures per parse before the rest are counted only. */
#define SMBIOS_MAX_WARNINGS 8

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

bool smbios_entry_parse(const void *ep, size_t len, struct smbios_entry *out)
{
	const uint8_t *p = ep;

	memset(out, 0, sizeof(*out));
	if (!p || len < 5) {
		pr_warn(PREFIX "entry point of %zu bytes is too short; no SMBIOS", p ? len : 0);
		return false;
	}
	if (memcmp(p, "_SM3_", 5) == 0) {
		if (len < SMBIOS_EP3_BYTES || p[6] < SMBIOS_EP3_BYTES || p[6] > len) {
			pr_warn(PREFIX "3.0 entry point: length 0x%x with %zu bytes copied (0x%x needed); no SMBIOS",
				len >= 7 ? p[6] : 0, len, SMBIOS_EP3_BYTES);
			return false;
		}
		if (sum(p, p[6]) != 0) {
			pr_warn(PREFIX "3.0 entry point: checksum does not sum to 0; no SMBIOS");
			return false;
		}
		out->v3 = true;
		out->major = p[7];
		out->minor = p[8];
		out->docrev = p[9];
		out->table_bytes = fw_le32(p + 0x0c);
		out->table_phys = fw_le64(p + 0x10);
	} else if (memcmp(p, "_SM_", 4) == 0) {
		/* 0x1e: SMBIOS 2.1's erratum, still met. */
		if (len < 0x1e || p[5] < 0x1e || p[5] > len) {
			pr_warn(PREFIX "2.x entry point: length 0x%x with %zu bytes copied (0x%x needed); no SMBIOS",
				len >= 6 ? p[5] : 0, len, SMBIOS_EP2_BYTES);
			return false;
		}
		if (sum(p, p[5]) != 0) {
			pr_warn(PREFIX "2.x entry point: checksum does not sum to 0; no SMBIOS");
			return false;
		}
		if (memcmp(p + 0x10, "_DMI_", 5) != 0 || sum(p + 0x10, 0x0f) != 0) {
			pr_warn(PREFIX "2.x entry point: intermediate anchor '_DMI_' missing or its checksum wrong; no SMBIOS");
			return false;
		}
		out->major = p[6];
		out->minor = p[7];
		out->table_bytes = fw_le16(p + 0x16);
		out->table_phys = fw_le32(p + 0x18);
		out->nr_structures = fw_le16(p + 0x1c);
	} else {
		pr_warn(PREFIX "no '_SM_' or '_SM3_' anchor at the entry point; no SMBIOS");
		return false;
	}
	if (!out->table_phys || !out->table_bytes) {
		pr_warn(PREFIX "entry point gives a table at 0x%llx of %u bytes; no SMBIOS",
			(unsigned long long)out->table_phys, out->table_bytes);
		memset(out, 0, sizeof(*out));
		return false;
	}
	if (out->table_phys > UINT64_MAX - out->table_bytes) {
		pr_warn(PREFIX "table at 0x%llx of %u bytes wraps past 2^64; no SMBIOS",
			(unsigned long long)out->table_phys, out->table_bytes);
		memset(out, 0, sizeof(*out));
		return false;
	}
	return true;
}

/* One structure being read: its formatted part and its strings. */
struct smbios_struct {
	const uint8_t *p;
	uint8_t type, length;
	uint16_t handle;
	uint32_t off;               /* from the table's start */
	const char *strings;        /* first string; the set ends at strings_end */
	const char *strings_end;    /* the set's final NUL */
	uint32_t nr_strings;
};

struct parse_state {
	struct smbios_info *out;
	uint32_t warnings;
};

static void warn_struct(struct parse_state *st, const struct smbios_struct *s,
			const char *what)
{
	if (st->warnings++ < SMBIOS_MAX_WARNINGS)
		pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: %s",
			s->type, s->handle, s->off, what);
}

/* Copy string @n of @s into @dst: printable ASCII, others '?', trailing
 * blanks dropped (firmware pads), cut to SMBIOS_STR_BYTES. */
static void get_str(struct parse_state *st, const struct smbios_struct *s,
		    uint32_t field, char *dst)
{
	const char *str;
	size_t i = 0;
	uint8_t n;

	dst[0] = '\0';
	if (field >= s->length)
		return;
	n = s->p[field];
	if (n == 0)
		return;
	if (n > s->nr_strings) {
		st->out->nr_bad_strings++;
		if (st->warnings++ < SMBIOS_MAX_WARNINGS)
			pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: string %u named at 0x%x, but it has %u; read as empty",
				s->type, s->handle, s->off, n, field, s->nr_strings);
		return;
	}
	str = s->strings;
	for (uint8_t k = 1; k < n; k++)
		str += strlen(str) + 1;   /* bounded: the set ends in NUL, NUL */
	for (; str[i] && i < SMBIOS_STR_BYTES - 1; i++) {
		uint8_t c = (uint8_t)str[i];
		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	while (i > 0 && dst[i - 1] == ' ')
		i--;
	dst[i] = '\0';
}

static bool need(struct parse_state *st, const struct smbios_struct *s, uint8_t min,
		 const char *what)
{
	if (s->length >= min)
		return true;
	st->out->nr_short++;
	if (st->warnings++ < SMBIOS_MAX_WARNINGS)
		pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: length 0x%x is below the 0x%x of a %s; skipped",
			s->type, s->handle, s->off, s->length, min, what);
	return false;
}

static void dropped(struct parse_state *st, const struct smbios_struct *s, const char *what)
{
	if (st->out->nr_dropped++ == 0)
		pr_warn(PREFIX "more %s than memboot keeps; type %u at offset 0x%x and later ones counted only",
			what, s->type, s->off);
}

static void read_socket(struct parse_state *st, const struct smbios_struct *s)
{
	struct smbios_info *out = st->out;
	struct smbios_socket *k;

	if (!need(st, s, 0x1a, "processor (2.0)"))
		return;
	if (out->nr_sockets == SMBIOS_MAX_SOCKETS) {
		dropped(st, s, "sockets");
		return;
	}
	k = &out->sockets[out->nr_sockets++];
	memset(k, 0, sizeof(*k));
	get_str(st, s, 0x04, k->designation);
	get_str(st, s, 0x07, k->manufacturer);
	get_str(st, s, 0x10, k->version);
	k->max_speed_mhz = fw_le16(s->p + 0x14);
	k->current_speed_mhz = fw_le16(s->p + 0x16);
	k->populated = s->p[0x18] & 0x40;
	if (s->length >= 0x28) {           /* 2.5: core and thread counts */
		k->cores = s->p[0x23];
		k->threads = s->p[0x25];
	}
	if (s->length >= 0x30) {           /* 3.0: counts above 255 */
		if (k->cores == 0xff)
			k->cores = fw_le16(s->p + 0x2a);
		if (k->threads == 0xff)
			k->threads = fw_le16(s->p + 0x2e);
	}
}

static void read_device(struct parse_state *st, const struct smbios_struct *s)
{
	struct smbios_info *out = st->out;
	struct smbios_device *d;
	uint16_t size;

	if (!need(st, s, 0x15, "memory device (2.1)"))
		return;
	if (out->nr_devices == SMBIOS_MAX_DEVICES) {
		dropped(st, s, "memory devices");
		return;
	}
	d = &out->devices[out->nr_devices++];
	memset(d, 0, sizeof(*d));
	d->handle = s->handle;
	d->array_handle = fw_le16(s->p + 0x04);
	size = fw_le16(s->p + 0x0c);
	if (size == 0xffff) {
		d->size_unknown = true;
	} else if (size == 0x7fff && s->length >= 0x20) {
		/* 2.7: the size is in the extended field, in MiB (bits 0-30). */
		d->size_bytes = (uint64_t)(fw_le32(s->p + 0x1c) & 0x7fffffffu) << 20;
	} else if (size & 0x8000) {
		d->size_bytes = (uint64_t)(size & 0x7fff) << 10;   /* KiB granularity */
	} else {
		d->size_bytes = (uint64_t)size << 20;
	}
	d->form_factor = s->p[0x0e];
	get_str(st, s, 0x10, d->locator);
	get_str(st, s, 0x11, d->bank);
	d->type = s->p[0x12];
	if (s->length >= 0x17)
		d->speed_mts = fw_le16(s->p + 0x15);
	if (s->length >= 0x1b) {
		get_str(st, s, 0x17, d->manufacturer);
		get_str(st, s, 0x1a, d->part);
	}
	if (s->length >= 0x22)
		d->configured_mts = fw_le16(s->p + 0x20);
	/* 3.3: 0xffff means the speed is in the extended fields. */
	if (s->length >= 0x5c) {
		if (d->speed_mts == 0xffff)
			d->speed_mts = fw_le32(s->p + 0x54) & 0x7fffffffu;
		if (d->configured_mts == 0xffff)
			d->configured_mts = fw_le32(s->p + 0x58) & 0x7fffffffu;
	}
	if (d->speed_mts == 0xffff)
		d->speed_mts = 0;
	if (d->configured_mts == 0xffff)
		d->configured_mts = 0;
	if (d->size_bytes || d->size_unknown)
		out->nr_populated++;
}

/* Types 19 and 20 share their layout up to the handle at 0x0c, and keep
 * 64-bit byte addresses in extended fields when the 32-bit KiB ones are
 * 0xffffffff (2.7). */
static void read_range(struct parse_state *st, const struct smbios_struct *s, bool device)
{
	struct smbios_info *out = st->out;
	uint32_t *nr = device ? &out->nr_device_ranges : &out->nr_array_ranges;
	struct smbios_range *ranges = device ? out->device_ranges : out->array_ranges;
	const uint8_t min = device ? 0x13 : 0x0f, ext = device ? 0x13 : 0x0f;
	uint64_t start, last;

	if (!need(st, s, min, device ? "memory device mapped address" :
		  "memory array mapped address"))
		return;
	start = (uint64_t)fw_le32(s->p + 0x04) << 10;
	last = ((uint64_t)fw_le32(s->p + 0x08) << 10) | 0x3ff;
	if (fw_le32(s->p + 0x04) == 0xffffffffu) {
		if (s->length < ext + 16) {
			warn_struct(st, s, "extended address named but the structure is too short for it; skipped");
			out->nr_short++;
			return;
		}
		start = fw_le64(s->p + ext);
		last = fw_le64(s->p + ext + 8);
	}
	if (last < start || last == UINT64_MAX) {
		warn_struct(st, s, "ending address below the start (or at the last byte of the address space); skipped");
		return;
	}
	if (*nr == SMBIOS_MAX_RANGES) {
		dropped(st, s, "mapped address ranges");
		return;
	}
	ranges[*nr].start = start;
	ranges[*nr].end = last + 1;
	ranges[*nr].handle = fw_le16(s->p + 0x0c);
	(*nr)++;
}

/*
 * The formatted length DSP0134 3.7 gives the fixed-layout types memboot
 * reads. A later version may add fields, so only a length well past it
 * (more than LENGTH_SLACK bytes) is called wrong: then the structure's own
 * fields are read as usual but whatever the length swallowed (often the
 * next structures: a length byte of 0xff) is lost, and the warning says so.
 */
#define LENGTH_SLACK 0x20

static uint8_t known_length(uint8_t type)
{
	switch (type) {
	case 0: return 0x1a;      /* BIOS information, 3.1 */
	case 1: return 0x1b;      /* system information, 2.4 */
	case 4: return 0x32;      /* processor, 3.6 */
	case 16: return 0x17;     /* physical memory array, 2.7 */
	case 17: return 0x5c;     /* memory device, 3.3 */
	case 19: return 0x1f;     /* memory array mapped address, 2.7 */
	case 20: return 0x23;     /* memory device mapped address, 2.7 */
	}
	return 0;
}

static void check_length(struct parse_state *st, const struct smbios_struct *s)
{
	uint8_t known = known_length(s->type);

	if (!known || s->length <= known + LENGTH_SLACK)
		return;
	st->out->nr_bad_lengths++;
	if (st->warnings++ < SMBIOS_MAX_WARNINGS)
		pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: length 0x%x, far beyond the 0x%x "
			"SMBIOS 3.7 defines: the bytes past 0x%x may be other structures, lost to this one",
			s->type, s->handle, s->off, s->length, known, known);
}

static void read_struct(struct parse_state *st, const struct smbios_struct *s)
{
	struct smbios_info *out = st->out;

	check_length(st, s);

	switch (s->type) {
	case 0:
		if (!need(st, s, 0x12, "BIOS information"))
			return;
		get_str(st, s, 0x04, out->bios_vendor);
		get_str(st, s, 0x05, out->bios_version);
		get_str(st, s, 0x08, out->bios_date);
		out->have_bios = true;
		break;
	case 1:
		if (!need(st, s, 0x08, "system information"))
			return;
		get_str(st, s, 0x04, out->sys_vendor);
		get_str(st, s, 0x05, out->sys_product);
		get_str(st, s, 0x06, out->sys_version);
		out->have_system = true;
		break;
	case 2:
		if (!need(st, s, 0x08, "baseboard information"))
			return;
		get_str(st, s, 0x04, out->board_vendor);
		get_str(st, s, 0x05, out->board_product);
		get_str(st, s, 0x06, out->board_version);
		out->have_board = true;
		break;
	case 4:
		read_socket(st, s);
		break;
	case 17:
		read_device(st, s);
		break;
	case 19:
		read_range(st, s, false);
		break;
	case 20:
		read_range(st, s, true);
		break;
	default:
		break;
	}
}

bool smbios_parse(const void *table, size_t avail, const struct smbios_entry *ep,
		  struct smbios_info *out)
{
	struct parse_state st = { .out = out };
	const uint8_t *base = table;
	uint32_t off = 0, len;

	/* The counts and strings, and the handles; each array entry is
	 * cleared as it is taken (clearing all 150 KiB costs a boot under
	 * emulation about a millisecond). */
	memset(out, 0, offsetof(struct smbios_info, sockets));
	memset(out->handles_seen, 0, sizeof(out->handles_seen));
	out->entry = *ep;
	len = ep->table_bytes;
	if (!base)
		avail = 0;
	if (avail < len) {
		pr_warn(PREFIX "the entry point gives a table of %u bytes at 0x%llx, but only %zu can be read; reading those",
			len, (unsigned long long)ep->table_phys, avail);
		out->cut_by_mapping = true;
		len = (uint32_t)avail;
	}
	while (off < len) {
		struct smbios_struct s = { .p = base + off, .off = off };
		uint32_t soff;

		if (ep->nr_structures && out->nr_structures == ep->nr_structures)
			break;   /* 2.x: the count the entry point gives */
		if (len - off < 4) {
			pr_warn(PREFIX "%u bytes left at offset 0x%x: too short for a structure header; table ends there",
				len - off, off);
			out->truncated = true;
			break;
		}
		s.type = s.p[0];
		s.length = s.p[1];
		s.handle = fw_le16(s.p + 2);
		if (s.length < 4) {
			pr_warn(PREFIX "structure at offset 0x%x (type %u) has length %u, below its 4-byte header; table ends there",
				off, s.type, s.length);
			out->truncated = true;
			break;
		}
		if (s.length > len - off - 2) {
			pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: its 0x%x bytes and strings run past the table's end (0x%x); table ends there",
				s.type, s.handle, off, s.length, len);
			out->truncated = true;
			break;
		}
		/* The string set: from the end of the formatted part to the
		 * double NUL, all inside the table. */
		s.strings = (const char *)s.p + s.length;
		soff = off + s.length;
		if (base[soff] == 0 && base[soff + 1] == 0) {
			s.strings_end = (const char *)base + soff + 1;
		} else {
			uint32_t i = soff;

			for (;;) {
				while (i < len && base[i])
					i++;
				if (i >= len)
					break;
				s.nr_strings++;
				i++;          /* past the string's NUL */
				if (i < len && base[i] == 0)
					break;    /* the set's closing NUL */
			}
			if (i >= len) {
				pr_warn(PREFIX "type %u (handle 0x%04x) at offset 0x%x: its strings run past the table's end (0x%x) without a double NUL; table ends there",
					s.type, s.handle, off, len);
				out->truncated = true;
				break;
			}
			s.strings_end = (const char *)base + i;
		}
		out->nr_structures++;
		off = (uint32_t)((const uint8_t *)s.strings_end - base) + 1;
		out->table_bytes_read = off;
		if (out->handles_seen[s.handle / 64] & (1ull << (s.handle % 64))) {
			out->nr_duplicate_handles++;
			warn_struct(&st, &s, "handle seen before (a table that repeats or loops); skipped");
			if (s.type == 127)
				break;
			continue;
		}
		out->handles_seen[s.handle / 64] |= 1ull << (s.handle % 64);
		if (s.type == 127) {
			out->ended = true;
			break;
		}
		read_struct(&st, &s);
	}
	if (st.warnings > SMBIOS_MAX_WARNINGS)
		pr_warn(PREFIX "%u more structure warnings not shown", st.warnings - SMBIOS_MAX_WARNINGS);
	if (out->nr_structures == 0) {
		pr_warn(PREFIX "no structure could be read from the table at 0x%llx",
			(unsigned long long)ep->table_phys);
		return false;
	}
	return true;
}

const char *smbios_mem_type_name(uint8_t type)
{
	/* DSP0134 7.18.2, Memory Device Type. */
	static const char *const names[] = {
		[0x01] = "other", [0x02] = "unknown", [0x03] = "DRAM", [0x04] = "EDRAM",
		[0x05] = "VRAM", [0x06] = "SRAM", [0x07] = "RAM", [0x08] = "ROM",
		[0x09] = "Flash", [0x0a] = "EEPROM", [0x0b] = "FEPROM", [0x0c] = "EPROM",
		[0x0d] = "CDRAM", [0x0e] = "3DRAM", [0x0f] = "SDRAM", [0x10] = "SGRAM",
		[0x11] = "RDRAM", [0x12] = "DDR", [0x13] = "DDR2", [0x14] = "DDR2 FB-DIMM",
		[0x18] = "DDR3", [0x19] = "FBD2", [0x1a] = "DDR4", [0x1b] = "LPDDR",
		[0x1c] = "LPDDR2", [0x1d] = "LPDDR3", [0x1e] = "LPDDR4",
		[0x1f] = "logical non-volatile", [0x20] = "HBM", [0x21] = "HBM2",
		[0x22] = "DDR5", [0x23] = "LPDDR5", [0x24] = "HBM3",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

uint32_t smbios_device_ranges(const struct smbios_info *info, uint32_t index,
			      struct smbios_range *out, uint32_t cap)
{
	const struct smbios_device *d;
	uint32_t n = 0, sharing = 0;

	if (index >= info->nr_devices)
		return 0;
	d = &info->devices[index];
	for (uint32_t i = 0; i < info->nr_device_ranges; i++) {
		if (info->device_ranges[i].handle != d->handle)
			continue;
		if (n < cap)
			out[n] = info->device_ranges[i];
		n++;
	}
	if (n)
		return n;
	for (uint32_t i = 0; i < info->nr_devices; i++) {
		const struct smbios_device *o = &info->devices[i];
		if (o->array_handle == d->array_handle && (o->size_bytes || o->size_unknown))
			sharing++;
	}
	if (sharing != 1)
		return 0;
	for (uint32_t i = 0; i < info->nr_array_ranges; i++) {
		if (info->array_ranges[i].handle != d->array_handle)
			continue;
		if (n < cap)
			out[n] = info->array_ranges[i];
		n++;
	}
	return n;
}

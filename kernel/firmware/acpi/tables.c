/*
 * tables.c: RSDP, RSDT/XSDT walk, the table directory, and the helpers the
 * table parsers share (header check, subtable iterator).
 *
 * Rules obeyed (ACPI 6.5, 5.2.5 to 5.2.8):
 *  - the RSDP's first 20 bytes sum to 0; a revision 2 RSDP is 36 bytes (its
 *    length field) that also sum to 0, and adds the 64-bit XSDT address;
 *  - with an XSDT the RSDT is ignored; the XSDT's entries are 8 bytes, the
 *    RSDT's 4, after a 36-byte header;
 *  - every table starts with the 36-byte header, its length covers the whole
 *    table and all its bytes sum to 0; the FACS alone has neither header nor
 *    checksum;
 *  - the FADT's X_DSDT and X_FIRMWARE_CTRL, when present and nonzero, take
 *    precedence over the 32-bit DSDT and FIRMWARE_CTRL.
 * A table that breaks a rule is skipped with one warning; the walk goes on.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

/* Warnings about individual tables per walk before the rest are suppressed. */
#define WALK_MAX_WARNINGS 16

uint8_t acpi_checksum(const void *bytes, size_t len)
{
	const uint8_t *p = bytes;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum;
}

void acpi_copy_name(char *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	dst[i] = '\0';
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

uint32_t acpi_table_check(const void *table, size_t len, const char *sig,
			  uint32_t min_len, const char *prefix)
{
	struct acpi_sdt_header h;
	char name[5];

	if (!table || len < sizeof(h)) {
		pr_warn("%s%zu bytes are not enough for a table header; ignored",
			prefix, table ? len : 0);
		return 0;
	}
	memcpy(&h, table, sizeof(h));
	if (memcmp(h.signature, sig, 4) != 0) {
		acpi_copy_name(name, h.signature, 4);
		pr_warn("%ssignature is '%s', not '%.4s'; ignored", prefix, name, sig);
		return 0;
	}
	if (h.length < min_len) {
		pr_warn("%sheader length 0x%x is below the 0x%x bytes of its fixed part; ignored",
			prefix, h.length, min_len);
		return 0;
	}
	if (h.length > len) {
		pr_warn("%sheader length 0x%x is past the 0x%zx bytes available; ignored",
			prefix, h.length, len);
		return 0;
	}
	return h.length;
}

void acpi_subtables_init(struct acpi_subtables *it, const void *table,
			 uint32_t len, uint32_t first, const char *prefix)
{
	it->table = table;
	it->len = len;
	it->off = first;
	it->prefix = prefix;
	it->truncated = false;
}

bool acpi_subtables_next(struct acpi_subtables *it, const uint8_t **entry,
			 uint8_t *type, uint8_t *length, uint32_t *off)
{
	uint32_t left;

	if (it->truncated || it->off >= it->len)
		return false;
	left = it->len - it->off;
	if (left < sizeof(struct acpi_subtable_header)) {
		pr_warn("%s%u trailing byte at offset 0x%x is not an entry; ignored",
			it->prefix, left, it->off);
		it->truncated = true;
		return false;
	}
	*type = it->table[it->off];
	*length = it->table[it->off + 1];
	if (*length < sizeof(struct acpi_subtable_header)) {
		pr_warn("%sentry at offset 0x%x (type %u) has length %u; entries after it ignored",
			it->prefix, it->off, *type, *length);
		it->truncated = true;
		return false;
	}
	if (*length > left) {
		pr_warn("%sentry at offset 0x%x (type %u, length %u) runs past the table end 0x%x; ignored with the rest",
			it->prefix, it->off, *type, *length, it->len);
		it->truncated = true;
		return false;
	}
	*entry = it->table + it->off;
	*off = it->off;
	it->off += *length;
	return true;
}

void acpi_subtables_short(struct acpi_subtables *it, const char *what,
			  uint32_t off, uint8_t length, size_t need)
{
	pr_warn("%s%s entry at offset 0x%x has length %u, below its %zu bytes; entries from it ignored",
		it->prefix, what, off, length, need);
	it->truncated = true;
}

/* ---- RSDP ---- */

int acpi_rsdp_parse(const void *rsdp, size_t len, unsigned flags,
		    struct acpi_rsdp_info *out)
{
	struct acpi_rsdp r;
	uint8_t sum;

	memset(out, 0, sizeof(*out));
	if (!rsdp || len < ACPI_RSDP_V1_BYTES) {
		pr_warn("ACPI: RSDP copy of %zu bytes is shorter than 20; no ACPI tables",
			rsdp ? len : 0);
		return ACPI_ERR_RSDP;
	}
	memset(&r, 0, sizeof(r));
	memcpy(&r, rsdp, len < sizeof(r) ? len : sizeof(r));
	if (memcmp(r.signature, "RSD PTR ", 8) != 0) {
		pr_warn("ACPI: RSDP signature is not 'RSD PTR '; no ACPI tables");
		return ACPI_ERR_RSDP;
	}
	sum = acpi_checksum(rsdp, ACPI_RSDP_V1_BYTES);
	if (sum) {
		if (!(flags & ACPI_WALK_IGNORE_CHECKSUMS)) {
			pr_warn("ACPI: RSDP has a bad checksum (sum 0x%02x over 20 bytes); no ACPI tables",
				sum);
			return ACPI_ERR_RSDP;
		}
		pr_warn("ACPI: RSDP has a bad checksum (sum 0x%02x over 20 bytes); used anyway",
			sum);
	}
	out->revision = r.revision;
	out->length = ACPI_RSDP_V1_BYTES;
	out->rsdt_phys = r.rsdt_address;
	acpi_copy_name(out->oem_id, r.oem_id, sizeof(r.oem_id));
	if (r.revision < 2)
		return ACPI_OK;

	out->length = r.length;
	if (len < ACPI_RSDP_V2_BYTES) {
		pr_warn("ACPI: RSDP revision %u but only %zu bytes were copied; using the RSDT",
			r.revision, len);
		return ACPI_OK;
	}
	if (r.length < ACPI_RSDP_V2_BYTES || r.length > len) {
		pr_warn("ACPI: RSDP length field %u is not the 36 bytes copied; using the RSDT",
			r.length);
		return ACPI_OK;
	}
	sum = acpi_checksum(rsdp, r.length);
	if (sum) {
		if (!(flags & ACPI_WALK_IGNORE_CHECKSUMS)) {
			pr_warn("ACPI: RSDP has a bad extended checksum (sum 0x%02x over %u bytes); using the RSDT",
				sum, r.length);
			return ACPI_OK;
		}
		pr_warn("ACPI: RSDP has a bad extended checksum (sum 0x%02x over %u bytes); used anyway",
			sum, r.length);
	}
	out->xsdt_phys = r.xsdt_address;
	return ACPI_OK;
}

/* ---- the walk ---- */

struct walk {
	struct acpi_tables *dir;
	acpi_map_fn map;
	void *ctx;
	unsigned flags;
	unsigned nr_warnings;
};

/* True if one more warning about a table may be printed. */
static bool walk_may_warn(struct walk *w)
{
	if (w->nr_warnings < WALK_MAX_WARNINGS) {
		w->nr_warnings++;
		return true;
	}
	if (w->nr_warnings++ == WALK_MAX_WARNINGS)
		pr_warn("ACPI: more than %u table warnings; the rest are suppressed",
			WALK_MAX_WARNINGS);
	return false;
}

#define walk_warn(w, ...)                                  \
	do {                                               \
		if (walk_may_warn(w))                      \
			pr_warn(__VA_ARGS__);              \
	} while (0)

/* "XSDT[12]", "FACP.X_DSDT", "RSDP": where a table pointer was found. */
struct via {
	char text[40];
};

static void via_format(struct via *v, const char *name, long index)
{
	size_t n = strlen(name);
	char digits[12];
	size_t nd = 0;

	if (n > sizeof(v->text) - 14)
		n = sizeof(v->text) - 14;
	memcpy(v->text, name, n);
	if (index >= 0) {
		unsigned long x = (unsigned long)index;
		do {
			digits[nd++] = (char)('0' + x % 10);
			x /= 10;
		} while (x && nd < sizeof(digits));
		v->text[n++] = '[';
		while (nd)
			v->text[n++] = digits[--nd];
		v->text[n++] = ']';
	}
	v->text[n] = '\0';
}

/* Map [phys, phys + len), refusing ranges that wrap past 2^64. */
static const uint8_t *walk_map(struct walk *w, uint64_t phys, uint64_t len)
{
	if (len > UINT64_MAX - phys || len > SIZE_MAX)
		return NULL;
	return w->map(w->ctx, phys, (size_t)len);
}

/*
 * Map and check the table with a standard header at @phys. @expect is the
 * signature it must have, or NULL for any. Returns its bytes and fills @h, or
 * NULL after one warning.
 */
static const uint8_t *load_sdt(struct walk *w, uint64_t phys, const char *expect,
			       const struct via *via, struct acpi_sdt_header *h)
{
	const uint8_t *p;
	char sig[5];
	uint8_t sum;

	if (!phys) {
		walk_warn(w, "ACPI: %s is a null pointer; skipped", via->text);
		return NULL;
	}
	p = walk_map(w, phys, sizeof(*h));
	if (!p) {
		walk_warn(w, "ACPI: table at 0x%016llX (%s) is not mapped; skipped",
			  (unsigned long long)phys, via->text);
		return NULL;
	}
	memcpy(h, p, sizeof(*h));
	acpi_copy_name(sig, h->signature, 4);
	if (expect && memcmp(h->signature, expect, 4) != 0) {
		walk_warn(w, "ACPI: %s 0x%016llX (%s): signature is not %s; skipped",
			  sig, (unsigned long long)phys, via->text, expect);
		return NULL;
	}
	if (h->length < sizeof(*h)) {
		walk_warn(w, "ACPI: %s 0x%016llX (%s): header length %u is below 36; skipped",
			  sig, (unsigned long long)phys, via->text, h->length);
		return NULL;
	}
	p = walk_map(w, phys, h->length);
	if (!p) {
		walk_warn(w, "ACPI: %s 0x%016llX (%s): length 0x%X runs past mapped memory; skipped",
			  sig, (unsigned long long)phys, via->text, h->length);
		return NULL;
	}
	sum = acpi_checksum(p, h->length);
	if (sum) {
		if (!(w->flags & ACPI_WALK_IGNORE_CHECKSUMS)) {
			walk_warn(w, "ACPI: %s 0x%016llX (%s): bad checksum (sum 0x%02X over 0x%X bytes); skipped",
				  sig, (unsigned long long)phys, via->text, sum, h->length);
			return NULL;
		}
		walk_warn(w, "ACPI: %s 0x%016llX (%s): bad checksum (sum 0x%02X over 0x%X bytes); used anyway",
			  sig, (unsigned long long)phys, via->text, sum, h->length);
	}
	return p;
}

/* Tables of which firmware may rightly give several. */
static bool multi_instance(const char *sig)
{
	return memcmp(sig, "SSDT", 4) == 0;
}

/* Add a checked table to the directory; false if not added (duplicate, full). */
static bool add_table(struct walk *w, uint64_t phys, const uint8_t *bytes,
		      const struct acpi_sdt_header *h, enum acpi_table_source src,
		      const struct via *via)
{
	struct acpi_tables *dir = w->dir;
	struct acpi_table_info *t;
	char sig[5];

	acpi_copy_name(sig, h->signature, 4);
	for (uint32_t i = 0; i < dir->nr_tables; i++) {
		const struct acpi_table_info *o = &dir->tables[i];
		if (memcmp(o->signature, sig, 5) != 0)
			continue;
		if (multi_instance(sig) && o->phys != phys)
			continue;
		walk_warn(w, "ACPI: %s 0x%016llX (%s): duplicate of the %s at 0x%016llX; ignored",
			  sig, (unsigned long long)phys, via->text, o->signature,
			  (unsigned long long)o->phys);
		dir->nr_duplicates++;
		return false;
	}
	if (dir->nr_tables == ACPI_MAX_TABLES) {
		walk_warn(w, "ACPI: %s 0x%016llX (%s): more than %u tables; not listed",
			  sig, (unsigned long long)phys, via->text, ACPI_MAX_TABLES);
		dir->nr_dropped++;
		return false;
	}
	t = &dir->tables[dir->nr_tables++];
	memcpy(t->signature, sig, sizeof(sig));
	acpi_copy_name(t->oem_id, h->oem_id, sizeof(h->oem_id));
	acpi_copy_name(t->oem_table_id, h->oem_table_id, sizeof(h->oem_table_id));
	acpi_copy_name(t->creator_id, h->creator_id, sizeof(h->creator_id));
	t->revision = h->revision;
	t->oem_revision = h->oem_revision;
	t->creator_revision = h->creator_revision;
	t->phys = phys;
	t->length = h->length;
	t->source = (uint8_t)src;
	t->bytes = bytes;
	return true;
}

/* The FACS: signature and length only; it has no checksum. */
static void add_facs(struct walk *w, uint64_t phys, const struct via *via)
{
	struct acpi_sdt_header h;
	const uint8_t *p;
	uint32_t length;

	p = walk_map(w, phys, 8);
	if (!p) {
		walk_warn(w, "ACPI: FACS at 0x%016llX (%s) is not mapped; skipped",
			  (unsigned long long)phys, via->text);
		w->dir->nr_skipped++;
		return;
	}
	length = get_u32(p + 4);
	if (memcmp(p, "FACS", 4) != 0 || length < ACPI_FACS_MIN_BYTES) {
		walk_warn(w, "ACPI: FACS 0x%016llX (%s): bad signature or length 0x%X; skipped",
			  (unsigned long long)phys, via->text, length);
		w->dir->nr_skipped++;
		return;
	}
	p = walk_map(w, phys, length);
	if (!p) {
		walk_warn(w, "ACPI: FACS 0x%016llX (%s): length 0x%X runs past mapped memory; skipped",
			  (unsigned long long)phys, via->text, length);
		w->dir->nr_skipped++;
		return;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.signature, "FACS", 4);
	h.length = length;
	h.revision = p[32];          /* FACS version */
	add_table(w, phys, p, &h, ACPI_SRC_FADT, via);
}

/* The DSDT and FACS the FADT points to. */
static void add_fadt_tables(struct walk *w, const uint8_t *fadt, uint32_t len)
{
	struct acpi_sdt_header h;
	struct via via;
	uint64_t dsdt = 0, facs = 0;
	const char *dsdt_field = "FACP.DSDT", *facs_field = "FACP.FIRMWARE_CTRL";
	const uint8_t *p;

	if (len >= ACPI_FADT_DSDT + 4)
		dsdt = get_u32(fadt + ACPI_FADT_DSDT);
	if (len >= ACPI_FADT_X_DSDT + 8 && get_u64(fadt + ACPI_FADT_X_DSDT)) {
		dsdt = get_u64(fadt + ACPI_FADT_X_DSDT);
		dsdt_field = "FACP.X_DSDT";
	}
	if (len >= ACPI_FADT_FIRMWARE_CTRL + 4)
		facs = get_u32(fadt + ACPI_FADT_FIRMWARE_CTRL);
	if (len >= ACPI_FADT_X_FIRMWARE_CTRL + 8 && get_u64(fadt + ACPI_FADT_X_FIRMWARE_CTRL)) {
		facs = get_u64(fadt + ACPI_FADT_X_FIRMWARE_CTRL);
		facs_field = "FACP.X_FIRMWARE_CTRL";
	}
	if (dsdt) {
		via_format(&via, dsdt_field, -1);
		p = load_sdt(w, dsdt, "DSDT", &via, &h);
		if (p)
			add_table(w, dsdt, p, &h, ACPI_SRC_FADT, &via);
		else
			w->dir->nr_skipped++;
	}
	if (facs) {
		via_format(&via, facs_field, -1);
		add_facs(w, facs, &via);
	}
}

int acpi_walk(struct acpi_tables *dir, const void *rsdp, size_t rsdp_len,
	      uint64_t rsdp_phys, acpi_map_fn map, void *ctx, unsigned flags)
{
	struct walk w = { .dir = dir, .map = map, .ctx = ctx, .flags = flags };
	struct acpi_sdt_header h;
	const uint8_t *root = NULL;
	uint64_t root_phys = 0;
	uint32_t width, nr_entries;
	struct via via;
	bool fadt_done = false;
	int ret;

	memset(dir, 0, sizeof(*dir));
	dir->rsdp_phys = rsdp_phys;
	ret = acpi_rsdp_parse(rsdp, rsdp_len, flags, &dir->rsdp);
	if (ret != ACPI_OK)
		return ret;
	dir->rsdp_bytes_len = rsdp_len < sizeof(dir->rsdp_bytes) ? (uint32_t)rsdp_len
								 : sizeof(dir->rsdp_bytes);
	memcpy(dir->rsdp_bytes, rsdp, dir->rsdp_bytes_len);

	via_format(&via, "RSDP", -1);
	if (dir->rsdp.xsdt_phys) {
		root = load_sdt(&w, dir->rsdp.xsdt_phys, "XSDT", &via, &h);
		if (root) {
			root_phys = dir->rsdp.xsdt_phys;
			dir->root_is_xsdt = true;
		} else if (dir->rsdp.rsdt_phys) {
			dir->nr_skipped++;
			pr_warn("ACPI: XSDT unusable; falling back to the RSDT at 0x%016llX",
				(unsigned long long)dir->rsdp.rsdt_phys);
		}
	}
	if (!root && dir->rsdp.rsdt_phys) {
		root = load_sdt(&w, dir->rsdp.rsdt_phys, "RSDT", &via, &h);
		root_phys = dir->rsdp.rsdt_phys;
	}
	if (!root) {
		pr_warn("ACPI: no usable RSDT or XSDT; no ACPI tables");
		return ACPI_ERR_ROOT;
	}
	add_table(&w, root_phys, root, &h, ACPI_SRC_RSDP, &via);

	width = dir->root_is_xsdt ? 8 : 4;
	nr_entries = (h.length - ACPI_SDT_HEADER_BYTES) / width;
	if ((h.length - ACPI_SDT_HEADER_BYTES) % width)
		walk_warn(&w, "ACPI: %s 0x%016llX: length 0x%X leaves %u bytes that are not a whole entry; ignored",
			  dir->tables[0].signature, (unsigned long long)root_phys,
			  h.length, (h.length - ACPI_SDT_HEADER_BYTES) % width);

	for (uint32_t i = 0; i < nr_entries; i++) {
		const uint8_t *e = root + ACPI_SDT_HEADER_BYTES + (size_t)i * width;
		uint64_t phys = width == 8 ? get_u64(e) : get_u32(e);
		struct acpi_sdt_header th;
		const uint8_t *p;

		via_format(&via, dir->tables[0].signature, (long)i);
		p = load_sdt(&w, phys, NULL, &via, &th);
		if (!p) {
			dir->nr_skipped++;
			continue;
		}
		if (!add_table(&w, phys, p, &th, ACPI_SRC_ROOT, &via))
			continue;
		if (!fadt_done && memcmp(th.signature, "FACP", 4) == 0) {
			fadt_done = true;
			add_fadt_tables(&w, p, th.length);
		}
	}
	return ACPI_OK;
}

const struct acpi_table_info *acpi_tables_find_next(const struct acpi_tables *dir,
						    const char *sig,
						    const struct acpi_table_info *prev)
{
	uint32_t i = prev ? (uint32_t)(prev - dir->tables) + 1 : 0;

	for (; i < dir->nr_tables; i++)
		if (strncmp(dir->tables[i].signature, sig, 4) == 0)
			return &dir->tables[i];
	return NULL;
}

const struct acpi_table_info *acpi_tables_find(const struct acpi_tables *dir,
					       const char *sig)
{
	return acpi_tables_find_next(dir, sig, NULL);
}

void acpi_print_tables(const struct acpi_tables *dir)
{
	pr_info("ACPI: RSDP 0x%016llX %06X (v%02u %-6.6s)",
		(unsigned long long)dir->rsdp_phys, dir->rsdp.length,
		dir->rsdp.revision, dir->rsdp.oem_id);
	for (uint32_t i = 0; i < dir->nr_tables; i++) {
		const struct acpi_table_info *t = &dir->tables[i];

		if (strcmp(t->signature, "FACS") == 0) {
			pr_info("ACPI: FACS 0x%016llX %06X", (unsigned long long)t->phys,
				t->length);
			continue;
		}
		pr_info("ACPI: %-4.4s 0x%016llX %06X (v%02u %-6.6s %-8.8s %08X %-4.4s %08X)",
			t->signature, (unsigned long long)t->phys, t->length,
			t->revision, t->oem_id, t->oem_table_id, t->oem_revision,
			t->creator_id, t->creator_revision);
	}
}

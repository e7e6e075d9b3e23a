/*
 * test_acpi.c: kernel/firmware/acpi parsers on built and on captured tables.
 *
 * Two kinds of input:
 *  - tables built here, field by field at the offsets the ACPI specification
 *    gives (deliberately not through the structures in acpi_internal.h, so a
 *    wrong layout there shows up as a failure), shaped like QEMU's and then
 *    broken in the ways firmware breaks them;
 *  - tables QEMU's firmware really built (the .acpidump files in tests/host/fixtures/acpi/,
 *    made by capture-qemu.sh), read back with acpi_parse_acpidump_text() and
 *    walked as if they were memory.
 * Warnings are part of the contract: tests count them and match their text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tools/topo/acpidump_text.h"
#include "tests/host/host_support.h"

/* ---- table builders ---- */

#define TABLE_CAP (512 * 1024)   /* 16384 x2APIC entries and more */

struct table {
	uint8_t b[TABLE_CAP];
	size_t len;
};

static void put8(uint8_t *p, size_t off, uint8_t v) { p[off] = v; }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

static uint8_t sum_bytes(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

/* Header as QEMU writes it; @fixed bytes (header and fixed part) zeroed. */
static void sdt_begin(struct table *t, const char *sig, uint8_t rev, size_t fixed)
{
	memset(t->b, 0, fixed);
	memcpy(t->b, sig, 4);
	put8(t->b, 8, rev);
	memcpy(t->b + 10, "BOCHS ", 6);
	memcpy(t->b + 16, "BXPC    ", 8);
	put32(t->b, 24, 1);
	memcpy(t->b + 28, "BXPC", 4);
	put32(t->b, 32, 1);
	t->len = fixed;
}

/* Set the length field to what was built and fix the checksum. */
static struct table *sdt_finish(struct table *t)
{
	put32(t->b, 4, (uint32_t)t->len);
	put8(t->b, 9, 0);
	put8(t->b, 9, (uint8_t)-sum_bytes(t->b, t->len));
	return t;
}

static uint8_t *append(struct table *t, size_t n)
{
	uint8_t *p = t->b + t->len;
	assert_true(t->len + n <= TABLE_CAP);
	memset(p, 0, n);
	t->len += n;
	return p;
}

static struct table *table_new(void)
{
	struct table *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	return t;
}

/* MADT */
static struct table *madt_begin(uint8_t rev)
{
	struct table *t = table_new();
	sdt_begin(t, "APIC", rev, 44);
	put32(t->b, 36, 0xfee00000);
	put32(t->b, 40, 1);
	return t;
}

static void madt_lapic(struct table *t, uint8_t uid, uint8_t apic, uint32_t flags)
{
	uint8_t *e = append(t, 8);
	e[0] = 0; e[1] = 8; e[2] = uid; e[3] = apic;
	put32(e, 4, flags);
}

static void madt_x2apic(struct table *t, uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t *e = append(t, 16);
	e[0] = 9; e[1] = 16;
	put32(e, 4, id);
	put32(e, 8, flags);
	put32(e, 12, uid);
}

static void madt_ioapic(struct table *t, uint8_t id, uint32_t addr)
{
	uint8_t *e = append(t, 12);
	e[0] = 1; e[1] = 12; e[2] = id;
	put32(e, 4, addr);
}

static void madt_irq_override(struct table *t, uint8_t src, uint32_t gsi)
{
	uint8_t *e = append(t, 10);
	e[0] = 2; e[1] = 10; e[3] = src;
	put32(e, 4, gsi);
}

static void madt_lapic_nmi(struct table *t)
{
	uint8_t *e = append(t, 6);
	e[0] = 4; e[1] = 6; e[2] = 0xff; e[5] = 1;
}

static void madt_nmi4(struct table *t, uint8_t uid, uint16_t flags, uint8_t lint)
{
	uint8_t *e = append(t, 6);
	e[0] = 4; e[1] = 6; e[2] = uid;
	memcpy(e + 3, &flags, 2);
	e[5] = lint;
}

static void madt_nmi_x2(struct table *t, uint32_t uid, uint16_t flags, uint8_t lint)
{
	uint8_t *e = append(t, 12);
	e[0] = 0xa; e[1] = 12;
	memcpy(e + 2, &flags, 2);
	put32(e, 4, uid);
	e[8] = lint;
}

static void madt_override(struct table *t, uint64_t addr)
{
	uint8_t *e = append(t, 12);
	e[0] = 5; e[1] = 12;
	put64(e, 4, addr);
}

/* SRAT */
static struct table *srat_begin(uint8_t rev)
{
	struct table *t = table_new();
	sdt_begin(t, "SRAT", rev, 48);
	put32(t->b, 36, 1);
	return t;
}

static void srat_cpu(struct table *t, uint32_t pxm, uint8_t apic, uint32_t flags)
{
	uint8_t *e = append(t, 16);
	e[0] = 0; e[1] = 16;
	e[2] = (uint8_t)pxm;
	e[3] = apic;
	put32(e, 4, flags);
	e[9] = (uint8_t)(pxm >> 8);
	e[10] = (uint8_t)(pxm >> 16);
	e[11] = (uint8_t)(pxm >> 24);
}

static void srat_x2apic(struct table *t, uint32_t pxm, uint32_t id, uint32_t flags)
{
	uint8_t *e = append(t, 24);
	e[0] = 2; e[1] = 24;
	put32(e, 4, pxm);
	put32(e, 8, id);
	put32(e, 12, flags);
}

static void srat_mem(struct table *t, uint32_t pxm, uint64_t base, uint64_t len,
		     uint32_t flags)
{
	uint8_t *e = append(t, 40);
	e[0] = 1; e[1] = 40;
	put32(e, 2, pxm);
	put64(e, 8, base);
	put64(e, 16, len);
	put32(e, 28, flags);
}

/* SLIT */
static struct table *slit_build(uint64_t n_field, const uint8_t *dist, size_t n)
{
	struct table *t = table_new();
	sdt_begin(t, "SLIT", 1, 44);
	put64(t->b, 36, n_field);
	memcpy(append(t, n * n), dist, n * n);
	return sdt_finish(t);
}

/* QEMU q35, 2 nodes: CPUs 0,1 in PXM 0 and 2,3 in PXM 1, 2 GiB each. */
static struct table *q35_srat(void)
{
	struct table *t = srat_begin(1);
	srat_cpu(t, 0, 0, 1);
	srat_cpu(t, 0, 1, 1);
	srat_cpu(t, 1, 2, 1);
	srat_cpu(t, 1, 3, 1);
	srat_mem(t, 0, 0, 0xa0000, 1);
	srat_mem(t, 0, 0x100000, 0x7ff00000, 1);
	srat_mem(t, 1, 0x100000000, 0x80000000, 1);
	srat_mem(t, 0, 0, 0, 0);           /* q35's empty, disabled entry */
	return sdt_finish(t);
}

static struct table *q35_madt(const uint8_t *ids, const uint32_t *flags, size_t n)
{
	struct table *t = madt_begin(1);
	for (size_t i = 0; i < n; i++)
		madt_lapic(t, (uint8_t)i, ids[i], flags ? flags[i] : 1);
	madt_ioapic(t, 0, 0xfec00000);
	madt_irq_override(t, 0, 2);
	madt_irq_override(t, 5, 5);
	madt_lapic_nmi(t);
	return sdt_finish(t);
}

/* ---- a physical memory image for acpi_walk() ---- */

#define IMAGE_REGIONS 256
#define IMAGE_ARENA (512 * 1024)

struct image {
	struct {
		uint64_t phys;
		size_t len;
		uint8_t *bytes;
	} r[IMAGE_REGIONS];
	size_t nr;
	uint8_t arena[IMAGE_ARENA];
	size_t used;
	uint8_t rsdp[36];
	size_t rsdp_len;
	uint64_t rsdp_phys;
	unsigned nr_maps;
};

static struct image *image_new(void)
{
	struct image *img = calloc(1, sizeof(*img));
	assert_non_null(img);
	return img;
}

static uint8_t *image_place(struct image *img, uint64_t phys, const void *bytes, size_t len)
{
	uint8_t *p = img->arena + img->used;

	assert_true(img->nr < IMAGE_REGIONS);
	assert_true(img->used + len <= IMAGE_ARENA);
	memcpy(p, bytes, len);
	img->used += len;
	img->r[img->nr].phys = phys;
	img->r[img->nr].len = len;
	img->r[img->nr].bytes = p;
	img->nr++;
	return p;
}

static uint8_t *image_put(struct image *img, uint64_t phys, const struct table *t)
{
	return image_place(img, phys, t->b, t->len);
}

/* acpi_map_fn: whole ranges inside one placed region, else NULL. */
static const void *image_map(void *ctx, uint64_t phys, size_t len)
{
	struct image *img = ctx;

	img->nr_maps++;
	for (size_t i = 0; i < img->nr; i++) {
		uint64_t base = img->r[i].phys;
		if (phys >= base && phys - base <= img->r[i].len &&
		    len <= img->r[i].len - (phys - base))
			return img->r[i].bytes + (phys - base);
	}
	return NULL;
}

static void rsdp_build(uint8_t out[36], uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	memset(out, 0, 36);
	memcpy(out, "RSD PTR ", 8);
	memcpy(out + 9, "BOCHS ", 6);
	out[15] = rev;
	put32(out, 16, rsdt);
	out[8] = (uint8_t)-sum_bytes(out, 20);
	if (rev >= 2) {
		put32(out, 20, 36);
		put64(out, 24, xsdt);
		out[32] = (uint8_t)-sum_bytes(out, 36);
	}
}

static struct table *root_build(const char *sig, const uint64_t *addrs, size_t n)
{
	struct table *t = table_new();
	size_t w = sig[0] == 'X' ? 8 : 4;

	sdt_begin(t, sig, 1, 36);
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = append(t, w);
		if (w == 8)
			put64(e, 0, addrs[i]);
		else
			put32(e, 0, (uint32_t)addrs[i]);
	}
	return sdt_finish(t);
}

/* A q35-like FADT: revision 3, 244 bytes, FACS at 36, DSDT at 40 and 140. */
static struct table *fadt_build(uint8_t rev, size_t len, uint32_t facs, uint32_t dsdt,
				uint64_t x_dsdt)
{
	struct table *t = table_new();
	sdt_begin(t, "FACP", rev, len);
	put32(t->b, 36, facs);
	put32(t->b, 40, dsdt);
	if (len >= 148)
		put64(t->b, 140, x_dsdt);
	return sdt_finish(t);
}

static struct table *dsdt_build(void)
{
	struct table *t = table_new();
	sdt_begin(t, "DSDT", 1, 36);
	memcpy(append(t, 8), "\x10\x05\\_SB_", 8);
	return sdt_finish(t);
}

static struct table *other_build(const char *sig, size_t len)
{
	struct table *t = table_new();
	sdt_begin(t, sig, 1, len);
	return sdt_finish(t);
}

static void facs_place(struct image *img, uint64_t phys)
{
	uint8_t facs[64] = "FACS";
	put32(facs, 4, 64);
	facs[32] = 2;
	image_place(img, phys, facs, sizeof(facs));
}

/* The q35 NUMA set at SeaBIOS-like (odd) addresses, behind an RSDT (v1 RSDP). */
#define Q35_RSDP 0xf5970
#define Q35_RSDT 0x7ffe250b
#define Q35_FACP 0x7ffe21ab
#define Q35_DSDT 0x7ffe0040
#define Q35_FACS 0x7ffe0000
#define Q35_APIC 0x7ffe229f
#define Q35_SRAT 0x7ffe2367
#define Q35_SLIT 0x7ffe2477
#define Q35_MCFG 0x7ffe24a7

static const uint8_t slit_2x2[] = { 10, 21, 21, 10 };
static const uint8_t q35_ids[] = { 0, 1, 2, 3 };

static struct image *q35_image(void)
{
	struct image *img = image_new();
	uint64_t entries[] = { Q35_FACP, Q35_APIC, Q35_SRAT, Q35_SLIT, Q35_MCFG };
	struct table *t;

	rsdp_build(img->rsdp, 0, Q35_RSDT, 0);
	img->rsdp_len = 20;
	img->rsdp_phys = Q35_RSDP;
	image_place(img, Q35_RSDP, img->rsdp, 20);
	image_put(img, Q35_RSDT, t = root_build("RSDT", entries, 5)); free(t);
	image_put(img, Q35_FACP, t = fadt_build(3, 244, Q35_FACS, Q35_DSDT, Q35_DSDT)); free(t);
	image_put(img, Q35_DSDT, t = dsdt_build()); free(t);
	facs_place(img, Q35_FACS);
	image_put(img, Q35_APIC, t = q35_madt(q35_ids, NULL, 4)); free(t);
	image_put(img, Q35_SRAT, t = q35_srat()); free(t);
	image_put(img, Q35_SLIT, t = slit_build(2, slit_2x2, 2)); free(t);
	image_put(img, Q35_MCFG, t = other_build("MCFG", 60)); free(t);
	return img;
}

static int walk(struct acpi_tables *dir, struct image *img, unsigned flags)
{
	return acpi_walk(dir, img->rsdp, img->rsdp_len, img->rsdp_phys, image_map, img, flags);
}

/* Find a region placed at @phys, to break it after the fact. */
static uint8_t *image_at(struct image *img, uint64_t phys)
{
	for (size_t i = 0; i < img->nr; i++)
		if (img->r[i].phys == phys)
			return img->r[i].bytes;
	fail_msg("nothing placed at 0x%llx", (unsigned long long)phys);
	return NULL;
}

static void refix_checksum(uint8_t *table)
{
	uint32_t len;
	memcpy(&len, table + 4, 4);
	table[9] = 0;
	table[9] = (uint8_t)-sum_bytes(table, len);
}

static void assert_sigs(const struct acpi_tables *dir, const char *const *sigs, size_t n)
{
	assert_int_equal(dir->nr_tables, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(dir->tables[i].signature, sigs[i]);
}

static int reset_log(void **state)
{
	host_log_reset();
	return 0;
}

/* ---- checksum and RSDP ---- */

static void test_checksum(void **state)
{
	struct table *t = other_build("WAET", 40);

	assert_int_equal(acpi_checksum(t->b, t->len), 0);
	t->b[20] ^= 1;
	assert_int_not_equal(acpi_checksum(t->b, t->len), 0);
	assert_int_equal(acpi_checksum(NULL, 0), 0);
	free(t);
}

static void test_rsdp_v1_and_v2(void **state)
{
	struct acpi_rsdp_info info;
	uint8_t r[36];

	rsdp_build(r, 0, 0x7ffe250b, 0);
	assert_int_equal(acpi_rsdp_parse(r, 20, 0, &info), ACPI_OK);
	assert_int_equal(info.revision, 0);
	assert_int_equal(info.length, 20);
	assert_int_equal(info.rsdt_phys, 0x7ffe250b);
	assert_int_equal(info.xsdt_phys, 0);
	assert_string_equal(info.oem_id, "BOCHS ");

	rsdp_build(r, 2, 0x7f77c074, 0x7f77c0e8);
	assert_int_equal(acpi_rsdp_parse(r, 36, 0, &info), ACPI_OK);
	assert_int_equal(info.revision, 2);
	assert_int_equal(info.length, 36);
	assert_int_equal(info.xsdt_phys, 0x7f77c0e8);
	assert_int_equal(host_log_count(LOG_WARN), 0);

	/* A v2 RSDP of which the boot path copied only 20 bytes: RSDT only. */
	assert_int_equal(acpi_rsdp_parse(r, 20, 0, &info), ACPI_OK);
	assert_int_equal(info.xsdt_phys, 0);
	assert_int_equal(info.rsdt_phys, 0x7f77c074);
	assert_true(host_log_contains("ACPI: RSDP revision 2 but only 20 bytes were copied; using the RSDT"));
}

static void test_rsdp_bad(void **state)
{
	struct acpi_rsdp_info info;
	uint8_t r[36];

	rsdp_build(r, 0, 0x1000, 0);
	r[16] ^= 0x40;
	assert_int_equal(acpi_rsdp_parse(r, 20, 0, &info), ACPI_ERR_RSDP);
	assert_true(host_log_contains("ACPI: RSDP has a bad checksum (sum 0x40 over 20 bytes); no ACPI tables"));
	assert_int_equal(acpi_rsdp_parse(r, 20, ACPI_WALK_IGNORE_CHECKSUMS, &info), ACPI_OK);
	assert_int_equal(info.rsdt_phys, 0x1000 ^ 0x40);

	rsdp_build(r, 0, 0x1000, 0);
	r[0] = 'X';
	r[8]--;           /* keep the checksum right: only the signature is bad */
	host_log_reset();
	assert_int_equal(acpi_rsdp_parse(r, 20, 0, &info), ACPI_ERR_RSDP);
	assert_true(host_log_contains("ACPI: RSDP signature is not 'RSD PTR '"));

	host_log_reset();
	assert_int_equal(acpi_rsdp_parse(r, 19, 0, &info), ACPI_ERR_RSDP);
	assert_int_equal(acpi_rsdp_parse(NULL, 36, 0, &info), ACPI_ERR_RSDP);
	assert_int_equal(host_log_count(LOG_WARN), 2);

	/* v2 with a bad extended checksum: falls back to the RSDT. */
	rsdp_build(r, 2, 0x2000, 0x3000);
	r[33] = 1;
	host_log_reset();
	assert_int_equal(acpi_rsdp_parse(r, 36, 0, &info), ACPI_OK);
	assert_int_equal(info.xsdt_phys, 0);
	assert_int_equal(info.rsdt_phys, 0x2000);
	assert_true(host_log_contains("ACPI: RSDP has a bad extended checksum (sum 0x01 over 36 bytes); using the RSDT"));

	/* v2 with a length field that does not fit the copy. */
	rsdp_build(r, 2, 0x2000, 0x3000);
	put32(r, 20, 40);
	r[32] = 0;
	r[32] = (uint8_t)-sum_bytes(r, 36);
	host_log_reset();
	assert_int_equal(acpi_rsdp_parse(r, 36, 0, &info), ACPI_OK);
	assert_int_equal(info.xsdt_phys, 0);
	assert_true(host_log_contains("ACPI: RSDP length field 40 is not the 36 bytes copied; using the RSDT"));
}

/* ---- the walk ---- */

static void test_walk_rsdt_q35(void **state)
{
	static const char *const sigs[] = { "RSDT", "FACP", "DSDT", "FACS", "APIC", "SRAT",
					    "SLIT", "MCFG" };
	static struct acpi_tables dir;
	struct image *img = q35_image();
	const struct acpi_table_info *t;
	static struct acpi_madt_info madt;

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_false(dir.root_is_xsdt);
	assert_sigs(&dir, sigs, 8);
	assert_int_equal(dir.nr_skipped, 0);
	assert_int_equal(dir.nr_duplicates, 0);

	assert_int_equal(dir.tables[0].phys, Q35_RSDT);
	assert_int_equal(dir.tables[0].length, 36 + 5 * 4);
	assert_int_equal(dir.tables[0].source, ACPI_SRC_RSDP);
	assert_int_equal(dir.tables[2].phys, Q35_DSDT);
	assert_int_equal(dir.tables[2].source, ACPI_SRC_FADT);
	assert_int_equal(dir.tables[3].phys, Q35_FACS);
	assert_int_equal(dir.tables[3].length, 64);
	assert_int_equal(dir.tables[3].revision, 2);

	t = acpi_tables_find(&dir, "APIC");
	assert_non_null(t);
	assert_int_equal(t->phys, Q35_APIC);
	assert_int_equal(t->source, ACPI_SRC_ROOT);
	assert_string_equal(t->oem_id, "BOCHS ");
	assert_string_equal(t->oem_table_id, "BXPC    ");
	assert_ptr_equal(t->bytes, image_at(img, Q35_APIC));
	assert_true(acpi_madt_parse(t->bytes, t->length, &madt));
	assert_int_equal(madt.nr_cpus, 4);
	assert_null(acpi_tables_find(&dir, "HMAT"));
	assert_null(acpi_tables_find_next(&dir, "APIC", t));

	acpi_print_tables(&dir);
	assert_int_equal(host_log_count(LOG_INFO), 9);
	assert_true(host_log_contains("ACPI: RSDP 0x00000000000F5970 000014 (v00 BOCHS )"));
	assert_true(host_log_contains("ACPI: RSDT 0x000000007FFE250B 000038 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"));
	assert_true(host_log_contains("ACPI: FACP 0x000000007FFE21AB 0000F4 (v03 BOCHS  BXPC     00000001 BXPC 00000001)"));
	assert_true(host_log_contains("ACPI: FACS 0x000000007FFE0000 000040"));
	free(img);
}

#define XSDT_PHYS 0x7f77c0e8
#define XSDT_RSDT 0x7f77c074

static struct image *xsdt_image(void)
{
	struct image *img = image_new();
	uint64_t x[] = { 0x7f778000, 0x7f777000, 0x17f775000, 0x7f771000 };
	uint64_t r[] = { 0x7f778000, 0x7f777000 };
	struct table *t;

	rsdp_build(img->rsdp, 2, XSDT_RSDT, XSDT_PHYS);
	img->rsdp_len = 36;
	img->rsdp_phys = 0x7f77d014;
	image_put(img, XSDT_PHYS, t = root_build("XSDT", x, 4)); free(t);
	image_put(img, XSDT_RSDT, t = root_build("RSDT", r, 2)); free(t);
	/* X_DSDT wins over a different 32-bit DSDT. */
	image_put(img, 0x7f778000, t = fadt_build(3, 244, 0x7f7dc000, 0x7f700000, 0x7f779000)); free(t);
	image_put(img, 0x7f779000, t = dsdt_build()); free(t);
	facs_place(img, 0x7f7dc000);
	image_put(img, 0x7f777000, t = q35_madt(q35_ids, NULL, 4)); free(t);
	image_put(img, 0x17f775000, t = q35_srat()); free(t);     /* above 4 GiB */
	image_put(img, 0x7f771000, t = other_build("BGRT", 56)); free(t);
	return img;
}

static void test_walk_xsdt(void **state)
{
	static const char *const sigs[] = { "XSDT", "FACP", "DSDT", "FACS", "APIC", "SRAT",
					    "BGRT" };
	static struct acpi_tables dir;
	struct image *img = xsdt_image();

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_true(dir.root_is_xsdt);
	assert_sigs(&dir, sigs, 7);
	assert_int_equal(dir.tables[0].phys, XSDT_PHYS);
	assert_int_equal(dir.tables[2].phys, 0x7f779000);
	assert_int_equal(acpi_tables_find(&dir, "SRAT")->phys, 0x17f775000);

	acpi_print_tables(&dir);
	assert_true(host_log_contains("ACPI: RSDP 0x000000007F77D014 000024 (v02 BOCHS )"));
	assert_true(host_log_contains("ACPI: XSDT 0x000000007F77C0E8 000044 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"));
	assert_true(host_log_contains("ACPI: SRAT 0x000000017F775000 000110 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"));
	free(img);
}

static void test_walk_xsdt_broken_falls_back_to_rsdt(void **state)
{
	static const char *const sigs[] = { "RSDT", "FACP", "DSDT", "FACS", "APIC" };
	static struct acpi_tables dir;
	struct image *img = xsdt_image();

	image_at(img, XSDT_PHYS)[40] ^= 0xff;
	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_false(dir.root_is_xsdt);
	assert_sigs(&dir, sigs, 5);
	assert_int_equal(host_log_count(LOG_WARN), 2);
	assert_true(host_log_contains("ACPI: XSDT 0x000000007F77C0E8 (RSDP): bad checksum (sum 0xFF over 0x44 bytes); skipped"));
	assert_true(host_log_contains("ACPI: XSDT unusable; falling back to the RSDT at 0x000000007F77C074"));
	free(img);
}

static void test_walk_no_root(void **state)
{
	static struct acpi_tables dir;
	struct image *img = q35_image();

	image_at(img, Q35_RSDT)[0] = 'X';      /* "XSDT" where the RSDT should be */
	refix_checksum(image_at(img, Q35_RSDT));
	assert_int_equal(walk(&dir, img, 0), ACPI_ERR_ROOT);
	assert_int_equal(dir.nr_tables, 0);
	assert_true(host_log_contains("ACPI: XSDT 0x000000007FFE250B (RSDP): signature is not RSDT; skipped"));
	assert_true(host_log_contains("ACPI: no usable RSDT or XSDT; no ACPI tables"));

	host_log_reset();
	img->rsdp[8] ^= 1;
	assert_int_equal(walk(&dir, img, 0), ACPI_ERR_RSDP);
	assert_int_equal(dir.nr_tables, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: RSDP has a bad checksum"));
	free(img);
}

static void test_walk_bad_checksum_skipped(void **state)
{
	static const char *const sigs[] = { "RSDT", "FACP", "DSDT", "FACS", "APIC", "SLIT",
					    "MCFG" };
	static struct acpi_tables dir;
	struct image *img = q35_image();

	image_at(img, Q35_SRAT)[60] ^= 0x10;
	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_sigs(&dir, sigs, 7);
	assert_int_equal(dir.nr_skipped, 1);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: SRAT 0x000000007FFE2367 (RSDT[2]): bad checksum (sum 0x10 over 0x110 bytes); skipped"));

	/* Checksums not enforced: used, still warned once. */
	host_log_reset();
	assert_int_equal(walk(&dir, img, ACPI_WALK_IGNORE_CHECKSUMS), ACPI_OK);
	assert_int_equal(dir.nr_tables, 8);
	assert_int_equal(dir.nr_skipped, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: SRAT 0x000000007FFE2367 (RSDT[2]): bad checksum (sum 0x10 over 0x110 bytes); used anyway"));
	free(img);
}

static void test_walk_bad_entries(void **state)
{
	static const char *const sigs[] = { "RSDT", "APIC", "HPET" };
	static struct acpi_tables dir;
	struct image *img = image_new();
	/* null, unmapped, length past the mapped end, length below 36, good, good */
	uint64_t e[] = { 0, 0x5000000, 0x100000, 0x200000, Q35_APIC, 0x300000 };
	struct table *t;
	uint8_t *p;

	rsdp_build(img->rsdp, 0, 0x7000, 0);
	img->rsdp_len = 20;
	image_put(img, 0x7000, t = root_build("RSDT", e, 6)); free(t);
	t = other_build("SSDT", 100);
	image_place(img, 0x100000, t->b, 64);   /* only 64 of its 100 bytes mapped */
	free(t);
	t = other_build("TPM2", 36);
	p = image_put(img, 0x200000, t);
	put32(p, 4, 20);
	refix_checksum(p);
	free(t);
	image_put(img, Q35_APIC, t = q35_madt(q35_ids, NULL, 4)); free(t);
	image_put(img, 0x300000, t = other_build("HPET", 56)); free(t);

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_sigs(&dir, sigs, 3);
	assert_int_equal(dir.nr_skipped, 4);
	assert_int_equal(host_log_count(LOG_WARN), 4);
	assert_true(host_log_contains("ACPI: RSDT[0] is a null pointer; skipped"));
	assert_true(host_log_contains("ACPI: table at 0x0000000005000000 (RSDT[1]) is not mapped; skipped"));
	assert_true(host_log_contains("ACPI: SSDT 0x0000000000100000 (RSDT[2]): length 0x64 runs past mapped memory; skipped"));
	assert_true(host_log_contains("ACPI: TPM2 0x0000000000200000 (RSDT[3]): header length 20 is below 36; skipped"));
	free(img);
}

static void test_walk_root_trailing_bytes(void **state)
{
	static struct acpi_tables dir;
	struct image *img = image_new();
	uint64_t e[] = { 0x300000 };
	struct table *t;

	rsdp_build(img->rsdp, 2, 0, 0x7000);
	img->rsdp_len = 36;
	t = root_build("XSDT", e, 1);
	append(t, 3);
	sdt_finish(t);
	image_put(img, 0x7000, t); free(t);
	image_put(img, 0x300000, t = other_build("HPET", 56)); free(t);

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(dir.nr_tables, 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: XSDT 0x0000000000007000: length 0x2F leaves 3 bytes that are not a whole entry; ignored"));
	free(img);
}

static void test_walk_duplicates(void **state)
{
	static const char *const sigs[] = { "RSDT", "APIC", "SSDT", "SSDT" };
	static struct acpi_tables dir;
	struct image *img = image_new();
	uint64_t e[] = { 0x10000, 0x20000, 0x30000, 0x40000, 0x30000 };
	const struct acpi_table_info *t1, *t2;
	static struct acpi_madt_info madt;
	static const uint8_t other_ids[] = { 8, 9 };
	struct table *t;

	rsdp_build(img->rsdp, 0, 0x7000, 0);
	img->rsdp_len = 20;
	image_put(img, 0x7000, t = root_build("RSDT", e, 5)); free(t);
	image_put(img, 0x10000, t = q35_madt(q35_ids, NULL, 4)); free(t);
	image_put(img, 0x20000, t = q35_madt(other_ids, NULL, 2)); free(t);
	image_put(img, 0x30000, t = other_build("SSDT", 40)); free(t);
	image_put(img, 0x40000, t = other_build("SSDT", 50)); free(t);

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_sigs(&dir, sigs, 4);
	assert_int_equal(dir.nr_duplicates, 2);
	assert_int_equal(host_log_count(LOG_WARN), 2);
	assert_true(host_log_contains("ACPI: APIC 0x0000000000020000 (RSDT[1]): duplicate of the APIC at 0x0000000000010000; ignored"));
	assert_true(host_log_contains("ACPI: SSDT 0x0000000000030000 (RSDT[4]): duplicate of the SSDT at 0x0000000000030000; ignored"));

	t1 = acpi_tables_find(&dir, "APIC");
	assert_true(acpi_madt_parse(t1->bytes, t1->length, &madt));
	assert_int_equal(madt.nr_cpus, 4);           /* the first one won */
	t1 = acpi_tables_find(&dir, "SSDT");
	t2 = acpi_tables_find_next(&dir, "SSDT", t1);
	assert_int_equal(t1->phys, 0x30000);
	assert_int_equal(t2->phys, 0x40000);
	assert_null(acpi_tables_find_next(&dir, "SSDT", t2));
	free(img);
}

static void test_walk_full_directory(void **state)
{
	static struct acpi_tables dir;
	struct image *img = image_new();
	uint64_t e[70];
	struct table *t = other_build("SSDT", 36);

	for (size_t i = 0; i < 70; i++) {
		e[i] = 0x100000 + i * 0x1000;
		image_put(img, e[i], t);
	}
	free(t);
	rsdp_build(img->rsdp, 0, 0x7000, 0);
	img->rsdp_len = 20;
	image_put(img, 0x7000, t = root_build("RSDT", e, 70)); free(t);

	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(dir.nr_tables, ACPI_MAX_TABLES);
	assert_int_equal(dir.nr_dropped, 70 - 63);
	assert_int_equal(dir.tables[63].phys, 0x100000 + 62 * 0x1000);
	assert_int_equal(host_log_count(LOG_WARN), 7);
	assert_true(host_log_contains("ACPI: SSDT 0x0000000000145000 (RSDT[69]): more than 64 tables; not listed"));
	free(img);
}

static void test_walk_warnings_are_capped(void **state)
{
	static struct acpi_tables dir;
	struct image *img = image_new();
	uint64_t e[40] = { 0 };
	struct table *t;

	rsdp_build(img->rsdp, 0, 0x7000, 0);
	img->rsdp_len = 20;
	image_put(img, 0x7000, t = root_build("RSDT", e, 40)); free(t);
	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(dir.nr_tables, 1);
	assert_int_equal(dir.nr_skipped, 40);
	assert_int_equal(host_log_count(LOG_WARN), 17);
	assert_true(host_log_contains("ACPI: RSDT[15] is a null pointer; skipped"));
	assert_false(host_log_contains("ACPI: RSDT[16] is a null pointer"));
	assert_true(host_log_contains("ACPI: more than 16 table warnings; the rest are suppressed"));
	free(img);
}

static void test_walk_fadt_rev1(void **state)
{
	static const char *const sigs[] = { "RSDT", "FACP", "DSDT", "FACS" };
	static struct acpi_tables dir;
	struct image *img = image_new();
	uint64_t e[] = { 0x1ffe1958 };
	struct table *t;

	rsdp_build(img->rsdp, 0, 0x1ffe1aa4, 0);
	img->rsdp_len = 20;
	image_put(img, 0x1ffe1aa4, t = root_build("RSDT", e, 1)); free(t);
	image_put(img, 0x1ffe1958, t = fadt_build(1, 116, 0x1ffe0000, 0x1ffe0040, 0)); free(t);
	image_put(img, 0x1ffe0040, t = dsdt_build()); free(t);
	facs_place(img, 0x1ffe0000);
	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_sigs(&dir, sigs, 4);
	assert_int_equal(host_log_count(LOG_WARN), 0);

	/* A FADT whose DSDT pointer leads to something else. */
	image_at(img, 0x1ffe0040)[0] = 'S';
	refix_checksum(image_at(img, 0x1ffe0040));
	image_at(img, 0x1ffe0000)[0] = 'X';
	host_log_reset();
	assert_int_equal(walk(&dir, img, 0), ACPI_OK);
	assert_int_equal(dir.nr_tables, 2);
	assert_int_equal(dir.nr_skipped, 2);
	assert_true(host_log_contains("ACPI: SSDT 0x000000001FFE0040 (FACP.DSDT): signature is not DSDT; skipped"));
	assert_true(host_log_contains("ACPI: FACS 0x000000001FFE0000 (FACP.FIRMWARE_CTRL): bad signature or length 0x40; skipped"));
	free(img);
}

/* ---- MADT ---- */

static void assert_cpu(const struct acpi_cpu *c, uint32_t apic, uint32_t uid, bool enabled,
		       bool online_capable, bool x2apic)
{
	assert_int_equal(c->hwid, apic);
	assert_int_equal(c->acpi_uid, uid);
	assert_int_equal(c->enabled, enabled);
	assert_int_equal(c->online_capable, online_capable);
	assert_int_equal(c->ext_id, x2apic);
}

static void test_madt_q35(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = q35_madt(q35_ids, NULL, 4);

	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.lapic_phys, 0xfee00000);
	assert_int_equal(m.flags, 1);
	assert_int_equal(m.revision, 1);
	assert_int_equal(m.nr_entries, 8);
	assert_int_equal(m.nr_cpus, 4);
	assert_int_equal(m.nr_disabled, 0);
	assert_false(m.truncated);
	for (uint32_t i = 0; i < 4; i++)
		assert_cpu(&m.cpus[i], i, i, true, false, false);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_madt_smp6_sparse_ids(void **state)
{
	static const uint8_t ids[] = { 0, 1, 2, 4, 5, 6 };
	static struct acpi_madt_info m;
	struct table *t = q35_madt(ids, NULL, 6);

	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_cpus, 6);
	for (uint32_t i = 0; i < 6; i++)
		assert_cpu(&m.cpus[i], ids[i], i, true, false, false);
	free(t);
}

static void test_madt_maxcpus_disabled(void **state)
{
	static const uint32_t flags[] = { 1, 1, 0, 0 };
	static struct acpi_madt_info m;
	struct table *t = q35_madt(q35_ids, flags, 4);

	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.nr_disabled, 2);
	assert_cpu(&m.cpus[0], 0, 0, true, false, false);
	assert_cpu(&m.cpus[1], 1, 1, true, false, false);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_madt_online_capable(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(5);

	madt_lapic(t, 0, 0, 1);
	madt_lapic(t, 1, 1, 2);        /* online capable: usable later */
	madt_lapic(t, 2, 2, 0);        /* absent */
	madt_x2apic(t, 0x100, 2, 7);
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_cpus, 3);
	assert_int_equal(m.nr_disabled, 1);
	assert_cpu(&m.cpus[0], 0, 0, true, false, false);
	assert_cpu(&m.cpus[1], 1, 1, false, true, false);
	assert_cpu(&m.cpus[2], 0x100, 7, false, true, true);

	/* Before revision 5 that bit is reserved: the processors are absent. */
	t->b[8] = 4;
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_cpus, 1);
	assert_int_equal(m.nr_disabled, 3);
	free(t);
}

static void test_madt_x2apic_and_override(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(3);

	madt_lapic(t, 0, 0, 1);
	madt_x2apic(t, 0x1ff, 1, 0x1000);
	madt_x2apic(t, 0xffffffff, 1, 3);  /* not an ID */
	madt_lapic(t, 5, 0xff, 1);         /* not an ID either */
	madt_x2apic(t, 0, 1, 4);           /* repeats APIC ID 0 */
	madt_override(t, 0xfed00000000ULL);
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.lapic_phys, 0xfed00000000ULL);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.nr_ignored, 3);
	assert_cpu(&m.cpus[1], 0x1ff, 0x1000, true, false, true);
	assert_int_equal(host_log_count(LOG_WARN), 3);
	assert_true(host_log_contains("ACPI: MADT: x2APIC entry at offset 0x44 has the invalid ID 0xffffffff; ignored"));
	assert_true(host_log_contains("ACPI: MADT: local APIC entry at offset 0x54 has the invalid ID 0xff; ignored"));
	assert_true(host_log_contains("ACPI: MADT: x2APIC entry at offset 0x5c repeats APIC ID 0x0; ignored"));
	free(t);
}

/* NMI entries of both kinds: for all processors (0xff, 0xffffffff) or one
 * UID, LINT0 or LINT1, active low from the MPS polarity; LINT2 is no pin. */
static void test_madt_nmi_entries(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(5);

	(void)state;
	madt_lapic(t, 0, 0, 1);
	madt_x2apic(t, 300, 1, 300);
	madt_nmi4(t, 0xff, 0, 1);              /* every CPU: LINT1, bus default */
	madt_nmi_x2(t, 300, 0xf, 0);           /* UID 300: LINT0, active low, level */
	madt_nmi_x2(t, 0xffffffff, 0x5, 1);    /* all again, active high, edge */
	madt_nmi4(t, 7, 0, 2);                 /* no LINT2: ignored */
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.nr_nmis, 3);
	assert_int_equal(m.nr_nmis_ignored, 1);
	assert_int_equal(m.nmis[0].acpi_uid, ACPI_UID_ALL);
	assert_false(m.nmis[0].ext_id);
	assert_int_equal(m.nmis[1].acpi_uid, 300);
	assert_true(m.nmis[1].ext_id);
	assert_int_equal(m.nmis[1].flags, 0xf);
	assert_int_equal(acpi_lint_nmi_of(&m, 0), ACPI_LINT1_NMI);
	assert_int_equal(acpi_lint_nmi_of(&m, 300),
			 ACPI_LINT1_NMI | ACPI_LINT0_NMI | ACPI_LINT0_ACTIVE_LOW);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("names LINT2; a local APIC has LINT0 and LINT1 only; ignored"));
	free(t);
}

static void test_madt_no_entries(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = sdt_finish(madt_begin(1));

	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(m.nr_entries, 0);
	assert_int_equal(m.nr_cpus, 0);
	assert_int_equal(m.lapic_phys, 0xfee00000);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_madt_zero_length_entry(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(1);

	madt_lapic(t, 0, 0, 1);
	append(t, 2);                      /* type 0, length 0 */
	madt_lapic(t, 1, 1, 1);
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_true(m.truncated);
	assert_int_equal(m.nr_cpus, 1);
	assert_int_equal(m.cpus[0].hwid, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: MADT: entry at offset 0x34 (type 0) has length 0; entries after it ignored"));
	free(t);
}

static void test_madt_short_entry(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(1);
	uint8_t *e;

	madt_lapic(t, 0, 0, 1);
	madt_lapic(t, 1, 1, 1);
	e = append(t, 6);
	e[0] = 0; e[1] = 6; e[2] = 2; e[3] = 2;
	madt_lapic(t, 3, 3, 1);
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_true(m.truncated);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: MADT: local APIC entry at offset 0x3c has length 6, below its 8 bytes; entries from it ignored"));

	/* x2APIC entry of 12 bytes. */
	free(t);
	t = madt_begin(1);
	e = append(t, 12);
	e[0] = 9; e[1] = 12;
	sdt_finish(t);
	host_log_reset();
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_true(m.truncated);
	assert_true(host_log_contains("ACPI: MADT: x2APIC entry at offset 0x2c has length 12, below its 16 bytes"));
	free(t);
}

static void test_madt_entry_past_end(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(1);

	madt_lapic(t, 0, 0, 1);
	madt_lapic(t, 1, 1, 1);
	t->b[t->len - 8 + 1] = 20;        /* the second entry claims 20 bytes */
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_true(m.truncated);
	assert_int_equal(m.nr_cpus, 1);
	assert_true(host_log_contains("ACPI: MADT: entry at offset 0x34 (type 0, length 20) runs past the table end 0x3c; ignored with the rest"));

	/* One stray byte after the last entry. */
	t->b[t->len - 8 + 1] = 8;
	append(t, 1);
	sdt_finish(t);
	host_log_reset();
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_true(m.truncated);
	assert_int_equal(m.nr_cpus, 2);
	assert_true(host_log_contains("ACPI: MADT: 1 trailing byte at offset 0x3c is not an entry; ignored"));
	free(t);
}

static void test_madt_rejected(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = q35_madt(q35_ids, NULL, 4);

	assert_false(acpi_madt_parse(t->b, 40, &m));
	assert_true(host_log_contains("ACPI: MADT: header length 0x72 is past the 0x28 bytes available; ignored"));
	assert_false(acpi_madt_parse(t->b, 20, &m));
	assert_true(host_log_contains("ACPI: MADT: 20 bytes are not enough for a table header; ignored"));
	assert_false(acpi_madt_parse(NULL, 100, &m));
	put32(t->b, 4, 40);
	assert_false(acpi_madt_parse(t->b, t->len, &m));
	assert_true(host_log_contains("ACPI: MADT: header length 0x28 is below the 0x2c bytes of its fixed part; ignored"));
	memcpy(t->b, "APIX", 4);
	assert_false(acpi_madt_parse(t->b, t->len, &m));
	assert_true(host_log_contains("ACPI: MADT: signature is 'APIX', not 'APIC'; ignored"));
	assert_int_equal(m.nr_cpus, 0);
	assert_int_equal(host_log_count(LOG_WARN), 5);

	/* A buffer longer than the table: the header length rules. */
	free(t);
	t = q35_madt(q35_ids, NULL, 2);
	host_log_reset();
	assert_true(acpi_madt_parse(t->b, TABLE_CAP, &m));
	assert_int_equal(m.nr_cpus, 2);
	assert_false(m.truncated);
	free(t);
}

static void test_madt_capacity(void **state)
{
	static struct acpi_madt_info m;
	struct table *t = madt_begin(3);

	for (uint32_t i = 0; i < ACPI_MADT_MAX_CPUS + 76; i++)
		madt_x2apic(t, i, 1, i);
	sdt_finish(t);
	assert_true(acpi_madt_parse(t->b, t->len, &m));
	assert_int_equal(ACPI_MADT_MAX_CPUS, 16384);
	assert_int_equal(m.nr_cpus, ACPI_MADT_MAX_CPUS);
	assert_int_equal(m.nr_dropped, 76);
	assert_int_equal(m.cpus[16383].hwid, 16383);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	/* 44 bytes of header and fixed fields, then 16 bytes an entry. */
	assert_true(host_log_contains("ACPI: MADT: more than 16384 processors; APIC ID 0x4000 (offset 0x4002c) and later ones dropped"));
	free(t);
}

/* ---- SRAT ---- */

static void assert_mem(const struct acpi_srat_mem *m, uint32_t pxm, uint64_t start,
		       uint64_t end, bool hotplug, bool nonvolatile)
{
	assert_int_equal(m->pxm, pxm);
	assert_int_equal(m->start, start);
	assert_int_equal(m->end, end);
	assert_int_equal(m->hotplug, hotplug);
	assert_int_equal(m->nonvolatile, nonvolatile);
}

static void test_srat_q35(void **state)
{
	static struct acpi_srat_info s;
	struct table *t = q35_srat();

	assert_int_equal(t->len, 272);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.revision, 1);
	assert_int_equal(s.nr_entries, 8);
	assert_int_equal(s.nr_cpus, 4);
	assert_int_equal(s.nr_mems, 3);
	assert_int_equal(s.nr_disabled, 1);
	assert_false(s.truncated);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(s.cpus[i].hwid, i);
		assert_int_equal(s.cpus[i].pxm, i / 2);
		assert_false(s.cpus[i].x2apic);
	}
	assert_mem(&s.mems[0], 0, 0, 0xa0000, false, false);
	assert_mem(&s.mems[1], 0, 0x100000, 0x80000000, false, false);
	assert_mem(&s.mems[2], 1, 0x100000000, 0x180000000, false, false);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_srat_pxm_width(void **state)
{
	static struct acpi_srat_info s;
	struct table *t = srat_begin(1);

	srat_cpu(t, 0x12345601, 0, 1);
	srat_mem(t, 0xabcdef02, 0, 0x1000, 1);
	srat_x2apic(t, 0x1003, 0x300, 1);
	sdt_finish(t);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.cpus[0].pxm, 0x01);       /* revision 1: 8 bits */
	assert_int_equal(s.mems[0].pxm, 0x02);
	assert_int_equal(s.cpus[1].pxm, 0x03);
	assert_true(s.cpus[1].x2apic);
	assert_int_equal(s.cpus[1].hwid, 0x300);

	t->b[8] = 3;
	sdt_finish(t);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.cpus[0].pxm, 0x12345601);
	assert_int_equal(s.mems[0].pxm, 0xabcdef02);
	assert_int_equal(s.cpus[1].pxm, 0x1003);
	free(t);
}

static void test_srat_flags_and_edges(void **state)
{
	static struct acpi_srat_info s;
	struct table *t = srat_begin(3);

	srat_mem(t, 0, 0x100000000, 0x40000000, 1 | 2);        /* hot-pluggable */
	srat_mem(t, 1, 0x200000000, 0x40000000, 1 | 4);        /* non-volatile */
	srat_mem(t, 2, 0xffffffff00000000ULL, 0x200000000ULL, 1);   /* wraps */
	srat_mem(t, 3, 0x300000000, 0, 1);                      /* enabled, empty */
	srat_mem(t, 4, UINT64_MAX, 0x1000, 1);                  /* nothing left after clipping */
	srat_cpu(t, 0, 0, 0);                                   /* disabled */
	srat_x2apic(t, 5, 0x10, 0);                             /* disabled */
	srat_cpu(t, 0, 1, 1);
	srat_x2apic(t, 5, 1, 1);                                /* APIC ID 1 again */
	append(t, 4)[1] = 4;                                    /* type 0, 4 bytes: short */
	sdt_finish(t);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.nr_mems, 3);
	assert_mem(&s.mems[0], 0, 0x100000000, 0x140000000, true, false);
	assert_mem(&s.mems[1], 1, 0x200000000, 0x240000000, false, true);
	assert_mem(&s.mems[2], 2, 0xffffffff00000000ULL, UINT64_MAX, false, false);
	assert_int_equal(s.nr_cpus, 1);
	assert_int_equal(s.cpus[0].hwid, 1);
	assert_int_equal(s.cpus[0].pxm, 0);
	assert_int_equal(s.nr_disabled, 2);
	assert_int_equal(s.nr_ignored, 3);
	assert_true(s.truncated);
	assert_int_equal(host_log_count(LOG_WARN), 5);
	assert_true(host_log_contains("ACPI: SRAT: memory affinity at offset 0x80 (PXM 2): base 0xffffffff00000000 + length 0x200000000 wraps; clipped to end at 0xffffffffffffffff"));
	assert_true(host_log_contains("ACPI: SRAT: memory affinity at offset 0xa8 (PXM 3, base 0x300000000) is enabled but empty; ignored"));
	assert_true(host_log_contains("ACPI: SRAT: memory affinity at offset 0xd0 (PXM 4) starts at 0xffffffffffffffff, the last byte of the address space; ignored"));
	assert_true(host_log_contains("ACPI: SRAT: APIC ID 0x1 listed again at offset 0x130 with PXM 5; its first PXM 0 is kept"));
	assert_true(host_log_contains("ACPI: SRAT: processor local APIC affinity entry at offset 0x148 has length 4, below its 16 bytes; entries from it ignored"));
	free(t);
}

static void test_srat_1000_domains(void **state)
{
	static struct acpi_srat_info s;
	struct table *t = srat_begin(3);

	/* 1000 CPUs in 1000 domains, and twice ACPI_SRAT_MAX_MEMS (1024)
	 * memory entries: the ones past the limit are dropped, with a warning. */
	for (uint32_t i = 0; i < 1000; i++)
		srat_x2apic(t, i, i, 1);
	for (uint32_t i = 0; i < 2048; i++)
		srat_mem(t, i, (uint64_t)(i + 1) << 30, 1ULL << 30, 1);
	sdt_finish(t);
	assert_int_equal(t->len, 48 + 1000 * 24 + 2048 * 40);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.nr_cpus, 1000);
	assert_int_equal(s.cpus[999].hwid, 999);
	assert_int_equal(s.cpus[999].pxm, 999);
	assert_int_equal(ACPI_SRAT_MAX_MEMS, 1024);
	assert_int_equal(s.nr_mems, ACPI_SRAT_MAX_MEMS);
	assert_int_equal(s.nr_dropped_mems, 2048 - ACPI_SRAT_MAX_MEMS);
	assert_mem(&s.mems[1023], 1023, 1024ULL << 30, 1025ULL << 30, false, false);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	/* The first dropped entry: [1025 GiB, 1026 GiB) at 48 + 24000 + 1024 * 40. */
	assert_true(host_log_contains("ACPI: SRAT: more than 1024 memory affinities; [mem 0x10040000000-0x1007fffffff] (offset 0xfdf0) and later ones dropped"));
	free(t);
}

static void test_srat_malformed(void **state)
{
	static struct acpi_srat_info s;
	struct table *t = srat_begin(1);

	srat_cpu(t, 0, 0, 1);
	srat_mem(t, 0, 0, 0xa0000, 1);
	t->b[t->len - 40 + 1] = 0;              /* memory entry of length 0 */
	sdt_finish(t);
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_true(s.truncated);
	assert_int_equal(s.nr_cpus, 1);
	assert_int_equal(s.nr_mems, 0);
	assert_true(host_log_contains("ACPI: SRAT: entry at offset 0x40 (type 1) has length 0; entries after it ignored"));

	t->b[t->len - 40 + 1] = 24;             /* 24 bytes: short for memory */
	sdt_finish(t);
	host_log_reset();
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_true(s.truncated);
	assert_true(host_log_contains("ACPI: SRAT: memory affinity entry at offset 0x40 has length 24, below its 40 bytes; entries from it ignored"));

	t->b[t->len - 40 + 1] = 48;             /* past the end */
	sdt_finish(t);
	host_log_reset();
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_true(s.truncated);
	assert_true(host_log_contains("ACPI: SRAT: entry at offset 0x40 (type 1, length 48) runs past the table end 0x68; ignored with the rest"));

	/* No entries at all; then a table shorter than its 48-byte fixed part. */
	free(t);
	t = sdt_finish(srat_begin(1));
	host_log_reset();
	assert_true(acpi_srat_parse(t->b, t->len, &s));
	assert_int_equal(s.nr_entries, 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	t->len = 44;
	sdt_finish(t);
	assert_false(acpi_srat_parse(t->b, t->len, &s));
	assert_true(host_log_contains("ACPI: SRAT: header length 0x2c is below the 0x30 bytes of its fixed part; ignored"));
	free(t);
}

/* ---- SLIT ---- */

static void test_slit_2x2(void **state)
{
	struct acpi_slit_info s;
	struct table *t = slit_build(2, slit_2x2, 2);

	assert_int_equal(t->len, 48);
	assert_true(acpi_slit_parse(t->b, t->len, &s));
	assert_true(s.valid);
	assert_true(s.symmetric);
	assert_int_equal(s.nr_localities, 2);
	assert_ptr_equal(s.matrix, t->b + 44);
	assert_int_equal(acpi_slit_distance(&s, 0, 0), 10);
	assert_int_equal(acpi_slit_distance(&s, 0, 1), 21);
	assert_int_equal(acpi_slit_distance(&s, 1, 0), 21);
	assert_int_equal(acpi_slit_distance(&s, 1, 1), 10);
	assert_int_equal(acpi_slit_distance(&s, 2, 0), 0);
	assert_int_equal(acpi_slit_distance(&s, 0, 2), 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_slit_invalid_values(void **state)
{
	static const uint8_t bad_diag[] = { 10, 21, 21, 11 };
	static const uint8_t bad_off[] = { 10, 21, 10, 10 };
	static const uint8_t asym[] = { 10, 21, 22, 10 };
	static const uint8_t unreachable[] = { 10, 255, 255, 10 };
	struct acpi_slit_info s;
	struct table *t;

	t = slit_build(2, bad_diag, 2);
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	assert_false(s.valid);
	assert_int_equal(s.nr_localities, 2);      /* still readable, for dumps */
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: SLIT: distance[1][1] is 11, not 10; SLIT invalid"));
	free(t);

	t = slit_build(2, bad_off, 2);
	host_log_reset();
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	assert_true(host_log_contains("ACPI: SLIT: distance[1][0] is 10, not above 10; SLIT invalid"));
	assert_true(host_log_contains("ACPI: SLIT: distance[0][1] is 21 but distance[1][0] is 10; asymmetric, accepted"));
	free(t);

	t = slit_build(2, asym, 2);
	host_log_reset();
	assert_true(acpi_slit_parse(t->b, t->len, &s));
	assert_true(s.valid);
	assert_false(s.symmetric);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("ACPI: SLIT: distance[0][1] is 21 but distance[1][0] is 22; asymmetric, accepted"));
	free(t);

	t = slit_build(2, unreachable, 2);
	host_log_reset();
	assert_true(acpi_slit_parse(t->b, t->len, &s));
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
}

static void test_slit_rejected(void **state)
{
	struct acpi_slit_info s;
	struct table *t;

	/* N whose square overflows 64 bits, N = 0, N above the cap. */
	t = slit_build(2, slit_2x2, 2);
	put64(t->b, 36, 0x100000002ULL);
	sdt_finish(t);
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	assert_int_equal(s.nr_localities, 0);
	assert_null(s.matrix);
	assert_true(host_log_contains("ACPI: SLIT: 4294967298 localities (field at offset 0x24) is not in 1..1024; SLIT ignored"));
	put64(t->b, 36, UINT64_MAX);
	sdt_finish(t);
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	put64(t->b, 36, 0);
	sdt_finish(t);
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	put64(t->b, 36, 1025);
	sdt_finish(t);
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	assert_int_equal(host_log_count(LOG_WARN), 4);

	/* N = 3 in a table holding 2 x 2. */
	put64(t->b, 36, 3);
	sdt_finish(t);
	host_log_reset();
	assert_false(acpi_slit_parse(t->b, t->len, &s));
	assert_int_equal(s.nr_localities, 0);
	assert_true(host_log_contains("ACPI: SLIT: length 0x30 is too short for 3 x 3 distances (0x35 bytes); SLIT ignored"));
	assert_false(acpi_slit_parse(t->b, 40, &s));
	assert_int_equal(acpi_slit_distance(&s, 0, 0), 0);
	free(t);
}

static void test_slit_largest(void **state)
{
	const uint32_t n = ACPI_SLIT_MAX_LOCALITIES;
	uint8_t *dist = malloc((size_t)n * n);
	uint8_t *table = malloc(44 + (size_t)n * n);
	struct acpi_slit_info s;

	assert_non_null(dist);
	assert_non_null(table);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			dist[(size_t)i * n + j] = i == j ? 10 : (uint8_t)(11 + (i + j) % 200);
	memset(table, 0, 44);
	memcpy(table, "SLIT", 4);
	put32(table, 4, 44 + n * n);
	put64(table, 36, n);
	memcpy(table + 44, dist, (size_t)n * n);
	assert_true(acpi_slit_parse(table, 44 + (size_t)n * n, &s));
	assert_true(s.symmetric);
	assert_int_equal(acpi_slit_distance(&s, 1023, 1), 11 + 1024 % 200);
	assert_int_equal(acpi_slit_distance(&s, 1023, 1023), 10);
	free(dist);
	free(table);
}

/* ---- acpidump text ---- */

static char *fixture_text(const char *name, size_t *len);

static void test_dump_format(void **state)
{
	static uint8_t big[0x10004];
	char line[ACPI_DUMP_LINE_BYTES];
	uint8_t b[20];

	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)i;
	memcpy(b + 16, "AB\x7f ", 4);
	assert_int_equal(acpi_dump_format_line(line, sizeof(line), b, 20, 0), 75);
	assert_string_equal(line, "    0000: 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F  ................");
	assert_int_equal(acpi_dump_format_line(line, sizeof(line), b, 20, 16), 63);
	assert_string_equal(line, "    0010: 41 42 7F 20                                      AB. ");
	assert_int_equal(acpi_dump_format_line(line, sizeof(line), b, 20, 20), 0);
	assert_int_equal(acpi_dump_format_line(line, 60, b, 20, 0), 0);

	memset(big, 'x', sizeof(big));
	assert_int_equal(acpi_dump_format_line(line, sizeof(line), big, sizeof(big), 0x10000), 75 - 12);
	assert_string_equal(line, "   10000: 78 78 78 78                                      xxxx");

	acpi_dump_table("SLIT", 0x7ffe2477, b, 20);
	assert_int_equal(host_log_count(LOG_INFO), 4);
	assert_true(host_log_contains("SLIT @ 0x000000007FFE2477"));
	assert_true(host_log_contains("    0010: 41 42 7F 20                                      AB. "));
}

/* Tables read back from text, kept for comparison. */
struct collected {
	size_t nr;
	char sig[16][5];
	uint64_t phys[16];
	uint8_t *bytes[16];
	size_t len[16];
};

static void collect(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes, size_t len)
{
	struct collected *c = ctx;

	assert_true(c->nr < 16);
	memcpy(c->sig[c->nr], sig, 5);
	c->phys[c->nr] = phys;
	c->bytes[c->nr] = malloc(len);
	memcpy(c->bytes[c->nr], bytes, len);
	c->len[c->nr] = len;
	c->nr++;
}

static void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->bytes[i]);
	memset(c, 0, sizeof(*c));
}

/* Text as acpi_dump_table() prints it, each line behind @prefix. */
static size_t dump_text(char *out, size_t cap, const char *prefix, const char *sig,
			uint64_t phys, const uint8_t *bytes, size_t len, const char *eol)
{
	char line[ACPI_DUMP_LINE_BYTES];
	size_t n = 0;

	n += (size_t)snprintf(out + n, cap - n, "%s%s @ 0x%016llX%s", prefix, sig,
			      (unsigned long long)phys, eol);
	for (size_t off = 0; off < len; off += 16) {
		assert_int_not_equal(acpi_dump_format_line(line, sizeof(line), bytes, len, off), 0);
		n += (size_t)snprintf(out + n, cap - n, "%s%s%s", prefix, line, eol);
	}
	n += (size_t)snprintf(out + n, cap - n, "%s%s", prefix, eol);
	assert_true(n < cap);
	return n;
}

static void test_dump_roundtrip(void **state)
{
	static char text[64 * 1024];
	static uint8_t buf[4096];
	static struct collected c;
	struct table *madt = q35_madt(q35_ids, NULL, 4), *srat = q35_srat();
	size_t n = 0;

	/* A serial log: timestamps, CRLF, other lines in between. */
	n += (size_t)snprintf(text + n, sizeof(text) - n, "[    0.001000] ACPI: RSDP 0x00000000000F5970 000014 (v00 BOCHS )\r\n");
	n += dump_text(text + n, sizeof(text) - n, "[    0.002000] ", "APIC", 0x7ffe229f,
		       madt->b, madt->len, "\r\n");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "[    0.003000] smp: 4 CPUs\r\n");
	n += dump_text(text + n, sizeof(text) - n, "[    0.004000] ", "SRAT", 0x7ffe2367,
		       srat->b, srat->len, "\r\n");
	assert_int_equal(acpi_parse_acpidump_text(text, n, buf, sizeof(buf), collect, &c), 2);
	assert_int_equal(c.nr, 2);
	assert_string_equal(c.sig[0], "APIC");
	assert_int_equal(c.phys[0], 0x7ffe229f);
	assert_int_equal(c.len[0], madt->len);
	assert_memory_equal(c.bytes[0], madt->b, madt->len);
	assert_string_equal(c.sig[1], "SRAT");
	assert_int_equal(c.len[1], 272);
	assert_memory_equal(c.bytes[1], srat->b, srat->len);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	collected_free(&c);

	/* The buffer is too small for the SRAT: the APIC was delivered first. */
	assert_int_equal(acpi_parse_acpidump_text(text, n, buf, 200, collect, &c), -1);
	assert_int_equal(c.nr, 1);
	assert_true(host_log_contains("ACPI: acpidump text line 26: SRAT is larger than the 0xc8-byte buffer"));
	collected_free(&c);

	/* A lost line. */
	n = dump_text(text, sizeof(text), "", "APIC", 0x1000, madt->b, madt->len, "\n");
	memcpy(strstr(text, "    0010:"), "    0020:", 9);
	host_log_reset();
	assert_int_equal(acpi_parse_acpidump_text(text, n, buf, sizeof(buf), collect, &c), -1);
	assert_true(host_log_contains("ACPI: acpidump text line 3: APIC offset 0x20, expected 0x10"));
	collected_free(&c);

	/* A dump line without bytes. */
	n = (size_t)snprintf(text, sizeof(text), "APIC @ 0x1000\n    0000: zz\n");
	host_log_reset();
	assert_int_equal(acpi_parse_acpidump_text(text, n, buf, sizeof(buf), collect, &c), -1);
	assert_true(host_log_contains("ACPI: acpidump text line 2: APIC dump line holds no bytes"));
	collected_free(&c);

	/* Nothing that looks like a table. */
	n = (size_t)snprintf(text, sizeof(text), "hello\n\n0000: 41\nXSDT @ 0xzz\n");
	assert_int_equal(acpi_parse_acpidump_text(text, n, buf, sizeof(buf), collect, &c), 0);
	free(madt);
	free(srat);
}

/* The captured text, regenerated with acpi_dump_format_line(), is identical. */
static void test_dump_matches_fixture(void **state)
{
	static uint8_t buf[64 * 1024];
	static char again[256 * 1024];
	static struct collected c;
	size_t len, n = 0;
	char *text = fixture_text("q35-numa2-ovmf.acpidump", &len);

	assert_int_equal(acpi_parse_acpidump_text(text, len, buf, sizeof(buf), collect, &c), 12);
	for (size_t i = 0; i < c.nr; i++)
		n += dump_text(again + n, sizeof(again) - n, "", c.sig[i], c.phys[i], c.bytes[i],
			       c.len[i], "\n");
	assert_int_equal(n, len);
	assert_memory_equal(again, text, len);
	collected_free(&c);
	free(text);
}

/* ---- captured QEMU tables ---- */

static void fixture_table(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes,
			  size_t len)
{
	struct image *img = ctx;

	if (strcmp(sig, "RSDP") == 0) {
		assert_true(len == 20 || len == 36);
		memcpy(img->rsdp, bytes, len);
		img->rsdp_len = len;
		img->rsdp_phys = phys;
	}
	image_place(img, phys, bytes, len);
}

static char *fixture_text(const char *name, size_t *len)
{
	static const char *const dirs[] = { "tests/host/fixtures/acpi", "../tests/host/fixtures/acpi",
					    "../../tests/host/fixtures/acpi" };
	char path[512];
	const char *src = getenv("MEMBOOT_SRCDIR");

	if (src) {
		snprintf(path, sizeof(path), "%s/tests/host/fixtures/acpi/%s", src, name);
		return host_read_file(path, len);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (access(path, R_OK) == 0)
			return host_read_file(path, len);
	}
	fail_msg("fixture %s not found; run from the repository root or set MEMBOOT_SRCDIR", name);
	return NULL;
}

/* Load a captured fixture into a fresh image; the walk's result in @dir. */
static struct image *fixture_walk(const char *name, struct acpi_tables *dir, long nr_tables)
{
	static uint8_t buf[64 * 1024];
	struct image *img = image_new();
	size_t len;
	char *text = fixture_text(name, &len);

	assert_int_equal(acpi_parse_acpidump_text(text, len, buf, sizeof(buf), fixture_table, img),
			 nr_tables);
	free(text);
	assert_int_not_equal(img->rsdp_len, 0);
	host_log_reset();
	assert_int_equal(walk(dir, img, 0), ACPI_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	/* every table but the RSDP made it into the directory */
	assert_int_equal(dir->nr_tables, nr_tables - 1);
	return img;
}

static const struct acpi_table_info *must_find(const struct acpi_tables *dir, const char *sig)
{
	const struct acpi_table_info *t = acpi_tables_find(dir, sig);
	if (!t)
		fail_msg("no %s", sig);
	return t;
}

static void test_fixture_q35_numa2(void **state)
{
	static const char *const sigs[] = { "RSDT", "FACP", "DSDT", "FACS", "APIC", "HPET",
					    "SRAT", "SLIT", "MCFG", "WAET" };
	static struct acpi_tables dir;
	static struct acpi_madt_info m;
	static struct acpi_srat_info s;
	struct acpi_slit_info sl;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-numa2-slit.acpidump", &dir, 11);

	assert_sigs(&dir, sigs, 10);
	assert_int_equal(dir.rsdp_phys, 0xf5970);
	assert_int_equal(dir.tables[0].phys, 0x7ffe250b);    /* odd address */
	assert_int_equal(acpi_tables_find(&dir, "FACP")->revision, 3);
	assert_int_equal(acpi_tables_find(&dir, "FACP")->length, 244);

	t = must_find(&dir, "APIC");
	assert_true(acpi_madt_parse(t->bytes, t->length, &m));
	assert_int_equal(m.nr_cpus, 4);
	assert_int_equal(m.lapic_phys, 0xfee00000);
	for (uint32_t i = 0; i < 4; i++)
		assert_cpu(&m.cpus[i], i, i, true, false, false);

	t = must_find(&dir, "SRAT");
	assert_int_equal(t->length, 272);
	assert_true(acpi_srat_parse(t->bytes, t->length, &s));
	assert_int_equal(s.revision, 1);
	assert_int_equal(s.nr_cpus, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(s.cpus[i].hwid, i);
		assert_int_equal(s.cpus[i].pxm, i / 2);
	}
	assert_int_equal(s.nr_mems, 3);
	assert_int_equal(s.nr_disabled, 1);
	assert_mem(&s.mems[0], 0, 0, 0xa0000, false, false);
	assert_mem(&s.mems[1], 0, 0x100000, 0x80000000, false, false);
	assert_mem(&s.mems[2], 1, 0x100000000, 0x180000000, false, false);

	t = must_find(&dir, "SLIT");
	assert_true(acpi_slit_parse(t->bytes, t->length, &sl));
	assert_int_equal(sl.nr_localities, 2);
	assert_int_equal(acpi_slit_distance(&sl, 0, 1), 21);
	assert_int_equal(acpi_slit_distance(&sl, 1, 1), 10);
	assert_int_equal(host_log_count(LOG_WARN), 0);

	acpi_print_tables(&dir);
	assert_true(host_log_contains("ACPI: RSDP 0x00000000000F5970 000014 (v00 BOCHS )"));
	assert_true(host_log_contains("ACPI: RSDT 0x000000007FFE250B 000040 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"));
	assert_true(host_log_contains("ACPI: SRAT 0x000000007FFE2367 000110 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"));
	free(img);
}

static void test_fixture_q35_smp6(void **state)
{
	static const uint8_t ids[] = { 0, 1, 2, 4, 5, 6 };
	static struct acpi_tables dir;
	static struct acpi_madt_info m;
	static struct acpi_srat_info s;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-numa2-smp6.acpidump", &dir, 10);

	assert_null(acpi_tables_find(&dir, "SLIT"));
	t = must_find(&dir, "APIC");
	assert_true(acpi_madt_parse(t->bytes, t->length, &m));
	assert_int_equal(m.nr_cpus, 6);
	for (uint32_t i = 0; i < 6; i++)
		assert_cpu(&m.cpus[i], ids[i], i, true, false, false);
	t = must_find(&dir, "SRAT");
	assert_true(acpi_srat_parse(t->bytes, t->length, &s));
	assert_int_equal(s.nr_cpus, 6);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(s.cpus[i].hwid, ids[i]);
		assert_int_equal(s.cpus[i].pxm, i / 3);
	}
	free(img);
}

static void test_fixture_q35_maxcpus(void **state)
{
	static struct acpi_tables dir;
	static struct acpi_madt_info m;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-maxcpus4.acpidump", &dir, 9);

	assert_null(acpi_tables_find(&dir, "SRAT"));
	t = must_find(&dir, "APIC");
	assert_true(acpi_madt_parse(t->bytes, t->length, &m));
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.nr_disabled, 2);
	assert_cpu(&m.cpus[0], 0, 0, true, false, false);
	assert_cpu(&m.cpus[1], 1, 1, true, false, false);
	free(img);
}

static void test_fixture_pc(void **state)
{
	static struct acpi_tables dir;
	static struct acpi_madt_info m;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("pc-1node.acpidump", &dir, 8);

	assert_int_equal(dir.tables[0].phys, 0x1ffe1aa4);
	t = must_find(&dir, "FACP");
	assert_int_equal(t->revision, 1);
	assert_int_equal(t->length, 116);
	assert_int_equal(must_find(&dir, "DSDT")->source, ACPI_SRC_FADT);
	t = must_find(&dir, "APIC");
	assert_true(acpi_madt_parse(t->bytes, t->length, &m));
	assert_int_equal(m.nr_cpus, 1);
	free(img);
}

static void test_fixture_ovmf_xsdt(void **state)
{
	static const char *const sigs[] = { "XSDT", "FACP", "DSDT", "FACS", "APIC", "HPET",
					    "SRAT", "SLIT", "MCFG", "WAET", "BGRT" };
	static struct acpi_tables dir;
	static struct acpi_srat_info s;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-numa2-ovmf.acpidump", &dir, 12);

	assert_true(dir.root_is_xsdt);
	assert_int_equal(dir.rsdp.revision, 2);
	assert_sigs(&dir, sigs, 11);
	t = must_find(&dir, "SRAT");
	assert_true(acpi_srat_parse(t->bytes, t->length, &s));
	assert_int_equal(s.nr_cpus, 4);
	assert_int_equal(s.nr_mems, 3);
	acpi_print_tables(&dir);
	assert_true(host_log_contains("ACPI: RSDP 0x000000007F77D014 000024 (v02 BOCHS )"));
	assert_true(host_log_contains("ACPI: XSDT 0x000000007F77C0E8 "));
	free(img);
}

/* ---- FADT: the PM timer ---- */

static void test_fadt_pm_timer_fixtures(void **state)
{
	static struct acpi_tables dir;
	struct acpi_pm_timer pm;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-numa2-slit.acpidump", &dir, 11);

	/* q35 (ICH9): PM base 0x600, timer at +8; revision 3 with X_PM_TMR_BLK. */
	t = must_find(&dir, "FACP");
	assert_true(acpi_fadt_pm_timer(t->bytes, t->length, &pm));
	assert_int_equal(pm.port, 0x608);
	assert_int_equal(pm.bits, 24);
	free(img);
	/* i440fx (PIIX4, QEMU puts its PM block at 0x600 too): revision 1, 116 bytes, no X_ fields. */
	img = fixture_walk("pc-1node.acpidump", &dir, 8);
	t = must_find(&dir, "FACP");
	assert_true(acpi_fadt_pm_timer(t->bytes, t->length, &pm));
	assert_int_equal(pm.port, 0x608);
	assert_int_equal(pm.bits, 24);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(img);
}

static void test_hpet_fixture_and_bad(void **state)
{
	static struct acpi_tables dir;
	struct acpi_hpet_info h;
	const struct acpi_table_info *t;
	struct image *img = fixture_walk("q35-numa2-slit.acpidump", &dir, 11);
	struct table *b;

	t = must_find(&dir, "HPET");
	assert_true(acpi_hpet_parse(t->bytes, t->length, &h));
	assert_int_equal(h.address, 0xfed00000);
	assert_int_equal(h.block_id, 0x8086a201);
	free(img);
	/* Registers in I/O space, a misaligned base, a zero base, too short. */
	b = table_new();
	sdt_begin(b, "HPET", 1, 56);
	b->b[40] = 1;
	put64(b->b, 44, 0xfed00000);
	sdt_finish(b);
	assert_false(acpi_hpet_parse(b->b, b->len, &h));
	assert_true(host_log_contains("ACPI: HPET: registers in address space 1 (offset 0x28), not memory"));
	b->b[40] = 0;
	put64(b->b, 44, 0xfed00100);
	assert_false(acpi_hpet_parse(b->b, b->len, &h));
	assert_true(host_log_contains("register base 0xfed00100 (offset 0x2c) is not a 1 KiB aligned"));
	put64(b->b, 44, 0);
	host_log_reset();
	assert_false(acpi_hpet_parse(b->b, b->len, &h));
	assert_int_equal(h.address, 0);
	/* Address 0 is named as such, not as a misaligned one. */
	assert_true(host_log_contains("ACPI: HPET: register base is address 0 (offset 0x2c): the "
				      "table names no HPET; HPET ignored"));
	assert_false(host_log_contains("1 KiB aligned"));
	assert_false(acpi_hpet_parse(b->b, 40, &h));
	free(b);
}

/* A revision 3 FADT of 244 bytes with the timer fields given. */
static struct table *fadt_pm(uint32_t blk, uint8_t blk_len, uint32_t flags, uint8_t x_space,
			     uint64_t x_addr)
{
	struct table *t = table_new();
	sdt_begin(t, "FACP", 3, 244);
	put32(t->b, 76, blk);
	t->b[91] = blk_len;
	put32(t->b, 112, flags);
	t->b[208] = x_space;
	t->b[209] = 32;
	put64(t->b, 212, x_addr);
	return sdt_finish(t);
}

static void test_fadt_pm_timer_bad(void **state)
{
	struct acpi_pm_timer pm;
	struct table *t;

	/* 32-bit timer through X_PM_TMR_BLK only. */
	t = fadt_pm(0, 0, 1u << 8, 1, 0x408);
	assert_true(acpi_fadt_pm_timer(t->b, t->len, &pm));
	assert_int_equal(pm.port, 0x408);
	assert_int_equal(pm.bits, 32);
	free(t);
	/* Hardware-reduced: none, silently. */
	t = fadt_pm(0x608, 4, 1u << 20, 1, 0x608);
	assert_false(acpi_fadt_pm_timer(t->b, t->len, &pm));
	assert_int_equal(pm.port, 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(t);
	/* Wrong length. */
	t = fadt_pm(0x608, 2, 0, 0, 0);
	assert_false(acpi_fadt_pm_timer(t->b, t->len, &pm));
	assert_true(host_log_contains("ACPI: FADT: PM_TMR_LEN (offset 0x5b) is 2, expected 4; no PM timer"));
	free(t);
	/* X_PM_TMR_BLK in memory space: fall back to the I/O port. */
	host_log_reset();
	t = fadt_pm(0x608, 4, 0, 0, 0xfed00000);
	assert_true(acpi_fadt_pm_timer(t->b, t->len, &pm));
	assert_int_equal(pm.port, 0x608);
	assert_true(host_log_contains("is in address space 0, not I/O; using PM_TMR_BLK"));
	free(t);
	/* An I/O address beyond the 64 KiB port space. */
	t = fadt_pm(0, 0, 0, 1, 0x12345);
	assert_false(acpi_fadt_pm_timer(t->b, t->len, &pm));
	assert_true(host_log_contains("X_PM_TMR_BLK 0x12345 is not an I/O port"));
	free(t);
	/* No timer at all, and a table too short for the flags. */
	t = fadt_pm(0, 0, 0, 1, 0);
	assert_false(acpi_fadt_pm_timer(t->b, t->len, &pm));
	free(t);
	t = fadt_build(1, 100, 0, 0, 0);
	assert_false(acpi_fadt_pm_timer(t->b, t->len, &pm));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, reset_log)
		T(test_checksum),
		T(test_fadt_pm_timer_fixtures),
		T(test_fadt_pm_timer_bad),
		T(test_hpet_fixture_and_bad),
		T(test_rsdp_v1_and_v2),
		T(test_rsdp_bad),
		T(test_walk_rsdt_q35),
		T(test_walk_xsdt),
		T(test_walk_xsdt_broken_falls_back_to_rsdt),
		T(test_walk_no_root),
		T(test_walk_bad_checksum_skipped),
		T(test_walk_bad_entries),
		T(test_walk_root_trailing_bytes),
		T(test_walk_duplicates),
		T(test_walk_full_directory),
		T(test_walk_warnings_are_capped),
		T(test_walk_fadt_rev1),
		T(test_madt_q35),
		T(test_madt_smp6_sparse_ids),
		T(test_madt_maxcpus_disabled),
		T(test_madt_online_capable),
		T(test_madt_x2apic_and_override),
		T(test_madt_no_entries),
		T(test_madt_zero_length_entry),
		T(test_madt_short_entry),
		T(test_madt_entry_past_end),
		T(test_madt_rejected),
		T(test_madt_capacity),
		T(test_madt_nmi_entries),
		T(test_srat_q35),
		T(test_srat_pxm_width),
		T(test_srat_flags_and_edges),
		T(test_srat_1000_domains),
		T(test_srat_malformed),
		T(test_slit_2x2),
		T(test_slit_invalid_values),
		T(test_slit_rejected),
		T(test_slit_largest),
		T(test_dump_format),
		T(test_dump_roundtrip),
		T(test_dump_matches_fixture),
		T(test_fixture_q35_numa2),
		T(test_fixture_q35_smp6),
		T(test_fixture_q35_maxcpus),
		T(test_fixture_pc),
		T(test_fixture_ovmf_xsdt),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_pptt.c: the PPTT parser (kernel/firmware/acpi/pptt.c) on the table
 * AAVMF hands over on QEMU virt (`-smp 8,sockets=2,clusters=2,cores=2`:
 * hw/acpi/aml-build.c's build_pptt, dumped with memboot.dump_acpi), on
 * tables built here byte by byte at the offsets ACPI 6.5 5.2.30 gives
 * (threads, caches private to cores, clusters and packages), and broken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/firmware/acpi/acpi.h"
#include "tests/host/host_support.h"

/* QEMU 10.0 virt under AAVMF, 2 sockets x 2 clusters x 2 cores: packages
 * (flags 1), clusters (flags 0), cores (flags 0xa: ID valid, leaf); no
 * caches. */
static const uint8_t virt_2s2c2c[] = {
	0x50, 0x50, 0x54, 0x54, 0x3c, 0x01, 0x00, 0x00, 0x02, 0xfb, 0x42, 0x4f,
	0x43, 0x48, 0x53, 0x20, 0x42, 0x58, 0x50, 0x43, 0x20, 0x20, 0x20, 0x20,
	0x01, 0x00, 0x00, 0x00, 0x42, 0x58, 0x50, 0x43, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x14, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
	0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x38, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
	0x74, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x74, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0xc4, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
	0x0a, 0x00, 0x00, 0x00, 0xc4, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x14, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
	0x0a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
};

static struct acpi_pptt_info info;

static int reset_log(void **state)
{
	(void)state;
	host_log_reset();
	return 0;
}

static void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, 2); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }

struct tb {
	uint8_t b[4096];
	uint32_t len;
};

static void begin(struct tb *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, "PPTT", 4);
	t->b[8] = 3;
	t->len = 36;
}

static void finish(struct tb *t)
{
	put32(t->b, 4, t->len);
}

/* A processor node; its offset. */
static uint32_t node(struct tb *t, uint32_t flags, uint32_t parent, uint32_t uid,
		     uint32_t nr_res, const uint32_t *res)
{
	uint32_t off = t->len;

	t->b[off] = 0;
	t->b[off + 1] = (uint8_t)(20 + 4 * nr_res);
	put32(t->b, off + 4, flags);
	put32(t->b, off + 8, parent);
	put32(t->b, off + 12, uid);
	put32(t->b, off + 16, nr_res);
	for (uint32_t i = 0; i < nr_res; i++)
		put32(t->b, off + 20 + 4 * i, res[i]);
	t->len += 20 + 4 * nr_res;
	return off;
}

/* A revision 3 cache structure, every field valid; its offset. */
static uint32_t cache(struct tb *t, uint32_t next, uint32_t size, uint32_t sets, uint8_t ways,
		      uint8_t type, uint16_t line)
{
	uint32_t off = t->len;

	t->b[off] = 1;
	t->b[off + 1] = 28;
	put32(t->b, off + 4, 0xff);
	put32(t->b, off + 8, next);
	put32(t->b, off + 12, size);
	put32(t->b, off + 16, sets);
	t->b[off + 20] = ways;
	t->b[off + 21] = (uint8_t)(type << 2 | 1 << 4);      /* write-back */
	put16(t->b, off + 22, line);
	t->len += 28;
	return off;
}

static void test_qemu_virt_sockets_clusters_cores(void **state)
{
	(void)state;
	assert_true(acpi_pptt_parse(virt_2s2c2c, sizeof(virt_2s2c2c), &info));
	assert_int_equal(info.revision, 2);
	assert_int_equal(info.nr_nodes, 14);
	assert_int_equal(info.nr_processors, 8);
	assert_int_equal(info.nr_packages, 2);
	assert_int_equal(info.nr_clusters, 4);
	assert_int_equal(info.nr_cores, 8);
	assert_int_equal(info.nr_threads, 0);
	assert_int_equal(info.nr_cache_structs, 0);
	assert_int_equal(info.nr_caches, 0);
	assert_int_equal(info.warnings, 0);
	assert_false(info.truncated);
	assert_int_equal(host_log_count(LOG_WARN), 0);
}

/*
 * One package with an 8 MiB L3; two clusters, each with a 1 MiB L2; two
 * cores a cluster, each with L1d and L1i (next level: the cluster's L2) and
 * two threads. The L2 is also listed as the cluster's resource (as firmware
 * does): it keeps level 2. Caches are laid out after the nodes, the L3
 * listed before the package it belongs to.
 */
static void build_smt_machine(struct tb *t)
{
	uint32_t l3, l2[2], l1d[4], l1i[4], pkg, cl, core;

	begin(t);
	l3 = cache(t, 0, 8 << 20, 8192, 16, 2, 64);
	pkg = node(t, 1 | 2 | 16, 0, 0, 1, &l3);
	for (int c = 0; c < 2; c++) {
		l2[c] = cache(t, 0, 1 << 20, 2048, 8, 3, 64);
		cl = node(t, 0, pkg, (uint32_t)c, 1, &l2[c]);
		for (int k = 0; k < 2; k++) {
			int i = c * 2 + k;
			uint32_t res[2];

			l1d[i] = cache(t, l2[c], 64 << 10, 256, 4, 0, 64);
			l1i[i] = cache(t, l2[c], 64 << 10, 256, 4, 1, 64);
			res[0] = l1d[i];
			res[1] = l1i[i];
			core = node(t, 0, cl, (uint32_t)i, 2, res);
			node(t, 2 | 4 | 8, core, (uint32_t)(2 * i), 0, NULL);
			node(t, 2 | 4 | 8, core, (uint32_t)(2 * i + 1), 0, NULL);
		}
	}
	finish(t);
}

static const struct acpi_pptt_cache *kind(uint32_t level, uint32_t type)
{
	for (uint32_t i = 0; i < info.nr_caches; i++)
		if (info.caches[i].level == level && info.caches[i].type == type)
			return &info.caches[i];
	fail_msg("no L%u cache of type %u", level, type);
	return NULL;
}

static void test_threads_and_caches(void **state)
{
	static struct tb t;
	const struct acpi_pptt_cache *c;

	(void)state;
	build_smt_machine(&t);
	assert_true(acpi_pptt_parse(t.b, t.len, &info));
	assert_int_equal(info.nr_processors, 8);
	assert_int_equal(info.nr_packages, 1);
	assert_int_equal(info.nr_clusters, 2);
	assert_int_equal(info.nr_cores, 4);
	assert_int_equal(info.nr_threads, 8);
	assert_int_equal(info.nr_cache_structs, 11);
	assert_int_equal(info.nr_caches, 4);
	c = kind(1, ACPI_PPTT_CACHE_DATA);
	assert_int_equal(c->size_bytes, 64 << 10);
	assert_int_equal(c->sets, 256);
	assert_int_equal(c->ways, 4);
	assert_int_equal(c->line_bytes, 64);
	assert_int_equal(c->cpus, 2);
	assert_int_equal(c->count, 4);
	c = kind(1, ACPI_PPTT_CACHE_INSTRUCTION);
	assert_int_equal(c->cpus, 2);
	assert_int_equal(c->count, 4);
	/* Attribute type 3 is unified too. */
	c = kind(2, ACPI_PPTT_CACHE_UNIFIED);
	assert_int_equal(c->size_bytes, 1 << 20);
	assert_int_equal(c->cpus, 4);
	assert_int_equal(c->count, 2);
	c = kind(3, ACPI_PPTT_CACHE_UNIFIED);
	assert_int_equal(c->size_bytes, 8 << 20);
	assert_int_equal(c->ways, 16);
	assert_int_equal(c->cpus, 8);
	assert_int_equal(c->count, 1);
	assert_int_equal(info.warnings, 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);
}

static void test_cache_fields_not_valid_are_zero(void **state)
{
	static struct tb t;
	uint32_t l1;

	(void)state;
	begin(&t);
	l1 = cache(&t, 0, 32 << 10, 128, 4, 0, 64);
	put32(t.b, l1 + 4, 0);           /* nothing valid */
	node(&t, 1 | 2 | 8, 0, 0, 1, &l1);
	finish(&t);
	assert_true(acpi_pptt_parse(t.b, t.len, &info));
	assert_int_equal(info.nr_caches, 1);
	assert_int_equal(info.caches[0].level, 1);
	assert_int_equal(info.caches[0].type, ACPI_PPTT_CACHE_UNIFIED);
	assert_int_equal(info.caches[0].size_bytes, 0);
	assert_int_equal(info.caches[0].sets, 0);
	assert_int_equal(info.caches[0].ways, 0);
	assert_int_equal(info.caches[0].line_bytes, 0);
	/* A one-node table: the package is its only processor. */
	assert_int_equal(info.nr_packages, 1);
	assert_int_equal(info.nr_processors, 1);
}

static void test_unusable_table(void **state)
{
	uint8_t b[40] = "PPTX";

	(void)state;
	put32(b, 4, 36);
	assert_false(acpi_pptt_parse(b, sizeof(b), &info));
	assert_int_equal(info.nr_processors, 0);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	host_log_reset();
	assert_false(acpi_pptt_parse(virt_2s2c2c, 20, &info));
	assert_int_equal(host_log_count(LOG_WARN), 1);
}

static void test_structure_past_the_end_truncates(void **state)
{
	static struct tb t;

	(void)state;
	memcpy(t.b, virt_2s2c2c, sizeof(virt_2s2c2c));
	t.len = sizeof(virt_2s2c2c);
	/* The last core's length runs 1 byte past the table. */
	t.b[0x128 + 1] = 21;
	assert_true(acpi_pptt_parse(t.b, t.len, &info));
	assert_true(info.truncated);
	assert_int_equal(info.nr_processors, 7);
	assert_int_equal(info.warnings, 1);
	assert_true(host_log_contains("ACPI: PPTT: structure at offset 0x128: length 21 does not fit"));
}

static void test_bad_parent_short_node_and_resource(void **state)
{
	static struct tb t;
	uint32_t bad = 0x3000, pkg, core;

	(void)state;
	begin(&t);
	pkg = node(&t, 1, 0, 0, 0, NULL);
	core = node(&t, 2 | 8, pkg, 0, 1, &bad);        /* a resource past the end */
	node(&t, 2 | 8, core + 2, 1, 0, NULL);          /* a parent mid-structure */
	/* Claims 3 resources in 24 bytes: skipped. */
	core = node(&t, 2 | 8, pkg, 2, 1, &bad);
	put32(t.b, core + 16, 3);
	finish(&t);
	assert_true(acpi_pptt_parse(t.b, t.len, &info));
	assert_int_equal(info.nr_nodes, 3);
	assert_int_equal(info.nr_processors, 2);
	assert_int_equal(info.warnings, 3);
	assert_true(host_log_contains("its parent 0x3a is not a processor node; taken as a root"));
	assert_true(host_log_contains("24 bytes cannot hold its header and 3 private resources; skipped"));
	assert_true(host_log_contains("resource offset 0x3000 is outside the table"));
}

static void test_loops_are_cut(void **state)
{
	static struct tb t;
	uint32_t a, b, c1, c2;

	(void)state;
	begin(&t);
	/* Two nodes each other's parent, a leaf below; two caches each
	 * other's next level. */
	a = node(&t, 0, 36 + 20, 0, 0, NULL);
	b = node(&t, 0, a, 1, 0, NULL);
	c1 = t.len + 24;
	node(&t, 2 | 8, b, 2, 1, &c1);
	c2 = c1 + 28;
	cache(&t, c2, 1024, 4, 4, 2, 64);
	cache(&t, c1, 2048, 4, 4, 2, 64);
	finish(&t);
	assert_true(acpi_pptt_parse(t.b, t.len, &info));
	assert_int_equal(info.nr_processors, 1);
	/* Each cache once: the second's next level is the first again. */
	assert_int_equal(info.nr_caches, 2);
	assert_true(host_log_contains("leaf at offset 0x4c: more than 16 levels above it (a loop)"));
	assert_true(host_log_contains("node at offset 0x4c: its caches' next-level chain is longer "
				      "than 16 (a loop)"));
	assert_int_equal(info.warnings, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, reset_log)
		T(test_qemu_virt_sockets_clusters_cores),
		T(test_threads_and_caches),
		T(test_cache_fields_not_valid_are_zero),
		T(test_unusable_table),
		T(test_structure_past_the_end_truncates),
		T(test_bad_parent_short_node_and_resource),
		T(test_loops_are_cut),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_hmat.c: the HMAT parser and its checks against the SRAT
 * (kernel/firmware/acpi/hmat.c), the SRAT's generic initiator and port entries
 * (kernel/firmware/acpi/srat.c), and the tiers and initialising nodes built from
 * them (mm/tiers.c).
 *
 * Inputs: the tables QEMU 10 built for `-machine hmat=on` with two CPU
 * nodes, two memory-only nodes and hmat-lb/hmat-cache lines (the fixture
 * q35-hmat-4nodes.acpidump, from a memboot.dump_acpi boot), and tables
 * built here at the offsets ACPI 6.5 gives, broken as firmware breaks them.
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
#include "mm/tiers.h"
#include "tests/host/host_support.h"
#include "tools/topo/acpidump_text.h"

static void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, 2); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

struct tbl {
	uint8_t b[4096];
	size_t len;
};

static void sdt(struct tbl *t, const char *sig, uint8_t rev, size_t fixed)
{
	memset(t->b, 0, sizeof(t->b));
	memcpy(t->b, sig, 4);
	t->b[8] = rev;
	t->len = fixed;
}

static void finish(struct tbl *t)
{
	uint8_t s = 0;

	put32(t->b, 4, (uint32_t)t->len);
	t->b[9] = 0;
	for (size_t i = 0; i < t->len; i++)
		s = (uint8_t)(s + t->b[i]);
	t->b[9] = (uint8_t)-s;
}

/* HMAT type 0: memory @mem attached to initiator @init (or none: ~0u). */
static void hmat_domain(struct tbl *t, uint32_t mem, uint32_t init)
{
	uint8_t *p = t->b + t->len;

	memset(p, 0, 40);
	put16(p, 0, 0);
	put32(p, 4, 40);
	put16(p, 8, init != ~0u);
	put32(p, 12, init != ~0u ? init : 0);
	put32(p, 16, mem);
	t->len += 40;
}

/* HMAT type 1: @ni x @nt entries (initiator-major), base unit @base. */
static void hmat_lb(struct tbl *t, uint8_t type, uint64_t base, uint32_t ni, const uint32_t *inits,
		    uint32_t nt, const uint32_t *targets, const uint16_t *entries)
{
	uint8_t *p = t->b + t->len;
	size_t len = 32 + 4 * ni + 4 * nt + 2 * ni * nt;

	memset(p, 0, len);
	put16(p, 0, 1);
	put32(p, 4, (uint32_t)len);
	p[8] = 0;                 /* memory hierarchy */
	p[9] = type;
	put32(p, 12, ni);
	put32(p, 16, nt);
	put64(p, 24, base);
	for (uint32_t i = 0; i < ni; i++)
		put32(p, 32 + 4 * i, inits[i]);
	for (uint32_t i = 0; i < nt; i++)
		put32(p, 32 + 4 * ni + 4 * i, targets[i]);
	for (uint32_t i = 0; i < ni * nt; i++)
		put16(p, 32 + 4 * ni + 4 * nt + 2 * i, entries[i]);
	t->len += len;
}

static void hmat_cache(struct tbl *t, uint32_t mem, uint64_t size, uint32_t attr, uint16_t handles)
{
	uint8_t *p = t->b + t->len;
	size_t len = 32 + 2u * handles;

	memset(p, 0, len);
	put16(p, 0, 2);
	put32(p, 4, (uint32_t)len);
	put32(p, 8, mem);
	put64(p, 16, size);
	put32(p, 24, attr);
	put16(p, 30, handles);
	t->len += len;
}

static struct acpi_hmat_info hmat;
static struct acpi_srat_info srat;
static struct mem_tiers tiers;
static struct numa_topology topo;

/* ---- the QEMU fixture ---- */

struct found {
	uint8_t *hmat, *srat;
	size_t hmat_len, srat_len;
};

static void on_table(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes, size_t len)
{
	struct found *f = ctx;

	(void)phys;
	if (!strcmp(sig, "HMAT")) {
		f->hmat = malloc(len);
		memcpy(f->hmat, bytes, len);
		f->hmat_len = len;
	} else if (!strcmp(sig, "SRAT")) {
		f->srat = malloc(len);
		memcpy(f->srat, bytes, len);
		f->srat_len = len;
	}
}

static void load_fixture(struct found *f)
{
	static const char *const paths[] = { "tests/host/fixtures/acpi/q35-hmat-4nodes.acpidump",
					     "../tests/host/fixtures/acpi/q35-hmat-4nodes.acpidump" };
	static uint8_t buf[1 << 20];
	size_t len = 0;
	char *text = NULL;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !text; i++)
		if (access(paths[i], R_OK) == 0)
			text = host_read_file(paths[i], &len);
	assert_non_null(text);
	memset(f, 0, sizeof(*f));
	assert_true(acpi_parse_acpidump_text(text, len, buf, sizeof(buf), on_table, f) > 0);
	free(text);
	assert_non_null(f->hmat);
	assert_non_null(f->srat);
}

/* Four nodes as QEMU's: PXM n is node n; nodes 0 and 1 have a CPU each. */
static void four_nodes(struct numa_topology *t, bool slit_far_first)
{
	memset(t, 0, sizeof(*t));
	t->nr_nodes = 4;
	for (uint32_t n = 0; n < 4; n++) {
		t->nodes[n].pxm = n;
		t->nodes[n].mem_bytes = n < 2 ? 512u << 20 : 256u << 20;
		t->nodes[n].nr_present_cpus = n < 2;
		t->nodes[n].nr_cpus = n < 2;
		for (uint32_t m = 0; m < 4; m++)
			t->distance[n * 4 + m] = n == m ? 10 : 20;
	}
	if (slit_far_first) {
		/* Node 2 nearer node 1 than node 0 by distance. */
		t->distance[2 * 4 + 0] = 30;
		t->distance[2 * 4 + 1] = 17;
	}
}

static void test_qemu_fixture(void **state)
{
	struct found f;
	uint32_t lat = 0, bw = 0;

	(void)state;
	load_fixture(&f);
	host_log_reset();
	assert_true(acpi_hmat_parse(f.hmat, f.hmat_len, &hmat));
	assert_true(acpi_srat_parse(f.srat, f.srat_len, &srat));
	assert_int_equal(hmat.revision, 2);
	assert_false(hmat.truncated);
	assert_int_equal(hmat.nr_domains, 4);
	assert_int_equal(hmat.nr_lb, 2);
	assert_int_equal(hmat.nr_values, 16);
	assert_int_equal(hmat.nr_caches, 1);
	assert_int_equal(hmat.caches[0].memory_pxm, 2);
	assert_int_equal(hmat.caches[0].size_bytes, 16u << 20);
	assert_int_equal(hmat.caches[0].level, 1);
	assert_int_equal(hmat.caches[0].line_bytes, 64);
	assert_int_equal(hmat.caches[0].write_policy, 1);
	assert_int_equal(hmat.caches[0].associativity, 1);
	/* Memory-only nodes 2 and 3 are attached to initiators 0 and 1. */
	assert_true(hmat.domains[2].initiator_valid);
	assert_int_equal(hmat.domains[2].initiator_pxm, 0);
	assert_int_equal(hmat.domains[3].initiator_pxm, 1);
	for (uint32_t i = 0; i < hmat.nr_values; i++) {
		const struct acpi_hmat_value *v = &hmat.values[i];
		if (v->initiator_pxm != 0 || v->target_pxm != 2)
			continue;
		if (v->data_type == ACPI_HMAT_ACCESS_LATENCY)
			lat = (uint32_t)v->value;
		if (v->data_type == ACPI_HMAT_ACCESS_BANDWIDTH)
			bw = (uint32_t)v->value;
	}
	assert_int_equal(lat, 40000);      /* latency=40 (ns), in picoseconds */
	assert_int_equal(bw, 5000);        /* bandwidth=5000M, in MB/s */
	assert_int_equal(acpi_hmat_check(&hmat, &srat), 0);
	assert_int_equal(host_log_count(LOG_WARN), 0);

	four_nodes(&topo, false);
	tiers_build(&tiers, &topo, &hmat);
	assert_int_equal(tiers.dram_ref_node, 0);
	assert_int_equal(tiers.adistance[0], TIERS_ADISTANCE_DRAM);
	assert_int_equal(TIERS_ADISTANCE_DRAM, 576);
	/* 576 x (40 + 40) / (10 + 10) x (20000 + 20000) / (5000 + 5000) */
	assert_int_equal(tiers.adistance[2], 9216);
	assert_int_equal(tiers.tier[2], 72);
	assert_int_equal(tiers.tier[0], 4);
	assert_int_equal(tiers.nr_tiers, 2);
	assert_int_equal(tiers.perf[2].initiator_node, 0);
	assert_int_equal(tiers.perf[2].read_latency_ns, 40);
	assert_int_equal(tiers.perf[2].write_bandwidth_mbs, 5000);
	assert_int_equal(tiers.perf[3].initiator_node, 1);
	assert_int_equal(tiers.cache_bytes[2], 16u << 20);
	assert_int_equal(tiers.init_node[2], 0);
	assert_int_equal(tiers.init_by[2], TIERS_INIT_HMAT);
	assert_int_equal(tiers.init_node[3], 1);
	assert_int_equal(tiers.init_by[0], TIERS_INIT_OWN);
	free(f.hmat);
	free(f.srat);
}

/* ---- built tables ---- */

static const uint32_t two[] = { 0, 1 };
static const uint32_t targets4[] = { 0, 1, 2, 3 };

/* Both CPU nodes, DRAM (10 ns, 20 GB/s locally) and the two memory-only
 * nodes, read and write figures apart; no attached initiators. */
static void built_hmat(struct tbl *t, uint16_t mem_only_latency_entry)
{
	const uint16_t lat[] = { 10, 20, mem_only_latency_entry, 60,
				 20, 10, 60, mem_only_latency_entry };
	const uint16_t wlat[] = { 12, 22, 50, 70, 22, 12, 70, 50 };
	const uint16_t bw[] = { 200, 100, 50, 40, 100, 200, 40, 50 };

	sdt(t, "HMAT", 2, 40);
	hmat_domain(t, 2, ~0u);
	hmat_lb(t, ACPI_HMAT_READ_LATENCY, 1000, 2, two, 4, targets4, lat);
	hmat_lb(t, ACPI_HMAT_WRITE_LATENCY, 1000, 2, two, 4, targets4, wlat);
	hmat_lb(t, ACPI_HMAT_ACCESS_BANDWIDTH, 100, 2, two, 4, targets4, bw);
	hmat_cache(t, 3, 1u << 30, 0x00401121, 2);
	finish(t);
}

static void test_built_and_tiers(void **state)
{
	static struct tbl t;

	(void)state;
	built_hmat(&t, 40);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_false(hmat.truncated);
	assert_int_equal(hmat.nr_lb, 3);
	assert_int_equal(hmat.nr_values, 24);
	assert_int_equal(hmat.caches[0].line_bytes, 64);
	assert_int_equal(hmat.caches[0].total_levels, 1);
	assert_int_equal(hmat.caches[0].level, 2);
	four_nodes(&topo, false);
	tiers_build(&tiers, &topo, &hmat);
	/* Node 2: read 40, write 50 ns, 5000 MB/s both ways; DRAM 10+12, 20000+20000. */
	assert_int_equal(tiers.cpu_perf[2].read_latency_ns, 40);
	assert_int_equal(tiers.cpu_perf[2].write_latency_ns, 50);
	assert_int_equal(tiers.adistance[2], 576 * 90 / 22 * 40000 / 10000);
	assert_int_equal(tiers.tier[2], (576 * 90 / 22 * 40000 / 10000) >> 7);
	/* Node 3's best initiator is node 1 (40 ns beats 60 ns). */
	assert_int_equal(tiers.perf[3].initiator_node, 1);
	assert_int_equal(tiers.init_node[3], 1);
	assert_int_equal(tiers.cache_bytes[3], 1u << 30);
	/* No attached initiator and equal read latency (60 ns) from both: the
	 * higher read bandwidth decides (node 0's 5000 MB/s over 4000), and
	 * when node 1's is raised, node 1. */
	built_hmat(&t, 60);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	tiers_build(&tiers, &topo, &hmat);
	assert_int_equal(tiers.perf[2].initiator_node, 0);
	for (uint32_t i = 0; i < hmat.nr_values; i++)
		if (hmat.values[i].initiator_pxm == 1 && hmat.values[i].target_pxm == 2 &&
		    hmat.values[i].data_type == ACPI_HMAT_ACCESS_BANDWIDTH)
			hmat.values[i].value = 6000;
	tiers_build(&tiers, &topo, &hmat);
	assert_int_equal(tiers.perf[2].initiator_node, 1);
	assert_int_equal(tiers.init_node[2], 1);
}

static void test_attached_and_distance(void **state)
{
	static struct tbl t;
	const uint16_t lat[] = { 10, 30, 20, 10 };
	const uint32_t t2[] = { 0, 2 };

	(void)state;
	/* Only node 0's and node 2's figures; node 2 attached to initiator 1,
	 * though 0 is faster; node 3 has none: nearest by distance. */
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 2, 1);
	hmat_lb(&t, ACPI_HMAT_ACCESS_LATENCY, 1000, 2, two, 2, t2, lat);
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	four_nodes(&topo, true);
	tiers_build(&tiers, &topo, &hmat);
	assert_true(tiers.perf[2].attached);
	assert_int_equal(tiers.perf[2].initiator_node, 1);
	assert_int_equal(tiers.init_node[2], 1);
	assert_int_equal(tiers.init_by[2], TIERS_INIT_HMAT);
	assert_int_equal(tiers.init_by[3], TIERS_INIT_DISTANCE);
	assert_int_equal(tiers.init_node[3], 0);    /* 20 and 20: the lower id */
	/* No bandwidth: no adistance from figures, DRAM's tier. */
	assert_int_equal(tiers.adistance[2], TIERS_ADISTANCE_DRAM);
	/* Figures the HMAT leaves out are said to be, never printed as 0, and
	 * no reference node is not node -1. */
	host_log_reset();
	tiers_report(&tiers, &topo, &hmat, 0, NULL);
	assert_true(host_log_contains("read latency 10 ns, write latency 10 ns, "
				      "read bandwidth not given, write bandwidth not given"));
	assert_true(host_log_contains("no DRAM reference node (no-dram-figures)"));
	assert_false(host_log_contains(" 0 MB/s"));
	assert_false(host_log_contains("node -1"));

	/* Without an HMAT: node 2 goes to node 1, nearer by the SLIT. */
	tiers_build(&tiers, &topo, NULL);
	assert_int_equal(tiers.init_node[2], 1);
	assert_int_equal(tiers.init_by[2], TIERS_INIT_DISTANCE);
	assert_int_equal(tiers.dram_ref_node, -1);
	assert_string_equal(tiers.no_ref_reason, "no-hmat");
	assert_int_equal(tiers.nr_tiers, 1);
	/* A node without memory has no tier and is initialised by nobody. */
	topo.nodes[3].mem_bytes = 0;
	tiers_build(&tiers, &topo, NULL);
	assert_int_equal(tiers.tier[3], TIERS_NO_TIER);
	assert_int_equal(tiers.init_by[3], TIERS_INIT_NONE);
}

static void test_dram_mismatch(void **state)
{
	static struct tbl t;
	const uint16_t lat[] = { 10, 20, 40, 60, 20, 15, 60, 40 };   /* node 1's DRAM 50 % slower */
	const uint16_t bw[] = { 200, 100, 50, 40, 100, 200, 40, 50 };

	(void)state;
	sdt(&t, "HMAT", 2, 40);
	hmat_lb(&t, ACPI_HMAT_ACCESS_LATENCY, 1000, 2, two, 4, targets4, lat);
	hmat_lb(&t, ACPI_HMAT_ACCESS_BANDWIDTH, 100, 2, two, 4, targets4, bw);
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	four_nodes(&topo, false);
	host_log_reset();
	tiers_build(&tiers, &topo, &hmat);
	assert_int_equal(tiers.dram_ref_node, -1);
	assert_string_equal(tiers.no_ref_reason, "dram-mismatch");
	assert_true(host_log_contains("differ by more than 10%"));
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(tiers.adistance[n], TIERS_ADISTANCE_DRAM);
}

static void test_entries_and_base_units(void **state)
{
	static struct tbl t;
	const uint16_t e[] = { 0, 0xffff, 7, 0xfffe };
	const uint16_t b[] = { 1, 1, 1, 1 };

	(void)state;
	sdt(&t, "HMAT", 2, 40);
	hmat_lb(&t, ACPI_HMAT_READ_LATENCY, 1000, 2, two, 2, two, e);
	hmat_lb(&t, ACPI_HMAT_READ_BANDWIDTH, 0, 2, two, 2, two, b);
	hmat_lb(&t, 9, 1, 2, two, 2, two, b);                          /* no such data type */
	hmat_lb(&t, ACPI_HMAT_WRITE_BANDWIDTH, UINT64_MAX / 2, 2, two, 2, two, b);
	finish(&t);
	host_log_reset();
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_int_equal(hmat.nr_lb, 4);
	assert_int_equal(hmat.lb[0].nr_missing, 1);
	assert_int_equal(hmat.lb[0].nr_unreachable, 1);
	assert_int_equal(hmat.lb[0].nr_values, 2);
	assert_int_equal(hmat.values[0].value, 7000);
	assert_int_equal(hmat.values[1].value, 0xfffeull * 1000);
	assert_int_equal(hmat.nr_zero_base, 1);
	assert_int_equal(hmat.lb[1].nr_values, 0);
	assert_true(host_log_contains("data type 9"));
	assert_int_equal(hmat.lb[3].nr_values, 4);
	assert_int_equal(hmat.values[2].value, UINT64_MAX);            /* clipped, not wrapped */
	/* Checks: a zero base unit, absurd figures, domains the SRAT lacks. */
	memset(&srat, 0, sizeof(srat));
	srat.nr_cpus = 1;
	srat.cpus[0].pxm = 0;
	srat.nr_mems = 1;
	srat.mems[0].pxm = 0;
	host_log_reset();
	assert_true(acpi_hmat_check(&hmat, &srat) > 0);
	assert_true(host_log_contains("entry base unit 0"));
	assert_true(host_log_contains("beyond any memory's"));
	assert_true(host_log_contains("the SRAT has no CPU or generic initiator with that domain"));
	host_log_reset();
	assert_true(acpi_hmat_check(&hmat, NULL) > 0);   /* no SRAT: values only */
	assert_false(host_log_contains("the SRAT has no"));
}

static void test_malformed(void **state)
{
	static struct tbl t;
	const uint16_t e[] = { 1, 2, 3, 4 };

	(void)state;
	/* Counts whose lists and matrix do not fit in the structure. */
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 0, ~0u);
	hmat_lb(&t, ACPI_HMAT_READ_LATENCY, 1000, 2, two, 2, two, e);
	put32(t.b, 40 + 40 + 12, 0x40000000);   /* initiators */
	finish(&t);
	host_log_reset();
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated);
	assert_int_equal(hmat.nr_domains, 1);
	assert_int_equal(hmat.nr_values, 0);
	assert_true(host_log_contains("initiators x"));
	/* Counts whose matrix size wraps 64 bits (2 x ni x nt, with ni near
	 * 2^31 and nt near 2^32, is 24 bytes modulo 2^64): refused from the
	 * counts alone, nothing read past the structure. */
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 0, ~0u);
	hmat_lb(&t, ACPI_HMAT_READ_LATENCY, 1000, 2, two, 2, two, e);
	put32(t.b, 40 + 40 + 12, 0x7ffffffeu);  /* initiators */
	put32(t.b, 40 + 40 + 16, 0xfffffffeu);  /* targets */
	finish(&t);
	host_log_reset();
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated);
	assert_int_equal(hmat.nr_lb, 0);
	assert_int_equal(hmat.nr_values, 0);
	assert_true(host_log_contains("2147483646 initiators x 4294967294 targets cannot fit"));
	/* A structure running past the table, one shorter than its header,
	 * one shorter than its type's fixed part. */
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 0, ~0u);
	put32(t.b, 40 + 4, 41);
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated && hmat.nr_domains == 0);
	put32(t.b, 40 + 4, 4);
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated);
	sdt(&t, "HMAT", 2, 40);
	hmat_cache(&t, 0, 1, 0, 4);
	put16(t.b, 40 + 30, 100);               /* handles beyond its length */
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated && hmat.nr_caches == 0);
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 0, ~0u);
	put32(t.b, 40 + 4, 16);                 /* type 0 of 16 bytes */
	t.len = 40 + 16;
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated && hmat.nr_domains == 0);
	/* Whole table unusable. */
	assert_false(acpi_hmat_parse(t.b, 20, &hmat));
	memcpy(t.b, "SRAT", 4);
	assert_false(acpi_hmat_parse(t.b, t.len, &hmat));
	/* A trailing stub shorter than a structure header. */
	sdt(&t, "HMAT", 2, 40);
	hmat_domain(&t, 0, ~0u);
	t.len += 5;
	finish(&t);
	assert_true(acpi_hmat_parse(t.b, t.len, &hmat));
	assert_true(hmat.truncated && hmat.nr_domains == 1);
}

static void test_srat_generic(void **state)
{
	static struct tbl t;
	uint8_t *p;

	(void)state;
	sdt(&t, "SRAT", 3, 48);
	/* A generic initiator on PCI 0000:03:00.1, PXM 4. */
	p = t.b + t.len;
	memset(p, 0, 32);
	p[0] = 5; p[1] = 32; p[3] = 1;
	put32(p, 4, 4);
	put16(p, 8, 0);
	put16(p, 10, 3 << 8 | 0 << 3 | 1);
	put32(p, 24, 3);
	t.len += 32;
	/* A generic port, ACPI handle ACPI0016 UID 7, PXM 5. */
	p = t.b + t.len;
	memset(p, 0, 32);
	p[0] = 6; p[1] = 32; p[3] = 0;
	put32(p, 4, 5);
	memcpy(p + 8, "ACPI0016", 8);
	put32(p, 16, 7);
	put32(p, 24, 1);
	t.len += 32;
	/* A disabled one, then one too short. */
	p = t.b + t.len;
	memset(p, 0, 32);
	p[0] = 5; p[1] = 32;
	t.len += 32;
	p = t.b + t.len;
	memset(p, 0, 24);
	p[0] = 6; p[1] = 24;
	t.len += 24;
	finish(&t);
	host_log_reset();
	assert_true(acpi_srat_parse(t.b, t.len, &srat));
	assert_int_equal(srat.nr_generic, 2);
	assert_int_equal(srat.nr_disabled, 1);
	assert_true(srat.truncated);
	assert_int_equal(srat.generic[0].type, 5);
	assert_int_equal(srat.generic[0].pxm, 4);
	assert_int_equal(srat.generic[0].pci_bdf, 0x301);
	assert_true(srat.generic[0].architectural);
	assert_int_equal(srat.generic[1].type, 6);
	assert_string_equal(srat.generic[1].acpi_hid, "ACPI0016");
	assert_int_equal(srat.generic[1].acpi_uid, 7);
	assert_false(srat.generic[1].architectural);
	/* HMAT naming the generic initiator's domain: known to the SRAT. */
	hmat.nr_values = 1;
	hmat.nr_lb = hmat.nr_domains = hmat.nr_caches = 0;
	hmat.values[0] = (struct acpi_hmat_value){ .initiator_pxm = 4, .target_pxm = 9,
						   .value = 100, .data_type = 0 };
	host_log_reset();
	assert_int_equal(acpi_hmat_check(&hmat, &srat), 1);   /* target 9 only */
	assert_true(host_log_contains("has no memory with that domain"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test(f)
		T(test_qemu_fixture),
		T(test_built_and_tiers),
		T(test_attached_and_distance),
		T(test_dram_mismatch),
		T(test_entries_and_base_units),
		T(test_malformed),
		T(test_srat_generic),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

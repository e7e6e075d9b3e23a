/*
 * test_numa.c: the NUMA topology builder (mm/numa.c, mm/numa_srat.c,
 * mm/numa_srat_mem.c), numa_check() (mm/numa_check.c) on what it builds and
 * broken copies of it, and numa_print()'s lines (mm/numa_report.c). The
 * balanced choice of CPUs alone (mm/numa_select.c): test_numa_select.c.
 *
 * Inputs go through the real parsers: MADT, SRAT and SLIT bytes are either
 * built here entry by entry (a few helpers below write the ACPI layouts) or
 * read from tables captured from QEMU (tests/host/fixtures/acpi/), and memory
 * maps through bootinfo_add_raw() and bootinfo_normalize(), laid out as
 * SeaBIOS reports them for QEMU (see the .txt files of tests/host/fixtures/mb2/).
 *
 * Every case checks the exact nodes, CPUs, memory ranges, distances,
 * mem_node and warnings, then numa_check() and, independently of it, that
 * every usable byte of the map lies on exactly one node (by summing overlaps)
 * and every CPU on exactly one node.
 *
 * Run from the repository root (fixture paths are relative to it).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/bootinfo.h"
#include "kernel/firmware/acpi/acpi.h"
#include "mm/numa.h"
#include "tools/topo/acpidump_text.h"
#include "tests/host/host_support.h"

#define FIXTURE_DIR "tests/host/fixtures/acpi/"
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define NO_NODE NUMA_NO_NODE

/* ACPI flag bits, as the specification numbers them. */
#define MADT_ENABLED 1u
#define MADT_ONLINE_CAPABLE 2u
#define SRAT_ENABLED 1u
#define SRAT_HOTPLUG 2u
#define SRAT_NONVOLATILE 4u

/* Lookups the tests make; the kernel reads the tables directly. */
static uint32_t cpu_of_apic_id(const struct numa_topology *t, uint32_t apic_id)
{
	for (uint32_t c = 0; c < t->nr_cpus; c++)
		if (t->cpus[c].hwid == apic_id)
			return c;
	return NUMA_NO_CPU;
}

static uint8_t distance_of(const struct numa_topology *t, uint32_t from, uint32_t to)
{
	assert_true(from < t->nr_nodes && to < t->nr_nodes);
	return t->distance[from * t->nr_nodes + to];
}

/* Kept off the stack: the ACPI results and the topology are tens of KiB. */
static struct bootinfo bi;
static struct acpi_madt_info madt;
static struct acpi_srat_info srat;
static struct acpi_slit_info slit;
static struct numa_topology topo;

/* ---- ACPI table builder ------------------------------------------------ */

struct table {
	uint8_t b[512 * 1024];   /* 16384 x2APIC entries and their SRAT affinities */
	uint32_t len;
	bool used;
};

static struct table madt_tb, srat_tb, slit_tb;
static uint32_t boot_apic;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *tb_grow(struct table *t, uint32_t n)
{
	uint8_t *p;

	assert_true(t->len + n <= sizeof(t->b));
	p = t->b + t->len;
	memset(p, 0, n);
	t->len += n;
	return p;
}

/* Header (36 bytes) plus @fixed - 36 zeroed bytes of the table's fixed part. */
static void tb_begin(struct table *t, const char *sig, uint8_t revision, uint32_t fixed)
{
	uint8_t *p;

	t->len = 0;
	t->used = false;
	p = tb_grow(t, fixed);
	memcpy(p, sig, 4);
	p[8] = revision;
	memcpy(p + 10, "MEMBT ", 6);
	memcpy(p + 16, "NUMATEST", 8);
	put_le(p + 24, 1, 4);
	memcpy(p + 28, "TEST", 4);
}

/* Length and checksum; harmless on a captured table (same values). */
static void tb_end(struct table *t)
{
	uint8_t sum = 0;

	put_le(t->b + 4, t->len, 4);
	t->b[9] = 0;
	for (uint32_t i = 0; i < t->len; i++)
		sum = (uint8_t)(sum + t->b[i]);
	t->b[9] = (uint8_t)-sum;
}

/* A processor in the MADT: an xAPIC entry if the ID fits, else x2APIC. */
static void madt_cpu(uint32_t apic_id, uint32_t flags)
{
	uint8_t *p;

	if (apic_id < 0xff) {
		p = tb_grow(&madt_tb, 8);
		p[0] = 0;
		p[1] = 8;
		p[2] = (uint8_t)apic_id;     /* processor UID */
		p[3] = (uint8_t)apic_id;
		put_le(p + 4, flags, 4);
	} else {
		p = tb_grow(&madt_tb, 16);
		p[0] = 9;
		p[1] = 16;
		put_le(p + 4, apic_id, 4);
		put_le(p + 8, flags, 4);
		put_le(p + 12, apic_id, 4);  /* processor UID */
	}
}

static void cpu(uint32_t apic_id)
{
	madt_cpu(apic_id, MADT_ENABLED);
}

/* SRAT CPU affinity: xAPIC entry (type 0) if the ID fits, else x2APIC (type 2). */
static void cpu_aff_flags(uint32_t pxm, uint32_t apic_id, uint32_t flags)
{
	uint8_t *p;

	srat_tb.used = true;
	if (apic_id <= 0xff) {
		p = tb_grow(&srat_tb, 16);
		p[0] = 0;
		p[1] = 16;
		p[2] = (uint8_t)pxm;
		p[3] = (uint8_t)apic_id;
		put_le(p + 4, flags, 4);
		put_le(p + 9, pxm >> 8, 3);
	} else {
		p = tb_grow(&srat_tb, 24);
		p[0] = 2;
		p[1] = 24;
		put_le(p + 4, pxm, 4);
		put_le(p + 8, apic_id, 4);
		put_le(p + 12, flags, 4);
	}
}

static void cpu_aff(uint32_t pxm, uint32_t apic_id)
{
	cpu_aff_flags(pxm, apic_id, SRAT_ENABLED);
}

/* SRAT memory affinity for [start, end). */
static void mem_aff_flags(uint32_t pxm, uint64_t start, uint64_t end, uint32_t flags)
{
	uint8_t *p = tb_grow(&srat_tb, 40);

	srat_tb.used = true;
	p[0] = 1;
	p[1] = 40;
	put_le(p + 2, pxm, 4);
	put_le(p + 8, start, 8);
	put_le(p + 16, end - start, 8);
	put_le(p + 28, flags, 4);
}

static void mem_aff(uint32_t pxm, uint64_t start, uint64_t end)
{
	mem_aff_flags(pxm, start, end, SRAT_ENABLED);
}

static void slit_table(uint32_t n, const uint8_t *m, size_t count)
{
	assert_int_equal(count, (size_t)n * n);
	tb_begin(&slit_tb, "SLIT", 1, 44);
	put_le(slit_tb.b + 36, n, 8);
	memcpy(tb_grow(&slit_tb, n * n), m, count);
	slit_tb.used = true;
}

#define SLIT(n, ...) slit_table(n, (const uint8_t[]){ __VA_ARGS__ }, \
				sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* ---- memory maps ------------------------------------------------------- */

static void map(uint64_t start, uint64_t end, enum mem_type type)
{
	assert_true(bootinfo_add_raw(&bi, start, end - start, type));
}

/* QEMU q35 under SeaBIOS with @ram bytes: low RAM up to 2 GiB at most, the
 * rest from 4 GiB (compare fixtures/mb2/seabios-q35-8g.txt). */
static void map_q35(uint64_t ram)
{
	uint64_t low = ram >= 0xb0000000 ? 0x80000000 : ram;

	map(0, 0x9f000, MEM_USABLE);
	map(0x9f000, 0xa0000, MEM_RESERVED);
	map(0xf0000, 0x100000, MEM_RESERVED);
	map(0x100000, low - 0x21000, MEM_USABLE);
	map(low - 0x21000, low, MEM_RESERVED);
	map(0xb0000000, 0xc0000000, MEM_RESERVED);
	map(0xfed1c000, 0xfed20000, MEM_RESERVED);
	map(0xfffc0000, 0x100000000, MEM_RESERVED);
	if (ram > low)
		map(0x100000000, 0x100000000 + ram - low, MEM_USABLE);
	map(0xfd00000000, 0x10000000000, MEM_RESERVED);
}

/* ---- captured tables --------------------------------------------------- */

static void grab_table(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes,
		       size_t len)
{
	struct table *t = NULL;

	(void)ctx;
	(void)phys;
	if (!memcmp(sig, "APIC", 4))
		t = &madt_tb;
	else if (!memcmp(sig, "SRAT", 4))
		t = &srat_tb;
	else if (!memcmp(sig, "SLIT", 4))
		t = &slit_tb;
	if (!t)
		return;
	assert_true(len <= sizeof(t->b));
	memcpy(t->b, bytes, len);
	t->len = (uint32_t)len;
	t->used = true;
}

/* Replace the tables with those of an acpidump fixture (absent ones unused). */
static void load_fixture(const char *name)
{
	static uint8_t buf[1 << 16];
	char path[256];
	size_t len;
	char *text;

	snprintf(path, sizeof(path), FIXTURE_DIR "%s.acpidump", name);
	text = host_read_file(path, &len);
	madt_tb.used = srat_tb.used = slit_tb.used = false;
	assert_true(acpi_parse_acpidump_text(text, len, buf, sizeof(buf), grab_table, NULL) > 0);
	free(text);
	assert_true(madt_tb.used);
}

/* ---- running the builder and checking the result ----------------------- */

static int reset(void **state)
{
	(void)state;
	bootinfo_init(&bi, BOOT_PATH_MB2_BIOS);
	tb_begin(&madt_tb, "APIC", 5, 44);
	put_le(madt_tb.b + 36, 0xfee00000, 4);
	put_le(madt_tb.b + 40, 1, 4);
	madt_tb.used = true;
	tb_begin(&srat_tb, "SRAT", 3, 48);
	put_le(srat_tb.b + 36, 1, 4);
	slit_tb.used = false;
	boot_apic = 0;
	host_log_reset();
	return 0;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return lo < hi ? hi - lo : 0;
}

/*
 * numa_check(), and the same promises verified another way: sums of
 * overlaps show each usable byte on exactly one node and nothing else on any.
 */
static void verify(const struct numa_topology *t, const struct bootinfo *m)
{
	uint64_t usable = 0, placed = 0, node_sum[NUMA_MAX_NODES] = { 0 };

	assert_true(numa_check(t, m->ranges, m->nr_ranges));
	assert_true(t->nr_nodes >= 1 && t->nr_nodes <= NUMA_MAX_NODES);

	for (uint32_t i = 0; i < t->nr_ranges; i++) {
		const struct numa_mem_range *r = &t->ranges[i];

		assert_true(r->start < r->end);
		assert_true(r->node < t->nr_nodes);
		for (uint32_t j = 0; j < i; j++)
			assert_int_equal(overlap(r->start, r->end, t->ranges[j].start,
						 t->ranges[j].end), 0);
		placed += r->end - r->start;
		node_sum[r->node] += r->end - r->start;
		assert_int_equal(numa_node_of_addr(t, r->start), r->node);
		assert_int_equal(numa_node_of_addr(t, r->end - 1), r->node);
	}
	for (uint32_t i = 0; i < m->nr_ranges; i++) {
		const struct mem_range *u = &m->ranges[i];
		uint64_t covered = 0;

		if (u->type != MEM_USABLE) {
			assert_int_equal(numa_node_of_addr(t, u->start), NO_NODE);
			continue;
		}
		usable += u->end - u->start;
		for (uint32_t j = 0; j < t->nr_ranges; j++)
			covered += overlap(u->start, u->end, t->ranges[j].start, t->ranges[j].end);
		if (covered != u->end - u->start)
			fail_msg("usable [0x%" PRIx64 ", 0x%" PRIx64 ") has 0x%" PRIx64 " bytes on nodes",
				 u->start, u->end, covered);
	}
	assert_int_equal(placed, usable);
	assert_int_equal(t->mem_bytes, usable);
	for (uint32_t n = 0; n < t->nr_nodes; n++)
		assert_int_equal(node_sum[n], t->nodes[n].mem_bytes);

	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		uint32_t owners = 0, owner = NO_NODE;

		for (uint32_t n = 0; n < t->nr_nodes; n++) {
			if (t->nodes[n].cpu_mask[c / 64] >> (c % 64) & 1) {
				owners++;
				owner = n;
			}
		}
		assert_int_equal(owners, 1);
		assert_int_equal(numa_node_of_cpu(t, c), owner);
		assert_int_equal(cpu_of_apic_id(t, t->cpus[c].hwid), c);
	}
	assert_int_equal(numa_node_of_cpu(t, t->nr_cpus), NO_NODE);
	assert_true(t->cpus[0].present);
}

/*
 * Parse the tables, build, verify, print; returns numa_build()'s warnings.
 * With more CPUs than the log keeps lines, the records would push the
 * warnings out of it: build_quiet() does not print.
 */
static int build_(bool print)
{
	struct numa_input in = { .map = bi.ranges, .boot_hwid = boot_apic };
	int warnings;

	in.nr_map = bootinfo_normalize(&bi);
	if (madt_tb.used) {
		tb_end(&madt_tb);
		assert_true(acpi_madt_parse(madt_tb.b, madt_tb.len, &madt));
		in.madt = &madt;
	}
	if (srat_tb.used) {
		tb_end(&srat_tb);
		assert_true(acpi_srat_parse(srat_tb.b, srat_tb.len, &srat));
		in.srat = &srat;
	}
	if (slit_tb.used) {
		tb_end(&slit_tb);
		acpi_slit_parse(slit_tb.b, slit_tb.len, &slit);   /* false: invalid */
		in.slit = &slit;
	}
	warnings = numa_build(&topo, &in);
	assert_int_equal(warnings, topo.nr_warnings);
	verify(&topo, &bi);
	if (print)
		numa_print(&topo);
	return warnings;
}

static int build(void)
{
	return build_(true);
}

static int build_quiet(void)
{
	return build_(false);
}

static void expect_log(const char *needle)
{
	if (!host_log_contains(needle))
		fail_msg("no log line contains: %s", needle);
}

static void expect_no_log(const char *needle)
{
	if (host_log_contains(needle))
		fail_msg("a log line contains: %s", needle);
}

/* Warning lines: @numa from numa_build(), @total in the log (parsers too). */
static void expect_warnings(uint32_t numa, size_t total)
{
	assert_int_equal(topo.nr_warnings, numa);
	assert_int_equal(host_log_count(LOG_WARN), total);
}

static void expect_mem_(uint32_t node, const uint64_t *pairs, size_t n)
{
	size_t k = 0;

	assert_true(node < topo.nr_nodes);
	for (uint32_t i = 0; i < topo.nr_ranges; i++) {
		const struct numa_mem_range *r = &topo.ranges[i];

		if (r->node != node)
			continue;
		if (2 * k >= n || r->start != pairs[2 * k] || r->end != pairs[2 * k + 1])
			fail_msg("node %u range %zu is [0x%" PRIx64 ", 0x%" PRIx64 ")", node, k,
				 r->start, r->end);
		k++;
	}
	if (2 * k != n)
		fail_msg("node %u has %zu ranges, expected %zu", node, k, n / 2);
	assert_int_equal(topo.nodes[node].nr_ranges, k);
}

#define U64S(...) (const uint64_t[]){ __VA_ARGS__ }, \
		  sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)
#define U32S(...) (const uint32_t[]){ __VA_ARGS__ }, \
		  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)
#define U8S(...) (const uint8_t[]){ __VA_ARGS__ }, \
		 sizeof((const uint8_t[]){ __VA_ARGS__ })

/* EXPECT_MEM(node, start0, end0, start1, end1, ...): the node's ranges, in order. */
#define EXPECT_MEM(node, ...) expect_mem_(node, U64S(__VA_ARGS__))
#define EXPECT_NO_MEM(node) expect_mem_(node, NULL, 0)

/* Logical CPUs of @node, ascending. */
static void expect_cpus_(uint32_t node, const uint32_t *cpus, size_t n)
{
	size_t k = 0;

	for (uint32_t c = 0; c < topo.nr_cpus; c++) {
		if (topo.cpus[c].node != node)
			continue;
		if (k >= n || cpus[k] != c)
			fail_msg("node %u: CPU %zu is cpu %u", node, k, c);
		assert_true(topo.nodes[node].cpu_mask[c / 64] >> (c % 64) & 1);
		k++;
	}
	if (k != n)
		fail_msg("node %u has %zu CPUs, expected %zu", node, k, n);
	assert_int_equal(topo.nodes[node].nr_cpus, n);
}

#define EXPECT_CPUS(node, ...) expect_cpus_(node, U32S(__VA_ARGS__))
#define EXPECT_NO_CPUS(node) expect_cpus_(node, NULL, 0)

/* APIC IDs of the logical CPUs, in logical order. */
static void expect_apics_(const uint32_t *apics, size_t n)
{
	assert_int_equal(topo.nr_cpus, n);
	for (size_t i = 0; i < n; i++)
		if (topo.cpus[i].hwid != apics[i])
			fail_msg("cpu %zu has APIC ID 0x%x, expected 0x%x", i,
				 topo.cpus[i].hwid, apics[i]);
}

#define EXPECT_APICS(...) expect_apics_(U32S(__VA_ARGS__))

/* Proximity domains of the nodes, in node order. */
static void expect_pxms_(const uint32_t *pxms, size_t n)
{
	assert_int_equal(topo.nr_nodes, n);
	for (size_t i = 0; i < n; i++)
		if (topo.nodes[i].pxm != pxms[i])
			fail_msg("node %zu has PXM %u, expected %u", i, topo.nodes[i].pxm, pxms[i]);
}

#define EXPECT_PXMS(...) expect_pxms_(U32S(__VA_ARGS__))

static void expect_distances_(const uint8_t *m, size_t count)
{
	uint32_t n = topo.nr_nodes;

	assert_int_equal(count, (size_t)n * n);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (distance_of(&topo, i, j) != m[i * n + j])
				fail_msg("distance %u -> %u is %u, expected %u", i, j,
					 distance_of(&topo, i, j), m[i * n + j]);
}

#define EXPECT_DISTANCES(...) expect_distances_(U8S(__VA_ARGS__))

static void expect_mem_nodes_(const uint32_t *mem_nodes, size_t n)
{
	assert_int_equal(topo.nr_nodes, n);
	for (size_t i = 0; i < n; i++)
		if (topo.nodes[i].mem_node != mem_nodes[i])
			fail_msg("node %zu has mem_node %u, expected %u", i,
				 topo.nodes[i].mem_node, mem_nodes[i]);
}

#define EXPECT_MEM_NODES(...) expect_mem_nodes_(U32S(__VA_ARGS__))

/* The result of a fallback (or of no SRAT): everything on node 0. */
static void expect_one_node(uint32_t source, const char *reason)
{
	assert_int_equal(topo.source, source);
	assert_int_equal(topo.nr_nodes, 1);
	assert_int_equal(topo.nodes[0].pxm, NUMA_NO_PXM);
	assert_int_equal(topo.nodes[0].nr_cpus, topo.nr_cpus);
	assert_int_equal(topo.nr_srat_ranges, 0);
	assert_false(topo.slit);
	assert_int_equal(distance_of(&topo, 0, 0), 10);
	assert_int_equal(topo.nodes[0].mem_node, 0);
	if (reason)
		assert_string_equal(topo.fallback_reason, reason);
	else
		assert_null(topo.fallback_reason);
}

/* The usable ranges of map_q35(2 GiB) and map_q35(4 GiB) below 4 GiB. */
#define Q35_LOW 0x0, 0x9f000, 0x100000, 0x7ffdf000

/* ---- no SRAT ----------------------------------------------------------- */

static void test_no_srat_one_node(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++)
		cpu(a);
	assert_int_equal(build(), 0);

	expect_one_node(NUMA_SOURCE_NONE, NULL);
	EXPECT_APICS(0, 1, 2, 3);
	EXPECT_CPUS(0, 0, 1, 2, 3);
	EXPECT_MEM(0, Q35_LOW);
	assert_int_equal(topo.nr_present_cpus, 4);
	expect_warnings(0, 0);
	expect_log("NUMA: no SRAT: one node, 4 CPUs, 2047 MiB");
	expect_log("Initmem setup node 0 [mem 0x0000000000000000-0x000000007ffdefff]");
	expect_log("MEMBOOT {\"event\":\"cpu\",\"cpu\":3,\"apic_id\":3,\"node\":0,\"present\":true}");
	expect_log("MEMBOOT {\"event\":\"node\",\"node\":0,\"cpus\":[0,1,2,3],"
		   "\"mem\":[[\"0x0\",\"0x9f000\"],[\"0x100000\",\"0x7ffdf000\"]],"
		   "\"mem_bytes\":2146951168,\"mem_node\":0,\"distance\":[10]}");
	expect_log("MEMBOOT {\"event\":\"numa\",\"nodes\":1,\"cpus\":4,\"possible_cpus\":4,"
		   "\"mem_bytes\":2146951168,\"source\":\"none\",\"slit\":false,\"warnings\":0}");
	expect_no_log("SRAT: PXM");
	expect_no_log("SRAT: Node");
}

/* No MADT either: the boot CPU alone; no memory at all is still one node. */
static void test_no_madt_no_memory(void **state)
{
	struct numa_input in = { .map = bi.ranges, .boot_hwid = 5 };

	(void)state;
	map(0, 0x100000, MEM_RESERVED);
	in.nr_map = bootinfo_normalize(&bi);
	assert_int_equal(numa_build(&topo, &in), 0);
	verify(&topo, &bi);
	numa_print(&topo);
	expect_one_node(NUMA_SOURCE_NONE, NULL);
	EXPECT_APICS(5);
	EXPECT_NO_MEM(0);
	assert_int_equal(topo.mem_bytes, 0);
	expect_log("NUMA: no SRAT: one node, 1 CPUs, 0 MiB");
	expect_log("Initmem setup node 0: memoryless, allocations from node 0");
	assert_int_equal(numa_node_of_addr(&topo, 0x1000), NO_NODE);
}

/* Captured: -machine q35 -m 2G -smp 2,maxcpus=4 (MADT revision 1: two
 * processors listed as disabled, so absent). */
static void test_fixture_q35_maxcpus4(void **state)
{
	(void)state;
	load_fixture("q35-maxcpus4");
	assert_false(srat_tb.used);
	map_q35(2 * GiB);
	assert_int_equal(build(), 0);
	expect_one_node(NUMA_SOURCE_NONE, NULL);
	EXPECT_APICS(0, 1);
	assert_int_equal(madt.nr_disabled, 2);
	EXPECT_MEM(0, Q35_LOW);
	expect_warnings(0, 0);
	expect_log("NUMA: no SRAT: one node, 2 CPUs, 2047 MiB");
}

/* ---- QEMU topologies --------------------------------------------------- */

/* make run: -machine q35 -m 2G, 2 nodes x 2 CPUs x 1 GiB. QEMU's SRAT ends
 * with an empty, disabled memory entry; it must change nothing. */
static void test_q35_two_nodes(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0, 0xa0000);
	mem_aff(0, 0x100000, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	mem_aff_flags(0, 0, 0, 0);
	assert_int_equal(build(), 0);

	assert_int_equal(topo.source, NUMA_SOURCE_SRAT);
	EXPECT_PXMS(0, 1);
	EXPECT_APICS(0, 1, 2, 3);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_CPUS(1, 2, 3);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_MEM(1, 0x40000000, 0x7ffdf000);
	EXPECT_DISTANCES(10, 20, 20, 10);
	EXPECT_MEM_NODES(0, 1);
	assert_false(topo.slit);
	assert_int_equal(topo.nr_srat_ranges, 3);
	assert_int_equal(numa_node_of_addr(&topo, 0x3fffffff), 0);
	assert_int_equal(numa_node_of_addr(&topo, 0x40000000), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0x9f000), NO_NODE);
	assert_int_equal(numa_node_of_addr(&topo, 0x7ffdf000), NO_NODE);
	expect_warnings(0, 0);

	expect_log("SRAT: PXM 0 -> APIC 0x00 -> Node 0");
	expect_log("SRAT: PXM 1 -> APIC 0x03 -> Node 1");
	expect_log("SRAT: Node 0 PXM 0 [mem 0x00000000-0x0009ffff]");
	expect_log("SRAT: Node 0 PXM 0 [mem 0x00100000-0x3fffffff]");
	expect_log("SRAT: Node 1 PXM 1 [mem 0x40000000-0x7fffffff]");
	expect_log("NUMA: SRAT: 2 nodes, 4 CPUs, 2047 MiB");
	expect_log("Initmem setup node 0 [mem 0x0000000000000000-0x000000003fffffff]");
	expect_log("Initmem setup node 1 [mem 0x0000000040000000-0x000000007ffdefff]");
	expect_log("NUMA: node distances (default):");
	expect_log("node   0   1");
	expect_log("  0:  10  20");
	expect_log("  1:  20  10");
	expect_log("MEMBOOT {\"event\":\"cpu\",\"cpu\":2,\"apic_id\":2,\"node\":1,\"present\":true}");
	expect_log("MEMBOOT {\"event\":\"node\",\"node\":0,\"pxm\":0,\"cpus\":[0,1],"
		   "\"mem\":[[\"0x0\",\"0x9f000\"],[\"0x100000\",\"0x40000000\"]],"
		   "\"mem_bytes\":1073344512,\"mem_node\":0,\"distance\":[10,20]}");
	expect_log("MEMBOOT {\"event\":\"node\",\"node\":1,\"pxm\":1,\"cpus\":[2,3],"
		   "\"mem\":[[\"0x40000000\",\"0x7ffdf000\"]],"
		   "\"mem_bytes\":1073606656,\"mem_node\":1,\"distance\":[20,10]}");
	expect_log("MEMBOOT {\"event\":\"numa\",\"nodes\":2,\"cpus\":4,\"possible_cpus\":4,"
		   "\"mem_bytes\":2146951168,\"source\":\"srat\",\"slit\":false,\"warnings\":0}");
}

/*
 * SRAT boundaries inside a page: node ranges must still be whole pages
 * (physmem and the page descriptors work in pages; physmem_set_node()
 * asserts it). Both ends round down, so the page holding a boundary goes to
 * the range starting in it; a range within one page is rounded away. One
 * warning names the first such entry.
 */
static void test_srat_boundaries_inside_pages(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 3; a++) {
		cpu(a);
		cpu_aff(a, a);
	}
	mem_aff(0, 0, 0x40000800);
	mem_aff(1, 0x40000800, 0x60000010);
	mem_aff(2, 0x60000010, 0x80000000);
	mem_aff(2, 0x70000100, 0x70000200);   /* inside one page of node 2's range */
	assert_int_equal(build(), 1);

	assert_int_equal(topo.source, NUMA_SOURCE_SRAT);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_MEM(1, 0x40000000, 0x60000000);
	EXPECT_MEM(2, 0x60000000, 0x7ffdf000);
	for (uint32_t i = 0; i < topo.nr_ranges; i++)
		assert_int_equal((topo.ranges[i].start | topo.ranges[i].end) & 0xfff, 0);
	assert_int_equal(numa_node_of_addr(&topo, 0x40000400), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0x60000008), 2);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT: memory affinity [mem 0x00000000-0x400007ff] of PXM 0 and others is not page aligned; boundaries rounded down to 4 KiB pages");
	/* The range within a page is not printed as an SRAT range. */
	expect_log("SRAT: Node 2 PXM 2 [mem 0x60000000-0x7fffffff]");
	for (size_t i = 0; i < host_log_total(); i++) {
		const char *line = host_log_line(i);
		assert_true(line == NULL || strstr(line, "[mem 0x70000000-0x6fffffff]") == NULL);
	}
}

/* Captured: -machine q35 -m 4G -smp 4,sockets=2,cores=2, two nodes of 2 GiB,
 * -numa dist,src=0,dst=1,val=21; under SeaBIOS and under OVMF. */
static void check_q35_numa2_slit(const char *fixture)
{
	load_fixture(fixture);
	assert_true(srat_tb.used && slit_tb.used);
	map_q35(4 * GiB);
	assert_int_equal(build(), 0);

	assert_int_equal(topo.source, NUMA_SOURCE_SRAT);
	EXPECT_PXMS(0, 1);
	EXPECT_APICS(0, 1, 2, 3);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_CPUS(1, 2, 3);
	EXPECT_MEM(0, Q35_LOW);
	EXPECT_MEM(1, 0x100000000, 0x180000000);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 21, 21, 10);
	EXPECT_MEM_NODES(0, 1);
	expect_warnings(0, 0);
	expect_log("SRAT: Node 0 PXM 0 [mem 0x00100000-0x7fffffff]");
	expect_log("SRAT: Node 1 PXM 1 [mem 0x100000000-0x17fffffff]");
	expect_log("NUMA: node distances (SLIT):");
	expect_log("node   0   1");
	expect_log("  0:  10  21");
	expect_log("  1:  21  10");
	expect_log("\"distance\":[21,10]}");
	expect_log("\"source\":\"srat\",\"slit\":true,\"warnings\":0}");
}

static void test_fixture_q35_numa2_slit(void **state)
{
	(void)state;
	check_q35_numa2_slit("q35-numa2-slit");
}

static void test_fixture_q35_numa2_ovmf(void **state)
{
	(void)state;
	check_q35_numa2_slit("q35-numa2-ovmf");
}

/* Captured: -smp 6,sockets=2,cores=3: APIC IDs 0,1,2 and 4,5,6 (the core
 * field is two bits wide), three per node. */
static void test_fixture_q35_smp6(void **state)
{
	(void)state;
	load_fixture("q35-numa2-smp6");
	assert_false(slit_tb.used);
	map_q35(4 * GiB);
	assert_int_equal(build(), 0);

	EXPECT_PXMS(0, 1);
	EXPECT_APICS(0, 1, 2, 4, 5, 6);
	EXPECT_CPUS(0, 0, 1, 2);
	EXPECT_CPUS(1, 3, 4, 5);
	EXPECT_MEM(0, Q35_LOW);
	EXPECT_MEM(1, 0x100000000, 0x180000000);
	EXPECT_DISTANCES(10, 20, 20, 10);
	expect_warnings(0, 0);
	expect_log("SRAT: PXM 1 -> APIC 0x04 -> Node 1");
	expect_log("MEMBOOT {\"event\":\"cpu\",\"cpu\":3,\"apic_id\":4,\"node\":1,\"present\":true}");
	assert_int_equal(cpu_of_apic_id(&topo, 6), 5);
	assert_int_equal(cpu_of_apic_id(&topo, 3), NUMA_NO_CPU);
}

/* The same, built here. */
static void test_smp6_two_nodes(void **state)
{
	static const uint32_t apics[] = { 0, 1, 2, 4, 5, 6 };

	(void)state;
	map_q35(2 * GiB);
	for (uint32_t i = 0; i < 6; i++) {
		cpu(apics[i]);
		cpu_aff(i / 3, apics[i]);
	}
	mem_aff(0, 0, 0xa0000);
	mem_aff(0, 0x100000, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);
	EXPECT_APICS(0, 1, 2, 4, 5, 6);
	EXPECT_CPUS(0, 0, 1, 2);
	EXPECT_CPUS(1, 3, 4, 5);
	expect_log("\"cpus\":[3,4,5]");
	expect_warnings(0, 0);
}

/* -m 4G with nodes of 3 GiB and 1 GiB: node 0 is split by the hole below
 * 4 GiB, node 1 lies wholly above it. */
static void test_uneven_3g_1g(void **state)
{
	(void)state;
	map_q35(4 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0, 0xa0000);
	mem_aff(0, 0x100000, 0x80000000);
	mem_aff(0, 0x100000000, 0x140000000);
	mem_aff(1, 0x140000000, 0x180000000);
	assert_int_equal(build(), 0);

	EXPECT_PXMS(0, 1);
	EXPECT_MEM(0, Q35_LOW, 0x100000000, 0x140000000);
	EXPECT_MEM(1, 0x140000000, 0x180000000);
	assert_int_equal(topo.nodes[1].mem_bytes, 1 * GiB);
	assert_int_equal(topo.nodes[0].mem_bytes, 3 * GiB - 0x1000 - 0x60000 - 0x21000);
	assert_int_equal(topo.nodes[0].span_start, 0);
	assert_int_equal(topo.nodes[0].span_end, 0x140000000);
	expect_warnings(0, 0);
	expect_log("Initmem setup node 0 [mem 0x0000000000000000-0x000000013fffffff]");
	expect_log("Initmem setup node 1 [mem 0x0000000140000000-0x000000017fffffff]");
	expect_log("SRAT: Node 0 PXM 0 [mem 0x100000000-0x13fffffff]");
}

/* ---- renumbering, memoryless and CPU-less nodes, SLIT ------------------ */

/* Domains are numbered as they first appear: 7 and 200 become 0 and 1. */
static void test_pxm_7_and_200(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a < 2 ? 7 : 200, a);
	}
	mem_aff(7, 0, 0xa0000);
	mem_aff(7, 0x100000, 0x40000000);
	mem_aff(200, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);

	EXPECT_PXMS(7, 200);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_CPUS(1, 2, 3);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_MEM(1, 0x40000000, 0x7ffdf000);
	expect_warnings(0, 0);
	expect_log("SRAT: PXM 200 -> APIC 0x02 -> Node 1");
	expect_log("SRAT: Node 1 PXM 200 [mem 0x40000000-0x7fffffff]");
	expect_log("\"node\":1,\"pxm\":200,");
}

/* 32-bit domains and x2APIC IDs (SRAT type 2, MADT type 9). */
static void test_x2apic_wide_pxm(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu(0x100);
	cpu_aff(70000, 0);
	cpu_aff(0x10000, 0x100);
	mem_aff(70000, 0, 0x40000000);
	mem_aff(0x10000, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);
	EXPECT_PXMS(70000, 0x10000);
	EXPECT_APICS(0, 0x100);
	EXPECT_CPUS(0, 0);
	EXPECT_CPUS(1, 1);
	expect_log("SRAT: PXM 65536 -> APIC 0x100 -> Node 1");
	expect_warnings(0, 0);
}

/*
 * Four domains, numbered in order of appearance (PXM 2, 0, 3, then the
 * CPU-less 1): PXM 0 has CPUs but no memory, PXM 1 memory but no CPUs. The
 * SLIT is indexed by PXM; the memoryless node allocates from the nearest
 * node with memory, PXM 1 (distance 16), not from the lowest-numbered.
 */
static void test_four_nodes_memoryless_cpuless_slit(void **state)
{
	(void)state;
	map(0, 0x9f000, MEM_USABLE);
	map(0x9f000, 0xa0000, MEM_RESERVED);
	map(0x100000, 0x7ffdf000, MEM_USABLE);
	map(0x7ffdf000, 0x80000000, MEM_RESERVED);
	map(0x100000000, 0x140000000, MEM_USABLE);
	for (uint32_t a = 0; a < 6; a++)
		cpu(a);
	cpu_aff(2, 0);
	cpu_aff(2, 1);
	cpu_aff(0, 2);
	cpu_aff(0, 3);
	cpu_aff(3, 4);
	cpu_aff(3, 5);
	mem_aff(2, 0, 0xa0000);
	mem_aff(2, 0x100000, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	mem_aff(3, 0x100000000, 0x140000000);
	/* by PXM:  0   1   2   3 */
	SLIT(4,    10, 16, 22, 28,
		   16, 10, 24, 20,
		   22, 24, 10, 30,
		   28, 20, 30, 10);
	assert_int_equal(build(), 0);

	EXPECT_PXMS(2, 0, 3, 1);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_CPUS(1, 2, 3);
	EXPECT_CPUS(2, 4, 5);
	EXPECT_NO_CPUS(3);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_NO_MEM(1);
	EXPECT_MEM(2, 0x100000000, 0x140000000);
	EXPECT_MEM(3, 0x40000000, 0x7ffdf000);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 22, 30, 24,
			 22, 10, 28, 16,
			 30, 28, 10, 20,
			 24, 16, 20, 10);
	EXPECT_MEM_NODES(0, 3, 2, 3);
	expect_warnings(0, 0);
	expect_log("Initmem setup node 1: memoryless, allocations from node 3");
	expect_log("Initmem setup node 3 [mem 0x0000000040000000-0x000000007ffdefff]");
	expect_log("node   0   1   2   3");
	expect_log("  1:  22  10  28  16");
	expect_log("MEMBOOT {\"event\":\"node\",\"node\":1,\"pxm\":0,\"cpus\":[2,3],\"mem\":[],"
		   "\"mem_bytes\":0,\"mem_node\":3,\"distance\":[22,10,28,16]}");
	expect_log("MEMBOOT {\"event\":\"node\",\"node\":3,\"pxm\":1,\"cpus\":[],");
	expect_log("\"nodes\":4,\"cpus\":6,");
}

/*
 * A server's SLIT lists five localities; PXM 0 has only disabled SRAT
 * entries (a socket that is not populated), PXMs 1-4 are the nodes. The SLIT
 * is indexed by PXM, so the nodes' distances come from rows and columns
 * 1-4, the 30s included, and locality 0 is skipped.
 */
static void five_localities_four_nodes(void)
{
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a + 1, a);
	}
	cpu_aff_flags(0, 0x40, 0);                        /* disabled */
	mem_aff_flags(0, 0x80000000, 0x90000000, 0);      /* disabled */
	mem_aff(1, 0, 0x20000000);
	mem_aff(2, 0x20000000, 0x40000000);
	mem_aff(3, 0x40000000, 0x60000000);
	mem_aff(4, 0x60000000, 0x80000000);
}

static void test_slit_with_more_localities_than_nodes(void **state)
{
	(void)state;
	five_localities_four_nodes();
	/* by PXM:  0   1   2   3   4 */
	SLIT(5,    10, 40, 40, 40, 40,
		   40, 10, 21, 30, 31,
		   40, 21, 10, 31, 30,
		   40, 30, 31, 10, 21,
		   40, 31, 30, 21, 10);
	assert_int_equal(build(), 0);
	EXPECT_PXMS(1, 2, 3, 4);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 21, 30, 31,
			 21, 10, 31, 30,
			 30, 31, 10, 21,
			 31, 30, 21, 10);
	expect_warnings(0, 0);
	expect_log("SLIT has 5 localities for 4 proximity domains in use; the 1 without a node are skipped");
	expect_log("\"slit\":true");

	/* The same with bytes after the matrix (the header's length is
	 * larger than 44 + N * N): the entries are read, the rest ignored. */
	reset(NULL);
	five_localities_four_nodes();
	SLIT(5,    10, 40, 40, 40, 40,
		   40, 10, 21, 30, 31,
		   40, 21, 10, 31, 30,
		   40, 30, 31, 10, 21,
		   40, 31, 30, 21, 10);
	memset(tb_grow(&slit_tb, 7), 0xee, 7);
	assert_int_equal(build(), 0);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 21, 30, 31,
			 21, 10, 31, 30,
			 30, 31, 10, 21,
			 31, 30, 21, 10);
	expect_warnings(0, 0);
}

static void test_slit_refusals_by_pxm(void **state)
{
	(void)state;
	/* Four localities cannot cover PXM 4. */
	five_localities_four_nodes();
	SLIT(4, 10, 20, 20, 20,
		20, 10, 20, 20,
		20, 20, 10, 20,
		20, 20, 20, 10);
	assert_int_equal(build(), 1);
	assert_false(topo.slit);
	expect_log("SLIT has no locality for PXM 4 (localities 0..3); SLIT ignored, default distances 10/20");
	EXPECT_DISTANCES(10, 20, 20, 20,
			 20, 10, 20, 20,
			 20, 20, 10, 20,
			 20, 20, 20, 10);

	/* A broken entry in the unused locality still makes the table invalid. */
	reset(NULL);
	five_localities_four_nodes();
	SLIT(5,    10, 40, 40, 40,  5,
		   40, 10, 21, 30, 31,
		   40, 21, 10, 31, 30,
		   40, 30, 31, 10, 21,
		   40, 31, 30, 21, 10);
	assert_int_equal(build(), 1);
	assert_false(topo.slit);
	expect_log("distance[0][4] is 5, not above 10; SLIT invalid");
}

/* Equal distances to two nodes with memory: the lower node id wins; without
 * a SLIT every remote node is at 20, so that is node 0. */
static void test_memoryless_ties(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 3; a++) {
		cpu(a);
		cpu_aff(a, a);
	}
	mem_aff(0, 0, 0x40000000);
	mem_aff(2, 0x40000000, 0x80000000);
	SLIT(3, 10, 20, 30,
		20, 10, 20,
		30, 20, 10);
	assert_int_equal(build(), 0);
	EXPECT_PXMS(0, 1, 2);
	EXPECT_NO_MEM(1);
	EXPECT_MEM_NODES(0, 0, 2);

	reset(NULL);
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 3; a++) {
		cpu(a);
		cpu_aff(a, a);
	}
	mem_aff(0, 0, 0x40000000);
	mem_aff(2, 0x40000000, 0x80000000);
	SLIT(3, 10, 30, 30,
		30, 10, 25,
		30, 25, 10);
	assert_int_equal(build(), 0);
	EXPECT_MEM_NODES(0, 2, 2);

	reset(NULL);
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 3; a++) {
		cpu(a);
		cpu_aff(2 - a, a);
	}
	mem_aff(1, 0, 0x40000000);
	mem_aff(2, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);
	EXPECT_PXMS(2, 1, 0);
	EXPECT_NO_MEM(2);
	EXPECT_MEM_NODES(0, 1, 0);
	expect_warnings(0, 0);
}

/* ---- CPUs -------------------------------------------------------------- */

/* The boot CPU is cpu 0 wherever the MADT lists it; the others keep MADT order. */
static void test_boot_cpu_not_first(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	boot_apic = 2;
	assert_int_equal(build(), 0);

	EXPECT_APICS(2, 0, 1, 3);
	EXPECT_PXMS(0, 1);
	EXPECT_CPUS(0, 1, 2);
	EXPECT_CPUS(1, 0, 3);
	assert_int_equal(topo.cpus[0].acpi_uid, 2);
	expect_warnings(0, 0);
	expect_log("MEMBOOT {\"event\":\"cpu\",\"cpu\":0,\"apic_id\":2,\"node\":1,\"present\":true}");
}

/* The boot CPU missing from the MADT is still cpu 0 (with a warning). */
static void test_boot_cpu_not_in_madt(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu(1);
	boot_apic = 9;
	assert_int_equal(build(), 1);
	EXPECT_APICS(9, 0, 1);
	expect_one_node(NUMA_SOURCE_NONE, NULL);
	expect_warnings(1, 1);
	expect_log("MADT lists no processor with the boot CPU's APIC ID 0x9");
}

/*
 * MADT revision 5: APIC 2 and 3 are online-capable (listed, not present),
 * APIC 4 is disabled (absent). Its SRAT entry is expected: one info line.
 */
static void test_online_capable_cpus(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	madt_cpu(0, MADT_ENABLED);
	madt_cpu(1, MADT_ENABLED);
	madt_cpu(2, MADT_ONLINE_CAPABLE);
	madt_cpu(3, MADT_ONLINE_CAPABLE);
	madt_cpu(4, 0);
	for (uint32_t a = 0; a < 5; a++)
		cpu_aff(a / 2, a);
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);

	EXPECT_APICS(0, 1, 2, 3);
	assert_true(topo.cpus[1].present);
	assert_false(topo.cpus[2].present);
	assert_false(topo.cpus[3].present);
	assert_int_equal(topo.nr_present_cpus, 2);
	assert_int_equal(topo.nodes[1].nr_present_cpus, 0);
	EXPECT_PXMS(0, 1);
	EXPECT_CPUS(1, 2, 3);
	expect_warnings(0, 0);
	expect_log("NUMA: 2 more CPUs are online-capable, not present");
	expect_log("are for no usable MADT processor; the MADT has 1 disabled ones; ignored");
	expect_log("MEMBOOT {\"event\":\"cpu\",\"cpu\":2,\"apic_id\":2,\"node\":1,\"present\":false}");
	expect_log("\"nodes\":2,\"cpus\":2,\"possible_cpus\":4,");
}

/* A CPU the SRAT forgot goes to node 0, with one warning naming it. */
static void test_cpu_missing_from_srat(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++)
		cpu(a);
	cpu_aff(1, 0);
	cpu_aff(1, 1);
	cpu_aff(0, 2);
	mem_aff(1, 0, 0x40000000);
	mem_aff(0, 0x40000000, 0x80000000);
	assert_int_equal(build(), 1);

	EXPECT_PXMS(1, 0);
	EXPECT_CPUS(0, 0, 1, 3);
	EXPECT_CPUS(1, 2);
	assert_false(topo.cpus[3].from_srat);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT: no CPU affinity for APIC ID 0x3 (cpu 3); put on node 0");
	expect_no_log("APIC 0x03");
	expect_log("\"warnings\":1}");
}

static void test_cpus_missing_from_srat(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++)
		cpu(a);
	cpu_aff(0, 0);
	cpu_aff(1, 1);
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 1);
	EXPECT_CPUS(0, 0, 2, 3);
	EXPECT_CPUS(1, 1);
	expect_log("no CPU affinity for 2 CPUs (first APIC ID 0x2, cpu 2); put on node 0");
}

/* An SRAT that places no CPU at all is not believed. */
static void test_all_cpus_missing_falls_back(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++)
		cpu(a);
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "no-cpu-affinity");
	EXPECT_CPUS(0, 0, 1, 2, 3);
	EXPECT_MEM(0, Q35_LOW);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT has no CPU affinity entry for any of the 4 CPUs of the MADT; "
		   "SRAT not trusted, falling back to one node");
	expect_log("NUMA: fallback (no-cpu-affinity): one node, 4 CPUs, 2047 MiB");
	expect_log("\"source\":\"fallback\",\"reason\":\"no-cpu-affinity\",\"slit\":false,\"warnings\":1}");
}

/* SRAT CPUs the MADT does not have are ignored; they make no domain either. */
static void test_srat_cpu_not_in_madt(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu(1);
	cpu_aff(0, 0);
	cpu_aff(0, 1);
	cpu_aff(1, 7);
	cpu_aff(2, 8);
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 1);

	EXPECT_PXMS(0, 1);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_NO_CPUS(1);
	EXPECT_MEM(1, 0x40000000, 0x7ffdf000);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT: 2 CPU affinity entries name no MADT processor (first APIC ID 0x7, PXM 1); ignored");

	reset(NULL);
	map_q35(2 * GiB);
	cpu(0);
	cpu_aff(0, 0);
	cpu_aff(0, 5);
	mem_aff(0, 0, 0x80000000);
	assert_int_equal(build(), 1);
	expect_log("NUMA: SRAT: CPU affinity for APIC ID 0x5 (PXM 0) names no MADT processor; ignored");
}

/* More MADT processors than NUMA_MAX_CPUS, no SRAT (one node): the first
 * ones are kept and the rest counted. */
static void test_too_many_cpus(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < NUMA_MAX_CPUS + 100; a++)
		cpu(a);
	assert_int_equal(build_quiet(), 1);
	assert_int_equal(topo.nr_cpus, NUMA_MAX_CPUS);
	assert_int_equal(topo.nr_unused_cpus, 100);
	assert_int_equal(topo.cpus[NUMA_MAX_CPUS - 1].hwid, NUMA_MAX_CPUS - 1);
	expect_log("NUMA: MADT lists 8292 processors, more than the 8192 CPUs memboot is built for: 8192 kept, balanced over 1 proximity domain, 100 not used");
}

/* More MADT processors than NUMA_MAX_CPUS in 4 domains, listed node by node
 * (as QEMU and most firmware list them): each node keeps a quarter, where
 * the first 8192 in MADT order would have left nodes 2 and 3 none. */
static void test_too_many_cpus_balanced(void **state)
{
	const uint32_t per_node = 3000;

	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4 * per_node; a++) {
		cpu(a);
		cpu_aff(a / per_node, a);
	}
	for (uint32_t n = 0; n < 4; n++)
		mem_aff(n, n * 512 * MiB, (n + 1) * 512 * MiB);
	assert_int_equal(build_quiet(), 1);
	assert_int_equal(topo.nr_nodes, 4);
	assert_int_equal(topo.nr_cpus, NUMA_MAX_CPUS);
	assert_int_equal(topo.nr_unused_cpus, 4 * per_node - NUMA_MAX_CPUS);
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(topo.nodes[n].nr_cpus, NUMA_MAX_CPUS / 4);
	/* The first of each domain in MADT order. */
	assert_int_equal(topo.cpus[NUMA_MAX_CPUS / 4].hwid, per_node);
	expect_log("8192 kept, balanced over 4 proximity domains, 3808 not used");
}

/* ---- memory ------------------------------------------------------------ */

/* Overlapping ranges of different domains: one node, one warning, even with
 * other problems that would each have earned a warning of their own. */
static void test_overlap_falls_back(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++)
		cpu(a);
	cpu_aff(0, 0);
	cpu_aff(1, 2);
	cpu_aff(1, 9);
	mem_aff(0, 0, 0x60000000);
	mem_aff(1, 0x40000000, 0x80000000);
	SLIT(3, 10, 20, 20, 20, 10, 20, 20, 20, 10);
	assert_int_equal(build(), 1);

	expect_one_node(NUMA_SOURCE_FALLBACK, "srat-overlap");
	EXPECT_CPUS(0, 0, 1, 2, 3);
	EXPECT_MEM(0, Q35_LOW);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT: memory affinity ranges [mem 0x00000000-0x5fffffff] of PXM 0 and "
		   "[mem 0x40000000-0x7fffffff] of PXM 1 overlap; SRAT not trusted, falling back to one node");
	expect_no_log("SRAT: PXM");
	expect_log("\"reason\":\"srat-overlap\"");
}

/* Overlaps within one domain are only redundant. A range nested in an
 * earlier one of another domain is caught as well. */
static void test_overlap_same_pxm(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu(1);
	cpu_aff(0, 0);
	cpu_aff(1, 1);
	mem_aff(0, 0, 0x30000000);
	mem_aff(0, 0x20000000, 0x40000000);
	mem_aff(0, 0x100000, 0x200000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_MEM(1, 0x40000000, 0x7ffdf000);

	reset(NULL);
	map_q35(2 * GiB);
	cpu(0);
	cpu_aff(0, 0);
	mem_aff(0, 0, 0x80000000);
	mem_aff(0, 0x10000000, 0x20000000);
	mem_aff(1, 0x30000000, 0x30001000);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "srat-overlap");
}

/* SRAT memory the map does not have is clipped, with one warning;
 * hot-pluggable ranges beyond the map are normal and not warned about. */
static void test_srat_beyond_map(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0, 0xa0000);
	mem_aff(0, 0x100000, 0x40000000);
	mem_aff(1, 0x40000000, 0xc0000000);
	mem_aff(1, 0x100000000, 0x140000000);
	mem_aff_flags(1, 0x140000000, 0x240000000, SRAT_ENABLED | SRAT_HOTPLUG);
	assert_int_equal(build(), 1);

	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x40000000);
	EXPECT_MEM(1, 0x40000000, 0x7ffdf000);
	expect_warnings(1, 1);
	/* [0x80000000, 0xb0000000) and [4 GiB, 5 GiB) are in no map range. */
	expect_log("NUMA: SRAT: memory affinity [mem 0x40000000-0xbfffffff] of PXM 1 and others "
		   "reaches beyond the memory map (1835008 KiB in no map range); clipped, only usable memory counts");
	expect_log("SRAT: Node 1 PXM 1 [mem 0x140000000-0x23fffffff] hotplug");
}

/*
 * A memory-only domain whose SRAT range lies beyond RAM (PXM 1, [4G, 5G) on
 * a 1 GiB machine) has no memory after clipping and no CPU: it gets no node,
 * as in Linux, where it is never brought online. The nodes after it are
 * renumbered (PXM 3 is node 1) and keep their SLIT distances by PXM.
 */
static void srat_with_node_beyond_ram(unsigned flags)
{
	map_q35(1 * GiB);
	cpu(0);
	cpu(1);
	cpu_aff(0, 0);
	cpu_aff(0, 1);
	mem_aff(0, 0, 0x20000000);
	mem_aff_flags(1, 0x100000000, 0x140000000, flags);
	mem_aff(3, 0x20000000, 0x40000000);
	/* by PXM:  0   1   2   3 */
	SLIT(4,    10, 17, 19, 21,
		   17, 10, 19, 23,
		   19, 19, 10, 25,
		   21, 23, 25, 10);
}

static void test_srat_node_beyond_ram_is_dropped(void **state)
{
	(void)state;
	srat_with_node_beyond_ram(SRAT_ENABLED);
	assert_int_equal(build(), 2);

	EXPECT_PXMS(0, 3);
	EXPECT_CPUS(0, 0, 1);
	EXPECT_NO_CPUS(1);
	EXPECT_MEM(0, 0x0, 0x9f000, 0x100000, 0x20000000);
	EXPECT_MEM(1, 0x20000000, 0x3ffdf000);
	EXPECT_DISTANCES(10, 21,
			 21, 10);
	assert_true(topo.slit);
	/* One warning clips the range, one says the domain has no node. */
	expect_warnings(2, 2);
	expect_log("NUMA: SRAT: PXM 1 has no CPU and none of its memory ([mem 0x100000000-0x13fffffff] "
		   "first) is usable memory of the map; no node for it (Linux brings no such node online)");
	expect_log("SRAT: PXM 1 [mem 0x100000000-0x13fffffff]: no node (nothing of it is usable memory, no CPU)");
	expect_log("\"nodes\":2,\"cpus\":2,");
	for (uint32_t k = 0; k < topo.nr_srat_ranges; k++)
		assert_int_equal(topo.srat[k].node,
				 topo.srat[k].pxm == 0 ? 0 : topo.srat[k].pxm == 3 ? 1 : NUMA_NO_NODE);
}

/* The same domain with only hot-pluggable memory: empty at boot is its
 * purpose, so an info line, not a warning. */
static void test_srat_hotplug_only_node_is_dropped_quietly(void **state)
{
	(void)state;
	srat_with_node_beyond_ram(SRAT_ENABLED | SRAT_HOTPLUG);
	assert_int_equal(build(), 0);
	EXPECT_PXMS(0, 3);
	expect_warnings(0, 0);
	expect_log("NUMA: SRAT: PXM 1 has no CPU and only hot-pluggable memory, none present "
		   "([mem 0x100000000-0x13fffffff] first); no node for it until memory comes");
}

/* Usable memory outside every SRAT range goes to the node of the nearest
 * range below it, else above it; one warning per range. */
static void test_usable_memory_in_no_srat_range(void **state)
{
	(void)state;
	map_q35(4 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0x100000, 0x80000000);
	mem_aff(1, 0x100000000, 0x140000000);
	assert_int_equal(build(), 2);

	EXPECT_MEM(0, Q35_LOW);
	EXPECT_MEM(1, 0x100000000, 0x180000000);
	expect_warnings(2, 2);
	expect_log("NUMA: SRAT: usable [mem 0x00000000-0x0009efff] is in no memory affinity range; "
		   "given to node 0 (PXM 0), the nearest above");
	expect_log("NUMA: SRAT: usable [mem 0x140000000-0x17fffffff] is in no memory affinity range; "
		   "given to node 1 (PXM 1), the nearest below");
}

/* Many forgotten ranges: four lines, then one summary. */
static void test_many_orphans_summed_up(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 8; i++)
		map(i * 0x10000000, i * 0x10000000 + 0x8000000, MEM_USABLE);
	cpu(0);
	cpu_aff(0, 0);
	mem_aff(0, 0, 0x8000000);
	assert_int_equal(build(), 5);
	EXPECT_MEM(0, 0x0, 0x8000000, 0x10000000, 0x18000000, 0x20000000, 0x28000000,
		   0x30000000, 0x38000000, 0x40000000, 0x48000000, 0x50000000, 0x58000000,
		   0x60000000, 0x68000000, 0x70000000, 0x78000000);
	expect_log("NUMA: SRAT: 3 more usable ranges (393216 KiB) in no memory affinity range");
}

/* SRATs with nothing usable to say. */
static void test_srat_without_usable_memory(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu_aff(0, 0);
	mem_aff(0, 0x200000000, 0x300000000);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "srat-no-usable-memory");
	expect_log("SRAT memory affinity covers none of the 2047 MiB of usable memory");

	reset(NULL);
	map_q35(2 * GiB);
	cpu(0);
	cpu_aff(0, 0);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "no-memory-affinity");

	reset(NULL);
	map_q35(2 * GiB);
	cpu(0);
	cpu_aff_flags(0, 0, 0);
	mem_aff_flags(0, 0, 0x1000, 0);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "srat-empty");
	expect_log("SRAT has no enabled CPU or memory affinity entry");
}

/*
 * More pieces than NUMA_MAX_RANGES: fall back (the map alone always fits).
 * 400 usable ranges separated by holes; SRAT range k of alternating domains
 * covers the upper half of range 2k and the lower half of range 2k + 1, so
 * the lower half of range 2k (in no SRAT range) joins the other domain's
 * range k - 1 below it: three pieces per pair of ranges.
 */
static void test_too_many_ranges_falls_back(void **state)
{
	(void)state;
	cpu(0);
	cpu_aff(0, 0);
	for (uint64_t j = 0; j < 400; j++)
		map(j * 0x4000, j * 0x4000 + 0x2000, MEM_USABLE);
	for (uint64_t k = 0; k < 200; k++)
		mem_aff((uint32_t)(k % 2), k * 0x8000 + 0x1000, k * 0x8000 + 0x5000);
	assert_int_equal(bootinfo_normalize(&bi), 400);
	assert_int_equal(build(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "too-many-ranges");
	assert_int_equal(topo.nr_ranges, 400);
	expect_warnings(1, 1);
	expect_log("SRAT splits usable memory into more than 512 ranges");
}

/* The same layout with fewer ranges fits: every piece where it belongs. */
static void test_many_ranges(void **state)
{
	(void)state;
	cpu(0);
	cpu_aff(0, 0);
	for (uint64_t j = 0; j < 100; j++)
		map(j * 0x4000, j * 0x4000 + 0x2000, MEM_USABLE);
	for (uint64_t k = 0; k < 50; k++)
		mem_aff((uint32_t)(k % 2), k * 0x8000 + 0x1000, k * 0x8000 + 0x5000);
	/* 100 pieces in no SRAT range (4 lines and a sum); the holes inside the
	 * SRAT ranges are in no map range (1 line), counted from 1 MiB on. */
	assert_int_equal(build(), 6);
	expect_warnings(6, 6);
	expect_log("NUMA: SRAT: usable [mem 0x00000000-0x00000fff] is in no memory affinity range; "
		   "given to node 0 (PXM 0), the nearest above");
	expect_log("NUMA: SRAT: usable [mem 0x00005000-0x00005fff] is in no memory affinity range; "
		   "given to node 0 (PXM 0), the nearest below");
	expect_log("NUMA: SRAT: usable [mem 0x00008000-0x00008fff] is in no memory affinity range; "
		   "given to node 0 (PXM 0), the nearest below");
	expect_log("NUMA: SRAT: 96 more usable ranges (384 KiB) in no memory affinity range");
	expect_log("NUMA: SRAT: memory affinity [mem 0x00101000-0x00104fff] of PXM 0 and others "
		   "reaches beyond the memory map (144 KiB in no map range)");
	assert_int_equal(topo.source, NUMA_SOURCE_SRAT);
	assert_int_equal(topo.nr_ranges, 149);
	/* range 2 (pair 1): its lower half joins node 0 below, the upper is node 1 */
	assert_int_equal(numa_node_of_addr(&topo, 0x8000), 0);
	assert_int_equal(numa_node_of_addr(&topo, 0x9000), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0xc000), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0xd000), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0xe000), NO_NODE);
}

/* ---- domain counts ----------------------------------------------------- */

/* 256 domains fit; the 257th makes the SRAT untrusted. */
static void check_memory_domains(uint32_t nr_domains)
{
	map(0, nr_domains * 16 * MiB, MEM_USABLE);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(0, a);
	}
	for (uint32_t d = 0; d < nr_domains; d++)
		mem_aff(d, d * 16 * MiB, (d + 1) * 16 * MiB);
	build();
}

/* MEMBOOT_MAX_NODES domains: every one becomes a node. */
static void test_256_domains(void **state)
{
	(void)state;
	check_memory_domains(256);
	assert_int_equal(topo.source, NUMA_SOURCE_SRAT);
	assert_int_equal(topo.nr_nodes, 256);
	for (uint32_t n = 0; n < 256; n++)
		EXPECT_MEM(n, n * 16 * MiB, (n + 1) * 16 * MiB);
	assert_int_equal(distance_of(&topo, 255, 0), 20);
	assert_int_equal(distance_of(&topo, 200, 200), 10);
	expect_warnings(0, 0);
	expect_log("NUMA: node distances (default): 256 nodes, 10 local, 20 to 20 remote");
}

static void test_257_domains(void **state)
{
	(void)state;
	check_memory_domains(257);
	expect_one_node(NUMA_SOURCE_FALLBACK, "too-many-domains");
	expect_log("NUMA: SRAT names 257 proximity domains, more than 256 nodes; "
		   "SRAT not trusted, falling back to one node");
	expect_warnings(1, 1);
}

/* A thousand domains, one per CPU (x2APIC entries past ID 0xfe): every
 * CPU is kept (the design limit is 8192), the SRAT is not trusted. */
static void test_1000_domains(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 1000; a++) {
		cpu(a);
		cpu_aff(a, a);
	}
	mem_aff(0, 0, 0x80000000);
	assert_int_equal(build_quiet(), 1);
	expect_one_node(NUMA_SOURCE_FALLBACK, "too-many-domains");
	assert_int_equal(topo.nr_cpus, 1000);
	EXPECT_MEM(0, Q35_LOW);
	expect_warnings(1, 1);
	expect_log("NUMA: SRAT names 1000 proximity domains, more than 256 nodes; "
		   "SRAT not trusted, falling back to one node");
}

/* ---- SLIT -------------------------------------------------------------- */

static void two_nodes_for_slit(void)
{
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 2; a++) {
		cpu(a);
		cpu_aff(a, a);
	}
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
}

/* More localities than domains in use: the extra one is skipped, the SLIT
 * is used (it was ignored before, losing the real distances). */
static void test_slit_wrong_count(void **state)
{
	(void)state;
	two_nodes_for_slit();
	SLIT(3, 10, 21, 31, 21, 10, 31, 31, 31, 10);
	assert_int_equal(build(), 0);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 21, 21, 10);
	expect_warnings(0, 0);
	expect_log("NUMA: SLIT has 3 localities for 2 proximity domains in use; the 1 without a node are skipped");
	expect_log("NUMA: node distances (SLIT):");
}

static void test_slit_invalid(void **state)
{
	(void)state;
	two_nodes_for_slit();
	SLIT(2, 10, 21, 21, 20);
	assert_int_equal(build(), 1);
	assert_false(topo.slit);
	EXPECT_DISTANCES(10, 20, 20, 10);
	expect_warnings(1, 2);     /* the parser's, then ours */
	expect_log("NUMA: SLIT is invalid");
}

/* Localities are proximity domains: PXM 7 has no row in a 2-locality SLIT. */
static void test_slit_pxm_out_of_range(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	cpu(0);
	cpu(1);
	cpu_aff(7, 0);
	cpu_aff(200, 1);
	mem_aff(7, 0, 0x40000000);
	mem_aff(200, 0x40000000, 0x80000000);
	SLIT(2, 10, 21, 21, 10);
	assert_int_equal(build(), 1);
	assert_false(topo.slit);
	EXPECT_DISTANCES(10, 20, 20, 10);
	expect_log("NUMA: SLIT has no locality for PXM 7 (localities 0..1)");
}

/* Asymmetric SLITs are legal (the parser notes it); used as given. */
static void test_slit_asymmetric(void **state)
{
	(void)state;
	two_nodes_for_slit();
	SLIT(2, 10, 21, 31, 10);
	assert_int_equal(build(), 0);
	assert_true(topo.slit);
	EXPECT_DISTANCES(10, 21, 31, 10);
	expect_warnings(0, 1);
}

/* ---- numa_check() itself ------------------------------------------------ */

static struct numa_topology broken;

/* Each corruption of a good topology must be caught. */
static void test_check_catches_breakage(void **state)
{
	(void)state;
	map_q35(2 * GiB);
	for (uint32_t a = 0; a < 4; a++) {
		cpu(a);
		cpu_aff(a / 2, a);
	}
	mem_aff(0, 0, 0x40000000);
	mem_aff(1, 0x40000000, 0x80000000);
	assert_int_equal(build(), 0);
	assert_int_equal(topo.nr_ranges, 3);

#define BREAK(what)                                     \
	do {                                            \
		broken = topo;                          \
		what;                                   \
		host_log_reset();                       \
		assert_false(numa_check(&broken, bi.ranges, bi.nr_ranges)); \
		assert_int_equal(host_log_count(LOG_ERR), 1); \
	} while (0)

	BREAK(broken.ranges[1].end -= 0x1000);                      /* a usable page on no node */
	BREAK(broken.ranges[0].end += 0x1000);                      /* a reserved page on a node */
	BREAK(broken.ranges[2].start -= 0x1000);                    /* two nodes share a page */
	BREAK(broken.ranges[2].node = 0);                           /* sums disagree */
	BREAK(broken.ranges[2].node = 2);                           /* no such node */
	BREAK(broken.nr_ranges = 2);                                /* memory lost */
	BREAK(broken.cpus[3].node = 0);                             /* CPU not in its mask */
	BREAK(broken.nodes[0].cpu_mask[0] |= 1ULL << 3);            /* CPU on two nodes */
	BREAK(broken.nodes[0].cpu_mask[0] |= 1ULL << 4);            /* a CPU that does not exist */
	BREAK(broken.cpus[1].hwid = 2);                             /* APIC ID twice */
	BREAK(broken.cpus[0].present = false);                      /* boot CPU absent */
	BREAK(broken.distance[1] = 10);                             /* remote at local distance */
	BREAK(broken.distance[3] = 20);                             /* local not 10 */
	BREAK(broken.nodes[1].mem_node = 0);                        /* node with memory elsewhere */
	BREAK(broken.nodes[1].span_end -= 0x1000);                  /* span wrong */
	BREAK(broken.nr_nodes = 0);
	BREAK(broken.nr_cpus = NUMA_MAX_CPUS + 1);
#undef BREAK
	assert_true(numa_check(&topo, bi.ranges, bi.nr_ranges));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_no_srat_one_node, reset),
		cmocka_unit_test_setup(test_no_madt_no_memory, reset),
		cmocka_unit_test_setup(test_fixture_q35_maxcpus4, reset),
		cmocka_unit_test_setup(test_q35_two_nodes, reset),
		cmocka_unit_test_setup(test_srat_boundaries_inside_pages, reset),
		cmocka_unit_test_setup(test_fixture_q35_numa2_slit, reset),
		cmocka_unit_test_setup(test_fixture_q35_numa2_ovmf, reset),
		cmocka_unit_test_setup(test_fixture_q35_smp6, reset),
		cmocka_unit_test_setup(test_smp6_two_nodes, reset),
		cmocka_unit_test_setup(test_uneven_3g_1g, reset),
		cmocka_unit_test_setup(test_pxm_7_and_200, reset),
		cmocka_unit_test_setup(test_x2apic_wide_pxm, reset),
		cmocka_unit_test_setup(test_four_nodes_memoryless_cpuless_slit, reset),
		cmocka_unit_test_setup(test_slit_with_more_localities_than_nodes, reset),
		cmocka_unit_test_setup(test_slit_refusals_by_pxm, reset),
		cmocka_unit_test_setup(test_memoryless_ties, reset),
		cmocka_unit_test_setup(test_boot_cpu_not_first, reset),
		cmocka_unit_test_setup(test_boot_cpu_not_in_madt, reset),
		cmocka_unit_test_setup(test_online_capable_cpus, reset),
		cmocka_unit_test_setup(test_cpu_missing_from_srat, reset),
		cmocka_unit_test_setup(test_cpus_missing_from_srat, reset),
		cmocka_unit_test_setup(test_all_cpus_missing_falls_back, reset),
		cmocka_unit_test_setup(test_srat_cpu_not_in_madt, reset),
		cmocka_unit_test_setup(test_too_many_cpus, reset),
		cmocka_unit_test_setup(test_too_many_cpus_balanced, reset),
		cmocka_unit_test_setup(test_overlap_falls_back, reset),
		cmocka_unit_test_setup(test_overlap_same_pxm, reset),
		cmocka_unit_test_setup(test_srat_beyond_map, reset),
		cmocka_unit_test_setup(test_srat_node_beyond_ram_is_dropped, reset),
		cmocka_unit_test_setup(test_srat_hotplug_only_node_is_dropped_quietly, reset),
		cmocka_unit_test_setup(test_usable_memory_in_no_srat_range, reset),
		cmocka_unit_test_setup(test_many_orphans_summed_up, reset),
		cmocka_unit_test_setup(test_srat_without_usable_memory, reset),
		cmocka_unit_test_setup(test_too_many_ranges_falls_back, reset),
		cmocka_unit_test_setup(test_many_ranges, reset),
		cmocka_unit_test_setup(test_256_domains, reset),
		cmocka_unit_test_setup(test_257_domains, reset),
		cmocka_unit_test_setup(test_1000_domains, reset),
		cmocka_unit_test_setup(test_slit_wrong_count, reset),
		cmocka_unit_test_setup(test_slit_invalid, reset),
		cmocka_unit_test_setup(test_slit_pxm_out_of_range, reset),
		cmocka_unit_test_setup(test_slit_asymmetric, reset),
		cmocka_unit_test_setup(test_check_catches_breakage, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_numa_dt.c: the NUMA topology from a device tree (mm/numa_dt.c):
 * QEMU virt's own four-node tree, and hand-made machines for each rule
 * and repair (a CPU without numa-node-id, memory in no /memory range, an
 * incomplete or wrong /distance-map, overlapping nodes, memory without an
 * id, arm64's Aff3 in a CPU's reg).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/firmware/dt.h"
#include "mm/numa.h"
#include "tests/host/host_support.h"

#define GIB (1ULL << 30)

static struct numa_topology topo;
static struct dt_machine *m;

static int setup(void **state)
{
	(void)state;
	host_log_reset();
	m = calloc(1, sizeof(*m));
	assert_non_null(m);
	memset(&topo, 0, sizeof(topo));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(m);
	return 0;
}

static void build(const struct mem_range *map, uint32_t nr_map, uint32_t boot_hwid)
{
	struct numa_input in = { .map = map, .nr_map = nr_map, .boot_hwid = boot_hwid, .dt = m };

	numa_build(&topo, &in);
	assert_true(numa_check(&topo, map, nr_map));
}

static void add_mem(uint64_t start, uint64_t end, uint32_t node)
{
	m->mems[m->nr_mems++] = (struct dt_mem){ .start = start, .end = end, .node = node };
}

static void add_cpu(uint64_t reg, uint32_t node)
{
	m->cpus[m->nr_cpus++] = (struct dt_cpu){ .hwid = reg, .node = node, .enabled = true };
}

/* Two nodes of 1 GiB at 0x40000000, a CPU each. */
static void two_nodes(void)
{
	m->numa_form = DT_NUMA_NODE_ID;
	add_cpu(0, 0);
	add_cpu(1, 1);
	add_mem(0x40000000, 0x80000000, 0);
	add_mem(0x80000000, 0xc0000000, 1);
}

static const struct mem_range two_gib[] = {
	{ 0x40000000, 0x48000000, MEM_USABLE },
	{ 0x48000000, 0x48100000, MEM_RESERVED },   /* the tree */
	{ 0x48100000, 0xc0000000, MEM_USABLE },
};

/* The tree in the file at @path read into m; its bytes, for free(). */
static void *parse_tree_file(const char *path)
{
	size_t len;
	struct dt_blob dt;
	void *blob = host_read_file(path, &len);

	assert_non_null(blob);
	assert_int_equal(dt_open(&dt, blob, len), DT_OK);
	assert_true(dt_machine_parse(&dt, m));
	return blob;
}

static void test_qemu_virt_four_nodes(void **state)
{
	(void)state;
	void *blob = parse_tree_file("tests/host/fixtures/dt/virt-4n.dtb");
	const struct mem_range map[] = { { 0x40000000, 0x140000000ULL, MEM_USABLE } };
	/* QEMU's -numa dist of the fixture (tests/host/test_dt.c). */
	const uint8_t want[4][4] = { { 10, 20, 30, 40 }, { 20, 10, 20, 30 },
				     { 30, 20, 10, 20 }, { 40, 30, 20, 10 } };

	build(map, 1, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_DT);
	assert_int_equal(topo.nr_warnings, 0);
	assert_int_equal(topo.nr_nodes, 4);
	assert_int_equal(topo.nr_cpus, 8);
	for (uint32_t c = 0; c < 8; c++) {
		assert_int_equal(topo.cpus[c].hwid, c);
		assert_int_equal(topo.cpus[c].node, c / 2);
	}
	for (uint32_t n = 0; n < 4; n++) {
		assert_int_equal(topo.nodes[n].pxm, n);
		assert_int_equal(topo.nodes[n].mem_bytes, GIB);
		assert_int_equal(topo.nodes[n].span_start, 0x40000000ULL + n * GIB);
		for (uint32_t j = 0; j < 4; j++)
			assert_int_equal(topo.distance[n * 4 + j], want[n][j]);
	}
	assert_true(topo.dt_distances);
	assert_false(topo.slit);
	free(blob);
}

static void test_node_ids_renumbered_in_order_of_appearance(void **state)
{
	(void)state;
	m->numa_form = DT_NUMA_NODE_ID;
	add_cpu(0, 7);            /* the boot CPU's id first */
	add_cpu(1, 3);
	add_mem(0x40000000, 0x80000000, 3);
	add_mem(0x80000000, 0xc0000000, 7);
	build(two_gib, 3, 0);
	assert_int_equal(topo.nr_nodes, 2);
	assert_int_equal(topo.nodes[0].pxm, 7);
	assert_int_equal(topo.nodes[1].pxm, 3);
	assert_int_equal(numa_node_of_addr(&topo, 0x40000000), 1);
	assert_int_equal(numa_node_of_addr(&topo, 0x90000000), 0);
	/* The reserved tree is on no node; no warning. */
	assert_int_equal(numa_node_of_addr(&topo, 0x48000000), NUMA_NO_NODE);
	assert_int_equal(topo.nr_warnings, 0);
	/* No /distance-map: the defaults, without a warning. */
	assert_int_equal(topo.distance[1], NUMA_REMOTE_DISTANCE);
	assert_false(topo.dt_distances);
}

static void test_cpu_without_node_id_goes_to_node_0(void **state)
{
	(void)state;
	two_nodes();
	add_cpu(2, DT_NO_NODE);
	build(two_gib, 3, 1);       /* boot CPU: reg 1, on node id 1 */
	assert_int_equal(topo.nr_cpus, 3);
	assert_int_equal(topo.cpus[0].hwid, 1);
	assert_int_equal(topo.cpus[2].hwid, 2);
	assert_int_equal(topo.cpus[2].node, 0);
	assert_int_equal(topo.nr_warnings, 1);
	assert_true(host_log_contains("1 CPUs (cpu 2 first) have no numa-node-id: put on node 0"));
}

static void test_memory_in_no_range_joins_the_nearest(void **state)
{
	(void)state;
	const struct mem_range map[] = { { 0x40000000, 0x100000000ULL, MEM_USABLE } };

	two_nodes();
	build(map, 1, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_DT);
	/* [0xc0000000, 0x100000000) lies above node 1's range. */
	assert_int_equal(numa_node_of_addr(&topo, 0xc0000000), 1);
	assert_int_equal(topo.nodes[1].mem_bytes, 2 * GIB);
	assert_int_equal(topo.nr_warnings, 1);
	assert_true(host_log_contains("1 pieces of usable memory (1048576 KiB) in no /memory range"));
}

static void test_overlapping_nodes_fall_back(void **state)
{
	(void)state;
	two_nodes();
	add_mem(0x7fe00000, 0x90000000, 0);    /* node 0 reaching into node 1 */
	build(two_gib, 3, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_FALLBACK);
	assert_string_equal(topo.fallback_reason, "dt-overlap");
	assert_int_equal(topo.nr_nodes, 1);
	assert_int_equal(topo.nr_cpus, 2);
	assert_int_equal(topo.nr_warnings, 1);
}

static void test_memory_without_node_id_falls_back(void **state)
{
	(void)state;
	two_nodes();
	m->mems[1].node = DT_NO_NODE;
	build(two_gib, 3, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_FALLBACK);
	assert_string_equal(topo.fallback_reason, "dt-memory-no-node");
	assert_int_equal(topo.nr_warnings, 1);
}

static void test_bad_distance_map_gives_defaults(void **state)
{
	(void)state;
	two_nodes();
	/* 0 -> 1 given, 1 -> 0 not: dt_machine_distance() answers it by
	 * symmetry; a self distance of 12 is wrong. */
	m->distances[m->nr_distances++] = (struct dt_distance){ 0, 1, 25 };
	m->distances[m->nr_distances++] = (struct dt_distance){ 1, 1, 12 };
	build(two_gib, 3, 0);
	assert_false(topo.dt_distances);
	assert_int_equal(topo.distance[1], NUMA_REMOTE_DISTANCE);
	assert_int_equal(topo.nr_warnings, 1);
	assert_true(host_log_contains("/distance-map gives 12 from node id 1 to 1"));
}

static void test_no_node_ids_one_node_without_warning(void **state)
{
	(void)state;
	add_cpu(0, DT_NO_NODE);
	add_cpu(1, DT_NO_NODE);
	add_mem(0x40000000, 0xc0000000, DT_NO_NODE);
	build(two_gib, 3, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_NONE);
	assert_int_equal(topo.nr_nodes, 1);
	assert_int_equal(topo.nr_cpus, 2);      /* the tree's CPUs all the same */
	assert_int_equal(topo.nr_warnings, 0);
}

/* QEMU pseries, 2 nodes x 2 CPUs x 1 GiB, -numa dist 40: the nodes from
 * ibm,associativity (FORM1, reference points <4 3 2 1>), as the tree
 * boot/ofw flattens for the kernel says them. */
static void test_pseries_form1_two_nodes(void **state)
{
	(void)state;
	void *blob = parse_tree_file("tests/host/fixtures/dt/pseries-2n.dtb");
	const struct mem_range map[] = { { 0x400000, 0x80000000ULL, MEM_USABLE } };

	assert_int_equal(m->numa_form, DT_NUMA_FORM1);
	build(map, 1, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_DT);
	assert_int_equal(topo.nr_warnings, 0);
	assert_int_equal(topo.nr_nodes, 2);
	assert_int_equal(topo.nr_cpus, 4);
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(topo.cpus[c].node, c / 2);
	assert_int_equal(topo.nodes[0].span_start, 0x400000);
	assert_int_equal(topo.nodes[1].span_start, GIB);
	assert_int_equal(topo.nodes[1].mem_bytes, GIB);
	assert_int_equal(topo.distance[0 * 2 + 1], 40);
	assert_int_equal(topo.distance[1 * 2 + 0], 40);
	assert_int_equal(topo.distance[1 * 2 + 1], 10);
	assert_true(topo.dt_distances);
	free(blob);
}

/* FORM2 (the lookup index table's domains, the distance table): the
 * parser gives the domains and distances; the same rules apply. */
static void test_form2_nodes_and_distances(void **state)
{
	(void)state;
	two_nodes();
	m->numa_form = DT_NUMA_FORM2;
	m->distances[m->nr_distances++] = (struct dt_distance){ 0, 1, 22 };
	build(two_gib, 3, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_DT);
	assert_int_equal(topo.nr_nodes, 2);
	assert_int_equal(topo.cpus[1].node, 1);
	assert_int_equal(topo.distance[1], 22);
	assert_int_equal(topo.distance[2], 22);
	assert_int_equal(topo.nr_warnings, 0);
}

/* A pseries-style FORM2 tree written as source and compiled by dtc (the
 * device-tree-compiler package, tools/setup-deps.sh): domains 3 and 8 of
 * the lookup index table, 30 between them in the distance table. */
static const char form2_dts[] =
	"/dts-v1/;\n"
	"/ {\n"
	"	#address-cells = <2>; #size-cells = <2>;\n"
	"	rtas {\n"
	"		ibm,associativity-reference-points = <4 2>;\n"
	"		ibm,numa-lookup-index-table = <2 3 8>;\n"
	"		ibm,numa-distance-table = [00 00 00 04 0a 1e 1e 0a];\n"
	"	};\n"
	"	cpus {\n"
	"		#address-cells = <1>; #size-cells = <0>;\n"
	"		cpu@0 { device_type = \"cpu\"; reg = <0>; ibm,associativity = <5 0 0 0 3 0>; };\n"
	"		cpu@1 { device_type = \"cpu\"; reg = <1>; ibm,associativity = <5 0 0 0 8 1>; };\n"
	"	};\n"
	"	memory@0 { device_type = \"memory\"; reg = <0 0 0 0x40000000>;\n"
	"		ibm,associativity = <4 0 0 0 3>; };\n"
	"	memory@40000000 { device_type = \"memory\"; reg = <0 0x40000000 0 0x40000000>;\n"
	"		ibm,associativity = <4 0 0 0 8>; };\n"
	"};\n";

static void test_form2_tree_compiled_by_dtc(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	char dir[192], path[256], cmd[640];
	const struct mem_range map[] = { { 0x400000, 0x80000000ULL, MEM_USABLE } };

	snprintf(dir, sizeof(dir), "%s/memboot-form2-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.dts", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(form2_dts, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "dtc -q -I dts -O dtb -o %s/t.dtb %s", dir, path);
	if (system(cmd) != 0)
		fail_msg("dtc could not compile the tree (device-tree-compiler installed? tools/setup-deps.sh)");
	snprintf(path, sizeof(path), "%s/t.dtb", dir);
	void *blob = parse_tree_file(path);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);

	assert_int_equal(m->numa_form, DT_NUMA_FORM2);
	build(map, 1, 0);
	assert_int_equal(topo.source, NUMA_SOURCE_DT);
	assert_int_equal(topo.nr_warnings, 0);
	assert_int_equal(topo.nr_nodes, 2);
	assert_int_equal(topo.nodes[0].pxm, 3);
	assert_int_equal(topo.nodes[1].pxm, 8);
	assert_int_equal(topo.cpus[1].node, 1);
	assert_int_equal(topo.nodes[1].span_start, GIB);
	assert_int_equal(topo.distance[1], 30);
	assert_int_equal(topo.distance[3], 10);
	free(blob);
}

static void test_aff3_packed_as_the_hwid(void **state)
{
	(void)state;
	two_nodes();
	add_cpu(0x100000002ULL, 1);   /* Aff3 1, Aff0 2 */
	build(two_gib, 3, 0);
	assert_int_equal(topo.cpus[2].hwid, 0x01000002u);
	assert_int_equal(topo.cpus[2].node, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_virt_four_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_ids_renumbered_in_order_of_appearance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_without_node_id_goes_to_node_0, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_in_no_range_joins_the_nearest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlapping_nodes_fall_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_without_node_id_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_distance_map_gives_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_node_ids_one_node_without_warning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aff3_packed_as_the_hwid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pseries_form1_two_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_form2_nodes_and_distances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_form2_tree_compiled_by_dtc, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

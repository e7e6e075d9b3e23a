/*
 * test_ofw_flatten.c: boot/ofw/flatten.c, the Open Firmware tree written
 * as a flattened tree. The firmware is played by QEMU's own pseries tree
 * (tests/host/fixtures/dt/pseries-2n.dtb, 2 FORM1 nodes, 4 CPUs) answered
 * node by node through the client interface's services (child, peer,
 * nextprop, getproplen, getprop, package-to-path) as VOF answers them; the
 * flattened copy must read exactly as the original does (every token,
 * and the machine dt_machine_parse() makes of it). Then a firmware that
 * fails a call, a buffer too small, and a tree nested too deep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/ofw/flatten.h"
#include "kernel/firmware/dt.h"
#include "tests/host/host_support.h"

#define FIXTURE "tests/host/fixtures/dt/pseries-2n.dtb"
#define MAX_NODES 256
#define MAX_PROPS 4096

/* ---- a client interface over a flattened tree ---- */

struct fw_prop {
	const char *name;
	const uint8_t *value;
	uint32_t len;
};

struct fw_node {
	uint32_t parent, child, peer;   /* phandles: index + 1, 0 none */
	char path[256];
	uint32_t first_prop, nr_props;
};

struct fw {
	struct fw_node nodes[MAX_NODES];
	uint32_t nr_nodes;
	struct fw_prop props[MAX_PROPS];
	uint32_t nr_props;
	int fail_getprop_of;            /* a property name whose getprop fails: -1 none */
	const char *fail_name;
	uint32_t calls;
};

static void fw_load(struct fw *fw, const struct dt_blob *dt)
{
	struct dt_iter it;
	struct dt_token tok;
	uint32_t stack[64], depth = 0, last_child[64] = { 0 };

	memset(fw, 0, sizeof(*fw));
	dt_iter_init(&it, dt);
	while (dt_iter_next(&it, &tok)) {
		if (tok.kind == DT_NODE_BEGIN) {
			assert_true(fw->nr_nodes < MAX_NODES);
			const uint32_t ph = ++fw->nr_nodes;
			struct fw_node *n = &fw->nodes[ph - 1];
			n->first_prop = fw->nr_props;
			if (depth) {
				const uint32_t parent = stack[depth - 1];
				n->parent = parent;
				struct fw_node *p = &fw->nodes[parent - 1];
				if (last_child[depth - 1])
					fw->nodes[last_child[depth - 1] - 1].peer = ph;
				else
					p->child = ph;
				last_child[depth - 1] = ph;
				snprintf(n->path, sizeof(n->path), "%s/%s",
					 strcmp(p->path, "/") == 0 ? "" : p->path, tok.name);
			} else {
				strcpy(n->path, "/");
			}
			last_child[depth] = 0;
			stack[depth++] = ph;
		} else if (tok.kind == DT_NODE_END) {
			depth--;
		} else {
			assert_true(fw->nr_props < MAX_PROPS);
			fw->props[fw->nr_props++] = (struct fw_prop){ tok.name, tok.value, tok.len };
			fw->nodes[stack[depth - 1] - 1].nr_props++;
		}
	}
	assert_false(it.error);
}

static const struct fw_prop *fw_prop(struct fw *fw, uint32_t ph, const char *name)
{
	const struct fw_node *n = &fw->nodes[ph - 1];

	for (uint32_t i = 0; i < n->nr_props; i++)
		if (strcmp(fw->props[n->first_prop + i].name, name) == 0)
			return &fw->props[n->first_prop + i];
	return NULL;
}

static uint32_t c_root(void *ctx)
{
	struct fw *fw = ctx;

	return fw->nr_nodes ? 1 : 0;
}

static uint32_t c_child(void *ctx, uint32_t ph)
{
	struct fw *fw = ctx;

	fw->calls++;
	return fw->nodes[ph - 1].child;
}

static uint32_t c_peer(void *ctx, uint32_t ph)
{
	struct fw *fw = ctx;

	fw->calls++;
	return fw->nodes[ph - 1].peer;
}

static int c_nextprop(void *ctx, uint32_t ph, const char *prev, char name[OFW_PROP_NAME_BYTES])
{
	struct fw *fw = ctx;
	const struct fw_node *n = &fw->nodes[ph - 1];
	uint32_t i = 0;

	fw->calls++;
	if (prev[0]) {
		while (i < n->nr_props && strcmp(fw->props[n->first_prop + i].name, prev) != 0)
			i++;
		if (i == n->nr_props)
			return -1;
		i++;
	}
	if (i == n->nr_props)
		return 0;
	snprintf(name, OFW_PROP_NAME_BYTES, "%s", fw->props[n->first_prop + i].name);
	return 1;
}

static int32_t c_getproplen(void *ctx, uint32_t ph, const char *name)
{
	const struct fw_prop *p = fw_prop(ctx, ph, name);

	return p ? (int32_t)p->len : -1;
}

static int32_t c_getprop(void *ctx, uint32_t ph, const char *name, void *buf, uint32_t len)
{
	struct fw *fw = ctx;
	const struct fw_prop *p = fw_prop(fw, ph, name);

	if (!p || (fw->fail_name && strcmp(fw->fail_name, name) == 0))
		return -1;
	const uint32_t n = p->len < len ? p->len : len;
	memcpy(buf, p->value, n);
	return (int32_t)n;
}

static int32_t c_path(void *ctx, uint32_t ph, char *buf, uint32_t len)
{
	struct fw *fw = ctx;

	snprintf(buf, len, "%s", fw->nodes[ph - 1].path);
	return (int32_t)strlen(buf);
}

static struct ofw_ops ops_for(struct fw *fw)
{
	return (struct ofw_ops){ .ctx = fw, .root = c_root, .child = c_child, .peer = c_peer,
				 .nextprop = c_nextprop, .getproplen = c_getproplen,
				 .getprop = c_getprop, .path = c_path };
}

static void *load_fixture(size_t *len, struct dt_blob *dt)
{
	void *blob = host_read_file(FIXTURE, len);

	assert_non_null(blob);
	assert_int_equal(dt_open(dt, blob, *len), DT_OK);
	return blob;
}

/* ---- the tests ---- */

static void test_pseries_tree_reads_the_same(void **state)
{
	size_t len, bytes;
	struct dt_blob orig, copy;
	static struct fw fw;
	static uint8_t buf[256 << 10] __attribute__((aligned(8)));
	const struct ofw_rsv rsv = { 0, 0x400000 };
	void *blob = load_fixture(&len, &orig);

	host_log_reset();
	fw_load(&fw, &orig);
	const struct ofw_ops ops = ops_for(&fw);
	assert_int_equal(ofw_flatten_tree(&ops, buf, sizeof(buf), &rsv, 1, 0, &bytes), OFW_OK);
	assert_true(bytes > 0 && bytes < sizeof(buf));
	assert_int_equal(dt_open(&copy, buf, bytes), DT_OK);

	/* Token by token: the same nodes, names and values. */
	struct dt_iter a, b;
	struct dt_token ta, tb;
	uint32_t tokens = 0;
	dt_iter_init(&a, &orig);
	dt_iter_init(&b, &copy);
	while (dt_iter_next(&a, &ta)) {
		assert_true(dt_iter_next(&b, &tb));
		assert_int_equal(ta.kind, tb.kind);
		assert_int_equal(ta.depth, tb.depth);
		if (ta.kind != DT_NODE_END)
			assert_string_equal(ta.name, tb.name);
		if (ta.kind == DT_PROP) {
			assert_int_equal(ta.len, tb.len);
			assert_memory_equal(ta.value, tb.value, ta.len);
		}
		tokens++;
	}
	assert_false(dt_iter_next(&b, &tb));
	assert_false(a.error || b.error);
	assert_true(tokens > 100);

	/* The reservation block holds the firmware's memory, then ends. */
	uint64_t start, size;
	assert_true(dt_rsv_entry(&copy, 0, &start, &size));
	assert_int_equal(start, 0);
	assert_int_equal(size, 0x400000);
	assert_false(dt_rsv_entry(&copy, 1, &start, &size));

	/* The machine: 2 FORM1 nodes, 4 CPUs, RTAS, the timebase. */
	struct dt_machine *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	assert_true(dt_machine_parse(&copy, m));
	assert_int_equal(m->numa_form, DT_NUMA_FORM1);
	assert_int_equal(m->nr_cpus, 4);
	assert_int_equal(m->cpus[3].node, 1);
	assert_int_equal(m->timebase_hz, 512000000);
	assert_int_equal(m->rtas_power_off, 0x2003);
	assert_int_equal(dt_machine_distance(m, 0, 1), 40);
	assert_int_equal(m->nr_rsv, 1);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(m);
	free(blob);
}

static void test_failures_are_named(void **state)
{
	size_t len, bytes = 1;
	struct dt_blob orig;
	static struct fw fw;
	static uint8_t buf[256 << 10] __attribute__((aligned(8)));
	void *blob = load_fixture(&len, &orig);

	fw_load(&fw, &orig);
	struct ofw_ops ops = ops_for(&fw);

	/* A getprop that fails. */
	fw.fail_name = "ibm,associativity";
	assert_int_equal(ofw_flatten_tree(&ops, buf, sizeof(buf), NULL, 0, 0, &bytes),
			 OFW_ERR_FIRMWARE);
	assert_int_equal(bytes, 0);
	fw.fail_name = NULL;

	/* Too small a buffer, at every size up to the header's. */
	assert_int_equal(ofw_flatten_tree(&ops, buf, 4096, NULL, 0, 0, &bytes), OFW_ERR_SPACE);
	assert_int_equal(ofw_flatten_tree(&ops, buf, 40, NULL, 0, 0, &bytes), OFW_ERR_SPACE);

	/* No root node. */
	const uint32_t nodes = fw.nr_nodes;
	fw.nr_nodes = 0;
	assert_int_equal(ofw_flatten_tree(&ops, buf, sizeof(buf), NULL, 0, 0, &bytes),
			 OFW_ERR_NO_ROOT);
	fw.nr_nodes = nodes;

	/* A tree nested deeper than OFW_MAX_DEPTH: every node, without
	 * properties, the only child of the one before. */
	memset(&fw, 0, sizeof(fw));
	fw.nr_nodes = OFW_MAX_DEPTH + 8;
	strcpy(fw.nodes[0].path, "/");
	for (uint32_t i = 1; i < fw.nr_nodes; i++) {
		fw.nodes[i - 1].child = i + 1;
		snprintf(fw.nodes[i].path, sizeof(fw.nodes[i].path), "%s/n%u",
			 i == 1 ? "" : fw.nodes[i - 1].path, i);
	}
	assert_int_equal(ofw_flatten_tree(&ops, buf, sizeof(buf), NULL, 0, 0, &bytes),
			 OFW_ERR_DEPTH);
	/* One level less than the limit is a tree. */
	fw.nodes[OFW_MAX_DEPTH].child = 0;
	assert_int_equal(ofw_flatten_tree(&ops, buf, sizeof(buf), NULL, 0, 0, &bytes), OFW_OK);
	assert_string_equal(ofw_status_name(OFW_ERR_DEPTH), "nodes nested too deep");
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pseries_tree_reads_the_same),
		cmocka_unit_test(test_failures_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

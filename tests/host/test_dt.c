/*
 * test_dt.c: kernel/firmware/dt.c and dt_machine.c on the trees QEMU gives
 * (tests/host/fixtures/dt/: arm64 virt with 4 nodes, pseries with 2 FORM1
 * nodes, powernv10 with 2 chips; capture-qemu.sh says how they were made)
 * and on blobs built here token by token at the offsets the Devicetree
 * Specification gives, whole and then broken as firmware breaks them:
 * truncated, a string offset past the strings block, a property past the
 * structure block, cells counts of 0 and 5, a node nested 10,000 deep.
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
#include "tests/host/host_support.h"

#define FIXTURES "tests/host/fixtures/dt/"

/* ---- a blob builder (Devicetree Specification 5.2-5.4) ---- */

struct fdt {
	uint8_t *structs;
	size_t struct_len, struct_cap;
	char strings[4096];
	size_t strings_len;
	uint64_t rsv[8][2];
	unsigned nr_rsv;
	uint8_t *blob;
	size_t len;
};

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put(struct fdt *f, const void *bytes, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;

	if (f->struct_len + padded > f->struct_cap) {
		f->struct_cap = (f->struct_len + padded) * 2 + 256;
		f->structs = realloc(f->structs, f->struct_cap);
		assert_non_null(f->structs);
	}
	memset(f->structs + f->struct_len, 0, padded);
	memcpy(f->structs + f->struct_len, bytes, n);
	f->struct_len += padded;
}

static void token(struct fdt *f, uint32_t t)
{
	uint8_t b[4];

	be32(b, t);
	put(f, b, 4);
}

static void begin(struct fdt *f, const char *name)
{
	token(f, DT_TOKEN_BEGIN_NODE);
	put(f, name, strlen(name) + 1);
}

static void end(struct fdt *f)
{
	token(f, DT_TOKEN_END_NODE);
}

static uint32_t string_off(struct fdt *f, const char *name)
{
	for (size_t off = 0; off < f->strings_len; off += strlen(f->strings + off) + 1)
		if (!strcmp(f->strings + off, name))
			return (uint32_t)off;
	size_t n = strlen(name) + 1, off = f->strings_len;

	assert_true(off + n <= sizeof(f->strings));
	memcpy(f->strings + off, name, n);
	f->strings_len += n;
	return (uint32_t)off;
}

static void prop(struct fdt *f, const char *name, const void *v, uint32_t len)
{
	uint8_t h[12];

	be32(h, DT_TOKEN_PROP);
	be32(h + 4, len);
	be32(h + 8, string_off(f, name));
	put(f, h, 12);
	if (len)
		put(f, v, len);
}

static void prop_str(struct fdt *f, const char *name, const char *s)
{
	prop(f, name, s, (uint32_t)strlen(s) + 1);
}

/* A property of @n cells given as 32-bit values. */
static void prop_cells(struct fdt *f, const char *name, unsigned n, ...)
{
	uint8_t v[64 * 4];
	va_list ap;

	assert_true(n <= 64);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		be32(v + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	prop(f, name, v, 4 * n);
}

/* The blob: header, reservation block, structure block, strings block. */
/* A property of @n cells from an array. */
static void prop_raw_cells(struct fdt *f, const char *name, const uint32_t *c, unsigned n)
{
	uint8_t v[64 * 4];

	assert_true(n <= 64);
	for (unsigned i = 0; i < n; i++)
		be32(v + 4 * i, c[i]);
	prop(f, name, v, 4 * n);
}

static void finish(struct fdt *f)
{
	size_t off_rsv = 40, rsv_bytes = 16 * (f->nr_rsv + 1);
	size_t off_struct = off_rsv + rsv_bytes;

	token(f, DT_TOKEN_END);
	size_t off_strings = off_struct + f->struct_len;
	f->len = off_strings + f->strings_len;
	f->blob = calloc(1, f->len);
	assert_non_null(f->blob);
	be32(f->blob, DT_MAGIC);
	be32(f->blob + 4, (uint32_t)f->len);
	be32(f->blob + 8, (uint32_t)off_struct);
	be32(f->blob + 12, (uint32_t)off_strings);
	be32(f->blob + 16, (uint32_t)off_rsv);
	be32(f->blob + 20, 17);
	be32(f->blob + 24, 16);
	be32(f->blob + 28, 0);
	be32(f->blob + 32, (uint32_t)f->strings_len);
	be32(f->blob + 36, (uint32_t)f->struct_len);
	for (unsigned i = 0; i < f->nr_rsv; i++) {
		be32(f->blob + off_rsv + 16 * i, (uint32_t)(f->rsv[i][0] >> 32));
		be32(f->blob + off_rsv + 16 * i + 4, (uint32_t)f->rsv[i][0]);
		be32(f->blob + off_rsv + 16 * i + 8, (uint32_t)(f->rsv[i][1] >> 32));
		be32(f->blob + off_rsv + 16 * i + 12, (uint32_t)f->rsv[i][1]);
	}
	memcpy(f->blob + off_struct, f->structs, f->struct_len);
	memcpy(f->blob + off_strings, f->strings, f->strings_len);
}

static void fdt_free(struct fdt *f)
{
	free(f->structs);
	free(f->blob);
}

/* A small arm64-like tree: 2 memory nodes on 2 nodes, 2 CPUs, PSCI. */
static void small_tree(struct fdt *f)
{
	begin(f, "");
	prop_cells(f, "#address-cells", 1, 2);
	prop_cells(f, "#size-cells", 1, 2);
	prop_str(f, "model", "test-board");
	begin(f, "memory@40000000");
	prop_str(f, "device_type", "memory");
	prop_cells(f, "reg", 4, 0, 0x40000000, 0, 0x10000000);
	prop_cells(f, "numa-node-id", 1, 0);
	end(f);
	begin(f, "memory@50000000");
	prop_str(f, "device_type", "memory");
	prop_cells(f, "reg", 4, 0, 0x50000000, 0, 0x10000000);
	prop_cells(f, "numa-node-id", 1, 1);
	end(f);
	begin(f, "cpus");
	prop_cells(f, "#address-cells", 1, 1);
	prop_cells(f, "#size-cells", 1, 0);
	begin(f, "cpu@0");
	prop_str(f, "device_type", "cpu");
	prop_cells(f, "reg", 1, 0);
	prop_str(f, "enable-method", "psci");
	prop_cells(f, "numa-node-id", 1, 0);
	end(f);
	begin(f, "cpu@100");
	prop_str(f, "device_type", "cpu");
	prop_cells(f, "reg", 1, 0x100);
	prop_str(f, "enable-method", "psci");
	prop_cells(f, "numa-node-id", 1, 1);
	end(f);
	end(f);
	begin(f, "psci");
	prop_str(f, "compatible", "arm,psci-0.2");
	prop_str(f, "method", "smc");
	end(f);
}

static struct dt_machine *parse_blob(const void *blob, size_t len, int *status)
{
	struct dt_blob dt;
	struct dt_machine *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	*status = dt_open(&dt, blob, len);
	if (*status == DT_OK)
		dt_machine_parse(&dt, m);
	return m;
}

static struct dt_machine *parse_fixture(const char *name)
{
	size_t len;
	char path[256];
	int status;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	void *blob = host_read_file(path, &len);
	assert_non_null(blob);
	struct dt_machine *m = parse_blob(blob, len, &status);
	assert_int_equal(status, DT_OK);
	free(blob);
	return m;
}

static const struct dt_mem *mem_at(const struct dt_machine *m, uint64_t start)
{
	for (uint32_t i = 0; i < m->nr_mems; i++)
		if (m->mems[i].start == start)
			return &m->mems[i];
	fail_msg("no memory range at 0x%llx", (unsigned long long)start);
	return NULL;
}

/* ---- QEMU's own trees ---- */

static void test_arm64_virt_four_nodes(void **state)
{
	host_log_reset();
	struct dt_machine *m = parse_fixture("virt-4n.dtb");

	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_false(m->walk_error);
	assert_string_equal(m->model, "linux,dummy-virt");
	assert_int_equal(m->numa_form, DT_NUMA_NODE_ID);
	assert_int_equal(m->nr_mems, 4);
	for (uint32_t n = 0; n < 4; n++) {
		const struct dt_mem *r = mem_at(m, 0x40000000ULL + n * 0x40000000ULL);

		assert_int_equal(r->end - r->start, 1ULL << 30);
		assert_int_equal(r->node, n);
	}
	assert_int_equal(m->nr_cpus, 8);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(m->cpus[i].hwid, i);
		assert_int_equal(m->cpus[i].node, i / 2);
		assert_true(m->cpus[i].enabled);
		assert_true(m->cpus[i].psci);
	}
	/* -numa dist: 0-1 20, 0-2 30, 0-3 40, 1-2 20, 1-3 30, 2-3 20. */
	assert_int_equal(dt_machine_distance(m, 0, 0), 10);
	assert_int_equal(dt_machine_distance(m, 0, 3), 40);
	assert_int_equal(dt_machine_distance(m, 3, 0), 40);
	assert_int_equal(dt_machine_distance(m, 1, 3), 30);
	assert_int_equal(dt_machine_distance(m, 2, 1), 20);
	assert_true(m->psci);
	assert_true(m->psci_hvc);
	assert_int_equal(m->psci_cpu_on, 0xc4000003u);
	/* intc@8000000: GICD 64 KiB, one GICR region of 123 frames pairs. */
	assert_true(m->gic_v3);
	assert_int_equal(m->gicd_base, 0x8000000);
	assert_int_equal(m->gicd_bytes, 0x10000);
	assert_int_equal(m->nr_gicr, 1);
	assert_int_equal(m->gicr[0].base, 0x80a0000);
	assert_int_equal(m->gicr[0].bytes, 0xf60000);
	assert_true(m->timer);
	assert_true(m->serial.present);
	assert_true(m->serial.from_stdout_path);
	assert_string_equal(m->serial.compatible, "arm,pl011");
	assert_string_equal(m->serial.path, "/pl011@9000000");
	assert_int_equal(m->serial.base, 0x9000000);
	assert_false(m->rtas);
	assert_false(m->opal);
	/* fw-cfg@9020000: QEMU's fw_cfg registers, 0x18 bytes. */
	assert_int_equal(m->fwcfg_base, 0x9020000);
	assert_int_equal(m->fwcfg_bytes, 0x18);
	free(m);
}

static void test_pseries_form1(void **state)
{
	host_log_reset();
	struct dt_machine *m = parse_fixture("pseries-2n.dtb");

	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(m->numa_form, DT_NUMA_FORM1);
	assert_int_equal(m->nr_ref_points, 4);
	assert_int_equal(m->ref_points[0], 4);
	assert_true(m->rtas);
	assert_int_equal(m->rtas_power_off, 0x2003);
	assert_int_equal(m->rtas_start_cpu, 0x2006);
	assert_int_equal(m->timebase_hz, 512000000);
	assert_int_equal(mem_at(m, 0)->node, 0);
	assert_int_equal(mem_at(m, 0x40000000)->node, 1);
	assert_int_equal(m->nr_cpus, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(m->cpus[i].hwid, i);
		assert_int_equal(m->cpus[i].node, i / 2);
		assert_false(m->cpus[i].psci);
	}
	/* -numa dist 40: FORM1's 10, doubled at reference points 4 and 3. */
	assert_int_equal(dt_machine_distance(m, 0, 1), 40);
	assert_int_equal(dt_machine_distance(m, 1, 1), 10);
	free(m);
}

static void test_powernv_chip_ids(void **state)
{
	host_log_reset();
	struct dt_machine *m = parse_fixture("powernv10-2chips.dtb");

	assert_int_equal(m->numa_form, DT_NUMA_CHIP_ID);
	assert_int_equal(m->nr_mems, 2);
	assert_int_equal(mem_at(m, 0)->node, 0);
	assert_int_equal(mem_at(m, 0x40000000)->node, 1);
	assert_true(m->nr_cpus >= 2);
	assert_true(m->opal);
	free(m);
}

/* ---- built trees ---- */

static void test_small_tree(void **state)
{
	struct fdt f = { 0 };
	int status;

	small_tree(&f);
	end(&f);
	f.rsv[f.nr_rsv][0] = 0x48000000;
	f.rsv[f.nr_rsv++][1] = 0x2000;
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(status, DT_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_string_equal(m->model, "test-board");
	assert_int_equal(m->nr_mems, 2);
	assert_int_equal(mem_at(m, 0x50000000)->node, 1);
	assert_int_equal(m->nr_cpus, 2);
	assert_int_equal(m->cpus[1].hwid, 0x100);
	assert_int_equal(m->cpus[1].node, 1);
	assert_true(m->psci);
	assert_false(m->psci_hvc);
	assert_int_equal(m->nr_rsv, 1);
	assert_int_equal(m->rsv[0].start, 0x48000000);
	assert_int_equal(m->rsv[0].end, 0x48002000);
	/* No distance-map: not given. */
	assert_int_equal(dt_machine_distance(m, 0, 1), 0);
	free(m);
	fdt_free(&f);
}

static void test_form2_tables(void **state)
{
	struct fdt f = { 0 };
	int status;
	uint8_t table[4 + 9];

	begin(&f, "");
	begin(&f, "rtas");
	prop_cells(&f, "ibm,associativity-reference-points", 2, 4, 2);
	/* Domains 5, 9 and 7, in that order; distances row by row. */
	prop_cells(&f, "ibm,numa-lookup-index-table", 4, 3, 5, 9, 7);
	be32(table, 9);
	memcpy(table + 4, (uint8_t[]){ 10, 20, 80, 20, 10, 40, 80, 40, 10 }, 9);
	prop(&f, "ibm,numa-distance-table", table, sizeof(table));
	end(&f);
	begin(&f, "memory@0");
	prop_str(&f, "device_type", "memory");
	prop_cells(&f, "reg", 3, 0, 0, 0x10000000);   /* 2 address cells, 1 size cell */
	prop_cells(&f, "ibm,associativity", 5, 4, 0, 0, 0, 9);
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(status, DT_OK);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_int_equal(m->numa_form, DT_NUMA_FORM2);
	assert_int_equal(m->nr_mems, 1);
	assert_int_equal(m->mems[0].node, 9);
	assert_int_equal(m->mems[0].end, 0x10000000);
	assert_int_equal(dt_machine_distance(m, 5, 7), 80);
	assert_int_equal(dt_machine_distance(m, 9, 7), 40);
	assert_int_equal(dt_machine_distance(m, 9, 9), 10);
	free(m);
	fdt_free(&f);
}

static void test_stdout_path_through_an_alias(void **state)
{
	struct fdt f = { 0 };
	int status;

	begin(&f, "");
	prop_cells(&f, "#address-cells", 1, 1);
	prop_cells(&f, "#size-cells", 1, 1);
	begin(&f, "chosen");
	prop_str(&f, "stdout-path", "serial1:115200n8");
	prop_str(&f, "bootargs", "memboot.selftest=clock quiet");
	end(&f);
	begin(&f, "uart@1000");
	prop_str(&f, "compatible", "ns16550a");
	prop_cells(&f, "reg", 2, 0x1000, 0x100);
	end(&f);
	begin(&f, "uart@2000");
	prop_str(&f, "compatible", "arm,pl011");
	prop_cells(&f, "reg", 2, 0x2000, 0x100);
	prop_cells(&f, "clock-frequency", 1, 24000000);
	end(&f);
	begin(&f, "aliases");
	prop_str(&f, "serial1", "/uart@2000");
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(host_log_count(LOG_WARN), 0);
	assert_true(m->have_bootargs);
	assert_string_equal(m->bootargs, "memboot.selftest=clock quiet");
	assert_true(m->serial.from_stdout_path);
	assert_int_equal(m->serial.base, 0x2000);
	assert_int_equal(m->serial.baud, 115200);
	assert_int_equal(m->serial.clock_hz, 24000000);
	free(m);
	fdt_free(&f);
}

/* PowerNV's /chosen names OPAL's console (skiboot's tree): the firmware's
 * terminal, POWER's own console, so no warning and no UART; a node of
 * another kind at that path is still named. */
static void test_stdout_path_to_the_firmware_terminal(void **state)
{
	static const char *const kinds[] = { "ibm,opal-console-raw", "ibm,opal-bogus" };

	for (unsigned k = 0; k < 2; k++) {
		struct fdt f = { 0 };
		int status;

		begin(&f, "");
		prop_cells(&f, "#address-cells", 1, 2);
		prop_cells(&f, "#size-cells", 1, 2);
		begin(&f, "chosen");
		prop_str(&f, "stdout-path", "/ibm,opal/consoles/serial@0");
		end(&f);
		begin(&f, "ibm,opal");
		begin(&f, "consoles");
		begin(&f, "serial@0");
		prop_str(&f, "compatible", kinds[k]);
		prop_cells(&f, "reg", 1, 0);
		end(&f);
		end(&f);
		end(&f);
		end(&f);
		finish(&f);
		host_log_reset();
		struct dt_machine *m = parse_blob(f.blob, f.len, &status);

		assert_int_equal(m->stdout_firmware_terminal, k == 0);
		assert_false(m->serial.present);
		assert_int_equal(host_log_count(LOG_WARN), k == 0 ? 0 : 1);
		assert_int_equal(m->nr_warnings, k == 0 ? 0 : 1);
		free(m);
		fdt_free(&f);
	}
	(void)state;
}

/* ---- broken blobs ---- */

static void test_truncated_and_bad_headers(void **state)
{
	struct fdt f = { 0 };
	struct dt_blob dt;

	small_tree(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	assert_int_equal(dt_open(&dt, f.blob, f.len - 1), DT_ERR_SHORT);
	assert_true(host_log_contains("truncated blob"));
	assert_int_equal(dt_open(&dt, f.blob, 39), DT_ERR_SHORT);
	assert_int_equal(dt_open(&dt, NULL, 0), DT_ERR_SHORT);
	f.blob[0] ^= 0xff;
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_ERR_MAGIC);
	f.blob[0] ^= 0xff;
	be32(f.blob + 20, 15);
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_ERR_VERSION);
	be32(f.blob + 20, 17);
	/* A strings block past the end; a structure block inside the header;
	 * a misaligned structure block. */
	uint8_t saved[4];
	memcpy(saved, f.blob + 32, 4);
	be32(f.blob + 32, (uint32_t)f.len);
	host_log_reset();
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_ERR_LAYOUT);
	assert_true(host_log_contains("DT: the strings block lies outside the blob"));
	memcpy(f.blob + 32, saved, 4);
	memcpy(saved, f.blob + 8, 4);
	be32(f.blob + 8, 8);
	host_log_reset();
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_ERR_LAYOUT);
	assert_true(host_log_contains("DT: the structure block lies outside the blob"));
	be32(f.blob + 8, 58);
	host_log_reset();
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_ERR_LAYOUT);
	assert_true(host_log_contains("DT: the structure block lies outside the blob or is misaligned"));
	memcpy(f.blob + 8, saved, 4);
	assert_int_equal(dt_open(&dt, f.blob, f.len), DT_OK);
	fdt_free(&f);
}

/* The walk's errors keep what came before them. */
static void test_string_offset_past_the_strings_block(void **state)
{
	struct fdt f = { 0 };
	int status;

	small_tree(&f);
	begin(&f, "late");
	uint8_t h[12];
	be32(h, DT_TOKEN_PROP);
	be32(h + 4, 0);
	be32(h + 8, 0x7fffffff);
	put(&f, h, 12);
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(status, DT_OK);
	assert_true(m->walk_error);
	assert_true(host_log_contains("past the strings block"));
	assert_int_equal(m->nr_mems, 2);
	assert_int_equal(m->nr_cpus, 2);
	free(m);
	fdt_free(&f);
}

static void test_property_length_past_the_structure_block(void **state)
{
	struct fdt f = { 0 };
	int status;

	small_tree(&f);
	begin(&f, "late");
	uint8_t h[12];
	be32(h, DT_TOKEN_PROP);
	be32(h + 4, 0xfffffff0);
	be32(h + 8, string_off(&f, "model"));
	put(&f, h, 12);
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_true(m->walk_error);
	assert_true(host_log_contains("length runs past the block"));
	assert_int_equal(m->nr_mems, 2);
	free(m);
	fdt_free(&f);
}

static void test_cells_counts_of_zero_and_five(void **state)
{
	for (uint32_t ac = 0; ac <= 5; ac += 5) {
		struct fdt f = { 0 };
		int status;

		begin(&f, "");
		prop_cells(&f, "#address-cells", 1, ac);
		prop_cells(&f, "#size-cells", 1, ac);
		begin(&f, "memory@0");
		prop_str(&f, "device_type", "memory");
		prop_cells(&f, "reg", 10, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
		end(&f);
		begin(&f, "cpus");
		prop_cells(&f, "#address-cells", 1, ac);
		begin(&f, "cpu@0");
		prop_str(&f, "device_type", "cpu");
		prop_cells(&f, "reg", 5, 0, 0, 0, 0, 1);
		end(&f);
		end(&f);
		end(&f);
		finish(&f);
		host_log_reset();
		struct dt_machine *m = parse_blob(f.blob, f.len, &status);

		assert_int_equal(status, DT_OK);
		assert_int_equal(m->nr_mems, 0);
		assert_int_equal(m->nr_cpus, 0);
		assert_int_equal(m->nr_ignored_cpus, 1);
		assert_true(host_log_contains("cannot be read"));
		free(m);
		fdt_free(&f);
	}
}

static void test_nested_ten_thousand_deep(void **state)
{
	struct fdt f = { 0 };
	int status;

	begin(&f, "");
	prop_cells(&f, "#address-cells", 1, 1);
	prop_cells(&f, "#size-cells", 1, 1);
	for (int i = 0; i < 10000; i++)
		begin(&f, "n");
	for (int i = 0; i < 10000; i++)
		end(&f);
	/* What follows the deep subtree is still read. */
	begin(&f, "memory@0");
	prop_str(&f, "device_type", "memory");
	prop_cells(&f, "reg", 2, 0x1000, 0x1000);
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(status, DT_OK);
	assert_false(m->walk_error);
	assert_true(host_log_contains("nested deeper than"));
	assert_int_equal(m->nr_mems, 1);
	assert_int_equal(m->mems[0].start, 0x1000);
	free(m);
	fdt_free(&f);
}

static void test_malformed_structure(void **state)
{
	static const struct { const char *what; int tokens[4]; } cases[] = {
		{ "FDT_END_NODE with no node open", { DT_TOKEN_END_NODE, -1 } },
		{ "an unknown token", { 7, -1 } },
		{ "FDT_END with nodes still open", { -2, -1 } },
		{ "a second root node", { -3, -1 } },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fdt f = { 0 };
		int status;

		if (cases[c].tokens[0] == -3) {
			begin(&f, "");
			end(&f);
			begin(&f, "");
			end(&f);
		} else if (cases[c].tokens[0] == -2) {
			begin(&f, "");
			begin(&f, "open");
		} else {
			token(&f, (uint32_t)cases[c].tokens[0]);
		}
		finish(&f);
		host_log_reset();
		struct dt_machine *m = parse_blob(f.blob, f.len, &status);

		assert_int_equal(status, DT_OK);
		if (!host_log_contains(cases[c].what))
			fail_msg("case '%s' not warned", cases[c].what);
		assert_true(m->walk_error);
		free(m);
		fdt_free(&f);
	}
}

static void test_many_nops_end(void **state)
{
	struct fdt f = { 0 };
	int status;

	for (int i = 0; i < 50000; i++)
		token(&f, DT_TOKEN_NOP);
	small_tree(&f);
	end(&f);
	finish(&f);
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(m->nr_cpus, 2);
	assert_false(m->walk_error);
	free(m);
	fdt_free(&f);
}

static void test_firmware_mistakes_repaired(void **state)
{
	struct fdt f = { 0 };
	int status;
	char args[3000];

	memset(args, 'a', sizeof(args) - 1);
	args[sizeof(args) - 1] = 0;
	begin(&f, "");
	prop_cells(&f, "#address-cells", 1, 2);
	prop_cells(&f, "#size-cells", 1, 2);
	begin(&f, "chosen");
	prop_str(&f, "bootargs", args);
	prop_str(&f, "stdout-path", "/nowhere");
	end(&f);
	begin(&f, "memory@ffffffff00000000");
	prop_str(&f, "device_type", "memory");
	prop_cells(&f, "reg", 4, 0xffffffff, 0, 1, 0);
	end(&f);
	begin(&f, "cpus");
	prop_cells(&f, "#address-cells", 1, 1);
	prop_cells(&f, "#size-cells", 1, 0);
	begin(&f, "cpu@0");
	prop_str(&f, "device_type", "cpu");
	prop_cells(&f, "reg", 1, 0);
	end(&f);
	begin(&f, "cpu@0b");
	prop_str(&f, "device_type", "cpu");
	prop_cells(&f, "reg", 1, 0);
	end(&f);
	begin(&f, "cpu@1");
	prop_str(&f, "device_type", "cpu");
	prop_str(&f, "status", "disabled");
	prop_cells(&f, "reg", 1, 1);
	end(&f);
	end(&f);
	begin(&f, "psci");
	prop_str(&f, "compatible", "arm,psci-1.0");
	prop_str(&f, "method", "svc");
	end(&f);
	begin(&f, "distance-map");
	prop_str(&f, "compatible", "numa-distance-map-v1");
	prop_cells(&f, "distance-matrix", 4, 0, 1, 20, 7);
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_true(m->bootargs_cut);
	assert_int_equal(strlen(m->bootargs), DT_BOOTARGS_BYTES - 1);
	assert_true(host_log_contains("names no serial port"));
	assert_int_equal(m->nr_mems, 1);
	assert_int_equal(m->mems[0].end, UINT64_MAX);
	assert_true(host_log_contains("wraps past 2^64"));
	assert_int_equal(m->nr_cpus, 2);
	assert_int_equal(m->nr_ignored_cpus, 1);
	assert_false(m->cpus[1].enabled);
	assert_true(m->psci_bad_method);
	assert_true(host_log_contains("not (from, to, distance) triples"));
	assert_int_equal(m->nr_distances, 0);
	free(m);
	fdt_free(&f);
}

/* A GICv3 with two redistributor regions (QEMU's virt past 123 CPUs), its
 * ITS child ignored; a second one ignored; one whose reg lacks the
 * regions it announces named. */
static void gic_tree(struct fdt *f, uint32_t regions, uint32_t reg_entries)
{
	uint32_t reg[4 * 4] = { 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000,
				0x100, 0, 0, 0x4000000, 0, 0x8010000, 0, 0x10000 };

	begin(f, "");
	prop_cells(f, "#address-cells", 1, 2);
	prop_cells(f, "#size-cells", 1, 2);
	begin(f, "intc@8000000");
	prop_str(f, "compatible", "arm,gic-v3");
	prop_cells(f, "#redistributor-regions", 1, regions);
	prop_raw_cells(f, "reg", reg, 4 * reg_entries);
	begin(f, "its@8080000");
	prop_str(f, "compatible", "arm,gic-v3-its");
	prop_cells(f, "reg", 4, 0, 0x8080000, 0, 0x20000);
	end(f);
	end(f);
	begin(f, "intc@9000000");
	prop_str(f, "compatible", "arm,gic-v3");
	prop_cells(f, "reg", 4, 0, 0x9000000, 0, 0x10000);
	end(f);
	end(f);
	finish(f);
}

static void test_gic_v3_regions(void **state)
{
	struct fdt f = { 0 };
	int status;

	gic_tree(&f, 2, 4);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);
	assert_true(m->gic_v3);
	assert_int_equal(m->gicd_base, 0x8000000);
	assert_int_equal(m->nr_gicr, 2);
	assert_int_equal(m->gicr[0].base, 0x80a0000);
	assert_int_equal(m->gicr[1].base, 0x10000000000ULL);
	assert_int_equal(m->gicr[1].bytes, 0x4000000);
	assert_true(host_log_contains("a second GICv3"));
	free(m);
	fdt_free(&f);

	memset(&f, 0, sizeof(f));
	gic_tree(&f, 3, 2);
	host_log_reset();
	m = parse_blob(f.blob, f.len, &status);
	assert_int_equal(m->nr_gicr, 1);
	assert_true(host_log_contains("1 of 3 redistributor regions"));
	free(m);
	fdt_free(&f);
}

/* A tree without /psci (QEMU rewrites /psci in any -dtb, so only here):
 * no conduit, no warning from the parser; the CPUs still listed, each
 * left for phase smp to name ("the firmware names no PSCI method"). */
static void test_tree_without_psci(void **state)
{
	struct fdt f = { 0 };
	int status;

	begin(&f, "");
	prop_cells(&f, "#address-cells", 1, 2);
	prop_cells(&f, "#size-cells", 1, 2);
	begin(&f, "memory@40000000");
	prop_str(&f, "device_type", "memory");
	prop_cells(&f, "reg", 4, 0, 0x40000000, 0, 0x10000000);
	end(&f);
	begin(&f, "cpus");
	prop_cells(&f, "#address-cells", 1, 1);
	prop_cells(&f, "#size-cells", 1, 0);
	for (uint32_t i = 0; i < 2; i++) {
		begin(&f, i ? "cpu@1" : "cpu@0");
		prop_str(&f, "device_type", "cpu");
		prop_cells(&f, "reg", 1, i);
		prop_str(&f, "enable-method", "psci");
		end(&f);
	}
	end(&f);
	end(&f);
	finish(&f);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);
	assert_int_equal(status, DT_OK);
	assert_false(m->psci);
	assert_false(m->psci_bad_method);
	assert_int_equal(m->psci_cpu_on, 0);
	assert_int_equal(m->nr_cpus, 2);
	assert_true(m->cpus[1].psci);
	assert_int_equal(host_log_count(LOG_WARN), 0);
	free(m);
	fdt_free(&f);
}

/* QEMU's fw_cfg wherever the tree puts it: the first enabled
 * "qemu,fw-cfg-mmio" node's first reg entry; a disabled one skipped, a
 * second one and one without a reg named. */
static void fwcfg_tree(struct fdt *f, bool with_reg)
{
	begin(f, "");
	prop_cells(f, "#address-cells", 1, 2);
	prop_cells(f, "#size-cells", 1, 2);
	prop_str(f, "compatible", "linux,dummy-virt");
	begin(f, "fw-cfg@1000");
	prop_str(f, "compatible", "qemu,fw-cfg-mmio");
	prop_str(f, "status", "disabled");
	prop_cells(f, "reg", 4, 0, 0x1000, 0, 0x18);
	end(f);
	begin(f, "fw-cfg@10020000");
	prop_str(f, "compatible", "qemu,fw-cfg-mmio");
	if (with_reg)
		prop_cells(f, "reg", 8, 0x1, 0x10020000, 0, 0x18, 0, 0x2000, 0, 0x18);
	end(f);
	begin(f, "fw-cfg@9020000");
	prop_str(f, "compatible", "qemu,fw-cfg-mmio");
	prop_cells(f, "reg", 4, 0, 0x9020000, 0, 0x18);
	end(f);
	end(f);
	finish(f);
}

static void test_fwcfg_from_the_tree(void **state)
{
	struct fdt f = { 0 };
	int status;

	fwcfg_tree(&f, true);
	host_log_reset();
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);
	assert_int_equal(status, DT_OK);
	assert_string_equal(m->compatible, "linux,dummy-virt");
	assert_int_equal(m->fwcfg_base, 0x110020000ULL);
	assert_int_equal(m->fwcfg_bytes, 0x18);
	assert_true(host_log_contains("/fw-cfg@9020000: a second fw_cfg device: ignored"));
	assert_int_equal(host_log_count(LOG_WARN), 1);
	free(m);
	fdt_free(&f);

	/* The first enabled node has no reg: named, and the next one is used. */
	memset(&f, 0, sizeof(f));
	fwcfg_tree(&f, false);
	host_log_reset();
	m = parse_blob(f.blob, f.len, &status);
	assert_true(host_log_contains("/fw-cfg@10020000: qemu,fw-cfg-mmio without a usable reg"));
	assert_int_equal(m->fwcfg_base, 0x9020000);
	assert_int_equal(m->fwcfg_bytes, 0x18);
	free(m);
	fdt_free(&f);

	/* A tree without one names none. */
	memset(&f, 0, sizeof(f));
	small_tree(&f);
	end(&f);
	finish(&f);
	m = parse_blob(f.blob, f.len, &status);
	assert_int_equal(status, DT_OK);
	assert_int_equal(m->fwcfg_bytes, 0);
	assert_int_equal(m->fwcfg_base, 0);
	free(m);
	fdt_free(&f);
}

/* A range that starts at 2^64 - 1 has nothing left once clipped (found by
 * the fuzzer: it gave start == end). */
static void test_range_at_the_top_of_the_address_space(void **state)
{
	struct fdt f = { 0 };
	int status;

	begin(&f, "");
	begin(&f, "memory@top");
	prop_str(&f, "device_type", "memory");
	prop_cells(&f, "reg", 3, 0xffffffff, 0xffffffff, 2);
	end(&f);
	end(&f);
	f.rsv[f.nr_rsv][0] = UINT64_MAX;
	f.rsv[f.nr_rsv++][1] = 16;
	finish(&f);
	struct dt_machine *m = parse_blob(f.blob, f.len, &status);

	assert_int_equal(status, DT_OK);
	assert_int_equal(m->nr_mems, 0);
	assert_int_equal(m->nr_rsv, 0);
	free(m);
	fdt_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64_virt_four_nodes),
		cmocka_unit_test(test_pseries_form1),
		cmocka_unit_test(test_powernv_chip_ids),
		cmocka_unit_test(test_small_tree),
		cmocka_unit_test(test_form2_tables),
		cmocka_unit_test(test_stdout_path_through_an_alias),
		cmocka_unit_test(test_stdout_path_to_the_firmware_terminal),
		cmocka_unit_test(test_truncated_and_bad_headers),
		cmocka_unit_test(test_string_offset_past_the_strings_block),
		cmocka_unit_test(test_property_length_past_the_structure_block),
		cmocka_unit_test(test_cells_counts_of_zero_and_five),
		cmocka_unit_test(test_nested_ten_thousand_deep),
		cmocka_unit_test(test_malformed_structure),
		cmocka_unit_test(test_many_nops_end),
		cmocka_unit_test(test_firmware_mistakes_repaired),
		cmocka_unit_test(test_range_at_the_top_of_the_address_space),
		cmocka_unit_test(test_gic_v3_regions),
		cmocka_unit_test(test_fwcfg_from_the_tree),
		cmocka_unit_test(test_tree_without_psci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

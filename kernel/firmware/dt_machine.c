/*
 * dt_machine.c: what memboot needs of a machine, read from a flattened device
 * tree in three linear walks (dt.h says what and why).
 *
 *  1. /chosen (bootargs, stdout-path, initrd) and /rtas (POWER's RTAS tokens,
 *     ibm,associativity-reference-points and the FORM2 tables), because the
 *     nodes that need them may come before them in the blob;
 *  2. /aliases, only when stdout-path names an alias;
 *  3. everything else: memory, CPUs, reserved memory, /distance-map, /psci,
 *     the timer, the console, /ibm,opal.
 * Properties precede subnodes (Devicetree Specification 5.4.1), so a node's
 * #address-cells and #size-cells are known when its children's reg is read,
 * which happens when each child closes. No recursion: a per-depth record of
 * DT_MAX_DEPTH entries; deeper nodes are walked over and not read.
 */
#include "kernel/firmware/dt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/firmware/bytes.h"
#include "kernel/services/limits.h"
#include "kernel/services/log.h"

/* Binding defaults when a node has no #address-cells / #size-cells (2.3.5). */
#define DEFAULT_ADDRESS_CELLS 2
#define DEFAULT_SIZE_CELLS 1
/* PSCI 0.2's CPU_ON, SMC64 (Arm DEN0022, 5.1.4): what "arm,psci-0.2" and
 * later bindings imply; the 0.1 binding names it in a cpu_on property. */
#define PSCI_0_2_FN64_CPU_ON 0xc4000003u

/* One open node's facts, kept until it closes. */
struct node {
	uint32_t addr_cells, size_cells;    /* for its children */
	uint32_t path_len;                  /* its path's length in the walk's buffer */
	const char *name;
	const uint8_t *reg, *compat, *dtype, *status, *assoc, *servers, *method, *dist, *model;
	uint32_t reg_len, compat_len, dtype_len, status_len, assoc_len, servers_len,
		method_len, dist_len, model_len;
	bool psci_enable;                   /* a CPU's enable-method lists "psci" */
	uint32_t node_id, chip_id;
	bool has_node_id, has_chip_id;
	const uint8_t *prop_a, *prop_b;     /* two node-specific properties (see read_props) */
	uint32_t prop_a_len, prop_b_len;
};

struct walk {
	const struct dt_blob *dt;
	struct dt_machine *m;
	char path[DT_PATH_BYTES];
	uint32_t path_len;
	bool path_cut;                      /* a path longer than DT_PATH_BYTES */
	bool deep_warned;
	struct node nodes[DT_MAX_DEPTH];
	/* Pass 1's findings that pass 3 uses. */
	char stdout_target[DT_PATH_BYTES];  /* a path, or an alias name */
	bool have_stdout;
	uint32_t gicr_wanted;               /* the GICv3 node's #redistributor-regions */
};

__attribute__((format(printf, 2, 3)))
static void warn(struct dt_machine *m, const char *fmt, ...)
{
	char line[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pr_warn("DT: %s", line);
	m->nr_warnings++;
}

static bool streq_prop(const uint8_t *v, uint32_t len, const char *s)
{
	return v && dt_prop_is_string(v, len) && !strcmp((const char *)v, s);
}

static bool name_is(const char *name, const char *base)
{
	size_t n = strlen(base);

	/* "memory" or "memory@40000000": the unit address is not part of the name. */
	return !strncmp(name, base, n) && (name[n] == 0 || name[n] == '@');
}

static void copy_string(char *dst, size_t cap, const uint8_t *v, uint32_t len)
{
	size_t n = 0;

	if (v)
		while (n < len && n + 1 < cap && v[n])
			n++;
	if (n)
		memcpy(dst, v, n);
	dst[n] = 0;
}

static uint32_t prop_u32(const uint8_t *v, uint32_t len, uint32_t fallback)
{
	return v && len >= 4 ? fw_be32(v) : fallback;
}

/* ---- the walk's node stack and path ---- */

static void path_push(struct walk *w, const char *name, uint32_t depth)
{
	size_t n = strlen(name);

	if (depth == 0) {
		w->path[0] = '/';
		w->path[1] = 0;
		w->path_len = 1;
		return;
	}
	if (w->path_len + (w->path_len > 1) + n + 1 > sizeof(w->path)) {
		w->path_cut = true;
		return;
	}
	if (w->path_len > 1)
		w->path[w->path_len++] = '/';
	memcpy(w->path + w->path_len, name, n + 1);
	w->path_len += (uint32_t)n;
}

static void read_prop(struct node *nd, const struct dt_token *t)
{
	const char *p = t->name;

#define TAKE(field, prop) \
	if (!strcmp(p, prop)) { nd->field = t->value; nd->field##_len = t->len; return; }
	TAKE(reg, "reg");
	TAKE(compat, "compatible");
	TAKE(dtype, "device_type");
	TAKE(status, "status");
	TAKE(assoc, "ibm,associativity");
	TAKE(servers, "ibm,ppc-interrupt-server#s");
	TAKE(method, "method");
	TAKE(dist, "distance-matrix");
	TAKE(model, "model");
#undef TAKE
	if (!strcmp(p, "enable-method")) {
		nd->psci_enable = dt_prop_has_string(t->value, t->len, "psci");
		return;
	}
	if (!strcmp(p, "#address-cells"))
		nd->addr_cells = prop_u32(t->value, t->len, nd->addr_cells);
	else if (!strcmp(p, "#size-cells"))
		nd->size_cells = prop_u32(t->value, t->len, nd->size_cells);
	else if (!strcmp(p, "numa-node-id") && t->len >= 4) {
		nd->node_id = fw_be32(t->value);
		nd->has_node_id = true;
	} else if (!strcmp(p, "ibm,chip-id") && t->len >= 4) {
		nd->chip_id = fw_be32(t->value);
		nd->has_chip_id = true;
	} else if (!strcmp(p, "opal-base-address") || !strcmp(p, "cpu_on") ||
		   !strcmp(p, "#redistributor-regions") ||
		   !strcmp(p, "timebase-frequency") || !strcmp(p, "stdout-path") ||
		   !strcmp(p, "bootargs")) {
		nd->prop_a = t->value;
		nd->prop_a_len = t->len;
	} else if (!strcmp(p, "opal-entry-address") || !strcmp(p, "clock-frequency") ||
		   !strcmp(p, "linux,stdout-path")) {
		nd->prop_b = t->value;
		nd->prop_b_len = t->len;
	}
}

/*
 * Walk the tree, calling @at_end for every node at depth < DT_MAX_DEPTH as
 * it closes (its parent still on the stack) and @at_prop for every property
 * of such a node. Returns false if the walk met no root.
 */
typedef void (*node_fn)(struct walk *w, uint32_t depth);
typedef void (*prop_fn)(struct walk *w, uint32_t depth, const struct dt_token *t);

static bool walk(struct walk *w, node_fn at_end, prop_fn at_prop)
{
	struct dt_iter it;
	struct dt_token t;
	bool root = false;

	dt_iter_init(&it, w->dt);
	w->path_len = 0;
	w->path[0] = 0;
	w->path_cut = false;
	while (dt_iter_next(&it, &t)) {
		if (t.depth >= DT_MAX_DEPTH) {
			if (t.kind == DT_NODE_BEGIN && t.depth == DT_MAX_DEPTH && !w->deep_warned) {
				warn(w->m, "nodes nested deeper than %u (at structure offset 0x%x) "
				     "are not read", DT_MAX_DEPTH, t.offset);
				w->deep_warned = true;
			}
			continue;
		}
		if (t.kind == DT_NODE_BEGIN) {
			struct node *nd = &w->nodes[t.depth];
			memset(nd, 0, sizeof(*nd));
			nd->name = t.name;
			nd->addr_cells = DEFAULT_ADDRESS_CELLS;
			nd->size_cells = DEFAULT_SIZE_CELLS;
			root = root || t.depth == 0;
			nd->path_len = w->path_len;
			path_push(w, t.name, t.depth);
		} else if (t.kind == DT_PROP) {
			read_prop(&w->nodes[t.depth], &t);
			if (at_prop)
				at_prop(w, t.depth, &t);
		} else {
			if (at_end)
				at_end(w, t.depth);
			w->path_len = w->nodes[t.depth].path_len;
			w->path[w->path_len] = 0;
		}
	}
	if (it.error)
		w->m->walk_error = true;
	return root;
}

/* ---- pass 1: /chosen and /rtas ---- */

static void pass1_node(struct walk *w, uint32_t depth)
{
	const struct node *nd = &w->nodes[depth];

	if (depth == 0) {
		w->m->root_address_cells = nd->addr_cells;
		w->m->root_size_cells = nd->size_cells;
	}
}

static void pass1_prop(struct walk *w, uint32_t depth, const struct dt_token *t)
{
	struct dt_machine *m = w->m;
	const char *node = w->nodes[depth].name;

	if (depth != 1)
		return;
	if (name_is(node, "chosen")) {
		if (!strcmp(t->name, "bootargs")) {
			if (!dt_prop_is_string(t->value, t->len)) {
				warn(m, "/chosen: bootargs is not a string: ignored");
				return;
			}
			m->have_bootargs = true;
			m->bootargs_cut = t->len > sizeof(m->bootargs);
			copy_string(m->bootargs, sizeof(m->bootargs), t->value, t->len);
			if (m->bootargs_cut)
				warn(m, "/chosen: bootargs of %u bytes: the first %zu kept", t->len - 1,
				     sizeof(m->bootargs) - 1);
		} else if ((!strcmp(t->name, "stdout-path") ||
			    (!strcmp(t->name, "linux,stdout-path") && !w->have_stdout)) &&
			   dt_prop_is_string(t->value, t->len)) {
			const char *colon;

			copy_string(w->stdout_target, sizeof(w->stdout_target), t->value, t->len);
			/* "path:options", the options a baud rate first (2.6.2). */
			colon = strchr(w->stdout_target, ':');
			if (colon) {
				uint32_t baud = 0;

				for (const char *c = colon + 1; *c >= '0' && *c <= '9'; c++)
					baud = baud < 100000000u ? baud * 10 + (uint32_t)(*c - '0') : baud;
				m->serial.baud = baud;
				w->stdout_target[colon - w->stdout_target] = 0;
			}
			w->have_stdout = w->stdout_target[0] != 0;
		} else if (!strcmp(t->name, "linux,initrd-start")) {
			m->initrd_start = t->len == 8 ? fw_be64(t->value) : prop_u32(t->value, t->len, 0);
		} else if (!strcmp(t->name, "linux,initrd-end")) {
			m->initrd_end = t->len == 8 ? fw_be64(t->value) : prop_u32(t->value, t->len, 0);
		}
		return;
	}
	if (!name_is(node, "rtas"))
		return;
	m->rtas = true;
	if (!strcmp(t->name, "power-off"))
		m->rtas_power_off = prop_u32(t->value, t->len, 0);
	else if (!strcmp(t->name, "start-cpu"))
		m->rtas_start_cpu = prop_u32(t->value, t->len, 0);
	else if (!strcmp(t->name, "system-reboot"))
		m->rtas_reboot = prop_u32(t->value, t->len, 0);
	else if (!strcmp(t->name, "query-cpu-stopped-state"))
		m->rtas_stopped_state = prop_u32(t->value, t->len, 0);
	else if (!strcmp(t->name, "ibm,associativity-reference-points")) {
		uint32_t n = t->len / 4;

		if (n > DT_MAX_ASSOC) {
			warn(m, "/rtas: %u associativity reference points: the first %u kept", n,
			     DT_MAX_ASSOC);
			n = DT_MAX_ASSOC;
		}
		for (uint32_t i = 0; i < n; i++)
			m->ref_points[i] = fw_be32(t->value + 4 * i);
		m->nr_ref_points = n;
	} else if (!strcmp(t->name, "ibm,numa-lookup-index-table")) {
		/* <N, domain 0, ..., domain N-1> (Linux's FORM2 reader). */
		uint32_t n = prop_u32(t->value, t->len, 0);

		if (n > DT_MAX_DOMAINS || (uint64_t)n * 4 + 4 > t->len) {
			warn(m, "/rtas: ibm,numa-lookup-index-table gives %u domains in %u bytes: "
			     "ignored", n, t->len);
			return;
		}
		for (uint32_t i = 0; i < n; i++)
			m->form2_domains[i] = fw_be32(t->value + 4 + 4 * i);
		m->nr_form2_domains = n;
	} else if (!strcmp(t->name, "ibm,numa-distance-table")) {
		/* <N*N as a cell, then N*N bytes> in lookup-table order. Read in
		 * pass 1's end (the lookup table may come after it): keep it. */
		w->nodes[depth].prop_a = t->value;
		w->nodes[depth].prop_a_len = t->len;
	}
}

static void read_form2_distances(struct walk *w, const uint8_t *v, uint32_t len)
{
	struct dt_machine *m = w->m;
	uint32_t n = m->nr_form2_domains, bytes = prop_u32(v, len, 0);

	if (!n)
		return;
	if ((uint64_t)bytes != (uint64_t)n * n || (uint64_t)bytes + 4 > len) {
		warn(m, "/rtas: ibm,numa-distance-table holds %u entries in %u bytes, not %u x %u: "
		     "ignored", bytes, len, n, n);
		return;
	}
	memcpy(m->form2_distance, v + 4, bytes);
	/* Stored with stride n; dt_machine_distance() reads it that way. */
	m->form2_distances = true;
}

/* Pass 1 sees /rtas's properties as they come; the distance table is
 * resolved when /rtas closes, after its lookup table. */
static void pass1_end(struct walk *w, uint32_t depth)
{
	const struct node *nd = &w->nodes[depth];

	pass1_node(w, depth);
	if (depth == 1 && name_is(nd->name, "rtas") && nd->prop_a &&
	    !w->m->form2_distances)
		read_form2_distances(w, nd->prop_a, nd->prop_a_len);
}

/* ---- pass 2: the alias stdout-path names ---- */

static void pass2_prop(struct walk *w, uint32_t depth, const struct dt_token *t)
{
	if (depth == 1 && name_is(w->nodes[depth].name, "aliases") &&
	    !strcmp(t->name, w->stdout_target) && dt_prop_is_string(t->value, t->len))
		copy_string(w->stdout_target, sizeof(w->stdout_target), t->value, t->len);
}

/* ---- pass 3: memory, CPUs and the rest ---- */

/* The domain an ibm,associativity value gives (Linux's associativity_to_nid:
 * the value at the first reference point, 1-based after the count), or
 * DT_NO_NODE; for FORM1 its values at every reference point are kept. */
static uint32_t assoc_node(struct walk *w, const uint8_t *v, uint32_t len, const char *what)
{
	struct dt_machine *m = w->m;
	uint32_t count, idx, node;

	if (!m->nr_ref_points || len < 4)
		return DT_NO_NODE;
	count = fw_be32(v);
	if ((uint64_t)count * 4 + 4 > len) {
		warn(m, "%s: ibm,associativity says %u levels in %u bytes: no node from it",
		     what, count, len);
		return DT_NO_NODE;
	}
	idx = m->ref_points[0];
	if (idx == 0 || idx > count)
		return DT_NO_NODE;
	node = fw_be32(v + 4 * idx);
	if (node < DT_MAX_DOMAINS && !m->form1_seen[node]) {
		m->form1_seen[node] = true;
		for (uint32_t i = 0; i < m->nr_ref_points; i++) {
			uint32_t r = m->ref_points[i];

			m->form1_assoc[node][i] = r && r <= count ? fw_be32(v + 4 * r) : DT_NO_NODE;
		}
	}
	return node;
}

/* A memory or CPU node's node id: numa-node-id, then associativity, then
 * ibm,chip-id (PowerNV), each recorded as the tree's way of numbering. */
static uint32_t node_of(struct walk *w, const struct node *nd)
{
	struct dt_machine *m = w->m;
	uint32_t node;

	if (nd->has_node_id) {
		if (m->numa_form == DT_NUMA_NONE || m->numa_form == DT_NUMA_CHIP_ID)
			m->numa_form = DT_NUMA_NODE_ID;
		return nd->node_id;
	}
	if (nd->assoc) {
		node = assoc_node(w, nd->assoc, nd->assoc_len, w->path);
		if (node != DT_NO_NODE) {
			if (m->numa_form != DT_NUMA_NODE_ID)
				m->numa_form = m->nr_form2_domains ? DT_NUMA_FORM2 : DT_NUMA_FORM1;
			return node;
		}
	}
	if (nd->has_chip_id) {
		if (m->numa_form == DT_NUMA_NONE)
			m->numa_form = DT_NUMA_CHIP_ID;
		return nd->chip_id;
	}
	return DT_NO_NODE;
}

static bool cells_ok(struct walk *w, uint32_t ac, uint32_t sc, bool need_size)
{
	/* 64-bit addresses and sizes are 1 or 2 cells; 0 address cells, 3 and
	 * more, or a missing size cannot be read into them. */
	if (ac >= 1 && ac <= 2 && sc <= 2 && (!need_size || sc >= 1))
		return true;
	warn(w->m, "%s: reg with #address-cells %u and #size-cells %u cannot be read: skipped",
	     w->path, ac, sc);
	return false;
}

/* Each (address, size) of @nd's reg under @parent's cells to @add. */
static void reg_ranges(struct walk *w, const struct node *parent, const struct node *nd,
		       void (*add)(struct walk *w, uint64_t start, uint64_t end, uint32_t node),
		       uint32_t node)
{
	uint32_t ac = parent->addr_cells, sc = parent->size_cells, entry;

	if (!nd->reg || !cells_ok(w, ac, sc, true))
		return;
	entry = 4 * (ac + sc);
	if (nd->reg_len % entry)
		warn(w->m, "%s: reg of %u bytes is not a whole number of %u-byte entries: "
		     "the tail is ignored", w->path, nd->reg_len, entry);
	for (uint32_t off = 0; off + entry <= nd->reg_len; off += entry) {
		uint64_t start = dt_read_cells(nd->reg + off, ac);
		uint64_t bytes = dt_read_cells(nd->reg + off + 4 * ac, sc);
		uint64_t end = start + bytes;

		if (!bytes)
			continue;
		if (end < start) {
			warn(w->m, "%s: reg [0x%llx, +0x%llx) wraps past 2^64: clipped", w->path,
			     (unsigned long long)start, (unsigned long long)bytes);
			end = UINT64_MAX;
		}
		if (start < end)      /* nothing is left of a range that starts at 2^64 - 1 */
			add(w, start, end, node);
	}
}

static void add_mem(struct walk *w, uint64_t start, uint64_t end, uint32_t node)
{
	struct dt_machine *m = w->m;

	if (m->nr_mems == DT_MAX_MEMS) {
		m->nr_dropped_mems++;
		return;
	}
	m->mems[m->nr_mems++] = (struct dt_mem){ .start = start, .end = end, .node = node };
}

static void add_rsv(struct walk *w, uint64_t start, uint64_t end, uint32_t node)
{
	struct dt_machine *m = w->m;

	(void)node;
	if (m->nr_rsv == DT_MAX_RSV) {
		m->nr_dropped_rsv++;
		return;
	}
	m->rsv[m->nr_rsv++] = (struct dt_mem){ .start = start, .end = end, .node = DT_NO_NODE };
}

static bool enabled(const struct node *nd)
{
	/* "okay" (or the older "ok") or no status at all (2.3.4). */
	return !nd->status || streq_prop(nd->status, nd->status_len, "okay") ||
	       streq_prop(nd->status, nd->status_len, "ok");
}

static void add_cpu(struct walk *w, uint64_t hwid, uint32_t node, const struct node *nd)
{
	struct dt_machine *m = w->m;

	for (uint32_t i = 0; i < m->nr_cpus; i++) {
		if (m->cpus[i].hwid == hwid) {
			warn(m, "%s: CPU id 0x%llx listed again: ignored", w->path,
			     (unsigned long long)hwid);
			m->nr_ignored_cpus++;
			return;
		}
	}
	if (m->nr_cpus == DT_MAX_CPUS) {
		m->nr_dropped_cpus++;
		return;
	}
	m->cpus[m->nr_cpus++] = (struct dt_cpu){
		.hwid = hwid, .node = node, .enabled = enabled(nd), .psci = nd->psci_enable,
	};
}

static void cpu_node(struct walk *w, const struct node *parent, const struct node *nd)
{
	struct dt_machine *m = w->m;
	uint32_t ac = parent->addr_cells, node = node_of(w, nd);

	if (nd->prop_a && !m->timebase_hz)      /* timebase-frequency: 1 or 2 cells */
		m->timebase_hz = nd->prop_a_len == 8 ? fw_be64(nd->prop_a)
						     : prop_u32(nd->prop_a, nd->prop_a_len, 0);
	if (nd->prop_b && !m->cpu_clock_hz)
		m->cpu_clock_hz = nd->prop_b_len == 8 ? fw_be64(nd->prop_b)
						      : prop_u32(nd->prop_b, nd->prop_b_len, 0);
	if (nd->servers && nd->servers_len >= 4) {
		/* POWER: one core node lists its threads' server numbers. */
		for (uint32_t off = 0; off + 4 <= nd->servers_len; off += 4)
			add_cpu(w, fw_be32(nd->servers + off), node, nd);
	} else if (!nd->reg || !cells_ok(w, ac, 0, false) || nd->reg_len < 4 * ac) {
		if (nd->reg)
			m->nr_ignored_cpus++;
		else {
			warn(m, "%s: a CPU without reg: ignored", w->path);
			m->nr_ignored_cpus++;
		}
		return;
	} else {
		add_cpu(w, dt_read_cells(nd->reg, ac), node, nd);
	}
}

static const char *const serial_compatibles[] = {
	"arm,pl011", "arm,sbsa-uart", "ns16550a", "ns16550", "snps,dw-apb-uart",
};

/* Terminals the firmware writes for the kernel (OPAL's consoles on
 * PowerNV, PAPR's vty on pseries): POWER's console is already the
 * firmware's terminal 0 (hvc0), so stdout-path naming one adds no UART. */
static const char *const firmware_terminals[] = {
	"ibm,opal-console-raw", "ibm,opal-console-hvsi", "hvterm1", "hvterm-protocol",
};

static bool is_firmware_terminal(const struct node *nd)
{
	for (size_t i = 0; i < sizeof(firmware_terminals) / sizeof(firmware_terminals[0]); i++)
		if (nd->compat && dt_prop_has_string(nd->compat, nd->compat_len, firmware_terminals[i]))
			return true;
	return false;
}

static bool is_serial(const struct node *nd)
{
	for (size_t i = 0; i < sizeof(serial_compatibles) / sizeof(serial_compatibles[0]); i++)
		if (nd->compat && dt_prop_has_string(nd->compat, nd->compat_len, serial_compatibles[i]))
			return true;
	return false;
}

static void serial_node(struct walk *w, const struct node *parent, const struct node *nd)
{
	struct dt_machine *m = w->m;
	struct dt_serial *s = &m->serial;
	bool chosen = w->have_stdout && !w->path_cut && !strcmp(w->path, w->stdout_target);

	if (!enabled(nd) || (s->present && (s->from_stdout_path || !chosen)))
		return;
	s->present = true;
	s->from_stdout_path = chosen;
	copy_string(s->compatible, sizeof(s->compatible), nd->compat, nd->compat_len);
	copy_string(s->path, sizeof(s->path), (const uint8_t *)w->path, w->path_len + 1);
	s->base = 0;
	if (nd->reg && cells_ok(w, parent->addr_cells, parent->size_cells, false) &&
	    nd->reg_len >= 4 * parent->addr_cells)
		s->base = dt_read_cells(nd->reg, parent->addr_cells);
	s->clock_hz = prop_u32(nd->prop_b, nd->prop_b_len, 0);
}

/* The GICv3's reg entries in order: the distributor, then the
 * redistributor regions (the arm,gic-v3 binding); the GICC/GICH/GICV
 * frames after them are not memboot's. */
static void add_gic(struct walk *w, uint64_t start, uint64_t end, uint32_t index)
{
	struct dt_machine *m = w->m;

	(void)index;
	if (!m->gicd_bytes) {
		m->gicd_base = start;
		m->gicd_bytes = end - start;
	} else if (m->nr_gicr + m->nr_dropped_gicr < w->gicr_wanted) {
		if (m->nr_gicr == DT_MAX_GICR)
			m->nr_dropped_gicr++;
		else
			m->gicr[m->nr_gicr++] = (typeof(m->gicr[0])){ start, end - start };
	}
}

static void gic_v3_node(struct walk *w, const struct node *parent, const struct node *nd)
{
	struct dt_machine *m = w->m;

	if (m->gic_v3) {
		warn(m, "%s: a second GICv3: ignored", w->path);
		return;
	}
	m->gic_v3 = true;
	w->gicr_wanted = prop_u32(nd->prop_a, nd->prop_a_len, 1);
	reg_ranges(w, parent, nd, add_gic, 0);
	if (!m->gicd_bytes || m->nr_gicr + m->nr_dropped_gicr < w->gicr_wanted)
		warn(m, "%s: reg names %s and %u of %u redistributor regions", w->path,
		     m->gicd_bytes ? "the distributor" : "no distributor", m->nr_gicr,
		     w->gicr_wanted);
	if (m->nr_dropped_gicr)
		warn(m, "%s: %u redistributor regions beyond the %u kept: ignored", w->path,
		     m->nr_dropped_gicr, DT_MAX_GICR);
}

/* QEMU's fw_cfg registers: the first reg entry of the first such node. */
static void add_fwcfg(struct walk *w, uint64_t start, uint64_t end, uint32_t node)
{
	(void)node;
	if (!w->m->fwcfg_bytes) {
		w->m->fwcfg_base = start;
		w->m->fwcfg_bytes = end - start;
	}
}

static void fwcfg_node(struct walk *w, const struct node *parent, const struct node *nd)
{
	struct dt_machine *m = w->m;

	if (m->fwcfg_bytes) {
		warn(m, "%s: a second fw_cfg device: ignored", w->path);
		return;
	}
	reg_ranges(w, parent, nd, add_fwcfg, DT_NO_NODE);
	if (!m->fwcfg_bytes)
		warn(m, "%s: qemu,fw-cfg-mmio without a usable reg: fw_cfg not located by the tree",
		     w->path);
}

static void distance_map(struct walk *w, const struct node *nd)
{
	struct dt_machine *m = w->m;

	if (!nd->dist || nd->dist_len % 12) {
		warn(m, "%s: distance-matrix of %u bytes is not (from, to, distance) triples: ignored",
		     w->path, nd->dist ? nd->dist_len : 0);
		return;
	}
	for (uint32_t off = 0; off + 12 <= nd->dist_len; off += 12) {
		struct dt_distance d = {
			.from = fw_be32(nd->dist + off),
			.to = fw_be32(nd->dist + off + 4),
			.distance = fw_be32(nd->dist + off + 8),
		};

		if (m->nr_distances == DT_MAX_DISTANCES) {
			m->nr_dropped_distances++;
			continue;
		}
		m->distances[m->nr_distances++] = d;
	}
}

static void pass3_end(struct walk *w, uint32_t depth)
{
	struct dt_machine *m = w->m;
	const struct node *nd = &w->nodes[depth];
	const struct node *parent = depth ? &w->nodes[depth - 1] : 0;

	if (depth == 0) {
		copy_string(m->model, sizeof(m->model), nd->model, nd->model_len);
		copy_string(m->compatible, sizeof(m->compatible), nd->compat, nd->compat_len);
		return;
	}
	if (depth == 1 && (streq_prop(nd->dtype, nd->dtype_len, "memory") ||
			   (!nd->dtype && name_is(nd->name, "memory")))) {
		if (enabled(nd))
			reg_ranges(w, parent, nd, add_mem, node_of(w, nd));
		return;
	}
	if (depth == 2 && name_is(parent->name, "cpus") &&
	    (streq_prop(nd->dtype, nd->dtype_len, "cpu") || (!nd->dtype && name_is(nd->name, "cpu")))) {
		cpu_node(w, parent, nd);
		return;
	}
	if (depth == 2 && name_is(parent->name, "reserved-memory")) {
		reg_ranges(w, parent, nd, add_rsv, DT_NO_NODE);
		return;
	}
	if (nd->compat && dt_prop_has_string(nd->compat, nd->compat_len, "numa-distance-map-v1")) {
		distance_map(w, nd);
		return;
	}
	if (depth == 1 && (name_is(nd->name, "psci") ||
			   (nd->compat && (dt_prop_has_string(nd->compat, nd->compat_len, "arm,psci") ||
					   dt_prop_has_string(nd->compat, nd->compat_len, "arm,psci-0.2") ||
					   dt_prop_has_string(nd->compat, nd->compat_len, "arm,psci-1.0"))))) {
		m->psci = true;
		m->psci_hvc = streq_prop(nd->method, nd->method_len, "hvc");
		m->psci_bad_method = !m->psci_hvc && !streq_prop(nd->method, nd->method_len, "smc");
		if (m->psci_bad_method)
			warn(m, "%s: PSCI method is neither \"hvc\" nor \"smc\": PSCI unusable", w->path);
		/* 0.1 names CPU_ON in cpu_on; 0.2 and later fix it. */
		m->psci_cpu_on = nd->prop_a ? prop_u32(nd->prop_a, nd->prop_a_len, 0)
					    : PSCI_0_2_FN64_CPU_ON;
		return;
	}
	if (nd->compat && dt_prop_has_string(nd->compat, nd->compat_len, "arm,gic-v3") &&
	    enabled(nd)) {
		gic_v3_node(w, parent, nd);
		return;
	}
	if (nd->compat && dt_prop_has_string(nd->compat, nd->compat_len, "qemu,fw-cfg-mmio") &&
	    enabled(nd)) {
		fwcfg_node(w, parent, nd);
		return;
	}
	if (nd->compat && (dt_prop_has_string(nd->compat, nd->compat_len, "arm,armv8-timer") ||
			   dt_prop_has_string(nd->compat, nd->compat_len, "arm,armv7-timer"))) {
		m->timer = true;
		m->timer_clock_hz = prop_u32(nd->prop_b, nd->prop_b_len, 0);
		return;
	}
	if (depth == 1 && name_is(nd->name, "ibm,opal")) {
		m->opal = true;
		m->opal_base = nd->prop_a_len == 8 ? fw_be64(nd->prop_a) : 0;
		m->opal_entry = nd->prop_b_len == 8 ? fw_be64(nd->prop_b) : 0;
		return;
	}
	if (is_serial(nd))
		serial_node(w, parent, nd);
	else if (w->have_stdout && !w->path_cut && !strcmp(w->path, w->stdout_target) &&
		 is_firmware_terminal(nd))
		m->stdout_firmware_terminal = true;
}

/* FORM1 (Linux's __node_distance for form 1): 10, doubled for each
 * reference point, most significant first, at which two domains differ
 * until the first at which they agree. */
static void form1_distances(struct dt_machine *m)
{
	for (uint32_t a = 0; a < DT_MAX_DOMAINS; a++) {
		if (!m->form1_seen[a])
			continue;
		for (uint32_t b = 0; b < DT_MAX_DOMAINS; b++) {
			uint32_t d = MEMBOOT_LOCAL_DISTANCE;

			if (!m->form1_seen[b])
				continue;
			for (uint32_t i = 0; i < m->nr_ref_points && a != b; i++) {
				if (m->form1_assoc[a][i] == m->form1_assoc[b][i])
					break;
				d *= 2;
			}
			if (m->nr_distances == DT_MAX_DISTANCES) {
				m->nr_dropped_distances++;
				continue;
			}
			m->distances[m->nr_distances++] = (struct dt_distance){ a, b, d };
		}
	}
}

static void form2_to_distances(struct dt_machine *m)
{
	uint32_t n = m->nr_form2_domains;

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < n; j++) {
			if (m->nr_distances == DT_MAX_DISTANCES) {
				m->nr_dropped_distances++;
				continue;
			}
			m->distances[m->nr_distances++] = (struct dt_distance){
				m->form2_domains[i], m->form2_domains[j], m->form2_distance[i * n + j],
			};
		}
	}
}

bool dt_machine_parse(const struct dt_blob *dt, struct dt_machine *out)
{
	struct walk w;
	uint64_t start, bytes;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.dt = dt;
	w.m = out;
	out->boot_cpuid = dt->boot_cpuid;
	out->root_address_cells = DEFAULT_ADDRESS_CELLS;
	out->root_size_cells = DEFAULT_SIZE_CELLS;
	if (!walk(&w, pass1_end, pass1_prop)) {
		warn(out, "no root node: nothing read");
		return false;
	}
	if (w.have_stdout && w.stdout_target[0] != '/')
		walk(&w, 0, pass2_prop);
	walk(&w, pass3_end, 0);
	/* The reservation block (5.3): firmware's own memory, never the OS's. */
	for (uint32_t i = 0; dt_rsv_entry(dt, i, &start, &bytes); i++) {
		uint64_t end = start + bytes < start ? UINT64_MAX : start + bytes;

		if (start < end)
			add_rsv(&w, start, end, DT_NO_NODE);
	}
	if (out->nr_dropped_mems || out->nr_dropped_cpus || out->nr_dropped_rsv ||
	    out->nr_dropped_distances)
		warn(out, "more than the parser keeps: %u memory ranges, %u CPUs, %u reserved ranges, "
		     "%u distances left out", out->nr_dropped_mems, out->nr_dropped_cpus,
		     out->nr_dropped_rsv, out->nr_dropped_distances);
	if (!out->nr_distances) {
		if (out->numa_form == DT_NUMA_FORM2 && out->form2_distances)
			form2_to_distances(out);
		else if (out->numa_form == DT_NUMA_FORM1 || out->numa_form == DT_NUMA_FORM2)
			form1_distances(out);
	}
	if (w.have_stdout && !out->serial.from_stdout_path && !out->stdout_firmware_terminal)
		warn(out, "/chosen: stdout-path \"%s\" names no serial port found", w.stdout_target);
	return true;
}

uint32_t dt_machine_distance(const struct dt_machine *m, uint32_t a, uint32_t b)
{
	uint32_t back = 0;

	/* distance-map's rule: a pair given one way only is symmetric. */
	for (uint32_t i = 0; i < m->nr_distances; i++) {
		const struct dt_distance *d = &m->distances[i];

		if (d->from == a && d->to == b)
			return d->distance;
		if (d->from == b && d->to == a)
			back = d->distance;
	}
	return back;
}

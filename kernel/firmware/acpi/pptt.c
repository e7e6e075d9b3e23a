/*
 * pptt.c: the PPTT, the processor topology and its caches (arm64 servers;
 * x86 firmware may have one too).
 *
 * Rules obeyed (ACPI 6.5, 5.2.30):
 *  - after the 36-byte header, structures of type (u8 at 0) and length (u8
 *    at 1) to the table's end;
 *  - type 0, a processor hierarchy node (20 bytes + 4 a private resource):
 *    flags (u32 at 4: bit 0 physical package, bit 1 ACPI processor ID
 *    valid, bit 2 processor is a thread, bit 3 node is a leaf, bit 4
 *    identical implementation), parent (u32 at 8, an offset from the
 *    table's start; 0 for a root), ACPI processor ID (u32 at 12, the MADT
 *    GICC's or local APIC's UID), number of private resources (u32 at 16),
 *    then their offsets (u32 each, at 20): the node's private caches;
 *  - type 1, a cache type structure (24 bytes, 28 with revision 3's cache
 *    ID): flags (u32 at 4: bit 0 size valid, bit 1 number of sets valid,
 *    bit 2 associativity valid, bit 3 allocation type valid, bit 4 cache
 *    type valid, bit 5 write policy valid, bit 6 line size valid), next
 *    level of cache (u32 at 8, an offset; 0: none), size (u32 at 12),
 *    number of sets (u32 at 16), associativity (u8 at 20), attributes (u8
 *    at 21: bits 2-3 the cache type, 0 data, 1 instruction, 2 or 3
 *    unified), line size (u16 at 22);
 *  - type 2 (ID structure) is obsolete and skipped, like unknown types.
 * Levels as Linux's drivers/acpi/pptt.c reads them: a leaf's private caches
 * are level 1 and their next-level chain counts up; a parent's private
 * caches start one level above the highest level reached below it.
 * What a CPU shares its caches with is counted per cache structure: the
 * leaves that reach it.
 *
 * Classes of nodes (what `pptt` reports): a package has flag bit 0; a
 * thread is a leaf with bit 2; a core is a leaf without it, or a node whose
 * first child (in table order) is a thread; a cluster is a node that is
 * neither package nor core whose first child is a core. No allocation: each
 * node's first child is looked for from the node onwards (firmware lists
 * children after their parent), then from the start.
 */
#include "kernel/firmware/acpi/acpi_internal.h"

#include "kernel/services/log.h"

#define PREFIX "ACPI: PPTT: "

#define PPTT_NODE_BYTES 20
#define PPTT_CACHE_BYTES 24
#define PPTT_MAX_DEPTH 16       /* deeper than any machine: a loop */
#define PPTT_MAX_SEEN 32        /* caches one leaf reaches: more are not followed */

enum { PPTT_PROCESSOR = 0, PPTT_CACHE = 1 };
enum {
	NODE_PACKAGE = 1u << 0, NODE_ID_VALID = 1u << 1, NODE_THREAD = 1u << 2,
	NODE_LEAF = 1u << 3,
};
enum { CACHE_SIZE_VALID = 1u << 0, CACHE_SETS_VALID = 1u << 1, CACHE_WAYS_VALID = 1u << 2,
       CACHE_TYPE_VALID = 1u << 4, CACHE_LINE_VALID = 1u << 6 };

struct pptt {
	const uint8_t *t;
	uint32_t len;
	struct acpi_pptt_info *out;
};

static void warn(struct pptt *p)
{
	p->out->warnings++;
}

/* The structure of @type at @off, sound and inside the table; else NULL. */
static const uint8_t *at(const struct pptt *p, uint32_t off, uint8_t type)
{
	const uint8_t *s;
	uint32_t min = type == PPTT_PROCESSOR ? PPTT_NODE_BYTES : PPTT_CACHE_BYTES;

	if (off < ACPI_SDT_HEADER_BYTES || off > p->len || p->len - off < min)
		return NULL;
	s = p->t + off;
	if (s[0] != type || s[1] < min || s[1] > p->len - off)
		return NULL;
	if (type == PPTT_PROCESSOR && fw_le32(s + 16) > (uint32_t)(s[1] - PPTT_NODE_BYTES) / 4)
		return NULL;
	return s;
}

static uint32_t node_flags(const uint8_t *n)
{
	return fw_le32(n + 4);
}

/* The parent of the node at @off (0: a root, or a parent that is not a
 * processor node: the first pass warned). */
static uint32_t parent_of(const struct pptt *p, uint32_t off)
{
	uint32_t parent = fw_le32(p->t + off + 8);

	return parent && at(p, parent, PPTT_PROCESSOR) ? parent : 0;
}

/* The offset of the first node whose parent is @off (0: none). */
static uint32_t first_child(const struct pptt *p, uint32_t off)
{
	for (int pass = 0; pass < 2; pass++) {
		uint32_t o = pass ? ACPI_SDT_HEADER_BYTES : off;
		uint32_t end = pass ? off : p->len;

		while (o < end && p->len - o >= 2 && p->t[o + 1] >= 2 && p->t[o + 1] <= p->len - o) {
			const uint8_t *s = at(p, o, PPTT_PROCESSOR);

			if (s && o != off && fw_le32(s + 8) == off)
				return o;
			o += p->t[o + 1];
		}
	}
	return 0;
}

/* A leaf: flagged so, or with no children. */
static bool is_leaf(const struct pptt *p, uint32_t off)
{
	return (node_flags(p->t + off) & NODE_LEAF) || !first_child(p, off);
}

enum node_class { CLASS_OTHER, CLASS_PACKAGE, CLASS_CLUSTER, CLASS_CORE, CLASS_THREAD };

static enum node_class classify(const struct pptt *p, uint32_t off, int depth)
{
	uint32_t flags = node_flags(p->t + off), child;

	if (flags & NODE_PACKAGE)
		return CLASS_PACKAGE;
	if (flags & NODE_LEAF)
		return flags & NODE_THREAD ? CLASS_THREAD : CLASS_CORE;
	child = first_child(p, off);
	if (!child) /* a node with no children is a leaf without the flag */
		return flags & NODE_THREAD ? CLASS_THREAD : CLASS_CORE;
	if (depth >= PPTT_MAX_DEPTH)
		return CLASS_OTHER;
	switch (classify(p, child, depth + 1)) {
	case CLASS_THREAD:
		return CLASS_CORE;
	case CLASS_CORE:
		return CLASS_CLUSTER;
	default:
		return CLASS_OTHER;
	}
}

/* Add the cache structure at @off, reached at @level by @cpus leaves, to
 * the kinds in out->caches[]. */
static void add_cache(struct pptt *p, uint32_t off, uint32_t level, uint32_t cpus)
{
	struct acpi_pptt_info *o = p->out;
	const uint8_t *c = p->t + off;
	uint32_t flags = fw_le32(c + 4), g;
	struct acpi_pptt_cache k = {
		.level = level,
		.type = flags & CACHE_TYPE_VALID ? (c[21] >> 2 & 3) : ACPI_PPTT_CACHE_UNIFIED,
		.size_bytes = flags & CACHE_SIZE_VALID ? fw_le32(c + 12) : 0,
		.sets = flags & CACHE_SETS_VALID ? fw_le32(c + 16) : 0,
		.ways = flags & CACHE_WAYS_VALID ? c[20] : 0,
		.line_bytes = flags & CACHE_LINE_VALID ? fw_le16(c + 22) : 0,
		.cpus = cpus,
		.count = 1,
	};

	if (k.type > ACPI_PPTT_CACHE_UNIFIED)
		k.type = ACPI_PPTT_CACHE_UNIFIED;
	for (g = 0; g < o->nr_caches; g++) {
		struct acpi_pptt_cache *e = &o->caches[g];

		if (e->level == k.level && e->type == k.type && e->size_bytes == k.size_bytes &&
		    e->sets == k.sets && e->ways == k.ways && e->line_bytes == k.line_bytes &&
		    e->cpus == k.cpus) {
			e->count++;
			return;
		}
	}
	if (o->nr_caches < ACPI_PPTT_MAX_CACHE_KINDS) {
		o->caches[o->nr_caches++] = k;
	} else if (!o->kinds_dropped++) {
		pr_warn(PREFIX "more than %u kinds of cache; the cache at offset 0x%x and other "
			"kinds not reported", ACPI_PPTT_MAX_CACHE_KINDS, off);
		warn(p);
	}
}

/* Where the leaf at @leaf reaches the cache at @target: its level, 0 when
 * it does not. Its own private caches are level 1, each next level one
 * more; an ancestor's start above the highest level reached below it; a
 * cache reached from below already is not counted again. No warnings: the
 * first pass gave them. */
static uint32_t level_of(const struct pptt *p, uint32_t leaf, uint32_t target)
{
	uint32_t seen[PPTT_MAX_SEEN], nr_seen = 0, base = 0, node = leaf;

	for (int depth = 0; node && depth < PPTT_MAX_DEPTH; depth++) {
		const uint8_t *n = p->t + node;
		uint32_t top = base;

		for (uint32_t r = 0; r < fw_le32(n + 16); r++) {
			uint32_t off = fw_le32(n + PPTT_NODE_BYTES + 4 * r), level = base;

			for (int hops = 0; off && hops < PPTT_MAX_DEPTH && at(p, off, PPTT_CACHE);
			     hops++) {
				bool again = false;

				for (uint32_t i = 0; i < nr_seen; i++)
					again |= seen[i] == off;
				if (again || nr_seen == PPTT_MAX_SEEN)
					break;
				seen[nr_seen++] = off;
				if (++level > top)
					top = level;
				if (off == target)
					return level;
				off = fw_le32(p->t + off + 8);
			}
		}
		base = top;
		node = parent_of(p, node);
	}
	return 0;
}

/* First pass's checks of the node at @off (sound): its parent, its
 * private resources, the loops above it. */
static void check_node(struct pptt *p, uint32_t off)
{
	const uint8_t *n = p->t + off;
	uint32_t parent = fw_le32(n + 8), up = off;
	int depth = 0;

	if (parent && !at(p, parent, PPTT_PROCESSOR)) {
		pr_warn(PREFIX "node at offset 0x%x: its parent 0x%x is not a processor node; "
			"taken as a root", off, parent);
		warn(p);
	}
	for (uint32_t r = 0; r < fw_le32(n + 16); r++) {
		uint32_t res = fw_le32(n + PPTT_NODE_BYTES + 4 * r), hops = 0;

		/* An ID structure (obsolete) or a type to come is no cache:
		 * only an offset outside the table is warned about. */
		if (res < ACPI_SDT_HEADER_BYTES || res >= p->len) {
			pr_warn(PREFIX "node at offset 0x%x: resource offset 0x%x is outside the table",
				off, res);
			warn(p);
			continue;
		}
		while (res && at(p, res, PPTT_CACHE) && hops++ < PPTT_MAX_DEPTH)
			res = fw_le32(p->t + res + 8);
		if (hops > PPTT_MAX_DEPTH) {
			pr_warn(PREFIX "node at offset 0x%x: its caches' next-level chain is longer "
				"than %u (a loop); cut there", off, PPTT_MAX_DEPTH);
			warn(p);
		}
	}
	while (up && depth++ <= PPTT_MAX_DEPTH)
		up = parent_of(p, up);
	if (up && is_leaf(p, off)) {    /* a loop is named at its leaves */
		pr_warn(PREFIX "leaf at offset 0x%x: more than %u levels above it (a loop); "
			"its caches above them not counted", off, PPTT_MAX_DEPTH);
		warn(p);
	}
}

bool acpi_pptt_parse(const void *table, size_t len, struct acpi_pptt_info *out)
{
	struct pptt p = { .t = table, .out = out };
	uint32_t off;

	memset(out, 0, sizeof(*out));
	p.len = acpi_table_check(table, len, "PPTT", ACPI_SDT_HEADER_BYTES, PREFIX);
	if (!p.len)
		return false;
	out->revision = p.t[offsetof(struct acpi_sdt_header, revision)];
	for (off = ACPI_SDT_HEADER_BYTES; off < p.len; off += p.t[off + 1]) {
		if (p.len - off < 2 || p.t[off + 1] < 2 || p.t[off + 1] > p.len - off) {
			pr_warn(PREFIX "structure at offset 0x%x: length %u does not fit the table's "
				"%u bytes; table ends there", off, p.len - off < 2 ? 0 : p.t[off + 1],
				p.len);
			warn(&p);
			out->truncated = true;
			p.len = off;      /* what follows is not read */
			break;
		}
		if (p.t[off] == PPTT_CACHE)
			out->nr_cache_structs++;
		if (p.t[off] != PPTT_PROCESSOR)
			continue;
		if (!at(&p, off, PPTT_PROCESSOR)) {
			pr_warn(PREFIX "processor node at offset 0x%x: %u bytes cannot hold its "
				"header and %u private resources; skipped", off, p.t[off + 1],
				p.t[off + 1] >= PPTT_NODE_BYTES ? fw_le32(p.t + off + 16) : 0);
			warn(&p);
			continue;
		}
		out->nr_nodes++;
	}
	/* Second pass, over the structures the first found sound. */
	for (off = ACPI_SDT_HEADER_BYTES; off < p.len; off += p.t[off + 1]) {
		if (!at(&p, off, PPTT_PROCESSOR))
			continue;
		check_node(&p, off);
		switch (classify(&p, off, 0)) {
		case CLASS_PACKAGE:
			out->nr_packages++;
			break;
		case CLASS_CLUSTER:
			out->nr_clusters++;
			break;
		case CLASS_CORE:
			out->nr_cores++;
			break;
		case CLASS_THREAD:
			out->nr_threads++;
			break;
		default:
			break;
		}
		if (!is_leaf(&p, off))
			continue;
		out->nr_processors++;
		if (!(node_flags(p.t + off) & NODE_ID_VALID)) {
			pr_warn(PREFIX "leaf at offset 0x%x has no valid ACPI processor ID", off);
			warn(&p);
		}
	}
	/* Each cache: the leaves that reach it, and where (nothing kept per
	 * structure: the kernel's image has no room for a list; a server's
	 * 1600 caches x 512 leaves walk in milliseconds). */
	for (off = ACPI_SDT_HEADER_BYTES; off < p.len; off += p.t[off + 1]) {
		uint32_t level = 0, cpus = 0;

		if (!at(&p, off, PPTT_CACHE))
			continue;
		for (uint32_t leaf = ACPI_SDT_HEADER_BYTES; leaf < p.len; leaf += p.t[leaf + 1]) {
			uint32_t l;

			if (!at(&p, leaf, PPTT_PROCESSOR) || !is_leaf(&p, leaf) ||
			    !(l = level_of(&p, leaf, off)))
				continue;
			if (!cpus++)
				level = l;
		}
		if (cpus)
			add_cache(&p, off, level, cpus);
	}
	return true;
}

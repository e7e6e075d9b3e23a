/*
 * flatten.c: an Open Firmware tree written as a flattened device tree
 * (boot/ofw/flatten.h). The structure block is written from the front of
 * the buffer, the strings block from its back (growing down, each name
 * once), and the strings are moved behind the structure at the end.
 */
#include "boot/ofw/flatten.h"

#include <stdbool.h>
#include <string.h>

#define FDT_MAGIC 0xd00dfeedu
#define FDT_BEGIN_NODE 1u
#define FDT_END_NODE 2u
#define FDT_PROP 3u
#define FDT_END 9u
#define FDT_HEADER_BYTES 40u
#define FDT_PATH_BYTES 256u

struct out {
	const struct ofw_ops *ops;
	uint8_t *buf;
	size_t cap;
	size_t pos;             /* next structure byte */
	size_t str_lo;          /* the strings occupy [str_lo, cap) */
	enum ofw_status st;
	char path[FDT_PATH_BYTES];
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static bool room(struct out *o, size_t n)
{
	if (o->st != OFW_OK)
		return false;
	if (o->pos + n > o->str_lo) {
		o->st = OFW_ERR_SPACE;
		return false;
	}
	return true;
}

static bool emit32(struct out *o, uint32_t v)
{
	if (!room(o, 4))
		return false;
	put_be32(o->buf + o->pos, v);
	o->pos += 4;
	return true;
}

static void pad4(struct out *o)
{
	while (o->pos & 3)
		o->buf[o->pos++] = 0;
}

/* @name's offset from the strings block's start once it is moved
 * (the distance from the buffer's end, turned around at the end), or -1. */
static int64_t string_at(struct out *o, const char *name)
{
	const size_t n = strlen(name) + 1;

	for (size_t at = o->str_lo; at < o->cap; at += strlen((const char *)o->buf + at) + 1)
		if (strcmp((const char *)o->buf + at, name) == 0)
			return (int64_t)at;
	if (o->st != OFW_OK || o->str_lo < o->pos + n) {
		o->st = o->st != OFW_OK ? o->st : OFW_ERR_SPACE;
		return -1;
	}
	o->str_lo -= n;
	memcpy(o->buf + o->str_lo, name, n);
	return (int64_t)o->str_lo;
}

/* "name@unit" of the path's last component; "" for the root. */
static const char *leaf_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* One property: FDT_PROP, length, name offset (fixed up at the end:
 * stored as the distance of the name from the buffer's end), value. */
static void copy_prop(struct out *o, uint32_t ph, const char *name)
{
	const struct ofw_ops *ops = o->ops;
	const int32_t len = ops->getproplen(ops->ctx, ph, name);

	if (len < 0) {
		o->st = OFW_ERR_FIRMWARE;
		return;
	}
	const int64_t at = string_at(o, name);
	if (at < 0 || !room(o, 12 + (size_t)len + 3))
		return;
	put_be32(o->buf + o->pos, FDT_PROP);
	put_be32(o->buf + o->pos + 4, (uint32_t)len);
	put_be32(o->buf + o->pos + 8, (uint32_t)(o->cap - (size_t)at));
	o->pos += 12;
	uint8_t *value = o->buf + o->pos;
	if (len > 0 && ops->getprop(ops->ctx, ph, name, value, (uint32_t)len) != len) {
		o->st = OFW_ERR_FIRMWARE;
		return;
	}
	o->pos += (size_t)len;
	pad4(o);
	if (ops->seen)
		ops->seen(ops->ctx, o->path, name, value, (uint32_t)len);
}

static void copy_node(struct out *o, uint32_t ph, unsigned depth)
{
	const struct ofw_ops *ops = o->ops;
	char name[OFW_PROP_NAME_BYTES], prev[OFW_PROP_NAME_BYTES];

	if (depth > OFW_MAX_DEPTH) {
		o->st = OFW_ERR_DEPTH;
		return;
	}
	if (depth == 0) {
		o->path[0] = '\0';
	} else if (ops->path(ops->ctx, ph, o->path, sizeof(o->path)) < 0 ||
		   o->path[0] != '/') {
		o->st = OFW_ERR_FIRMWARE;
		return;
	}
	o->path[sizeof(o->path) - 1] = '\0';
	const char *leaf = depth == 0 ? "" : leaf_name(o->path);
	const size_t n = strlen(leaf) + 1;
	if (!emit32(o, FDT_BEGIN_NODE) || !room(o, n + 3))
		return;
	memcpy(o->buf + o->pos, leaf, n);
	o->pos += n;
	pad4(o);

	prev[0] = '\0';
	for (;;) {
		const int r = ops->nextprop(ops->ctx, ph, prev, name);
		if (r == 0)
			break;
		if (r < 0) {
			o->st = OFW_ERR_FIRMWARE;
			return;
		}
		name[OFW_PROP_NAME_BYTES - 1] = '\0';
		/* SLOF and VOF list the node's "name" too; a flattened tree
		 * carries its name in the node itself, and both are kept. */
		copy_prop(o, ph, name);
		if (o->st != OFW_OK)
			return;
		memcpy(prev, name, sizeof(prev));
	}
	for (uint32_t c = ops->child(ops->ctx, ph); c != 0; c = ops->peer(ops->ctx, c)) {
		copy_node(o, c, depth + 1);
		if (o->st != OFW_OK)
			return;
	}
	emit32(o, FDT_END_NODE);
}

enum ofw_status ofw_flatten_tree(const struct ofw_ops *ops, uint8_t *buf, size_t cap,
				 const struct ofw_rsv *rsv, uint32_t nr_rsv, uint32_t boot_cpuid,
				 size_t *bytes)
{
	struct out o = { .ops = ops, .buf = buf, .cap = cap & ~(size_t)7, .str_lo = cap & ~(size_t)7 };
	const size_t rsv_off = FDT_HEADER_BYTES;
	const size_t struct_off = rsv_off + 16 * ((size_t)nr_rsv + 1);

	*bytes = 0;
	if (o.cap < struct_off + 16)
		return OFW_ERR_SPACE;
	const uint32_t root = ops->root(ops->ctx);
	if (root == 0)
		return OFW_ERR_NO_ROOT;
	memset(buf, 0, struct_off);
	for (uint32_t i = 0; i < nr_rsv; i++) {
		put_be64(buf + rsv_off + 16 * i, rsv[i].start);
		put_be64(buf + rsv_off + 16 * i + 8, rsv[i].bytes);
	}
	o.pos = struct_off;
	copy_node(&o, root, 0);
	emit32(&o, FDT_END);
	if (o.st != OFW_OK)
		return o.st;

	/* The strings behind the structure; each name offset turned from
	 * "distance from the buffer's end" into "offset in the block". */
	const size_t strings_off = o.pos, strings_bytes = o.cap - o.str_lo;
	memmove(buf + strings_off, buf + o.str_lo, strings_bytes);
	for (size_t p = struct_off; p < strings_off;) {
		const uint32_t tok = (uint32_t)buf[p] << 24 | (uint32_t)buf[p + 1] << 16 |
				     (uint32_t)buf[p + 2] << 8 | buf[p + 3];
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			p += strlen((const char *)buf + p) + 1;
			p = (p + 3) & ~(size_t)3;
		} else if (tok == FDT_PROP) {
			const uint32_t len = (uint32_t)buf[p] << 24 | (uint32_t)buf[p + 1] << 16 |
					     (uint32_t)buf[p + 2] << 8 | buf[p + 3];
			const uint32_t from_end = (uint32_t)buf[p + 4] << 24 |
						  (uint32_t)buf[p + 5] << 16 |
						  (uint32_t)buf[p + 6] << 8 | buf[p + 7];
			put_be32(buf + p + 4, (uint32_t)(strings_bytes - from_end));
			p += 8 + len;
			p = (p + 3) & ~(size_t)3;
		}
	}
	const size_t total = strings_off + strings_bytes;
	put_be32(buf + 0, FDT_MAGIC);
	put_be32(buf + 4, (uint32_t)total);
	put_be32(buf + 8, (uint32_t)struct_off);
	put_be32(buf + 12, (uint32_t)strings_off);
	put_be32(buf + 16, (uint32_t)rsv_off);
	put_be32(buf + 20, 17);
	put_be32(buf + 24, 16);
	put_be32(buf + 28, boot_cpuid);
	put_be32(buf + 32, (uint32_t)strings_bytes);
	put_be32(buf + 36, (uint32_t)(strings_off - struct_off));
	*bytes = total;
	return OFW_OK;
}

const char *ofw_status_name(enum ofw_status st)
{
	switch (st) {
	case OFW_OK:           return "ok";
	case OFW_ERR_NO_ROOT:  return "no root node";
	case OFW_ERR_SPACE:    return "the tree is larger than the buffer";
	case OFW_ERR_DEPTH:    return "nodes nested too deep";
	case OFW_ERR_FIRMWARE: return "a client interface call failed";
	default:               return "unknown";
	}
}

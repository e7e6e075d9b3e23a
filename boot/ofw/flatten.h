/*
 * flatten.h: an Open Firmware device tree, walked node by node through a
 * client interface, written out as a flattened device tree (Devicetree
 * Specification 0.4, chapter 5: version 17) that kernel/firmware/dt.c
 * parses. Pure: the firmware is reached through struct ofw_ops, so the
 * host tests walk a tree of their own.
 */
#ifndef MEMBOOT_BOOT_OFW_FLATTEN_H
#define MEMBOOT_BOOT_OFW_FLATTEN_H

#include <stddef.h>
#include <stdint.h>

/* IEEE 1275 says 31 characters, QEMU's trees have longer names
 * ("ibm,associativity-reference-points"); Linux's prom_init allows 63. */
#define OFW_PROP_NAME_BYTES 64
#define OFW_MAX_DEPTH 32

/* The client interface's services the walk uses (IEEE 1275 6.3.2.2), on
 * phandles; 0 is no node. */
struct ofw_ops {
	void *ctx;
	uint32_t (*root)(void *ctx);
	uint32_t (*child)(void *ctx, uint32_t ph);
	uint32_t (*peer)(void *ctx, uint32_t ph);
	/* The property after @prev ("" for the first) into @name: 1, or 0
	 * after the last, or -1 on an error. */
	int (*nextprop)(void *ctx, uint32_t ph, const char *prev, char name[OFW_PROP_NAME_BYTES]);
	/* The value's length, or -1 when there is no such property. */
	int32_t (*getproplen)(void *ctx, uint32_t ph, const char *name);
	/* Up to @len bytes of the value into @buf: the bytes copied, or -1. */
	int32_t (*getprop)(void *ctx, uint32_t ph, const char *name, void *buf, uint32_t len);
	/* The node's full path into @buf (NUL-terminated): its length, or -1. */
	int32_t (*path)(void *ctx, uint32_t ph, char *buf, uint32_t len);
	/* Each property as it is copied, with its node's path (optional). */
	void (*seen)(void *ctx, const char *path, const char *name, const uint8_t *value,
		     uint32_t len);
};

/* A range for the memory reservation block. */
struct ofw_rsv {
	uint64_t start, bytes;
};

enum ofw_status {
	OFW_OK = 0,
	OFW_ERR_NO_ROOT,        /* the interface gives no root node */
	OFW_ERR_SPACE,          /* the tree does not fit in the buffer */
	OFW_ERR_DEPTH,          /* nodes nested deeper than OFW_MAX_DEPTH */
	OFW_ERR_FIRMWARE,       /* a service failed or gave an impossible answer */
};

/*
 * Write the tree into @buf (@cap bytes, 8-byte aligned) with the ranges
 * @rsv[0, nr_rsv) in its reservation block and @boot_cpuid in its header.
 * Returns OFW_OK and the blob's size in *bytes, or why not.
 */
enum ofw_status ofw_flatten_tree(const struct ofw_ops *ops, uint8_t *buf, size_t cap,
				 const struct ofw_rsv *rsv, uint32_t nr_rsv, uint32_t boot_cpuid,
				 size_t *bytes);
const char *ofw_status_name(enum ofw_status st);

#endif

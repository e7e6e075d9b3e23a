/*
 * dtimage.h: the boot protocol of an arm64 Image entered with a flattened
 * device tree's physical address in x0 (Linux's arm64 booting.rst; QEMU
 * -kernel on virt): struct bootinfo from the tree.
 */
#ifndef MEMBOOT_BOOT_DTIMAGE_H
#define MEMBOOT_BOOT_DTIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "kernel/firmware/dt.h"

/* The most of a tree memboot reads (QEMU's are a few KiB; 2 MiB is Linux's
 * MAX_FDT_SIZE). */
#define DTIMAGE_MAX_BYTES (2u << 20)

enum dtimage_status {
	DTIMAGE_OK = 0,
	DTIMAGE_ERR_MAP,        /* the tree's address cannot be read */
	DTIMAGE_ERR_BLOB,       /* not a usable tree (dt_open()'s reason logged) */
	DTIMAGE_ERR_NO_MEMORY,  /* no /memory node with a usable range */
};

/* @len bytes at @phys readable, or NULL (arch_map_phys()'s shape). */
typedef const void *(*dtimage_map_fn)(void *ctx, uint64_t phys, size_t len);

/*
 * Fill @bi from the tree at @dtb_phys: usable RAM from the /memory nodes,
 * reserved the memory reservation block's and /reserved-memory's ranges
 * and the tree's own bytes, the command line from /chosen bootargs, the
 * tree's place (bi->dtb_phys, dtb_bytes); and @m, the machine as
 * dt_machine_parse() reads it (phase numa's nodes).
 */
enum dtimage_status dtimage_parse(uint64_t dtb_phys, dtimage_map_fn map, void *ctx,
				  struct bootinfo *bi, struct dt_machine *m);
/* Read the tree's header at @dtb_phys, then its whole size (at most
 * DTIMAGE_MAX_BYTES), and dt_open() it into @dt; what is wrong is logged. */
enum dtimage_status dtimage_open(uint64_t dtb_phys, dtimage_map_fn map, void *ctx,
				 struct dt_blob *dt);
/*
 * The same from a tree already opened by dt_open() (a file on the host:
 * tools/memboot topo), @dtb_phys where it lies in the machine's memory, or
 * DTIMAGE_NOT_IN_MEMORY: then the tree's own bytes are not reserved and
 * bi->dtb_phys stays 0. The bootinfo must have been initialised.
 */
#define DTIMAGE_NOT_IN_MEMORY UINT64_MAX
enum dtimage_status dtimage_fill(const struct dt_blob *dt, uint64_t dtb_phys,
				 struct bootinfo *bi, struct dt_machine *m);
const char *dtimage_status_name(enum dtimage_status st);

/* Whether @p (4 bytes readable) starts with the tree's magic. */
int dtimage_is_tree(const void *p);

#endif

/*
 * dtimage.c: struct bootinfo from a flattened device tree (boot/dtimage/
 * dtimage.h), through the pure parsers of kernel/firmware/dt.h.
 */
#include "boot/dtimage/dtimage.h"

#include <string.h>

#include "kernel/firmware/bytes.h"
#include "kernel/firmware/dt.h"
#include "kernel/services/log.h"

int dtimage_is_tree(const void *p)
{
	const uint8_t *b = p;

	return ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]) ==
	       DT_MAGIC;
}

enum dtimage_status dtimage_open(uint64_t dtb_phys, dtimage_map_fn map, void *ctx,
				 struct dt_blob *dt)
{
	const uint8_t *h;
	uint32_t total;
	int st;

	h = map(ctx, dtb_phys, DT_HEADER_BYTES);
	if (h == NULL) {
		pr_err("dtimage: the device tree at 0x%llx cannot be read",
		       (unsigned long long)dtb_phys);
		return DTIMAGE_ERR_MAP;
	}
	total = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	if (total > DTIMAGE_MAX_BYTES) {
		pr_err("dtimage: the device tree at 0x%llx says it is %u bytes, more than the %u read",
		       (unsigned long long)dtb_phys, total, DTIMAGE_MAX_BYTES);
		return DTIMAGE_ERR_BLOB;
	}
	if (total < DT_HEADER_BYTES)
		total = DT_HEADER_BYTES;   /* dt_open() names the problem */
	h = map(ctx, dtb_phys, total);
	if (h == NULL) {
		pr_err("dtimage: the device tree's %u bytes at 0x%llx cannot be read", total,
		       (unsigned long long)dtb_phys);
		return DTIMAGE_ERR_MAP;
	}
	st = dt_open(dt, h, total);
	if (st != DT_OK) {
		pr_err("dtimage: no usable device tree at 0x%llx (%s)",
		       (unsigned long long)dtb_phys, dt_status_name(st));
		return DTIMAGE_ERR_BLOB;
	}
	return DTIMAGE_OK;
}

enum dtimage_status dtimage_parse(uint64_t dtb_phys, dtimage_map_fn map, void *ctx,
				  struct bootinfo *bi, struct dt_machine *m)
{
	struct dt_blob dt;
	enum dtimage_status st;

	bootinfo_init(bi, BOOT_PATH_DT);
	strcpy(bi->loader, "device tree");
	bi->map_source = "dt-memory";
	st = dtimage_open(dtb_phys, map, ctx, &dt);
	return st == DTIMAGE_OK ? dtimage_fill(&dt, dtb_phys, bi, m) : st;
}

enum dtimage_status dtimage_fill(const struct dt_blob *dt, uint64_t dtb_phys,
				 struct bootinfo *bi, struct dt_machine *m)
{
	const uint32_t total = dt->total_bytes;

	if (!dt_machine_parse(dt, m))
		return DTIMAGE_ERR_BLOB;
	if (dtb_phys != DTIMAGE_NOT_IN_MEMORY) {
		bi->loader_info_phys = dtb_phys;
		bi->loader_info_bytes = total;
		bi->dtb_phys = dtb_phys;
		bi->dtb_bytes = total;
	}

	for (uint32_t i = 0; i < m->nr_mems; i++)
		bootinfo_add_raw(bi, m->mems[i].start,
				 m->mems[i].end - m->mems[i].start, MEM_USABLE);
	if (m->nr_dropped_mems)
		pr_warn("dtimage: %u memory ranges beyond the first %u dropped",
			m->nr_dropped_mems, DT_MAX_MEMS);
	/* The reservation block and /reserved-memory: firmware's (Devicetree
	 * Specification 5.3 and 3.5); the tree itself is kept too, for phase
	 * numa. Reserved beats usable where they overlap (bootinfo.h). */
	for (uint32_t i = 0; i < m->nr_rsv; i++)
		bootinfo_add_raw(bi, m->rsv[i].start,
				 m->rsv[i].end - m->rsv[i].start, MEM_RESERVED);
	if (m->nr_dropped_rsv)
		pr_warn("dtimage: %u reserved ranges beyond the first %u dropped: that memory may be handed out",
			m->nr_dropped_rsv, DT_MAX_RSV);
	if (dtb_phys != DTIMAGE_NOT_IN_MEMORY)
		bootinfo_add_raw(bi, dtb_phys, total, MEM_RESERVED);
	if (m->have_bootargs)
		bootinfo_append_cmdline_from(bi, m->bootargs, "/chosen bootargs");
	if (bootinfo_normalize(bi) == 0 || bootinfo_total_bytes(bi, MEM_USABLE) == 0) {
		if (dtb_phys != DTIMAGE_NOT_IN_MEMORY)
			pr_err("dtimage: the device tree at 0x%llx describes no usable memory",
			       (unsigned long long)dtb_phys);
		else
			pr_err("dtimage: the device tree describes no usable memory");
		return DTIMAGE_ERR_NO_MEMORY;
	}
	return DTIMAGE_OK;
}

const char *dtimage_status_name(enum dtimage_status st)
{
	switch (st) {
	case DTIMAGE_OK:            return "ok";
	case DTIMAGE_ERR_MAP:       return "unreadable";
	case DTIMAGE_ERR_BLOB:      return "not a device tree";
	case DTIMAGE_ERR_NO_MEMORY: return "no memory";
	default:                    return "unknown";
	}
}

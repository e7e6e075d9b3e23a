/*
 * rtas.c: RTAS instantiated through an Open Firmware client interface
 * (boot/ofw/rtas.h): PAPR 7.2.1, and what Linux's prom_instantiate_rtas
 * does (read for the protocol: claim, open "/rtas", call-method
 * "instantiate-rtas" with the base, the entry in the second return cell).
 */
#include "boot/ofw/rtas.h"

#include <stddef.h>
#include <string.h>

/* A claim of @bytes (at @virt, or anywhere when @align): its base, or
 * false when refused or not of use (then given back). */
static bool claim(const struct ofw_rtas_ops *ops, uint32_t virt, uint32_t bytes, uint32_t align,
		  uint64_t kstart, uint64_t kend, uint32_t *base)
{
	if (!ops->claim(ops->ctx, virt, bytes, align, base))
		return false;
	if (*base % OFW_RTAS_ALIGN || (uint64_t)*base + bytes > 0x100000000ull ||
	    ((uint64_t)*base < kend && (uint64_t)*base + bytes > kstart)) {
		ops->release(ops->ctx, *base, bytes);
		return false;
	}
	return true;
}

const char *ofw_rtas_instantiate(const struct ofw_rtas_ops *ops, uint64_t kstart, uint64_t kend,
				 struct ofw_rtas *out)
{
	uint8_t size_be[4];
	uint32_t ph, ih, bytes, base, entry;

	memset(out, 0, sizeof(*out));
	ph = ops->finddevice(ops->ctx, "/rtas");
	if (ph == 0)
		return "the firmware's tree has no /rtas node";
	if (ops->getprop(ops->ctx, ph, "rtas-size", size_be, sizeof(size_be)) != sizeof(size_be))
		return "/rtas has no 4-byte rtas-size";
	out->size = (uint32_t)size_be[0] << 24 | (uint32_t)size_be[1] << 16 |
		    (uint32_t)size_be[2] << 8 | size_be[3];
	if (out->size == 0 || out->size > 0x80000000u)
		return "/rtas gives an impossible rtas-size";
	bytes = (out->size + OFW_RTAS_ALIGN - 1) & ~(OFW_RTAS_ALIGN - 1);
	/* Right above the kernel (page aligned, below 4 GiB), or where the
	 * firmware chooses. */
	kend = (kend + OFW_RTAS_ALIGN - 1) & ~(uint64_t)(OFW_RTAS_ALIGN - 1);
	if (!(kend + bytes <= 0x100000000ull &&
	      claim(ops, (uint32_t)kend, bytes, 0, kstart, kend, &base)) &&
	    !claim(ops, 0, bytes, OFW_RTAS_ALIGN, kstart, kend, &base))
		return "the firmware claimed no memory for RTAS clear of the kernel";
	ih = ops->open(ops->ctx, "/rtas");
	if (ih == 0) {
		ops->release(ops->ctx, base, bytes);
		return "/rtas could not be opened";
	}
	if (!ops->instantiate(ops->ctx, ih, base, &entry) || entry == 0) {
		ops->release(ops->ctx, base, bytes);
		return "instantiate-rtas failed";
	}
	out->base = base;
	out->bytes = bytes;
	out->entry = entry;
	return NULL;
}

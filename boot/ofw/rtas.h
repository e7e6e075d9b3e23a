/*
 * rtas.h: RTAS instantiated through an Open Firmware client interface
 * (PAPR 7.2.1; IEEE 1275's PowerPC binding), as a POWER kernel must
 * before it leaves the firmware. Pure: the firmware is reached through
 * struct ofw_rtas_ops (boot/ofw/ofw.c gives the client interface's
 * services), so the host tests play firmwares that refuse each step.
 */
#ifndef MEMBOOT_BOOT_OFW_RTAS_H
#define MEMBOOT_BOOT_OFW_RTAS_H

#include <stdbool.h>
#include <stdint.h>

#define OFW_RTAS_ALIGN 4096u

struct ofw_rtas_ops {
	void *ctx;
	/* finddevice: the node's phandle, 0 when there is none. */
	uint32_t (*finddevice)(void *ctx, const char *path);
	/* getprop: up to @len bytes of the value into @buf: its length, or -1. */
	int32_t (*getprop)(void *ctx, uint32_t ph, const char *name, void *buf, uint32_t len);
	/* claim(virt, size, align): false when refused, else the base. */
	bool (*claim)(void *ctx, uint32_t virt, uint32_t bytes, uint32_t align, uint32_t *base);
	void (*release)(void *ctx, uint32_t base, uint32_t bytes);
	/* open: the instance's ihandle, 0 when it could not be opened. */
	uint32_t (*open)(void *ctx, const char *path);
	/* call-method "instantiate-rtas" on @ih with @base: false when the
	 * call or the method failed, else the entry it returned. */
	bool (*instantiate)(void *ctx, uint32_t ih, uint32_t base, uint32_t *entry);
};

struct ofw_rtas {
	uint32_t size;              /* /rtas "rtas-size" (0: none read) */
	uint32_t base, bytes;       /* the range claimed, size rounded up to a page */
	uint32_t entry;             /* where RTAS is called; 0: not instantiated */
};

/*
 * Instantiate RTAS: rtas-size bytes (rounded up to OFW_RTAS_ALIGN)
 * claimed right above the kernel's image [@kstart, @kend), else where the
 * firmware chooses; a claim that is unaligned, past 4 GiB or on the image
 * (the firmware knows of the file it loaded, not of the .bss above it) is
 * released and not used. /rtas opened, its instantiate-rtas method called
 * with the base. NULL when done (*out filled), else why not, with every
 * claim released (out->size kept when it was read).
 */
const char *ofw_rtas_instantiate(const struct ofw_rtas_ops *ops, uint64_t kstart, uint64_t kend,
				 struct ofw_rtas *out);

#endif

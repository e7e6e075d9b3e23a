/*
 * ofw.c: the boot protocol of a POWER kernel entered by Open Firmware
 * (QEMU pseries under VOF or SLOF; IEEE 1275 and its PowerPC binding):
 * the firmware writes no flattened tree to memory, so the entry code calls
 * ofw_flatten() with the client interface's entry before anything else
 * touches memory, and the tree is read node by node through it into a
 * flattened tree in the kernel's .bss (boot/ofw/flatten.c). kernel_main()
 * then gets that tree's address, which boot/dtimage reads as any other
 * (the one parser, kernel/firmware/dt.c, for every way a tree arrives).
 *
 * Kept for the architecture code before phase bootinfo (p64/ofw.h): the
 * timebase's frequency (phase early's clock), the RTAS tokens (start-cpu,
 * the power-off at the end) and RTAS itself, instantiated through the
 * client interface before the walk (its entry and base).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/ofw/flatten.h"
#include "boot/ofw/rtas.h"
#include "kernel/services/log.h"
#include "p64/ofw.h"

/* Room for QEMU's trees with a few hundred CPUs (about 1 KiB a CPU). */
#define OFW_TREE_BYTES (1u << 20)

extern char __kernel_start[], __kernel_end[];

struct ppc_firmware ppc_firmware;
static uint8_t tree[OFW_TREE_BYTES] __attribute__((aligned(8)));
/* How the walk went, for phase bootinfo's message (tree_tried: it ran). */
static enum ofw_status tree_status;
static bool tree_tried;

#define OFW_FAILED 0xffffffffu

/* The argument block: service, nargs, nret, then args and rets, all
 * big-endian 32-bit cells. */
struct ci_args {
	uint32_t service;
	uint32_t nargs;
	uint32_t nret;
	uint32_t cell[12];
};

static uint32_t be(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint32_t addr32(const void *p)
{
	return be((uint32_t)(uintptr_t)p);
}

/* Call @service with @nargs arguments; its @nret return values in
 * ret[0, nret) (when @ret). False when the interface refused the call. */
static bool ci(const char *service, unsigned nargs, unsigned nret, const uint32_t *argv,
	       uint32_t *ret)
{
	struct ci_args a;

	memset(&a, 0, sizeof(a));
	a.service = addr32(service);
	a.nargs = be(nargs);
	a.nret = be(nret);
	for (unsigned i = 0; i < nargs; i++)
		a.cell[i] = be(argv[i]);
	if (ppc_ofw_call(&a, ppc_ofw_entry) != 0)
		return false;
	for (unsigned i = 0; ret && i < nret && nargs + i < 12; i++)
		ret[i] = be(a.cell[nargs + i]);
	return true;
}

/* @service of one path (finddevice, open): the handle it gives, 0 for
 * none. */
static uint32_t ci_of_path(const char *service, const char *path)
{
	uint32_t arg = (uint32_t)(uintptr_t)path, h;

	if (!ci(service, 1, 1, &arg, &h) || h == OFW_FAILED)
		return 0;
	return h;
}

static uint32_t ci_finddevice(void *ctx, const char *path)
{
	(void)ctx;
	return ci_of_path("finddevice", path);
}

static uint32_t ci_root(void *ctx)
{
	return ci_finddevice(ctx, "/");
}

static uint32_t ci_walk(const char *service, uint32_t ph)
{
	uint32_t next;

	if (!ci(service, 1, 1, &ph, &next) || next == OFW_FAILED)
		return 0;
	return next;
}

static uint32_t ci_child(void *ctx, uint32_t ph)
{
	(void)ctx;
	return ci_walk("child", ph);
}

static uint32_t ci_peer(void *ctx, uint32_t ph)
{
	(void)ctx;
	return ci_walk("peer", ph);
}

static int ci_nextprop(void *ctx, uint32_t ph, const char *prev, char name[OFW_PROP_NAME_BYTES])
{
	uint32_t argv[3] = { ph, (uint32_t)(uintptr_t)prev, (uint32_t)(uintptr_t)name }, r;

	(void)ctx;
	if (!ci("nextprop", 3, 1, argv, &r))
		return -1;
	return (int32_t)r < 0 ? -1 : r == 0 ? 0 : 1;
}

static int32_t ci_getproplen(void *ctx, uint32_t ph, const char *name)
{
	uint32_t argv[2] = { ph, (uint32_t)(uintptr_t)name }, r;

	(void)ctx;
	if (!ci("getproplen", 2, 1, argv, &r))
		return -1;
	return (int32_t)r;
}

static int32_t ci_getprop(void *ctx, uint32_t ph, const char *name, void *buf, uint32_t len)
{
	uint32_t argv[4] = { ph, (uint32_t)(uintptr_t)name, (uint32_t)(uintptr_t)buf, len }, r;

	(void)ctx;
	if (!ci("getprop", 4, 1, argv, &r))
		return -1;
	return (int32_t)r;
}

static int32_t ci_path(void *ctx, uint32_t ph, char *buf, uint32_t len)
{
	uint32_t argv[3] = { ph, (uint32_t)(uintptr_t)buf, len - 1 }, r;

	(void)ctx;
	memset(buf, 0, len);
	if (!ci("package-to-path", 3, 1, argv, &r) || (int32_t)r < 0)
		return -1;
	buf[r < len ? r : len - 1] = '\0';
	return (int32_t)r;
}

static uint32_t cell(const uint8_t *v)
{
	return (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
}

/* The timebase's rate and the RTAS tokens, as the walk passes them. */
static void ci_seen(void *ctx, const char *path, const char *name, const uint8_t *v,
		    uint32_t len)
{
	(void)ctx;
	if (len == 4 && strcmp(name, "timebase-frequency") == 0 && !ppc_firmware.timebase_hz)
		ppc_firmware.timebase_hz = cell(v);
	/* reg <address size> in the root's two cells each (pseries). */
	if (len >= 16 && strcmp(path, "/memory@0") == 0 && strcmp(name, "reg") == 0 &&
	    cell(v) == 0 && cell(v + 4) == 0)
		ppc_firmware.rma_bytes = (uint64_t)cell(v + 8) << 32 | cell(v + 12);
	if (len != 4 || strcmp(path, "/rtas") != 0)
		return;
	if (strcmp(name, "power-off") == 0)
		ppc_firmware.rtas_power_off = cell(v);
	else if (strcmp(name, "system-reboot") == 0)
		ppc_firmware.rtas_system_reboot = cell(v);
	else if (strcmp(name, "ibm,os-term") == 0)
		ppc_firmware.rtas_os_term = cell(v);
	else if (strcmp(name, "start-cpu") == 0)
		ppc_firmware.rtas_start_cpu = cell(v);
}

static const struct ofw_ops client_ops = {
	.root = ci_root,
	.child = ci_child,
	.peer = ci_peer,
	.nextprop = ci_nextprop,
	.getproplen = ci_getproplen,
	.getprop = ci_getprop,
	.path = ci_path,
	.seen = ci_seen,
};

/* The other services RTAS's instantiation uses (boot/ofw/rtas.c). */
static bool ci_claim(void *ctx, uint32_t virt, uint32_t bytes, uint32_t align, uint32_t *base)
{
	const uint32_t argv[3] = { virt, bytes, align };

	(void)ctx;
	return ci("claim", 3, 1, argv, base) && *base != OFW_FAILED;
}

static void ci_release(void *ctx, uint32_t base, uint32_t bytes)
{
	const uint32_t argv[2] = { base, bytes };

	(void)ctx;
	ci("release", 2, 0, argv, NULL);
}

static uint32_t ci_open(void *ctx, const char *path)
{
	(void)ctx;
	return ci_of_path("open", path);
}

/* call-method(method, ihandle, base): the catch result (0: done), then
 * the entry. */
static bool ci_instantiate(void *ctx, uint32_t ih, uint32_t base, uint32_t *entry)
{
	const uint32_t argv[3] = { (uint32_t)(uintptr_t)"instantiate-rtas", ih, base };
	uint32_t ret[2] = { OFW_FAILED, 0 };

	(void)ctx;
	if (!ci("call-method", 3, 2, argv, ret) || ret[0] != 0 || ret[1] == OFW_FAILED)
		return false;
	*entry = ret[1];
	return true;
}

static const struct ofw_rtas_ops rtas_ops = {
	.finddevice = ci_finddevice,
	.getprop = ci_getprop,
	.claim = ci_claim,
	.release = ci_release,
	.open = ci_open,
	.instantiate = ci_instantiate,
};

/* RTAS instantiated (boot/ofw/rtas.c) and kept for ppc_rtas_call()
 * (arch/ppc64le/machine.c); else why not, for its log line and record. */
static void rtas_instantiate(void)
{
	struct ofw_rtas r;

	ppc_firmware.rtas_why = ofw_rtas_instantiate(&rtas_ops, (uint64_t)(uintptr_t)__kernel_start,
						     (uint64_t)(uintptr_t)__kernel_end, &r);
	ppc_firmware.rtas_size = r.size;
	ppc_firmware.rtas_base = r.base;
	ppc_firmware.rtas_bytes = r.bytes;
	ppc_firmware.rtas_entry = r.entry;
}

/*
 * Called by entry.S with the client interface's entry (also in
 * ppc_ofw_entry): the tree's address for kernel_main(), or 0 when no tree
 * could be made (phase bootinfo then names the boot information missing).
 * RTAS is instantiated first; the firmware's own memory below the kernel
 * (its code, stack and the interrupt vectors at 0) and RTAS's go into the
 * tree's reservation block.
 */
uint64_t ofw_flatten(uint64_t entry)
{
	struct ofw_rsv rsv[2] = { { 0, (uint64_t)(uintptr_t)__kernel_start } };
	uint32_t nr_rsv = 1;
	size_t bytes;

	if (entry == 0)
		return 0;
	rtas_instantiate();
	if (ppc_firmware.rtas_entry)
		rsv[nr_rsv++] = (struct ofw_rsv){ ppc_firmware.rtas_base, ppc_firmware.rtas_bytes };
	tree_tried = true;
	tree_status = ofw_flatten_tree(&client_ops, tree, sizeof(tree), rsv, nr_rsv, 0, &bytes);
	return tree_status == OFW_OK ? (uint64_t)(uintptr_t)tree : 0;
}

/* A walk that failed: this protocol's, and said why; a tree that was
 * made is boot/dtimage's to read. */
static enum boot_match ofw_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				   const struct dt_machine **dt)
{
	(void)bi;
	(void)dt;
	if (arg0 != 0 || arg1 != 0 || !tree_tried)
		return BOOT_NOT_MINE;
	pr_err("boot: the Open Firmware tree could not be read through the client interface (%s)",
	       ofw_status_name(tree_status));
	return BOOT_BAD;
}
BOOT_PROTOCOL(ofw_protocol, "an Open Firmware client interface", ofw_collect);

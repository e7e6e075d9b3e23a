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

static uint32_t ci_root(void *ctx)
{
	uint32_t ph, arg = (uint32_t)(uintptr_t)"/";

	(void)ctx;
	if (!ci("finddevice", 1, 1, &arg, &ph) || ph == 0xffffffffu)
		return 0;
	return ph;
}

static uint32_t ci_walk(const char *service, uint32_t ph)
{
	uint32_t next;

	if (!ci(service, 1, 1, &ph, &next) || next == 0xffffffffu)
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

#define OFW_FAILED 0xffffffffu
#define RTAS_ALIGN 4096u

/* Give [base, base + bytes) back to the firmware (after a failed step). */
static void rtas_release(uint32_t base, uint32_t bytes)
{
	const uint32_t argv[2] = { base, bytes };

	ci("release", 2, 0, argv, NULL);
}

/*
 * claim(virt, size, align) (IEEE 1275 6.3.2.8: at @virt when @align is 0,
 * else where the firmware chooses): the base, or OFW_FAILED when refused
 * or not of use: unaligned, past 4 GiB, or on the kernel's image (the
 * firmware knows of the loaded file, not of the .bss above it), then
 * given back.
 */
static uint32_t rtas_claim(uint32_t virt, uint32_t bytes, uint32_t align)
{
	const uint64_t kstart = (uint64_t)(uintptr_t)__kernel_start;
	const uint64_t kend = (uint64_t)(uintptr_t)__kernel_end;
	const uint32_t argv[3] = { virt, bytes, align };
	uint32_t base;

	if (!ci("claim", 3, 1, argv, &base) || base == OFW_FAILED)
		return OFW_FAILED;
	if (base % RTAS_ALIGN || (uint64_t)base + bytes > 0x100000000ull ||
	    ((uint64_t)base < kend && (uint64_t)base + bytes > kstart)) {
		rtas_release(base, bytes);
		return OFW_FAILED;
	}
	return base;
}

/*
 * RTAS instantiated as the client interface's PowerPC binding and PAPR
 * (7.2.1) ask, while Open Firmware still runs: "rtas-size" bytes of /rtas,
 * rounded up to a page, claimed from the firmware (right above the
 * kernel's image, else where the firmware picks in the memory it manages:
 * below 4 GiB, inside the real mode area), /rtas opened and its "instantiate-rtas" method called with that
 * base; it returns the entry ppc_rtas_call() branches to
 * (arch/ppc64le/machine.c). The range goes into the tree's reservation
 * block (a reserved range of the memory map: never handed out). NULL when
 * done, else why not (the claim released): RTAS is then entered by
 * QEMU's and KVM's hypervisor call, as before.
 */
static const char *rtas_instantiate(void)
{
	const uint64_t kend = (uint64_t)(uintptr_t)__kernel_end;
	uint32_t path = (uint32_t)(uintptr_t)"/rtas", ph, ih, size_be = 0, bytes, base;
	uint32_t argv[4], ret[2];

	if (!ci("finddevice", 1, 1, &path, &ph) || ph == OFW_FAILED || ph == 0)
		return "the firmware's tree has no /rtas node";
	argv[0] = ph;
	argv[1] = (uint32_t)(uintptr_t)"rtas-size";
	argv[2] = (uint32_t)(uintptr_t)&size_be;
	argv[3] = sizeof(size_be);
	if (!ci("getprop", 4, 1, argv, ret) || ret[0] != sizeof(size_be))
		return "/rtas has no 4-byte rtas-size";
	bytes = cell((const uint8_t *)&size_be);
	if (bytes == 0 || bytes > 0x80000000u)
		return "/rtas gives an impossible rtas-size";
	ppc_firmware.rtas_size = bytes;
	bytes = (bytes + RTAS_ALIGN - 1) & ~(RTAS_ALIGN - 1);
	/* Right above the kernel, or where the firmware chooses. */
	base = rtas_claim((uint32_t)kend, bytes, 0);
	if (base == OFW_FAILED)
		base = rtas_claim(0, bytes, RTAS_ALIGN);
	if (base == OFW_FAILED)
		return "the firmware claimed no memory for RTAS clear of the kernel";
	if (!ci("open", 1, 1, &path, &ih) || ih == 0 || ih == OFW_FAILED) {
		rtas_release(base, bytes);
		return "/rtas could not be opened";
	}
	/* call-method(method, ihandle, base): catch-result, then the entry. */
	argv[0] = (uint32_t)(uintptr_t)"instantiate-rtas";
	argv[1] = ih;
	argv[2] = base;
	ret[0] = ret[1] = 0;
	if (!ci("call-method", 3, 2, argv, ret) || ret[0] != 0 || ret[1] == 0 ||
	    ret[1] == OFW_FAILED) {
		rtas_release(base, bytes);
		return "instantiate-rtas failed";
	}
	ppc_firmware.rtas_base = base;
	ppc_firmware.rtas_bytes = bytes;
	ppc_firmware.rtas_entry = ret[1];
	return NULL;
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
	ppc_firmware.rtas_why = rtas_instantiate();
	if (!ppc_firmware.rtas_why)
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

/*
 * opal.c: the boot protocol of a POWER kernel entered by skiboot (PowerNV:
 * bare metal with OPAL, QEMU's powernv machines or a POWER9/10 server
 * through petitboot's kexec): r3 the flattened device tree, r8 and r9
 * OPAL's base and entry (kept by entry.S for the console, the CPUs and
 * the power-off). The tree is read as any other, by boot/dtimage, at
 * the address kernel_main() gets; this file takes from it, before the
 * kernel starts, what the architecture code needs first (p64/ofw.h's
 * struct ppc_firmware: the timebase's frequency, and whether the root
 * names QEMU's powernv machine, where the CPU is a virtual one and the
 * boot ends with a power-off that exits QEMU rather than a halt).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/dt.h"
#include "p64/ofw.h"
#include "p64/opal.h"

/* Nothing of the tree can be trusted to be bounded but its header: read
 * at most this much (boot/dtimage says more when it parses it). */
#define OPAL_TREE_MAX (16u << 20)

static uint32_t be32_at(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint64_t be64_at(const uint8_t *b)
{
	return (uint64_t)be32_at(b) << 32 | be32_at(b + 4);
}

/* Whether the string list @v names QEMU's powernv machines. */
static bool names_qemu(const uint8_t *v, uint32_t len)
{
	static const char prefix[] = "qemu,powernv";

	for (uint32_t at = 0; at < len;) {
		const char *s = (const char *)v + at;
		uint32_t n = 0;
		while (at + n < len && s[n])
			n++;
		if (n >= sizeof(prefix) - 1 && memcmp(s, prefix, sizeof(prefix) - 1) == 0)
			return true;
		at += n + 1;
	}
	return false;
}

/*
 * Called by entry.S with the tree skiboot handed over: OPAL's base and
 * entry from /ibm,opal, the first cpu node's timebase-frequency into
 * ppc_firmware (a tree without one leaves
 * 0, which phase early names), and the root's compatible. The tree's address is returned for
 * kernel_main(); one that does not open is still returned, for
 * boot/dtimage to name its problem.
 */
uint64_t opal_take_tree(uint64_t fdt)
{
	const uint8_t *h = (const uint8_t *)(uintptr_t)fdt;
	struct dt_blob dt;
	struct dt_iter it;
	struct dt_token tok;
	uint32_t total = be32_at(h + 4);
	bool in_cpus = false, in_opal = false;
	uint64_t base = 0, entry = 0;

	if (total > OPAL_TREE_MAX || dt_open(&dt, h, total) != DT_OK)
		return fdt;
	dt_iter_init(&it, &dt);
	while (dt_iter_next(&it, &tok)) {
		/* Which top-level node the walk is in: /cpus, /ibm,opal. */
		if (tok.kind == DT_NODE_BEGIN && tok.depth == 1) {
			in_cpus = strcmp(tok.name, "cpus") == 0;
			in_opal = strcmp(tok.name, "ibm,opal") == 0;
		} else if (tok.kind == DT_NODE_END && tok.depth == 1) {
			in_cpus = in_opal = false;
		}
		if (tok.kind != DT_PROP)
			continue;
		if (tok.depth == 0 && strcmp(tok.name, "compatible") == 0)
			ppc_firmware.qemu_powernv = names_qemu(tok.value, tok.len);
		else if (in_opal && tok.depth == 1 && tok.len == 8 &&
			 strcmp(tok.name, "opal-base-address") == 0)
			base = be64_at(tok.value);
		else if (in_opal && tok.depth == 1 && tok.len == 8 &&
			 strcmp(tok.name, "opal-entry-address") == 0)
			entry = be64_at(tok.value);
		else if (in_cpus && tok.len == 4 && strcmp(tok.name, "timebase-frequency") == 0 &&
			 !ppc_firmware.timebase_hz)
			ppc_firmware.timebase_hz = be32_at(tok.value);
	}
	/* The tree's /ibm,opal says where OPAL is (what Linux reads too): it
	 * wins over r8 and r9, which a kexec (petitboot's) need not set. */
	if (base && entry) {
		ppc_opal_base = base;
		ppc_opal_entry = entry;
	}
	return fdt;
}

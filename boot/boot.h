/*
 * boot.h: the only entry into boot/ from the kernel: turn whatever the loader
 * handed over into struct bootinfo.
 */
#ifndef MEMBOOT_BOOT_BOOT_H
#define MEMBOOT_BOOT_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"

struct dt_machine;   /* kernel/firmware/dt.h */

/*
 * @arg0 and @arg1 are the two registers the entry received (arch/entry.h:
 * for Multiboot2, PVH and memboot's UEFI loader, a protocol's magic and the
 * address of its information); the protocol they belong to is recognised
 * here.
 * Fills @bi (and points @dt at the machine as a device tree the loader
 * handed over describes it, where the protocol has one, else NULL: its
 * memory's and CPUs' NUMA node ids and distances are phase numa's), appends the QEMU fw_cfg command
 * line if there is one, and
 * returns false if the boot information was missing or corrupt (the problem
 * has been logged; @bi then holds what could be read).
 */
bool boot_collect(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi, const struct dt_machine **dt);

/*
 * A boot protocol of the architecture's (boot/P/, NAME_BOOT in its
 * arch.mk): whether the entry's two registers are its hand-over, and
 * turning them into struct bootinfo. Each protocol declares itself with
 * BOOT_PROTOCOL() in a kernel-only file of its directory; boot_collect()
 * asks every one linked in, so generic code names none of them.
 */
enum boot_match {
	BOOT_NOT_MINE,      /* not this protocol's hand-over: @bi untouched */
	BOOT_OK,            /* @bi filled */
	BOOT_BAD,           /* this protocol's, but missing or corrupt (logged) */
};
struct boot_protocol {
	const char *name;   /* for the message when none matches: "Multiboot2" */
	/* @dt: boot_collect()'s, set by a protocol that hands over a tree. */
	enum boot_match (*collect)(uintptr_t arg0, uintptr_t arg1, struct bootinfo *bi,
				   const struct dt_machine **dt);
	/* A protocol that reads device trees also reads the one a UEFI
	 * firmware without ACPI published in its configuration table (a
	 * device-tree board booted through memboot's loader): @bi, filled
	 * from the EFI memory map, gets the tree's place (reserved); returns
	 * the machine, or NULL when there is no usable tree. NULL hook: none. */
	const struct dt_machine *(*efi_tree)(struct bootinfo *bi);
};
/* The protocols linked in, between the linker's __start_/__stop_ symbols
 * of the section (linker/NAME.ld keeps it in .rodata). */
#define BOOT_PROTOCOL(var, name_, fn) BOOT_TREE_PROTOCOL(var, name_, fn, NULL)
#define BOOT_TREE_PROTOCOL(var, name_, fn, efi_tree_fn)                           \
	static const struct boot_protocol var                                     \
		__attribute__((used, section("boot_protocols"), aligned(8))) = {  \
			name_, fn, efi_tree_fn }

#endif

/*
 * arch/mmu.h: the page-table entry format, as functions and constants, for
 * generic page-table code (mm/pt/pt.c) and the kernel's address spaces
 * (kernel/vm/).
 *
 * Levels are counted from the leaf: level 0 entries map 4 KiB pages,
 * level ARCH_PT_ROOT is the root table. An entry is a uint64_t whose
 * meaning only the functions below know (on POWER it is even stored
 * big-endian): generic code never tests a bit of it, it asks. Every
 * architecture memboot knows uses 4 KiB pages, four levels and 0 for an
 * empty entry, and may hold a leaf at levels 1 (2 MiB) and 2 (1 GiB).
 *
 * What each architecture's asm/mmu.h defines (pure: no instruction, so
 * the host build of mm/ includes it as it is):
 *
 *   ARCH_PT_LEVELS            levels of a walk
 *   ARCH_PT_INDEX_BITS(l)     bits of the address that index a level-l table
 *   ARCH_PT_SHIFT(l)          the lowest address bit that level l indexes:
 *                             an entry at level l spans 1 << ARCH_PT_SHIFT(l)
 *   ARCH_PT_LEAF_LEVELS       bit l set: level l may hold a leaf
 *   ARCH_PT_VA_LIMIT          the end of the lower half of the address space
 *                             (what one root table translates from 0 up)
 *   ARCH_MEMMAP_WINDOW_BASE,  where the kernel's descriptor windows lie
 *   ARCH_MEMMAP_WINDOW_BYTES  (arch/map.h)
 *
 *   arch_pte_table(phys, l)   an entry at level l pointing at the table of
 *                             level l - 1 at phys
 *   arch_pte_leaf(phys, l, perms)  an entry at level l mapping phys (aligned
 *                             to the level's size) with ARCH_PERM_* rights;
 *                             accessed and written are preset, so the MMU
 *                             never writes back into an entry another CPU
 *                             is changing
 *   arch_pte_present(e)       the MMU translates through e (table or leaf)
 *   arch_pte_is_table(e, l)   e (at level l) points at a table
 *   arch_pte_is_leaf(e, l)    e (at level l) maps memory
 *   arch_pte_table_addr(e)    the table a table entry points at
 *   arch_pte_leaf_addr(e, l)  the frame a leaf at level l maps
 *   arch_pte_perms(e, l)      the ARCH_PERM_* rights of a leaf
 *   arch_pte_written(e)       the leaf's page was written (dirty)
 *   arch_pte_accessed(e)      the entry was used by a translation
 *   arch_pte_phys_ok(phys)    phys fits an entry's address field
 */
#ifndef MEMBOOT_ARCH_MMU_H
#define MEMBOOT_ARCH_MMU_H

#include <stdbool.h>
#include <stdint.h>

/* The rights of a leaf. An architecture that cannot refuse a right (x86
 * and arm64 cannot map a page present but unreadable) grants it; one
 * without a per-entry global bit (POWER radix: the kernel's translations
 * are shared through PID 0) ignores ARCH_PERM_GLOBAL. */
#define ARCH_PERM_READ 0x01u
#define ARCH_PERM_WRITE 0x02u
#define ARCH_PERM_EXEC 0x04u
#define ARCH_PERM_USER 0x08u     /* reachable from user mode (else kernel only) */
#define ARCH_PERM_GLOBAL 0x10u   /* kept across address-space switches */

/* An entry that maps nothing: 0 on every architecture memboot knows. */
#define ARCH_PTE_NONE 0ULL

#include "asm/mmu.h"

/* The root's level. */
#define ARCH_PT_ROOT (ARCH_PT_LEVELS - 1)

/* Entries of a level-@l table, and its size in bytes. */
#define ARCH_PT_ENTRIES(l) (1u << ARCH_PT_INDEX_BITS(l))
#define ARCH_PT_TABLE_BYTES(l) ((uint64_t)ARCH_PT_ENTRIES(l) * sizeof(uint64_t))

/* The index of @va in the table of level @l. */
static inline unsigned arch_pt_index(uint64_t va, unsigned l)
{
	return (unsigned)(va >> ARCH_PT_SHIFT(l)) & (ARCH_PT_ENTRIES(l) - 1);
}

/* Whether the entry format allows a leaf at level @l (what this CPU
 * supports is arch_mmu_leaf_usable()). */
static inline bool arch_pt_leaf_level(unsigned l)
{
	return l < ARCH_PT_LEVELS && ((ARCH_PT_LEAF_LEVELS >> l) & 1);
}

/* Whether this CPU can use leaves at level @l (x86: a 1 GiB leaf needs
 * CPUID's 1 GiB-page flag; arm64 with 4 KiB granules and POWER radix:
 * every level arch_pt_leaf_level() allows). Kernel only. */
bool arch_mmu_leaf_usable(unsigned l);

/* Whether this CPU can map a page without execute permission (x86: the
 * NX bit, when CPUID has it and EFER.NXE is set, else bit 63 is reserved;
 * arm64: UXN/PXN, always; POWER radix: the EAA execute bit, always).
 * Without it every leaf must ask for ARCH_PERM_EXEC. Kernel only. */
bool arch_mmu_noexec(void);

#endif

/*
 * asm/mmu.h (arm64): VMSAv8-64 translation table descriptors with a 4 KiB
 * granule and 48-bit addresses, for arch/mmu.h. Pure definitions.
 *
 * Arm ARM (DDI 0487), "VMSAv8-64 translation table format descriptors":
 * lookup levels 0 to 3, 512 entries each; memboot's level l is Arm's lookup
 * level 3 - l. Bit 0 is valid; bit 1 says table (levels 0-2) or page
 * (level 3), and a valid descriptor with bit 1 clear is a block, allowed at
 * levels 1 (1 GiB) and 2 (2 MiB) only. A block or page carries AttrIndx
 * [4:2] (an index into MAIR_EL1), AP[2:1] [7:6] (AP[2] read-only, AP[1]
 * EL0 access), SH [9:8], AF [10] (an access with AF clear takes an Access
 * flag fault unless hardware management is on), nG [11], DBM [51], PXN
 * [53] and UXN [54]; addresses are bits [47:12].
 *
 * Not yet checked on hardware or under QEMU (no arm64 port runs yet): the
 * encoding is transcribed from the Arm ARM and matches Linux's
 * arch/arm64/include/asm/pgtable-hwdef.h. The port programs MAIR_EL1
 * attribute 0 as Normal write-back memory and TCR_EL1.T0SZ = 16.
 */
#ifndef MEMBOOT_ASM_MMU_H
#define MEMBOOT_ASM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define A64_DESC_VALID (1ULL << 0)
#define A64_DESC_TABLE (1ULL << 1)      /* table (levels 0-2) or page (level 3) */
#define A64_ATTRINDX(n) ((uint64_t)(n) << 2)
#define A64_ATTR_NORMAL 0               /* MAIR_EL1 Attr0: Normal, write-back */
#define A64_AP_USER (1ULL << 6)         /* AP[1]: EL0 may access */
#define A64_AP_RDONLY (1ULL << 7)       /* AP[2]: read-only */
#define A64_SH_INNER (3ULL << 8)        /* inner shareable */
#define A64_AF (1ULL << 10)             /* access flag */
#define A64_NG (1ULL << 11)             /* not global: tagged with the ASID */
#define A64_DBM (1ULL << 51)            /* dirty bit modifier */
#define A64_PXN (1ULL << 53)            /* privileged execute never */
#define A64_UXN (1ULL << 54)            /* unprivileged execute never */
#define A64_ADDR 0x0000fffffffff000ULL  /* output address [47:12] */

#define ARCH_PT_LEVELS 4
#define ARCH_PT_INDEX_BITS(l) 9
#define ARCH_PT_SHIFT(l) (12 + 9 * (l))   /* 0: lookup level 3 ... 3: level 0 */
#define ARCH_PT_LEAF_LEVELS 0x7u          /* page, 2 MiB block, 1 GiB block */
/* TTBR0_EL1's half with T0SZ = 16: [0, 2^48). */
#define ARCH_PT_VA_LIMIT (1ULL << 48)

/* Descriptor windows in TTBR1_EL1's half (T1SZ = 16 starts it at
 * 0xffff000000000000), at the same place as on x86_64. */
#define ARCH_MEMMAP_WINDOW_BASE 0xffffa00000000000ULL
#define ARCH_MEMMAP_WINDOW_BYTES (1ULL << 38)

/* APTable, PXNTable and UXNTable left 0: the leaf decides. */
static inline uint64_t arch_pte_table(uint64_t table_phys, unsigned level)
{
	(void)level;
	return (table_phys & A64_ADDR) | A64_DESC_TABLE | A64_DESC_VALID;
}

/*
 * Kernel pages are PXN unless ARCH_PERM_EXEC, and always UXN; user pages
 * are UXN unless ARCH_PERM_EXEC, and always PXN (the kernel never runs user
 * code). A writable leaf is in the dirty state (DBM set, AP[2] clear: Arm
 * ARM "hardware management of the dirty state"), a read-only one clean.
 */
static inline uint64_t arch_pte_leaf(uint64_t phys, unsigned level, unsigned perms)
{
	uint64_t e = (phys & A64_ADDR) | A64_DESC_VALID | A64_ATTRINDX(A64_ATTR_NORMAL) |
		     A64_SH_INNER | A64_AF;

	if (level == 0)
		e |= A64_DESC_TABLE;     /* a page descriptor */
	e |= (perms & ARCH_PERM_WRITE) ? A64_DBM : A64_AP_RDONLY;
	if (perms & ARCH_PERM_USER)
		e |= A64_AP_USER | A64_PXN | ((perms & ARCH_PERM_EXEC) ? 0 : A64_UXN);
	else
		e |= A64_UXN | ((perms & ARCH_PERM_EXEC) ? 0 : A64_PXN);
	if (!(perms & ARCH_PERM_GLOBAL))
		e |= A64_NG;
	return e;
}

static inline bool arch_pte_present(uint64_t e)
{
	return (e & A64_DESC_VALID) != 0;
}

static inline bool arch_pte_is_table(uint64_t e, unsigned level)
{
	return (e & A64_DESC_VALID) && level != 0 && (e & A64_DESC_TABLE);
}

/* Bit 1 clear at level 3 (memboot's 0) is reserved, and a block at level 0
 * (memboot's 3) does not exist with 4 KiB granules: neither is a leaf. */
static inline bool arch_pte_is_leaf(uint64_t e, unsigned level)
{
	if (!(e & A64_DESC_VALID))
		return false;
	if (level == 0)
		return (e & A64_DESC_TABLE) != 0;
	return !(e & A64_DESC_TABLE) && ((ARCH_PT_LEAF_LEVELS >> level) & 1);
}

static inline uint64_t arch_pte_table_addr(uint64_t e)
{
	return e & A64_ADDR;
}

static inline uint64_t arch_pte_leaf_addr(uint64_t e, unsigned level)
{
	return e & A64_ADDR & ~((1ULL << ARCH_PT_SHIFT(level)) - 1);
}

static inline unsigned arch_pte_perms(uint64_t e, unsigned level)
{
	bool user = (e & A64_AP_USER) != 0;
	unsigned p = ARCH_PERM_READ;

	(void)level;
	if (!(e & A64_AP_RDONLY))
		p |= ARCH_PERM_WRITE;
	if (user)
		p |= ARCH_PERM_USER;
	if (!(e & (user ? A64_UXN : A64_PXN)))
		p |= ARCH_PERM_EXEC;
	if (!(e & A64_NG))
		p |= ARCH_PERM_GLOBAL;
	return p;
}

/* The dirty state: DBM set and AP[2] clear. */
static inline bool arch_pte_written(uint64_t e)
{
	return (e & A64_DBM) && !(e & A64_AP_RDONLY);
}

static inline bool arch_pte_accessed(uint64_t e)
{
	return (e & A64_AF) != 0;
}

static inline bool arch_pte_phys_ok(uint64_t phys)
{
	return (phys & ~A64_ADDR) == 0;
}

/* no BIOS area: SMBIOS comes only through the EFI configuration table (arch/map.h). */
#define ARCH_BIOS_AREA 0

#endif

/*
 * asm/mmu.h (ppc64le): radix tree entries with 4 KiB pages and a 52-bit
 * radix tree, for arch/mmu.h. Pure definitions.
 *
 * Power ISA 3.0 Book III, 6.7.10.2 (radix tree translation): an entry is
 * valid with bit 0 (V); a leaf has bit 1 (L) and carries the real page
 * number in bits 7:51, reference (R, bit 55) and change (C, bit 56), the
 * attribute (ATT, bits 58:59: 0 is normal memory) and the encoded access
 * authority (EAA, bits 60:63: privileged, read, read/write, execute); a
 * directory entry carries the next level's base (NLB, bits 7:58) and size
 * (NLS, bits 59:63, log2 of its entries). The ISA numbers bits from the
 * most significant, so ISA bit b is 1 << (63 - b) here. The MMU reads the
 * tree big-endian: entries are stored byte-swapped on a little-endian
 * kernel, and every function below takes and gives the stored value.
 *
 * With 4 KiB pages and a 52-bit tree the root indexes 13 bits (8192
 * entries, 64 KiB), every other level 9 (Linux's radix-4k.h: PGD 13, PUD,
 * PMD, PTE 9). Leaves at the PMD (2 MiB) and PUD (1 GiB) levels.
 *
 * Not yet checked on hardware or under QEMU (no POWER port runs yet): the
 * encoding is transcribed from the ISA and matches Linux's
 * arch/powerpc/include/asm/book3s/64/{pgtable,radix}.h. No per-entry global
 * bit exists: the kernel's own translations are those of PID 0.
 */
#ifndef MEMBOOT_ASM_MMU_H
#define MEMBOOT_ASM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define PPC_PTE_V (1ULL << 63)               /* valid, ISA bit 0 */
#define PPC_PTE_L (1ULL << 62)               /* leaf, ISA bit 1 */
#define PPC_PTE_RPN 0x01fffffffffff000ULL    /* real page number, ISA bits 7:51 */
#define PPC_PTE_R (1ULL << 8)                /* referenced, ISA bit 55 */
#define PPC_PTE_C (1ULL << 7)                /* changed, ISA bit 56 */
#define PPC_PTE_PRIV (1ULL << 3)             /* EAA privileged, ISA bit 60 */
#define PPC_PTE_READ (1ULL << 2)             /* EAA read, ISA bit 61 */
#define PPC_PTE_WRITE (1ULL << 1)            /* EAA read/write, ISA bit 62 */
#define PPC_PTE_EXEC (1ULL << 0)             /* EAA execute, ISA bit 63 */
#define PPC_PDE_NLB 0x01ffffffffffffe0ULL    /* next level base, ISA bits 7:58 */
#define PPC_PDE_NLS 0x1fULL                  /* next level size, ISA bits 59:63 */

#define ARCH_PT_LEVELS 4
#define ARCH_PT_INDEX_BITS(l) ((l) == 3 ? 13 : 9)
#define ARCH_PT_SHIFT(l) (12 + 9 * (l))   /* 0: PTE ... 3: PGD */
#define ARCH_PT_LEAF_LEVELS 0x7u          /* 4 KiB, 2 MiB, 1 GiB */
/* The 52-bit tree of quadrant 0. */
#define ARCH_PT_VA_LIMIT (1ULL << 52)

/* Descriptor windows in quadrant 3 (the kernel's, 0xc000000000000000 up),
 * where Linux's radix kernel keeps its vmemmap. */
#define ARCH_MEMMAP_WINDOW_BASE 0xc00c000000000000ULL
#define ARCH_MEMMAP_WINDOW_BYTES (1ULL << 38)

/* The stored (big-endian) form of a value and back. */
static inline uint64_t ppc_pte_swap(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

/* The table pointed at is of level @level - 1: NLS is its index bits. */
static inline uint64_t arch_pte_table(uint64_t table_phys, unsigned level)
{
	return ppc_pte_swap(PPC_PTE_V | (table_phys & PPC_PDE_NLB) |
			    (uint64_t)ARCH_PT_INDEX_BITS(level - 1));
}

/* R and C preset (Linux's kernel pages carry both); ATT 0, normal memory.
 * The level does not change a leaf's encoding: its place in the tree says
 * its size. */
static inline uint64_t arch_pte_leaf(uint64_t phys, unsigned level, unsigned perms)
{
	uint64_t e = PPC_PTE_V | PPC_PTE_L | (phys & PPC_PTE_RPN) | PPC_PTE_R | PPC_PTE_C;

	(void)level;
	if (perms & ARCH_PERM_READ)
		e |= PPC_PTE_READ;
	if (perms & ARCH_PERM_WRITE)
		e |= PPC_PTE_WRITE;
	if (perms & ARCH_PERM_EXEC)
		e |= PPC_PTE_EXEC;
	if (!(perms & ARCH_PERM_USER))
		e |= PPC_PTE_PRIV;
	return ppc_pte_swap(e);
}

static inline bool arch_pte_present(uint64_t e)
{
	return (ppc_pte_swap(e) & PPC_PTE_V) != 0;
}

static inline bool arch_pte_is_table(uint64_t e, unsigned level)
{
	uint64_t v = ppc_pte_swap(e);

	return (v & PPC_PTE_V) && level != 0 && !(v & PPC_PTE_L);
}

static inline bool arch_pte_is_leaf(uint64_t e, unsigned level)
{
	uint64_t v = ppc_pte_swap(e);

	return (v & PPC_PTE_V) && (v & PPC_PTE_L) && ((ARCH_PT_LEAF_LEVELS >> level) & 1);
}

static inline uint64_t arch_pte_table_addr(uint64_t e)
{
	return ppc_pte_swap(e) & PPC_PDE_NLB;
}

static inline uint64_t arch_pte_leaf_addr(uint64_t e, unsigned level)
{
	return ppc_pte_swap(e) & PPC_PTE_RPN & ~((1ULL << ARCH_PT_SHIFT(level)) - 1);
}

static inline unsigned arch_pte_perms(uint64_t e, unsigned level)
{
	uint64_t v = ppc_pte_swap(e);

	(void)level;
	return ((v & PPC_PTE_READ) ? ARCH_PERM_READ : 0) |
	       ((v & PPC_PTE_WRITE) ? ARCH_PERM_WRITE : 0) |
	       ((v & PPC_PTE_EXEC) ? ARCH_PERM_EXEC : 0) |
	       ((v & PPC_PTE_PRIV) ? 0 : ARCH_PERM_USER);
}

static inline bool arch_pte_written(uint64_t e)
{
	return (ppc_pte_swap(e) & PPC_PTE_C) != 0;
}

static inline bool arch_pte_accessed(uint64_t e)
{
	return (ppc_pte_swap(e) & PPC_PTE_R) != 0;
}

static inline bool arch_pte_phys_ok(uint64_t phys)
{
	return (phys & ~PPC_PTE_RPN) == 0;
}

/* no BIOS area: SMBIOS comes only through the EFI configuration table (arch/map.h). */
#define ARCH_BIOS_AREA 0

#endif

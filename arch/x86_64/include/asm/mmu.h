/*
 * asm/mmu.h (x86_64): the entry format of 4-level paging, for arch/mmu.h.
 * Pure definitions: no instructions, so the host build of mm/ includes it
 * as it is.
 *
 * Intel SDM vol. 3A, 4.5 (tables 4-14 to 4-20): a PML4 entry (level 3)
 * points to a PDPT, a PDPT entry (level 2) to a page directory or maps
 * 1 GiB with PS, a PD entry (level 1) to a page table or maps 2 MiB with PS,
 * a PTE (level 0) maps 4 KiB. Bit 7 is PS in PDPT and PD entries and PAT in
 * a PTE; bit 12 is PAT in a large-page entry, so a large page's frame
 * address is masked with its own alignment.
 */
#ifndef MEMBOOT_ASM_MMU_H
#define MEMBOOT_ASM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define X86_PTE_P (1ULL << 0)         /* present */
#define X86_PTE_W (1ULL << 1)         /* writable */
#define X86_PTE_U (1ULL << 2)         /* user */
#define X86_PTE_A (1ULL << 5)         /* accessed (set by the CPU) */
#define X86_PTE_D (1ULL << 6)         /* dirty (set by the CPU, leaves only) */
#define X86_PTE_PS (1ULL << 7)        /* PDPT/PD entry: a 1 GiB / 2 MiB leaf */
#define X86_PTE_G (1ULL << 8)         /* global (CR4.PGE) */
#define X86_PTE_LARGE_PAT (1ULL << 12) /* PAT of a large page (bit 7 in a PTE) */
#define X86_PTE_NX (1ULL << 63)       /* no execute (EFER.NXE) */
#define X86_PTE_ADDR 0x000ffffffffff000ULL

#define ARCH_PT_LEVELS 4
#define ARCH_PT_INDEX_BITS(l) 9
#define ARCH_PT_SHIFT(l) (12 + 9 * (l))   /* 0: PTE ... 3: PML4 */
#define ARCH_PT_LEAF_LEVELS 0x7u          /* 4 KiB, 2 MiB (PS), 1 GiB (PS) */
/* The lower canonical half: bits 63..47 of an address are equal (SDM vol.
 * 1, 3.3.7.1), so one root maps [0, 2^47) from 0 up. */
#define ARCH_PT_VA_LIMIT (1ULL << 47)

/* The kernel's virtual layout (arch/map.h): page descriptor windows in the
 * upper canonical half, below nothing else the kernel maps (it runs
 * identity mapped in the lower half). 256 windows of 2^38 bytes end at
 * 0xffffe00000000000. */
#define ARCH_MEMMAP_WINDOW_BASE 0xffffa00000000000ULL
#define ARCH_MEMMAP_WINDOW_BYTES (1ULL << 38)

/* A table pointer allows everything (present, writable): the SDM ANDs the
 * rights of every level, so the leaf decides. */
static inline uint64_t arch_pte_table(uint64_t table_phys, unsigned level)
{
	(void)level;
	return table_phys | X86_PTE_P | X86_PTE_W;
}

/* Present pages are always readable on x86 (ARCH_PERM_READ is implied). */
static inline uint64_t arch_pte_leaf(uint64_t phys, unsigned level, unsigned perms)
{
	uint64_t e = phys | X86_PTE_P | X86_PTE_A | X86_PTE_D;

	if (perms & ARCH_PERM_WRITE)
		e |= X86_PTE_W;
	if (!(perms & ARCH_PERM_EXEC))
		e |= X86_PTE_NX;
	if (perms & ARCH_PERM_USER)
		e |= X86_PTE_U;
	if (perms & ARCH_PERM_GLOBAL)
		e |= X86_PTE_G;
	if (level != 0)
		e |= X86_PTE_PS;
	return e;
}

static inline bool arch_pte_present(uint64_t e)
{
	return (e & X86_PTE_P) != 0;
}

static inline bool arch_pte_is_table(uint64_t e, unsigned level)
{
	return (e & X86_PTE_P) && level != 0 && !(e & X86_PTE_PS);
}

static inline bool arch_pte_is_leaf(uint64_t e, unsigned level)
{
	return (e & X86_PTE_P) && (level == 0 || (e & X86_PTE_PS));
}

static inline uint64_t arch_pte_table_addr(uint64_t e)
{
	return e & X86_PTE_ADDR;
}

static inline uint64_t arch_pte_leaf_addr(uint64_t e, unsigned level)
{
	return e & X86_PTE_ADDR & ~((1ULL << ARCH_PT_SHIFT(level)) - 1);
}

static inline unsigned arch_pte_perms(uint64_t e, unsigned level)
{
	(void)level;
	return ARCH_PERM_READ | ((e & X86_PTE_W) ? ARCH_PERM_WRITE : 0) |
	       ((e & X86_PTE_NX) ? 0 : ARCH_PERM_EXEC) | ((e & X86_PTE_U) ? ARCH_PERM_USER : 0) |
	       ((e & X86_PTE_G) ? ARCH_PERM_GLOBAL : 0);
}

static inline bool arch_pte_written(uint64_t e)
{
	return (e & X86_PTE_D) != 0;
}

static inline bool arch_pte_accessed(uint64_t e)
{
	return (e & X86_PTE_A) != 0;
}

/* MAXPHYADDR is at most 52 (SDM vol. 3A 4.1.4). */
static inline bool arch_pte_phys_ok(uint64_t phys)
{
	return (phys & ~X86_PTE_ADDR) == 0;
}

/* the PC BIOS area [0xF0000, 0x100000) may hold an SMBIOS entry point (arch/map.h). */
#define ARCH_BIOS_AREA 1

#endif

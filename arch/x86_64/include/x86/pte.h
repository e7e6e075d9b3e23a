/*
 * arch/pte.h: page-table entry bits of x86_64 4-level paging, for generic
 * page-table code (mm/pt/pt.c). Pure definitions: no instructions, so the host
 * build of mm/ includes it as it is.
 *
 * Intel SDM vol. 3A, 4.5 (tables 4-14 to 4-20): a PML4 entry points to a
 * PDPT, a PDPT entry to a page directory (or maps 1 GiB with PS), a PD entry
 * to a page table (or maps 2 MiB with PS), a PTE maps 4 KiB. Bit 7 is PS in
 * PDPT and PD entries and PAT in a PTE; bit 12 is PAT in a large-page entry,
 * so a large page's frame address is masked with its own alignment.
 */
#ifndef MEMBOOT_ARCH_PTE_H
#define MEMBOOT_ARCH_PTE_H

#include <stdint.h>

#define ARCH_PTE_P (1ULL << 0)        /* present */
#define ARCH_PTE_W (1ULL << 1)        /* writable */
#define ARCH_PTE_U (1ULL << 2)        /* user */
#define ARCH_PTE_A (1ULL << 5)        /* accessed (set by the CPU) */
#define ARCH_PTE_D (1ULL << 6)        /* dirty (set by the CPU, leaves only) */
#define ARCH_PTE_PS (1ULL << 7)       /* PDPT/PD entry: a 1 GiB / 2 MiB leaf */
#define ARCH_PTE_G (1ULL << 8)        /* global */
#define ARCH_PTE_NX (1ULL << 63)      /* no execute (EFER.NXE) */
#define ARCH_PTE_ADDR 0x000ffffffffff000ULL

/* Levels, leaf first: index = (va >> ARCH_PT_SHIFT(level)) & 511. */
#define ARCH_PT_LEVELS 4
#define ARCH_PT_ENTRIES 512
#define ARCH_PT_SHIFT(level) (12 + 9 * (level))    /* 0: PTE ... 3: PML4 */

/* Flags a table pointer (non-leaf entry) carries: present and writable;
 * the leaf decides the final permission (the SDM ANDs them together). */
#define ARCH_PTE_TABLE (ARCH_PTE_P | ARCH_PTE_W)

/* Frame address of an entry at @level that is a leaf (level 0, or PS). */
static inline uint64_t arch_pte_leaf_addr(uint64_t e, unsigned level)
{
	return e & ARCH_PTE_ADDR & ~((1ULL << ARCH_PT_SHIFT(level)) - 1);
}

#endif

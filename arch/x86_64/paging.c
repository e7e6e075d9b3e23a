/*
 * paging.c: split a 2 MiB identity mapping and unmap one 4 KiB page.
 */
#include "arch/paging.h"

#include <stddef.h>

#define PTE_PRESENT (1ULL << 0)
#define PTE_WRITE (1ULL << 1)
#define PTE_LARGE (1ULL << 7)      /* PS: a 2 MiB page in a PD entry */
#define PTE_ADDR_MASK 0x000ffffffffff000ULL
#define PTE_FLAGS_MASK (~PTE_ADDR_MASK)

extern uint64_t boot_pml4[512];

static uint64_t *pd_entry(uint64_t addr)
{
	uint64_t pml4e = boot_pml4[(addr >> 39) & 511];
	if (!(pml4e & PTE_PRESENT))
		return NULL;
	uint64_t *pdpt = (uint64_t *)(uintptr_t)(pml4e & PTE_ADDR_MASK);
	uint64_t pdpte = pdpt[(addr >> 30) & 511];
	if (!(pdpte & PTE_PRESENT) || (pdpte & PTE_LARGE))
		return NULL;
	uint64_t *pd = (uint64_t *)(uintptr_t)(pdpte & PTE_ADDR_MASK);
	return &pd[(addr >> 21) & 511];
}

bool arch_unmap_page(uint64_t addr, uint64_t (*alloc_table)(void *ctx), void *ctx)
{
	uint64_t *pde = pd_entry(addr);
	uint64_t *pt;

	if (!pde || !(*pde & PTE_PRESENT))
		return false;
	if (*pde & PTE_LARGE) {
		uint64_t table = alloc_table(ctx);
		uint64_t base = *pde & PTE_ADDR_MASK & ~((1ULL << 21) - 1);
		/* Keep the 2 MiB page's attributes, without PS (bit 7 means PAT
		 * in a 4 KiB entry) and without the large-page PAT bit 12. */
		uint64_t flags = *pde & PTE_FLAGS_MASK & ~(PTE_LARGE | (1ULL << 12));

		if (!table)
			return false;
		pt = (uint64_t *)(uintptr_t)table;
		for (int i = 0; i < 512; i++)
			pt[i] = (base + ((uint64_t)i << 12)) | flags;
		*pde = table | PTE_PRESENT | PTE_WRITE;
		__asm__ volatile("mov %%cr3, %%rax; mov %%rax, %%cr3" ::: "rax", "memory");
	}
	pt = (uint64_t *)(uintptr_t)(*pde & PTE_ADDR_MASK);
	pt[(addr >> 12) & 511] = 0;
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
	return true;
}

bool arch_is_mapped(uint64_t addr)
{
	uint64_t *pde = pd_entry(addr);

	if (!pde || !(*pde & PTE_PRESENT))
		return false;
	if (*pde & PTE_LARGE)
		return true;
	uint64_t *pt = (uint64_t *)(uintptr_t)(*pde & PTE_ADDR_MASK);
	return pt[(addr >> 12) & 511] & PTE_PRESENT;
}

/*
 * paging.c: the kernel's identity map and changes to it (arch/map.h), on
 * 4-level paging (Intel SDM vol. 3A, 4.5; the entry bits are asm/mmu.h's).
 */
#include "arch/map.h"

#include <stddef.h>
#include <string.h>

#include "x86/cpu.h"

/* The boot map entry32.S builds: the first 64 GiB in 2 MiB pages. */
#define BOOT_MAP_BYTES (64ULL << 30)

#define SZ_4K (1ULL << 12)
#define SZ_2M (1ULL << 21)
#define SZ_1G (1ULL << 30)
#define SZ_4G (1ULL << 32)

extern uint64_t boot_pml4[512];
extern char __kernel_start[], __text_end[], __rodata_end[], __kernel_end[];

static uint64_t mapped_top = BOOT_MAP_BYTES;

static uint64_t *table_of(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & X86_PTE_ADDR);
}

static uint64_t *current_pml4(void)
{
	return (uint64_t *)(uintptr_t)(read_cr3() & X86_PTE_ADDR);
}

static uint64_t *new_table(arch_pt_alloc_fn alloc, void *ctx, struct arch_direct_map_stats *st)
{
	uint64_t phys = alloc(ctx);
	if (!phys)
		return NULL;
	memset((void *)(uintptr_t)phys, 0, SZ_4K);
	if (st)
		st->tables++;
	return (uint64_t *)(uintptr_t)phys;
}

/* The next-level table under @entry, created if absent. */
static uint64_t *descend(uint64_t *entry, arch_pt_alloc_fn alloc, void *ctx,
			 struct arch_direct_map_stats *st)
{
	if (!(*entry & X86_PTE_P)) {
		uint64_t *t = new_table(alloc, ctx, st);
		if (!t)
			return NULL;
		/* Upper levels allow everything; leaves decide. */
		*entry = (uint64_t)(uintptr_t)t | X86_PTE_P | X86_PTE_W;
	}
	return table_of(*entry);
}

/*
 * Permissions of the 4 KiB page at @addr. The kernel image is W^X; the first
 * MiB stays executable because the SMP trampoline runs there (it is copied
 * to a free page below 1 MiB and executes in 64-bit mode before it jumps
 * into the kernel); everything else is data.
 */
static uint64_t flags_4k(uint64_t addr, uint64_t nx)
{
	if (addr >= (uint64_t)__kernel_start && addr < (uint64_t)__text_end)
		return X86_PTE_P | X86_PTE_G;                       /* text: read, execute */
	if (addr >= (uint64_t)__text_end && addr < (uint64_t)__rodata_end)
		return X86_PTE_P | X86_PTE_G | nx;                  /* rodata: read only */
	if (addr < 0x100000)
		return X86_PTE_P | X86_PTE_W;                       /* trampoline area */
	return X86_PTE_P | X86_PTE_W | nx;
}

/* The region mapped with 4 KiB pages: 2 MiB-aligned around the kernel. */
static void small_zone(uint64_t *start, uint64_t *end)
{
	*start = 0;
	*end = ((uint64_t)__kernel_end + SZ_2M - 1) & ~(SZ_2M - 1);
}

static bool map_range(uint64_t *pml4, uint64_t start, uint64_t end, bool huge_1g,
		      arch_pt_alloc_fn alloc, void *ctx, struct arch_direct_map_stats *st)
{
	const uint64_t nx = cpu_features.nx ? X86_PTE_NX : 0;
	uint64_t zs, ze;

	small_zone(&zs, &ze);
	while (start < end) {
		uint64_t *pdpt = descend(&pml4[(start >> 39) & 511], alloc, ctx, st);
		if (!pdpt)
			return false;
		uint64_t *pdpte = &pdpt[(start >> 30) & 511];
		bool in_zone = start < ze && start + SZ_1G > zs;

		if (huge_1g && !(start & (SZ_1G - 1)) && end - start >= SZ_1G && !in_zone &&
		    !(*pdpte & X86_PTE_P)) {
			*pdpte = start | X86_PTE_P | X86_PTE_W | X86_PTE_PS | X86_PTE_G | nx;
			st->bytes_1g += SZ_1G;
			start += SZ_1G;
			continue;
		}
		uint64_t *pd = descend(pdpte, alloc, ctx, st);
		if (!pd)
			return false;
		uint64_t *pde = &pd[(start >> 21) & 511];
		in_zone = start < ze && start + SZ_2M > zs;
		if (!(start & (SZ_2M - 1)) && end - start >= SZ_2M && !in_zone && !(*pde & X86_PTE_P)) {
			*pde = start | X86_PTE_P | X86_PTE_W | X86_PTE_PS | X86_PTE_G | nx;
			st->bytes_2m += SZ_2M;
			start += SZ_2M;
			continue;
		}
		uint64_t *pt = descend(pde, alloc, ctx, st);
		if (!pt)
			return false;
		pt[(start >> 12) & 511] = start | flags_4k(start, nx);
		st->bytes_4k += SZ_4K;
		start += SZ_4K;
	}
	return true;
}

bool arch_direct_map(const struct mem_range *map, uint32_t nr_map, arch_pt_alloc_fn alloc,
		     void *ctx, struct arch_direct_map_stats *st)
{
	uint64_t *pml4;

	memset(st, 0, sizeof(*st));
	pml4 = new_table(alloc, ctx, st);
	if (!pml4 || !map_range(pml4, 0, SZ_4G, cpu_features.pdpe1gb, alloc, ctx, st))
		return false;
	st->top = SZ_4G;
	for (uint32_t i = 0; i < nr_map; i++) {
		const struct mem_range *r = &map[i];
		uint64_t s = r->start < SZ_4G ? SZ_4G : r->start;

		if (r->type == MEM_RESERVED || r->type == MEM_UNUSABLE || r->end <= s)
			continue;
		if (!map_range(pml4, s, r->end, cpu_features.pdpe1gb, alloc, ctx, st))
			return false;
		if (r->end > st->top)
			st->top = r->end;
	}
	/* CR4.PGE for the global bit, CR0.WP so that read-only binds ring 0
	 * too (SDM vol. 3A 4.6), then the switch. */
	__asm__ volatile("mov %%cr4, %%rax; or $0x80, %%rax; mov %%rax, %%cr4\n\t"
			 "mov %%cr0, %%rax; or $0x10000, %%rax; mov %%rax, %%cr0\n\t"
			 "mov %0, %%cr3"
			 : : "r"((uint64_t)(uintptr_t)pml4) : "rax", "memory");
	mapped_top = st->top;
	return true;
}

uint64_t arch_mapped_top(void)
{
	return mapped_top;
}

bool arch_mmu_leaf_usable(unsigned level)
{
	return level < 2 || (level == 2 && cpu_features.pdpe1gb);
}

bool arch_mmu_noexec(void)
{
	/* The entry code sets EFER.NXE when CPUID has NX; without it bit 63 is
	 * reserved. */
	return cpu_features.nx;
}

const void *arch_map_phys(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (phys == 0 || len > mapped_top || phys > mapped_top - len)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

bool arch_map_range(uint64_t virt, uint64_t phys, uint64_t bytes, arch_pt_alloc_fn alloc, void *ctx)
{
	const uint64_t nx = cpu_features.nx ? X86_PTE_NX : 0;
	uint64_t *pml4 = current_pml4();

	if ((virt | phys | bytes) & (SZ_4K - 1))
		return false;
	while (bytes) {
		uint64_t *pdpt = descend(&pml4[(virt >> 39) & 511], alloc, ctx, NULL);
		if (!pdpt || (pdpt[(virt >> 30) & 511] & X86_PTE_PS))
			return false;
		uint64_t *pd = descend(&pdpt[(virt >> 30) & 511], alloc, ctx, NULL);
		if (!pd)
			return false;
		uint64_t *pde = &pd[(virt >> 21) & 511];
		if (!((virt | phys) & (SZ_2M - 1)) && bytes >= SZ_2M) {
			if (*pde & X86_PTE_P)
				return false;
			*pde = phys | X86_PTE_P | X86_PTE_W | X86_PTE_PS | X86_PTE_G | nx;
			virt += SZ_2M, phys += SZ_2M, bytes -= SZ_2M;
			continue;
		}
		if (*pde & X86_PTE_PS)
			return false;
		uint64_t *pt = descend(pde, alloc, ctx, NULL);
		if (!pt)
			return false;
		uint64_t *pte = &pt[(virt >> 12) & 511];
		if (*pte & X86_PTE_P)
			return false;
		*pte = phys | X86_PTE_P | X86_PTE_W | X86_PTE_G | nx;
		virt += SZ_4K, phys += SZ_4K, bytes -= SZ_4K;
	}
	return true;
}

static void flush_all(void)
{
	/* Toggling CR4.PGE flushes global entries too. */
	__asm__ volatile("mov %%cr4, %%rax; mov %%rax, %%rdx; xor $0x80, %%rdx\n\t"
			 "mov %%rdx, %%cr4; mov %%rax, %%cr4" ::: "rax", "rdx", "memory");
}

/* Replace the large page in @entry (of @size) by a table of smaller ones. */
static bool split(uint64_t *entry, uint64_t size, arch_pt_alloc_fn alloc, void *ctx)
{
	uint64_t *t = new_table(alloc, ctx, NULL);
	uint64_t base = *entry & X86_PTE_ADDR & ~(size - 1);
	uint64_t flags = *entry & ~X86_PTE_ADDR;
	uint64_t sub = size >> 9;

	if (!t)
		return false;
	if (sub == SZ_4K)
		flags &= ~(X86_PTE_PS | X86_PTE_LARGE_PAT);   /* bit 7 means PAT in a 4 KiB PTE */
	for (int i = 0; i < 512; i++)
		t[i] = (base + (uint64_t)i * sub) | flags;
	*entry = (uint64_t)(uintptr_t)t | X86_PTE_P | X86_PTE_W;
	flush_all();
	return true;
}

bool arch_unmap_page(uint64_t addr, arch_pt_alloc_fn alloc, void *ctx)
{
	uint64_t *e = &current_pml4()[(addr >> 39) & 511];

	if (!(*e & X86_PTE_P))
		return false;
	e = &table_of(*e)[(addr >> 30) & 511];
	if (!(*e & X86_PTE_P) || ((*e & X86_PTE_PS) && !split(e, SZ_1G, alloc, ctx)))
		return false;
	e = &table_of(*e)[(addr >> 21) & 511];
	if (!(*e & X86_PTE_P) || ((*e & X86_PTE_PS) && !split(e, SZ_2M, alloc, ctx)))
		return false;
	table_of(*e)[(addr >> 12) & 511] = 0;
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
	return true;
}

bool arch_set_executable(uint64_t start, uint64_t end, bool exec)
{
	uint64_t *pml4 = current_pml4();

	if (!cpu_features.nx)
		return true;        /* no NX bit: everything mapped is executable */
	start &= ~(SZ_4K - 1);
	while (start < end) {
		uint64_t *e = &pml4[(start >> 39) & 511], size = SZ_4K;

		if (!(*e & X86_PTE_P))
			return false;
		e = &table_of(*e)[(start >> 30) & 511];
		if ((*e & X86_PTE_P) && (*e & X86_PTE_PS)) {
			size = SZ_1G;
		} else if (*e & X86_PTE_P) {
			e = &table_of(*e)[(start >> 21) & 511];
			if ((*e & X86_PTE_P) && (*e & X86_PTE_PS))
				size = SZ_2M;
			else if (*e & X86_PTE_P)
				e = &table_of(*e)[(start >> 12) & 511];
		}
		if (!(*e & X86_PTE_P))
			return false;
		*e = exec ? *e & ~X86_PTE_NX : *e | X86_PTE_NX;
		start = (start & ~(size - 1)) + size;
	}
	/* The entries are global: toggling CR4.PGE flushes them too (SDM vol.
	 * 3A 4.10.4.1). */
	__asm__ volatile("mov %%cr4, %%rax; xor $0x80, %%rax; mov %%rax, %%cr4\n\t"
			 "xor $0x80, %%rax; mov %%rax, %%cr4" : : : "rax", "memory");
	return true;
}

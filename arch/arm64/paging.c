/*
 * paging.c (arm64): the kernel's own map (arch/map.h), the MMU's abilities
 * (arch/mmu.h) and TLB maintenance (arch/tlb.h), VMSAv8-64 with 4 KiB
 * granules and 48-bit VAs (asm/mmu.h has the descriptor format).
 *
 * One root serves both halves (TTBR0_EL1 and TTBR1_EL1 point at it, as
 * entry.S sets up): the identity map in the lower half, the descriptor
 * windows (ARCH_MEMMAP_WINDOW_BASE) in the upper, as x86's one PML4 holds
 * both. Device memory (every address below the first RAM range under
 * 4 GiB, and the holes between ranges there) is Device-nGnRE and never
 * executable (MAIR_EL1 Attr1, a64/sysregs.h); RAM is Normal write-back.
 * So is firmware memory inside RAM: a reserved range with RAM right before
 * and right after it (UEFI's runtime services data, where AAVMF keeps the
 * SMBIOS tables), read with unaligned loads that Device memory faults; a
 * reserved range next to a hole or below the first RAM (AAVMF's variable
 * flash at 0x4000000, MMIO) stays Device.
 *
 * Changing a live entry from one valid descriptor to another of a
 * different size needs break-before-make (Arm ARM D8.16); memboot builds
 * the kernel's map in fresh tables and switches to it whole, and later
 * only fills empty entries or clears one (arch_unmap_page) with a TLBI
 * after it.
 */
#include <stdint.h>
#include <string.h>

#include "a64/gic.h"
#include "a64/sysregs.h"
#include "arch/map.h"
#include "arch/mmu.h"
#include "arch/tlb.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"

extern uint64_t arm64_boot_l0[512];
extern char __kernel_start[], __text_end[], __rodata_end[], __kernel_end[];

/* The boot map covers 512 GiB (entry.S's L1 of 1 GiB blocks). */
static uint64_t mapped_top = 512ULL << 30;

#define TTBR_ADDR 0x0000fffffffffffeULL

static uint64_t *table_at(uint64_t phys)
{
	return (uint64_t *)(uintptr_t)phys;
}

static uint64_t root_now(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, ttbr0_el1" : "=r"(v));
	return v & TTBR_ADDR;
}

static uint64_t device_leaf(uint64_t phys, unsigned level)
{
	return (phys & A64_ADDR) | A64_DESC_VALID | (level == 0 ? A64_DESC_TABLE : 0) |
	       A64_ATTRINDX(A64_ATTR_DEVICE) | A64_AF | A64_PXN | A64_UXN;
}

/*
 * The table below the entry of @va at level @l of @t, made if missing. A
 * block there is split into the next level's entries of the same memory
 * and attributes when @split, else refused (NULL).
 */
static uint64_t *descend(uint64_t *t, unsigned l, uint64_t va, bool split,
			 arch_pt_alloc_fn alloc, void *ctx)
{
	uint64_t *e = &t[arch_pt_index(va, l)];

	if (arch_pte_is_table(*e, l))
		return table_at(arch_pte_table_addr(*e));
	if (arch_pte_present(*e) && !split)
		return NULL;
	const uint64_t p = alloc(ctx);
	if (!p)
		return NULL;
	uint64_t *nt = table_at(p);
	if (arch_pte_is_leaf(*e, l)) {
		const uint64_t base = arch_pte_leaf_addr(*e, l);
		const uint64_t attrs = *e & ~A64_ADDR & ~A64_DESC_TABLE;
		const uint64_t step = 1ULL << ARCH_PT_SHIFT(l - 1);
		for (unsigned i = 0; i < ARCH_PT_ENTRIES(l - 1); i++)
			nt[i] = (base + i * step) | attrs | (l - 1 == 0 ? A64_DESC_TABLE : 0);
	} else {
		memset(nt, 0, 4096);
	}
	__asm__ volatile("dsb ishst" ::: "memory");
	*e = arch_pte_table(p, l);
	return nt;
}

enum kind { NORMAL, DEVICE };

static uint64_t *leaf_of(uint64_t va, unsigned *level);

/*
 * Map [va, va + bytes) to pa with the largest leaves that fit (up to
 * @max_level), each entry either new (@replace false: an existing one is
 * refused) or overwriting (@replace: the kernel's map under construction).
 */
static bool map(uint64_t root, uint64_t va, uint64_t pa, uint64_t bytes, enum kind kind,
		unsigned perms, unsigned max_level, bool replace, arch_pt_alloc_fn alloc,
		void *ctx, struct arch_direct_map_stats *st)
{
	while (bytes) {
		unsigned l = max_level;
		while (l > 0 && (((va | pa) & ((1ULL << ARCH_PT_SHIFT(l)) - 1)) ||
				 bytes < (1ULL << ARCH_PT_SHIFT(l))))
			l--;
		uint64_t *t = table_at(root);
		for (unsigned k = ARCH_PT_ROOT; k > l; k--) {
			t = descend(t, k, va, replace, alloc, ctx);
			if (!t)
				return false;
			if (st)
				st->tables++;   /* an upper bound: existing tables count too */
		}
		uint64_t *e = &t[arch_pt_index(va, l)];
		if (arch_pte_present(*e) && !replace)
			return false;
		*e = kind == DEVICE ? device_leaf(pa, l) : arch_pte_leaf(pa, l, perms);
		const uint64_t size = 1ULL << ARCH_PT_SHIFT(l);
		if (st)
			*(l == 2 ? &st->bytes_1g : l == 1 ? &st->bytes_2m : &st->bytes_4k) += size;
		va += size;
		pa += size;
		bytes -= size;
	}
	return true;
}

bool arch_mmu_leaf_usable(unsigned l)
{
	return arch_pt_leaf_level(l);
}

bool arch_mmu_noexec(void)
{
	return true;
}

static void switch_root(uint64_t root)
{
	__asm__ volatile("dsb ishst\n\t"
			 "msr ttbr0_el1, %0\n\t"
			 "msr ttbr1_el1, %0\n\t"
			 "isb\n\t"
			 "tlbi vmalle1\n\t"
			 "dsb nsh\n\t"
			 "isb" : : "r"(root) : "memory");
}

static bool is_ram(const struct mem_range *r)
{
	return r->type == MEM_USABLE || r->type == MEM_ACPI || r->type == MEM_NVS;
}

/* Firmware memory: a reserved range of the normalized map between two RAM
 * ranges, touching both. */
static bool firmware_ram(const struct mem_range *mr, uint32_t nr_map, uint32_t i)
{
	return mr[i].type == MEM_RESERVED && i > 0 && i + 1 < nr_map &&
	       is_ram(&mr[i - 1]) && mr[i - 1].end == mr[i].start &&
	       is_ram(&mr[i + 1]) && mr[i + 1].start == mr[i].end;
}

bool arch_direct_map(const struct mem_range *mr, uint32_t nr_map, arch_pt_alloc_fn alloc,
		     void *ctx, struct arch_direct_map_stats *st)
{
	const unsigned rw = ARCH_PERM_READ | ARCH_PERM_WRITE | ARCH_PERM_GLOBAL;
	const uint64_t low = 4ULL << 30;
	uint64_t root = alloc(ctx), top = low;

	memset(st, 0, sizeof(*st));
	if (!root)
		return false;
	memset(table_at(root), 0, 4096);
	st->tables = 1;
	/* [0, 4 GiB): devices (MMIO, flash, the GIC), RAM replaces them below. */
	if (!map(root, 0, 0, low, DEVICE, 0, 2, true, alloc, ctx, NULL))
		return false;
	for (uint32_t i = 0; i < nr_map; i++) {
		const struct mem_range *r = &mr[i];
		if (!is_ram(r) && !firmware_ram(mr, nr_map, i))
			continue;
		const uint64_t s = r->start & ~0xfffULL, e = (r->end + 0xfff) & ~0xfffULL;
		if (e <= s)
			continue;
		if (!map(root, s, s, e - s, NORMAL, rw, 2, true, alloc, ctx, st))
			return false;
		if (e > top)
			top = e;
	}
	/* The kernel image W^X in 4 KiB pages: text read-execute, rodata
	 * read-only, data and .bss read-write. */
	const uint64_t ks = (uint64_t)__kernel_start, te = (uint64_t)__text_end;
	const uint64_t re = (uint64_t)__rodata_end, ke = (uint64_t)__kernel_end;
	if (!map(root, ks, ks, te - ks, NORMAL, ARCH_PERM_READ | ARCH_PERM_EXEC | ARCH_PERM_GLOBAL,
		 0, true, alloc, ctx, NULL) ||
	    !map(root, te, te, re - te, NORMAL, ARCH_PERM_READ | ARCH_PERM_GLOBAL, 0, true,
		 alloc, ctx, NULL) ||
	    !map(root, re, re, ke - re, NORMAL, rw, 0, true, alloc, ctx, NULL))
		return false;
	st->top = top;
	switch_root(root);
	mapped_top = top;
	return true;
}

/* Table pages for device mappings made after the kernel's map (the GIC's
 * redistributors above 4 GiB): a few, from .bss. */
static uint8_t device_tables[4][4096] __attribute__((aligned(4096)));
static unsigned device_tables_used;

static uint64_t device_table_alloc(void *ctx)
{
	(void)ctx;
	if (device_tables_used == sizeof(device_tables) / sizeof(device_tables[0]))
		return 0;
	return (uint64_t)(uintptr_t)device_tables[device_tables_used++];
}

bool arm64_map_device(uint64_t phys, uint64_t bytes)
{
	const uint64_t s = phys & ~0x1fffffULL, e = (phys + bytes + 0x1fffff) & ~0x1fffffULL;

	/* [0, 4 GiB) is device memory already wherever RAM is not. */
	if (e <= 4ULL << 30)
		return true;
	for (uint64_t a = s; a < e; a += 2ULL << 20) {
		unsigned l;
		const uint64_t *leaf = leaf_of(a, &l);

		if (leaf && (*leaf & (7ULL << 2)) == A64_ATTRINDX(A64_ATTR_DEVICE))
			continue;    /* mapped as a device before */
		if (leaf || !map(root_now(), a, a, 2ULL << 20, DEVICE, 0, 1, false,
				 device_table_alloc, NULL, NULL))
			return false;
	}
	__asm__ volatile("dsb ishst\n\tisb" ::: "memory");
	return true;
}

bool arch_map_range(uint64_t virt, uint64_t phys, uint64_t bytes, arch_pt_alloc_fn alloc,
		    void *ctx)
{
	return map(root_now(), virt, phys, bytes, NORMAL,
		   ARCH_PERM_READ | ARCH_PERM_WRITE | ARCH_PERM_GLOBAL, 1, false, alloc, ctx, NULL);
}

/* The leaf mapping @va in the current map, and its level; NULL if none. */
static uint64_t *leaf_of(uint64_t va, unsigned *level)
{
	uint64_t *t = table_at(root_now());

	for (unsigned l = ARCH_PT_ROOT;; l--) {
		uint64_t *e = &t[arch_pt_index(va, l)];
		if (arch_pte_is_leaf(*e, l)) {
			*level = l;
			return e;
		}
		if (l == 0 || !arch_pte_is_table(*e, l))
			return NULL;
		t = table_at(arch_pte_table_addr(*e));
	}
}

bool arch_set_executable(uint64_t start, uint64_t end, bool exec)
{
	for (uint64_t va = start & ~0xfffULL; va < end;) {
		unsigned l;
		uint64_t *e = leaf_of(va, &l);
		if (!e)
			return false;
		*e = exec ? (*e & ~A64_PXN) : (*e | A64_PXN);
		va = (va & ~((1ULL << ARCH_PT_SHIFT(l)) - 1)) + (1ULL << ARCH_PT_SHIFT(l));
	}
	arch_tlb_invalidate_broadcast(root_now(), 0, 0);
	return true;
}

uint64_t arch_mapped_top(void)
{
	return mapped_top;
}

const void *arch_map_phys(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (phys >= mapped_top || len > mapped_top - phys)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

bool arch_unmap_page(uint64_t addr, arch_pt_alloc_fn alloc, void *ctx)
{
	uint64_t *t = table_at(root_now());

	for (unsigned l = ARCH_PT_ROOT; l > 0; l--) {
		t = descend(t, l, addr, true, alloc, ctx);
		if (!t)
			return false;
	}
	t[arch_pt_index(addr, 0)] = ARCH_PTE_NONE;
	arch_tlb_invalidate_page(addr);
	return true;
}

/* This CPU only: TLBI VAAE1 (any ASID) / VMALLE1, then DSB NSH (Arm ARM
 * D8.13, "TLB maintenance"). */
void arch_tlb_invalidate_page(uint64_t va)
{
	__asm__ volatile("dsb ishst\n\ttlbi vaae1, %0\n\tdsb nsh\n\tisb"
			 : : "r"((va >> 12) & 0xfffffffffffULL) : "memory");
}

void arch_tlb_invalidate_all(void)
{
	__asm__ volatile("dsb ishst\n\ttlbi vmalle1\n\tdsb nsh\n\tisb" ::: "memory");
}

uint64_t arch_space_current(void)
{
	return root_now();
}

/* TTBR0 only: the upper half (the descriptor windows) stays the kernel's. */
void arch_space_switch(uint64_t root)
{
	__asm__ volatile("dsb ishst\n\tmsr ttbr0_el1, %0\n\tisb\n\t"
			 "tlbi vmalle1\n\tdsb nsh\n\tisb" : : "r"(root) : "memory");
}

/* Every CPU of the inner shareable domain: the ...IS forms, complete after
 * DSB ISH. ASIDs are not used (every space is ASID 0), so @root only
 * names the space. */
void arch_tlb_invalidate_broadcast(uint64_t root, uint64_t va, uint64_t bytes)
{
	(void)root;
	if (bytes == 0)
		__asm__ volatile("dsb ishst\n\ttlbi vmalle1is\n\tdsb ish\n\tisb" ::: "memory");
	else
		__asm__ volatile("dsb ishst\n\ttlbi vaae1is, %0\n\tdsb ish\n\tisb"
				 : : "r"((va >> 12) & 0xfffffffffffULL) : "memory");
}

/* arm64 broadcasts its invalidations (ARCH_TLB_BROADCAST 1): no IPI. */
void arch_tlb_ipi_init(void (*handler)(void))
{
	(void)handler;
}

void arch_tlb_ipi_send(uint32_t cpu)
{
	panic("tlb: shootdown IPI to CPU %u on arm64, which broadcasts its invalidations", cpu);
}

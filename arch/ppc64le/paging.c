/*
 * paging.c (ppc64le): the radix MMU (Power ISA 3.0 Book III 6.7.10: the
 * process-scoped tree, asm/mmu.h's entries) for the kernel's map
 * (arch/map.h), the MMU's abilities (arch/mmu.h) and TLB maintenance
 * (arch/tlb.h).
 *
 * In an LPAR, real mode reaches only the real mode area. ppc_mmu_boot()
 * (entry.S, after the firmware's tree is read and before kernel_main())
 * therefore builds a boot map at once: one root (8192 entries, 64 KiB)
 * and one PUD of 1 GiB leaves identity mapping [0, 512 GiB), in .bss;
 * registers a process table whose entry 0 (PID 0, the kernel's) points at
 * it with H_REGISTER_PROC_TBL (PAPR; radix, guest translation shootdown
 * enabled: the guest's own tlbie) and turns translation on (MSR[IR|DR]).
 * The descriptor windows (ARCH_MEMMAP_WINDOW_BASE, quadrant 3, which PID
 * 0's tree translates too) are added to the same root. If the hypervisor
 * refuses the table, the kernel stays in real mode and reaches only the
 * real mode area (ppc_mmu_boot_status says why; phase pagetables' map
 * reports it).
 *
 * The kernel keeps the boot map: arch_direct_map() builds no second map
 * (no W^X of the kernel image yet on POWER).
 */
#include <stdint.h>
#include <string.h>

#include "arch/map.h"
#include "arch/mmu.h"
#include "arch/tlb.h"
#include "kernel/services/log.h"
#include "p64/hcall.h"
#include "p64/ofw.h"
#include "p64/opal.h"
#include "p64/regs.h"

#define BOOT_MAP_BYTES (512ULL << 30)
#define SPR_PIDR 48
/* H_REGISTER_PROC_TBL flags: modify, register, radix, guest shootdown. */
#define PROC_TBL_FLAGS (0x10 | 0x08 | 0x04 | 0x01)
/* A process table entry's doubleword 0 for a 52-bit tree: RTS (52 - 31 =
 * 21) split into RTS1 (ISA bits 1:2) and RTS2 (bits 56:58), then the
 * root's address and RPDS, its index bits. */
#define PRTE_RTS ((2ULL << 61) | (5ULL << 5))

static uint64_t boot_root[8192] __attribute__((aligned(65536)));
static uint64_t boot_pud[512] __attribute__((aligned(4096)));
static uint64_t process_table[512] __attribute__((aligned(4096)));
/* PowerNV: the partition table (its entry 0, the host's, only). */
static uint64_t partition_table[512] __attribute__((aligned(4096)));

#define SPR_LPCR 318
#define SPR_LPIDR 319
#define SPR_PTCR 464
/* LPCR (Power ISA 3.0 Book III 2.2): HR host radix (bit 43), UPRT (bit 41) the process
 * table in use. A partition table entry's doubleword 0 HR bit. */
#define LPCR_HR (1ULL << 20)
#define LPCR_UPRT (1ULL << 22)
#define PATE0_HR (1ULL << 63)

extern uint64_t ppc_pnv_ptcr, ppc_pnv_lpcr;

/* 0: translation on; else the hypervisor's status (real mode only). */
int64_t ppc_mmu_boot_status = -1;
static uint64_t mapped_top;

static uint64_t *table_at(uint64_t phys)
{
	return (uint64_t *)(uintptr_t)phys;
}

static uint64_t root_phys(void)
{
	return (uint64_t)(uintptr_t)boot_root;
}

/* Every CPU's translations of every PID: tlbie with IS=3 (all), RIC=2
 * (TLB and page walk caches), PRS=1, R=1, then tlbsync (Power ISA 3.0
 * Book III 6.10.3). */
static void tlb_flush_all(void)
{
	__asm__ volatile(".machine push\n\t.machine power9\n\t"
			 "ptesync\n\ttlbie %0,%1,2,1,1\n\teieio\n\ttlbsync\n\tptesync\n\t"
			 ".machine pop"
			 : : "r"(3ULL << 10), "r"(0ULL) : "memory");
}

/*
 * PowerNV: the kernel is the hypervisor, so no hypervisor registers the
 * process table: OPAL sets every CPU up for radix (REINIT_CPUS, while
 * every other CPU still waits in OPAL; interrupts stay big-endian, which
 * vectors.S expects), partition table entry 0 (the host's, LPID 0) names
 * the radix root and the process table, PTCR the partition table, LPCR
 * host radix with the process table. Started CPUs load the same PTCR and
 * LPCR (entry.S). Real mode reaches all of memory here, so a refusal
 * leaves the kernel working without translation (no descriptor windows).
 */
static int64_t pnv_register(void)
{
	const int64_t rc = ppc_opal_call(OPAL_REINIT_CPUS,
					 OPAL_REINIT_CPUS_HILE_BE | OPAL_REINIT_CPUS_MMU_RADIX,
					 0, 0, 0);
	if (rc != OPAL_SUCCESS)
		return rc;
	partition_table[0] = ppc_pte_swap(PATE0_HR | PRTE_RTS | root_phys() | ARCH_PT_INDEX_BITS(3));
	partition_table[1] = ppc_pte_swap((uint64_t)(uintptr_t)process_table);   /* 4 KiB */
	uint64_t lpcr;
	__asm__ volatile("mfspr %0, %1" : "=r"(lpcr) : "i"(SPR_LPCR));
	ppc_pnv_lpcr = lpcr | LPCR_HR | LPCR_UPRT;
	ppc_pnv_ptcr = (uint64_t)(uintptr_t)partition_table;   /* 4 KiB: PATS 0 */
	__asm__ volatile("ptesync\n\t"
			 "mtspr %0, %3\n\tisync\n\t"
			 "mtspr %1, %4\n\tisync\n\t"
			 "mtspr %2, %5\n\tisync"
			 : : "i"(SPR_PTCR), "i"(SPR_LPIDR), "i"(SPR_LPCR), "r"(ppc_pnv_ptcr),
			   "r"(0ULL), "r"(ppc_pnv_lpcr)
			 : "memory");
	return 0;
}

void ppc_mmu_boot(void)
{
	const unsigned rwx = ARCH_PERM_READ | ARCH_PERM_WRITE | ARCH_PERM_EXEC;

	mapped_top = ppc_powernv() ? BOOT_MAP_BYTES : ppc_firmware.rma_bytes;
	for (unsigned i = 0; i < 512; i++)
		boot_pud[i] = arch_pte_leaf((uint64_t)i << 30, 2, rwx);
	boot_root[0] = arch_pte_table((uint64_t)(uintptr_t)boot_pud, 3);
	process_table[0] = ppc_pte_swap(PRTE_RTS | root_phys() | ARCH_PT_INDEX_BITS(3));
	process_table[1] = 0;
	__asm__ volatile("ptesync" ::: "memory");
	if (ppc_powernv())
		ppc_mmu_boot_status = pnv_register();
	else
		ppc_mmu_boot_status = ppc_hcall(H_REGISTER_PROC_TBL, PROC_TBL_FLAGS,
						(uint64_t)(uintptr_t)process_table, 0, 0, 0);
	if (ppc_mmu_boot_status != H_SUCCESS)
		return;
	__asm__ volatile("mtspr %0, %1\n\tisync" : : "i"(SPR_PIDR), "r"(0ULL) : "memory");
	tlb_flush_all();
	uint64_t msr;
	__asm__ volatile("mfmsr %0" : "=r"(msr));
	msr |= MSR_IR | MSR_DR;
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr) : "memory");
	mapped_top = BOOT_MAP_BYTES;
}

/*
 * The table below @va's entry at level @l of @t, made if missing; a leaf
 * there is split into the next level's leaves of the same memory and
 * rights when @split, else refused (NULL).
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
		const unsigned perms = arch_pte_perms(*e, l);
		const uint64_t step = 1ULL << ARCH_PT_SHIFT(l - 1);
		for (unsigned i = 0; i < ARCH_PT_ENTRIES(l - 1); i++)
			nt[i] = arch_pte_leaf(base + i * step, l - 1, perms);
	} else {
		memset(nt, 0, 4096);
	}
	__asm__ volatile("ptesync" ::: "memory");
	*e = arch_pte_table(p, l);
	return nt;
}

bool arch_mmu_leaf_usable(unsigned l)
{
	return arch_pt_leaf_level(l);
}

bool arch_mmu_noexec(void)
{
	return ppc_mmu_boot_status == H_SUCCESS;
}

bool arch_direct_map(const struct mem_range *mr, uint32_t nr_map, arch_pt_alloc_fn alloc,
		     void *ctx, struct arch_direct_map_stats *st)
{
	uint64_t top = 0;

	(void)alloc;
	(void)ctx;
	memset(st, 0, sizeof(*st));
	/* Usable memory only: firmware's reserved ranges past it (skiboot's
	 * HOMER and OCC areas at the top of a PowerNV chip's space) are never
	 * the kernel's to touch. */
	for (uint32_t i = 0; i < nr_map; i++)
		if (mr[i].type == MEM_USABLE && mr[i].end > top)
			top = mr[i].end;
	if (ppc_mmu_boot_status != H_SUCCESS && ppc_powernv()) {
		pr_warn("paging: OPAL REINIT_CPUS for radix failed (%s, %lld): translation stays off (real mode reaches all memory; no descriptor windows)",
			ppc_opal_error(ppc_mmu_boot_status), (long long)ppc_mmu_boot_status);
		st->top = mapped_top;
		return true;
	}
	if (ppc_mmu_boot_status != H_SUCCESS) {
		pr_warn("paging: the hypervisor refused the radix process table (H_REGISTER_PROC_TBL status %lld): real mode reaches only the first %llu MiB",
			(long long)ppc_mmu_boot_status,
			(unsigned long long)(mapped_top >> 20));
		st->top = mapped_top;
		return true;
	}
	if (top > mapped_top)
		pr_warn("paging: usable memory ends at 0x%llx, beyond the boot map's %llu GiB",
			(unsigned long long)top, (unsigned long long)(mapped_top >> 30));
	st->bytes_1g = mapped_top;
	st->tables = 2;
	st->top = mapped_top;
	return true;
}

bool arch_map_range(uint64_t virt, uint64_t phys, uint64_t bytes, arch_pt_alloc_fn alloc,
		    void *ctx)
{
	const unsigned rw = ARCH_PERM_READ | ARCH_PERM_WRITE;

	if (ppc_mmu_boot_status != H_SUCCESS)
		return false;
	while (bytes) {
		const unsigned l = ((virt | phys) & ((2ULL << 20) - 1)) == 0 &&
				   bytes >= (2ULL << 20) ? 1 : 0;
		uint64_t *t = boot_root;
		for (unsigned k = ARCH_PT_ROOT; k > l; k--) {
			t = descend(t, k, virt, false, alloc, ctx);
			if (!t)
				return false;
		}
		uint64_t *e = &t[arch_pt_index(virt, l)];
		if (arch_pte_present(*e))
			return false;
		*e = arch_pte_leaf(phys, l, rw);
		const uint64_t size = 1ULL << ARCH_PT_SHIFT(l);
		virt += size;
		phys += size;
		bytes -= size;
	}
	__asm__ volatile("ptesync" ::: "memory");
	return true;
}

/* The leaf mapping @va, and its level; NULL if none. */
static uint64_t *leaf_of(uint64_t va, unsigned *level)
{
	uint64_t *t = boot_root;

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
	if (ppc_mmu_boot_status != H_SUCCESS)
		return end <= mapped_top;
	for (uint64_t va = start & ~0xfffULL; va < end;) {
		unsigned l;
		uint64_t *e = leaf_of(va, &l);
		if (!e)
			return false;
		const unsigned perms = arch_pte_perms(*e, l);
		*e = arch_pte_leaf(arch_pte_leaf_addr(*e, l), l,
				   exec ? perms | ARCH_PERM_EXEC : perms & ~ARCH_PERM_EXEC);
		va = (va & ~((1ULL << ARCH_PT_SHIFT(l)) - 1)) + (1ULL << ARCH_PT_SHIFT(l));
	}
	tlb_flush_all();
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
	uint64_t *t = boot_root;

	if (ppc_mmu_boot_status != H_SUCCESS)
		return false;
	for (unsigned l = ARCH_PT_ROOT; l > 0; l--) {
		t = descend(t, l, addr, true, alloc, ctx);
		if (!t)
			return false;
	}
	t[arch_pt_index(addr, 0)] = ARCH_PTE_NONE;
	tlb_flush_all();
	return true;
}

void arch_tlb_invalidate_page(uint64_t va)
{
	(void)va;
	tlb_flush_all();
}

void arch_tlb_invalidate_all(void)
{
	tlb_flush_all();
}

/* One space, PID 0's: address spaces of their own (kernel/vm) are not
 * switched to on POWER yet. */
uint64_t arch_space_current(void)
{
	return root_phys();
}

void arch_space_switch(uint64_t root)
{
	if (root != root_phys())
		pr_warn("paging: switching address spaces is not implemented on POWER yet");
}

void arch_tlb_invalidate_broadcast(uint64_t root, uint64_t va, uint64_t bytes)
{
	(void)root; (void)va; (void)bytes;
	tlb_flush_all();
}

/* tlbie is broadcast (ARCH_TLB_BROADCAST 1): no IPI. */
void arch_tlb_ipi_init(void (*handler)(void))
{
	(void)handler;
}

void arch_tlb_ipi_send(uint32_t cpu)
{
	(void)cpu;
}

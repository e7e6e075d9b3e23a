/*
 * arch/map.h: the kernel's own mappings. memboot runs identity mapped (a
 * physical address is its own virtual address) on a map the boot path
 * built; phase pagetables replaces it with the kernel's own, W^X, and the
 * functions below change it afterwards. The other address spaces (mm/pt
 * tables, kernel/vm/) are built on arch/mmu.h and arch/tlb.h instead.
 *
 * x86_64: the boot map is the first 64 GiB in 2 MiB pages (entry32.S);
 * the kernel's map covers [0, 4 GiB) (RAM, firmware and MMIO such as the
 * local APIC) and every RAM and ACPI range above, with the largest pages
 * that fit (1 GiB where the CPU has them), the kernel image in 4 KiB pages:
 * text read-execute, rodata read-only, data and .bss read-write
 * no-execute. arm64 and POWER: declared here, built with their ports.
 */
#ifndef MEMBOOT_ARCH_MAP_H
#define MEMBOOT_ARCH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/mmu.h"
#include "kernel/services/mem_range.h"

/* Returns the physical address of a fresh 4 KiB page for a table, or 0
 * (x86_64: below 4 GiB, as the SMP trampoline loads the root in 32-bit
 * mode). */
typedef uint64_t (*arch_pt_alloc_fn)(void *ctx);

/* What arch_direct_map() built: bytes mapped by each page size, tables. */
struct arch_direct_map_stats {
	uint64_t bytes_1g, bytes_2m, bytes_4k;
	uint32_t tables;
	uint64_t top;            /* highest mapped address + 1 */
};

/*
 * Build the kernel's identity map of what the architecture needs low (x86:
 * [0, 4 GiB)) and of the usable, ACPI and NVS ranges of the memory map
 * map[0, nr_map) (struct mem_range, byte addresses), and switch this CPU to
 * it. Returns false (and keeps the boot map) if a table could not be
 * allocated.
 */
bool arch_direct_map(const struct mem_range *map, uint32_t nr_map, arch_pt_alloc_fn alloc,
		     void *ctx, struct arch_direct_map_stats *st);

/*
 * Windows for the page descriptor arrays: node n's array starts at
 * ARCH_MEMMAP_WINDOW_BASE + n * ARCH_MEMMAP_WINDOW_BYTES (asm/mmu.h: each
 * architecture's layout), and only the parts describing present memory are
 * mapped (mm/memmap.h, sparse storage). A window holds 2^32 descriptors of
 * up to 64 bytes (a node's links are 32-bit indices); the 256 windows lie
 * in the upper half, above everything the identity map can reach.
 */
_Static_assert(ARCH_MEMMAP_WINDOW_BYTES >= (64ULL << 32), "a window holds 2^32 descriptors");

/*
 * Map [virt, virt + bytes) to [phys, phys + bytes) read-write, no-execute,
 * global, in the kernel's page tables, with 2 MiB pages where both addresses
 * are 2 MiB aligned and 2 MiB remain, else 4 KiB pages. All three values are
 * 4 KiB multiples. Refuses (false) to replace an existing mapping. New
 * entries only fill empty ones, which no TLB caches (x86: SDM vol. 3A
 * 4.10.2.3), so CPUs already running on these tables need no flush.
 */
bool arch_map_range(uint64_t virt, uint64_t phys, uint64_t bytes, arch_pt_alloc_fn alloc,
		    void *ctx);

/*
 * Make every leaf covering [start, end) of the identity map executable
 * (@exec) or not, whatever its size, and flush: the UEFI runtime services'
 * code must run in place while memboot calls them
 * (kernel/services/report/efivars.c), and is data again afterwards. False
 * if a page there is not mapped (nothing after it is changed). True and
 * nothing changed where the CPU cannot refuse execution (arch_mmu_noexec()).
 */
bool arch_set_executable(uint64_t start, uint64_t end, bool exec);

/*
 * ARCH_BIOS_AREA (asm/mmu.h): 1 where firmware without UEFI may leave
 * tables in the PC BIOS area [0xF0000, 0x100000) (x86_64: the SMBIOS entry
 * point, SMBIOS 3.7 5.2.1), 0 where there is none (arm64, POWER: SMBIOS only
 * through the EFI configuration table), so nothing reads that range there.
 */
_Static_assert(ARCH_BIOS_AREA == 0 || ARCH_BIOS_AREA == 1, "ARCH_BIOS_AREA is 0 or 1");

/* Highest address + 1 of the current identity map. */
uint64_t arch_mapped_top(void);

/*
 * @len bytes at physical address @phys through the identity map (the boot
 * map, then the kernel's own), or NULL if any of them lies beyond it, or in
 * page 0 once arch_unmap_page() took it out (phase pagetables does, so that
 * a NULL pointer faults; firmware data there is read before): for
 * parsers that reach firmware data through a callback (ACPI tables, PVH
 * start info, SMBIOS, UEFI tables), so a bad address is refused instead of
 * faulted on.
 */
const void *arch_map_phys(void *ctx, uint64_t phys, size_t len);

/*
 * Make the 4 KiB page at @addr not present (a guard page), splitting a 1 GiB
 * or 2 MiB mapping into smaller entries first if needed.
 * Only for use before other CPUs run on these tables (no TLB shootdown).
 */
bool arch_unmap_page(uint64_t addr, arch_pt_alloc_fn alloc, void *ctx);

#endif

/*
 * vm.h: the kernel's address spaces besides its identity map: mm/pt/pt.c page
 * tables with the kernel's allocator, TLB shootdowns and a page-fault
 * handler.
 *
 * A space maps a window of 512 GiB at VM_WINDOW_START (root entry 128, far
 * above the identity map); every other root entry is the kernel's, so code,
 * data and stacks stay reachable on a CPU that runs on the space. Table
 * pages come from the allocator seam (alloc_pages(), mm/alloc/alloc.h) on
 * the faulting CPU's node and are typed PAGE_PAGETABLE while the space holds
 * them (vm_table_pages() counts them for the census).
 *
 * Regions: a range of the window with a kind (mm/pt/pt.h: 4 KiB pages, 2 MiB
 * blocks from the buddy allocator, 2 MiB pages from the hugetlb pools).
 * A not-present fault in a region of the CPU's current space allocates a
 * frame, zeroes it (memboot.pt_zero, on by default as Linux clears every
 * anonymous page it maps) and maps it under the locks of memboot.ptlock.
 *
 * Unmap and protect reach every CPU in the space's mask (CPUs that entered
 * it and have not left) through vm_tlb_flush(); code that may unmap runs
 * with interrupts on (kernel/vm/shootdown.h).
 */
#ifndef MEMBOOT_KERNEL_VM_VM_H
#define MEMBOOT_KERNEL_VM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/tlb.h"
#include "kernel/vm/shootdown.h"
#include "mm/pt/pt.h"

#define VM_WINDOW_START (1ULL << 46)
#define VM_WINDOW_END (VM_WINDOW_START + PT_WINDOW_ALIGN)
_Static_assert(VM_WINDOW_END <= PT_VA_LIMIT, "the window is in the lower half");
#define VM_MAX_REGIONS 4

struct vm_space {
	struct pt_as as;
	struct arch_cpumask cpus;          /* CPUs running on it (unused where TLBs broadcast) */
	struct pt_region regions[VM_MAX_REGIONS];
	uint32_t nr_regions;
	uint64_t orphans;                  /* leaves outside regions found by destroy */
};

struct hugetlb_pools;
struct memmap;
struct numa_topology;

/* Phase "vm": install the page-fault hook and the shootdown IPI (boot CPU,
 * once, after SMP and the pools); page tables are typed in @mm, 2 MiB
 * pool-page regions take their frames from @pools; vm keeps both. Every
 * vm_space_create() needs it first. */
void vm_init(struct memmap *mm, struct hugetlb_pools *pools);

/* Each CPU's fault counters and current space: @n slots of
 * vm_cpu_slot_bytes() at @mem (64-byte aligned, kept for good), one per
 * CPU id, given at bring-up. Before that, all CPUs share one slot. */
size_t vm_cpu_slot_bytes(void);
void vm_set_cpu_slots(void *mem, uint32_t n);

int vm_space_create(struct vm_space *s, enum pt_lock_mode mode, uint32_t node);
/* Unmap everything (giving each region's frames back to where they came
 * from), free every table. No CPU may be on the space. */
void vm_space_destroy(struct vm_space *s);
/* A region [start, end) of @kind; PT_ERR_INVAL if it overlaps one, lies
 * outside the window or is not aligned to its page size. */
int vm_region_add(struct vm_space *s, uint64_t start, uint64_t end, enum pt_region_kind kind,
		  unsigned prot, bool zero);

/* Run this CPU on @s (its root, its mask, its faults), and back. */
void vm_enter(struct vm_space *s);
void vm_leave(struct vm_space *s);

/* Each CPU's lock statistics from its faults and operations. */
struct pt_stats *vm_cpu_stats(uint32_t cpu);
void vm_reset_stats(void);

/* Frames of regions (4 KiB, 2 MiB, pool pages): PT_NO_PHYS when none. */
uint64_t vm_frame_alloc(enum pt_region_kind kind, uint32_t node);
void vm_frame_free(enum pt_region_kind kind, uint64_t phys);

/*
 * What a region of @kind can fault in now on @cpus CPUs, at most
 * @want_bytes: its frames and the table pages it needs within what the
 * allocator (and, for PT_REGION_HUGETLB, the 2 MiB pools) has free, less
 * what the per-CPU lists can hold back from other CPUs. A fault the handler
 * cannot serve is fatal, so a region must never ask for more. Drains the
 * per-CPU lists.
 */
struct vm_capacity {
	uint64_t bytes;            /* a multiple of 2 MiB, <= want_bytes */
	uint64_t frames;           /* free frames of the kind: 4 KiB pages, 2 MiB blocks, pool pages */
	uint64_t free_pages;       /* the allocator's free pages */
	uint64_t small_pages;      /* 4 KiB pages needed besides the frames (tables, list slack) */
};
void vm_region_capacity(enum pt_region_kind kind, uint64_t want_bytes, uint32_t cpus,
			struct vm_capacity *c);

/* Table pages all live spaces hold now (typed PAGE_PAGETABLE, taken from
 * the allocator after boot: the census sets them apart). */
uint64_t vm_table_pages(void);

#endif

/*
 * vm.c: address spaces on mm/pt/pt.c (kernel/vm/vm.h).
 */
#include "kernel/vm/vm.h"

#include <string.h>

#include "arch/cpu.h"
#include "arch/fault.h"
#include "arch/map.h"
#include "arch/mmu.h"
#include "mm/hugetlb/hugetlb.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "mm/alloc/alloc.h"
#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/pcp.h"
#include "mm/memmap.h"

#define HUGE_ORDER 9

/* One slot per CPU id, in memory the SMP phase reserves for the CPUs there
 * are (vm_set_cpu_slots()); until then, or without it, one shared slot. */
struct cpu_slot {
	struct pt_stats s;
	struct vm_space *volatile current;
} __attribute__((aligned(64)));     /* one line each: no false sharing */

static struct cpu_slot slot_boot[1];
static struct cpu_slot *slots = slot_boot;
static uint32_t nr_slots = 1;
static volatile uint64_t table_pages;
static uint64_t kernel_root;         /* the identity map's root, what CPUs run on */
static struct memmap *vm_memmap;     /* handed over by vm_init() */
static struct hugetlb_pools *huge_pools;   /* frames of PT_REGION_HUGETLB regions */

static struct cpu_slot *slot_of(uint32_t cpu)
{
	return &slots[cpu < nr_slots ? cpu : 0];
}

size_t vm_cpu_slot_bytes(void)
{
	return sizeof(struct cpu_slot);
}

void vm_set_cpu_slots(void *mem, uint32_t n)
{
	if (!mem || !n)
		return;
	memset(mem, 0, (size_t)n * sizeof(struct cpu_slot));
	slots = mem;
	nr_slots = n;
}

/* ---- what mm/pt/pt.c needs ---- */

static uint64_t vm_alloc_table(void *ctx, uint32_t node)
{
	/* Through the allocator seam, on the faulting CPU's node first. */
	uint64_t pfn = alloc_pages(node, 0, 0);

	if (pfn == ALLOC_NO_PFN)
		return PT_NO_PHYS;
	__atomic_fetch_add(&table_pages, 1, __ATOMIC_RELAXED);
	return pfn << PAGE_SHIFT;
}

static void vm_free_table(void *ctx, uint64_t phys)
{
	__atomic_fetch_sub(&table_pages, 1, __ATOMIC_RELAXED);
	alloc_free(phys >> PAGE_SHIFT, 0);
}

static struct page *vm_page_of(void *ctx, uint64_t phys)
{
	struct page *p = memmap_pfn_to_page(vm_memmap, phys >> PAGE_SHIFT);

	ASSERT(p, "page-table page 0x%llx has no descriptor", (unsigned long long)phys);
	return p;
}

static void vm_space_tlb_flush(void *ctx, struct pt_as *as, uint64_t va, uint64_t bytes)
{
	struct vm_space *s = ctx;

	vm_tlb_flush(&s->cpus, as->root_phys, va, bytes);
}

static const struct pt_ops vm_pt_ops = {
	.alloc_table = vm_alloc_table,
	.free_table = vm_free_table,
	.page_of = vm_page_of,
	.tlb_flush = vm_space_tlb_flush,
};

uint64_t vm_table_pages(void)
{
	return __atomic_load_n(&table_pages, __ATOMIC_RELAXED);
}

/* ---- frames ---- */

uint64_t vm_frame_alloc(enum pt_region_kind kind, uint32_t node)
{
	uint64_t pfn = ALLOC_NO_PFN;

	switch (kind) {
	case PT_REGION_4K:
		pfn = alloc_pages(node, 0, 0);
		break;
	case PT_REGION_2M:
		pfn = alloc_pages(node, HUGE_ORDER, 0);
		break;
	case PT_REGION_HUGETLB:
		pfn = huge_pools ? hugetlb_pool_take(huge_pools, node, HUGETLB_2M) : ALLOC_NO_PFN;
		break;
	case PT_NR_REGION_KINDS:
		break;
	}
	return pfn == ALLOC_NO_PFN ? PT_NO_PHYS : pfn << PAGE_SHIFT;
}

void vm_frame_free(enum pt_region_kind kind, uint64_t phys)
{
	uint64_t pfn = phys >> PAGE_SHIFT;

	if (kind == PT_REGION_HUGETLB)
		hugetlb_pool_give(huge_pools, pfn, HUGETLB_2M);
	else
		alloc_free(pfn, kind == PT_REGION_2M ? HUGE_ORDER : 0);
}

/* ---- what a region can fault in ---- */

/*
 * Order-0 pages the per-CPU lists can keep from other CPUs: after a refill a
 * CPU's list on each node holds at most one refill, batch <<
 * PCP_BATCH_SCALE_MAX pages (mm/alloc/pcp.c), and a CPU that finds no page
 * drains only its own lists before the allocation fails (mm/alloc/alloc.c).
 */
static uint64_t pcp_slack_pages(uint32_t cpus)
{
	uint64_t per_cpu = 0;

	if (!alloc_pcp_active())
		return 0;
	for (uint32_t n = 0; n < alloc_nr_nodes(); n++) {
		const struct pcp_zone *pz = alloc_pcp_zone(n);

		if (pz)
			per_cpu += ((uint64_t)pz->batch << PCP_BATCH_SCALE_MAX) + (uint64_t)pz->batch;
	}
	return per_cpu * cpus;
}

/*
 * Table pages a region of @bytes at the window's start can need: a PTE table
 * per 2 MiB (4 KiB pages), a PMD table per GiB and one for a partial GiB,
 * the PUD tables, and one spare per CPU: with split locks two CPUs may both
 * allocate the same missing table, and the loser frees its copy afterwards.
 */
static uint64_t table_pages_for(enum pt_region_kind kind, uint64_t bytes, uint32_t cpus)
{
	uint64_t t = (bytes >> 30) + 1 + 2 + cpus + 8;

	if (kind == PT_REGION_4K)
		t += bytes >> 21;
	return t;
}

/* Up to @max order-9 blocks taken and given back: how many the allocator
 * has. They are chained through their first word while held. */
static uint64_t count_2m_blocks(uint64_t max)
{
	uint64_t head = PT_NO_PHYS, n = 0;

	for (; n < max; n++) {
		uint64_t phys = vm_frame_alloc(PT_REGION_2M, 0);
		if (phys == PT_NO_PHYS)
			break;
		*(volatile uint64_t *)(uintptr_t)phys = head;
		head = phys;
	}
	while (head != PT_NO_PHYS) {
		uint64_t next = *(volatile uint64_t *)(uintptr_t)head;
		vm_frame_free(PT_REGION_2M, head);
		head = next;
	}
	return n;
}

void vm_region_capacity(enum pt_region_kind kind, uint64_t want_bytes, uint32_t cpus,
			struct vm_capacity *c)
{
	uint64_t free, slack, small, bytes = 0;

	/* Everything cached in front of the allocator back first: the counts
	 * below are then what any CPU can get. */
	alloc_drain();
	free = alloc_free_count();
	slack = pcp_slack_pages(cpus);
	small = table_pages_for(kind, want_bytes, cpus) + slack;   /* order-0 pages besides frames */
	memset(c, 0, sizeof(*c));
	c->free_pages = free;
	switch (kind) {
	case PT_REGION_4K:
		/* Each 2 MiB costs 512 frames and a PTE table; 514 pages a
		 * 2 MiB also pays the PMD table of every 512 of them. The
		 * fixed tables are those of an empty region. */
		c->frames = free;
		small = table_pages_for(kind, 0, cpus) + slack;
		if (free > small)
			bytes = (free - small) / 514 << 21;
		break;
	case PT_REGION_2M: {
		/* Free pages do not say how many 2 MiB blocks there are:
		 * count them, with enough spare blocks for the small pages. */
		uint64_t lost = (small + 511) / 512;
		uint64_t got = count_2m_blocks((want_bytes >> 21) + lost);
		uint64_t loose = free > (got << 9) ? free - (got << 9) : 0;

		c->frames = got;
		/* Small pages come from loose pieces before a block is split. */
		lost = loose >= small ? 0 : (small - loose + 511) / 512;
		if (got > lost)
			bytes = (got - lost) << 21;
		break;
	}
	case PT_REGION_HUGETLB:
		c->frames = huge_pools ? hugetlb_pool_free(huge_pools, HUGETLB_2M) : 0;
		if (free > small)
			bytes = c->frames << 21;
		break;
	case PT_NR_REGION_KINDS:
		break;
	}
	c->small_pages = small;
	if (bytes > want_bytes)
		bytes = want_bytes;
	c->bytes = bytes & ~((2ULL << 20) - 1);
}

static uint64_t region_alloc_frame(void *ctx, enum pt_region_kind kind, uint32_t node)
{
	return vm_frame_alloc(kind, node);
}

static void region_free_frame(void *ctx, enum pt_region_kind kind, uint64_t phys)
{
	vm_frame_free(kind, phys);
}

/* ---- spaces ---- */

int vm_space_create(struct vm_space *s, enum pt_lock_mode mode, uint32_t node)
{
	const uint64_t *template_root = (const uint64_t *)(uintptr_t)kernel_root;

	memset(s, 0, sizeof(*s));
	ASSERT(kernel_root, "vm_init() first");
	ASSERT(arch_mapped_top() <= VM_WINDOW_START, "identity map reaches the vm window");
	return pt_create(&s->as, &vm_pt_ops, s, mode, VM_WINDOW_START, VM_WINDOW_END,
			 template_root, node);
}

static void destroy_leaf(void *arg, const struct pt_mapping *m)
{
	struct vm_space *s = arg;

	for (uint32_t i = 0; i < s->nr_regions; i++) {
		if (pt_region_contains(&s->regions[i], m->va)) {
			vm_frame_free(s->regions[i].kind, m->phys);
			return;
		}
	}
	s->orphans++;       /* mapped by its owner directly: its frame is its own */
}

void vm_space_destroy(struct vm_space *s)
{
	pt_destroy(&s->as, destroy_leaf, s);
	if (s->orphans)
		pr_err("vm: %llu mappings outside regions were left at destroy",
		       (unsigned long long)s->orphans);
}

int vm_region_add(struct vm_space *s, uint64_t start, uint64_t end, enum pt_region_kind kind,
		  unsigned prot, bool zero)
{
	uint64_t align = kind == PT_REGION_4K ? 4096 : 2ULL << 20;

	if (s->nr_regions == VM_MAX_REGIONS || kind >= PT_NR_REGION_KINDS || start >= end ||
	    start < VM_WINDOW_START || end > VM_WINDOW_END || (start | end) & (align - 1))
		return PT_ERR_INVAL;
	for (uint32_t i = 0; i < s->nr_regions; i++)
		if (start < s->regions[i].end && s->regions[i].start < end)
			return PT_ERR_INVAL;
	/* A CPU that cannot refuse execution maps every page executable. */
	if (!arch_mmu_noexec())
		prot |= PT_PROT_EXEC;
	s->regions[s->nr_regions++] = (struct pt_region){
		.start = start, .end = end, .kind = kind, .prot = prot, .zero = zero,
		.alloc_frame = region_alloc_frame, .free_frame = region_free_frame, .ctx = s };
	return PT_OK;
}

void vm_enter(struct vm_space *s)
{
	uint32_t cpu = this_cpu_id();

	vm_tlb_enter(s->as.root_phys, &s->cpus);
	slot_of(cpu)->current = s;
}

void vm_leave(struct vm_space *s)
{
	uint32_t cpu = this_cpu_id();

	slot_of(cpu)->current = NULL;
	vm_tlb_leave(kernel_root, &s->cpus);
}

struct pt_stats *vm_cpu_stats(uint32_t cpu)
{
	return &slot_of(cpu)->s;
}

void vm_reset_stats(void)
{
	for (uint32_t i = 0; i < nr_slots; i++)
		memset(&slots[i].s, 0, sizeof(slots[i].s));
}

/* ---- the page-fault hook ---- */

static bool vm_page_fault(const struct arch_fault *f)
{
	uint32_t cpu = this_cpu_id();
	struct vm_space *s = slot_of(cpu)->current;
	const struct pt_region *r = NULL;
	uint64_t addr = f->addr, flags = 0;

	/* Only not-present faults of kernel accesses in a region are ours;
	 * a protection fault is a real error. */
	if (!s || f->present)
		return false;
	for (uint32_t i = 0; i < s->nr_regions && !r; i++)
		if (pt_region_contains(&s->regions[i], addr))
			r = &s->regions[i];
	if (!r)
		return false;
	/* As Linux's exc_page_fault: interrupts back on if the faulting code
	 * had them, so this CPU keeps answering shootdowns while it waits for
	 * a page-table lock; off again before returning to arch, which puts
	 * back the faulting context's own state. */
	if (f->irqs_on)
		flags = arch_irq_save_enable();
	int err = pt_fault(&s->as, r, addr, this_cpu_state()->mem_node, &slot_of(cpu)->s);
	if (f->irqs_on)
		arch_irq_restore(flags);
	if (err != PT_OK) {
		pr_err("vm: fault at 0x%llx in a %s region: %s", (unsigned long long)addr,
		       pt_region_kind_name(r->kind), pt_strerror(err));
		return false;
	}
	return true;
}

void vm_init(struct memmap *mm, struct hugetlb_pools *pools)
{
	vm_memmap = mm;
	huge_pools = pools;
	if (kernel_root)
		return;
	kernel_root = arch_space_current();
	vm_tlb_init();
	arch_page_fault_hook = vm_page_fault;
}

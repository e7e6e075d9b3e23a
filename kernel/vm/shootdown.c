/*
 * shootdown.c: TLB invalidation on every CPU of a space
 * (kernel/vm/shootdown.h).
 */
#include "kernel/vm/shootdown.h"

#include "kernel/services/percpu.h"
#include "kernel/services/spinlock.h"

/* The one request in flight; written under lock, read by the targets. */
static struct {
	struct spinlock lock;
	volatile uint64_t root, va, bytes;
	volatile uint32_t pending;
} req;

static volatile uint64_t ipis_received;

/* This CPU: one page of any size at @va, or everything non-global when
 * @bytes is 0. */
static void invalidate_local(uint64_t va, uint64_t bytes)
{
	if (bytes == 0)
		arch_tlb_invalidate_all();
	else
		arch_tlb_invalidate_page(va);
}

/* The shootdown IPI, on the target CPU with interrupts off. A CPU that has
 * left the space since the mask was read has nothing of it cached: a
 * switch drops non-global translations. */
static void shootdown_ipi(void)
{
	if (arch_space_current() == req.root)
		invalidate_local(req.va, req.bytes);
	__atomic_fetch_add(&ipis_received, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&req.pending, 1, __ATOMIC_RELEASE);
}

void vm_tlb_init(void)
{
	if (!ARCH_TLB_BROADCAST)
		arch_tlb_ipi_init(shootdown_ipi);
}

void vm_tlb_flush(const struct arch_cpumask *mask, uint64_t root, uint64_t va, uint64_t bytes)
{
	if (ARCH_TLB_BROADCAST) {
		arch_tlb_invalidate_broadcast(root, va, bytes);
		return;
	}
	uint32_t self = this_cpu_id();

	if (arch_space_current() == root)
		invalidate_local(va, bytes);
	if (!mask)
		return;
	spin_lock(&req.lock);
	req.root = root;
	req.va = va;
	req.bytes = bytes;
	req.pending = 0;
	for (uint32_t cpu = 0; cpu < nr_cpu_ids && cpu < MEMBOOT_MAX_CPUS; cpu++) {
		if (cpu == self || !arch_cpumask_test(mask, cpu))
			continue;
		__atomic_fetch_add(&req.pending, 1, __ATOMIC_RELAXED);
		arch_tlb_ipi_send(cpu);
	}
	/* Interrupts are on (shootdown.h): a target that is itself waiting
	 * here for the lock still answers. */
	while (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	spin_unlock(&req.lock);
}

void vm_tlb_enter(uint64_t root, struct arch_cpumask *mask)
{
	if (!ARCH_TLB_BROADCAST && mask)
		arch_cpumask_set(mask, this_cpu_id());
	arch_space_switch(root);
}

void vm_tlb_leave(uint64_t root, struct arch_cpumask *old_mask)
{
	arch_space_switch(root);
	if (ARCH_TLB_BROADCAST || !old_mask)
		return;
	arch_cpumask_clear(old_mask, this_cpu_id());
	/* A shootdown that read the mask before we left holds the lock until
	 * we answer: taking it once (interrupts on) makes sure none is still
	 * waiting for us. */
	uint64_t flags = arch_irq_save_enable();
	spin_lock(&req.lock);
	spin_unlock(&req.lock);
	arch_irq_restore(flags);
}

uint64_t vm_tlb_ipis_received(void)
{
	return ipis_received;
}

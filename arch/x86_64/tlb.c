/*
 * tlb.c: TLB invalidation here and on other CPUs (arch/tlb.h).
 */
#include "x86/tlb.h"

#include "x86/apic.h"
#include "x86/cpu.h"
#include "x86/io.h"
#include "kernel/services/percpu.h"
#include "kernel/services/spinlock.h"

extern void apic_tlb_stub(void);

/* The one request in flight; written under lock, read by the targets. */
static struct {
	struct spinlock lock;
	volatile uint64_t cr3, va, bytes;
	volatile uint32_t pending;
} req;

static volatile uint64_t ipis_received;

void arch_tlb_init(void)
{
	/* 8259 PIC: mask every line on both chips (OCW1). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	arch_idt_set_gate(APIC_TLB_VECTOR, apic_tlb_stub);
}

/* Invalidate one page of any size at @va on this CPU (INVLPG also drops
 * every paging-structure cache entry), or everything non-global when
 * @bytes is 0 (a CR3 reload). */
static void flush_local(uint64_t va, uint64_t bytes)
{
	if (bytes == 0) {
		uint64_t cr3 = read_cr3();
		__asm__ volatile("mov %0, %%cr3" : : "r"(cr3) : "memory");
		return;
	}
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* The IPI send, in one place: the only call into the APIC driver. */
static void send_shootdown_ipi(uint32_t apic_id)
{
	apic_send_ipi(apic_id, APIC_TLB_VECTOR);
}

/* Called by apic_tlb_stub with interrupts off. */
void arch_tlb_ipi(void);
void arch_tlb_ipi(void)
{
	/* A CPU that has left the space since the mask was read has nothing
	 * of it cached: a CR3 load drops non-global translations. */
	if ((read_cr3() & ~0xfffULL) == req.cr3)
		flush_local(req.va, req.bytes);
	__atomic_fetch_add(&ipis_received, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&req.pending, 1, __ATOMIC_RELEASE);
	apic_eoi();
}

void arch_tlb_shootdown(struct arch_cpumask *mask, uint64_t cr3, uint64_t va, uint64_t bytes)
{
	uint32_t self = this_cpu_id();

	if ((read_cr3() & ~0xfffULL) == cr3)
		flush_local(va, bytes);
	if (!mask)
		return;
	spin_lock(&req.lock);
	req.cr3 = cr3;
	req.va = va;
	req.bytes = bytes;
	req.pending = 0;
	for (uint32_t cpu = 0; cpu < nr_cpu_ids && cpu < MAX_CPUS; cpu++) {
		uint64_t w = __atomic_load_n(&mask->bits[cpu / 64], __ATOMIC_ACQUIRE);
		if (cpu == self || !(w & (1ULL << (cpu % 64))))
			continue;
		__atomic_fetch_add(&req.pending, 1, __ATOMIC_RELAXED);
		send_shootdown_ipi(cpu_states[cpu]->hwid);
	}
	/* Interrupts are on (arch/tlb.h): a target that is itself waiting
	 * here for the lock still answers. */
	while (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	spin_unlock(&req.lock);
}

void arch_switch_space(uint64_t cr3, struct arch_cpumask *mask, struct arch_cpumask *old_mask)
{
	uint32_t cpu = this_cpu_id();

	if (mask)
		__atomic_fetch_or(&mask->bits[cpu / 64], 1ULL << (cpu % 64), __ATOMIC_SEQ_CST);
	__asm__ volatile("mov %0, %%cr3" : : "r"(cr3) : "memory");
	if (old_mask) {
		__atomic_fetch_and(&old_mask->bits[cpu / 64], ~(1ULL << (cpu % 64)),
				   __ATOMIC_SEQ_CST);
		/* A shootdown that read the mask before we left holds the lock
		 * until we answer: taking it once (interrupts on) makes sure
		 * none is still waiting for us. */
		uint64_t flags = arch_irq_save_enable();
		spin_lock(&req.lock);
		spin_unlock(&req.lock);
		arch_irq_restore(flags);
	}
}

uint64_t arch_tlb_ipis_received(void)
{
	return ipis_received;
}

/*
 * tlb.c: TLB invalidation on this CPU, space switches and the shootdown
 * IPI (arch/tlb.h); kernel/vm/shootdown.c runs the shootdown itself.
 */
#include "arch/tlb.h"

#include "x86/apic.h"
#include "x86/cpu.h"
#include "x86/io.h"
#include "x86/percpu.h"
#include "kernel/services/percpu.h"

#define APIC_TLB_VECTOR 0xf1

extern void apic_tlb_stub(void);

static void (*ipi_handler)(void);

void arch_tlb_invalidate_page(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

void arch_tlb_invalidate_all(void)
{
	uint64_t cr3 = read_cr3();
	__asm__ volatile("mov %0, %%cr3" : : "r"(cr3) : "memory");
}

uint64_t arch_space_current(void)
{
	return read_cr3() & ~0xfffULL;
}

void arch_space_switch(uint64_t root)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(root) : "memory");
}

void arch_tlb_ipi_init(void (*handler)(void))
{
	ipi_handler = handler;
	/* 8259 PIC: mask every line on both chips (OCW1). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	arch_idt_set_gate(APIC_TLB_VECTOR, apic_tlb_stub);
}

/* The IPI send, in one place: the only call into the APIC driver. */
void arch_tlb_ipi_send(uint32_t cpu)
{
	apic_send_ipi(cpu_states[cpu]->hwid, APIC_TLB_VECTOR);
}

/* Called by apic_tlb_stub with interrupts off. */
void arch_tlb_ipi(void);
void arch_tlb_ipi(void)
{
	ipi_handler();
	apic_eoi();
}

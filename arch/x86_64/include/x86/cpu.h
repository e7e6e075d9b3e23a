/*
 * x86/cpu.h: CPUID and its feature words, control registers, descriptor
 * tables (the TSC is asm/counter.h's). What generic code asks of the CPU is
 * arch/cpu.h's (struct arch_cpu_info, filled from cpu_features here).
 */
#ifndef MEMBOOT_X86_CPU_H
#define MEMBOOT_X86_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "x86/cpu_caches.h"

static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(subleaf));
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* CPUID's answers, x86-only bits included (x2APIC, invariant TSC). */
struct cpu_features {
	char vendor[13];
	char hypervisor[13];    /* "TCGTCGTCGTCG", "KVMKVMKVM", "" on bare metal */
	char brand[49];
	bool has_hypervisor;
	bool pdpe1gb;           /* 1 GiB pages */
	bool nx;
	bool x2apic;
	bool invariant_tsc;
	uint32_t family, model, stepping;
};

extern struct cpu_features cpu_features;
/* The caches, decoded once by arch_cpu_identify() (x86/cpu_caches.h);
 * the boot CPU's answer stands for every CPU. */
extern struct cpu_caches cpu_caches;

/* arch_cpu_identify() (arch/cpu.h) fills cpu_features, cpu_caches and
 * arch_cpu_info from CPUID. */
struct percpu;
/*
 * Point %gs at @pc and load its GDT and TSS (IST stacks for #DF, NMI, #MC)
 * and the shared IDT (filled by the boot CPU, @boot).
 */
void x86_cpu_init_tables(struct percpu *pc, bool boot);
/* Install @handler (an assembly stub ending in iretq) at @vector. */
void arch_idt_set_gate(int vector, void (*handler)(void));

#endif

/*
 * cpu.c: CPU identification (arch/cpu.h), the per-CPU areas
 * (arch/percpu.h), and each CPU's GDT, TSS and the shared IDT.
 *
 * The TSS exists for its interrupt stack table: #DF, NMI and #MC switch to
 * stacks of their own, so a kernel stack overflow ends in a clean report
 * instead of a triple fault (Intel SDM vol. 3A, 6.14.5 "Interrupt Stack Table").
 */
#include <stddef.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "x86/cpu.h"
#include "x86/percpu.h"
#include "x86/trap.h"
#include "kernel/services/percpu.h"

struct cpu_features cpu_features;
struct cpu_caches cpu_caches;
struct arch_cpu_info arch_cpu_info;

/* The boot CPU's area: no memory to take it from in phase early, as for
 * the boot stack (entry32.S). */
static struct percpu boot_percpu;
extern char boot_stack_bottom[], boot_stack_top[];

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate is 16 bytes");

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

enum {
	SEL_CODE = 0x08,
	SEL_DATA = 0x10,
	SEL_TSS = 0x18,
	IST_DF = 1,
	IST_NMI = 2,
	IST_MC = 3,
};

/* One IDT serves every CPU: gates only name code and IST slots, and each
 * CPU's own TSS supplies the stacks. */
static struct idt_gate idt[256] __attribute__((aligned(16)));
extern const uint64_t isr_stub_table[32];

#define MSR_GS_BASE 0xc0000101

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void cpuid_string(uint32_t leaf, char *out)
{
	uint32_t r[4];
	cpuid(leaf, 0, r);
	memcpy(out, &r[1], 4);      /* EBX, EDX, ECX for the vendor leaf */
	memcpy(out + 4, &r[3], 4);
	memcpy(out + 8, &r[2], 4);
	out[12] = '\0';
}

static void cpuid_instruction(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	cpuid(leaf, subleaf, r);
}

void arch_cpu_identify(void)
{
	struct cpu_features *f = &cpu_features;
	uint32_t r[4], max_ext;

	cpuid_string(0, f->vendor);
	cpuid(1, 0, r);
	f->stepping = r[0] & 0xf;
	f->model = (r[0] >> 4) & 0xf;
	f->family = (r[0] >> 8) & 0xf;
	if (f->family == 0xf)
		f->family += (r[0] >> 20) & 0xff;
	if (f->family >= 6)
		f->model |= ((r[0] >> 16) & 0xf) << 4;
	f->x2apic = r[2] & (1u << 21);
	f->has_hypervisor = r[2] & (1u << 31);
	if (f->has_hypervisor) {
		uint32_t h[4];
		cpuid(0x40000000, 0, h);
		memcpy(f->hypervisor, &h[1], 4);   /* EBX, ECX, EDX */
		memcpy(f->hypervisor + 4, &h[2], 4);
		memcpy(f->hypervisor + 8, &h[3], 4);
		f->hypervisor[12] = '\0';
	}

	cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		f->pdpe1gb = r[3] & (1u << 26);
		f->nx = r[3] & (1u << 20);
	}
	if (max_ext >= 0x80000004) {
		for (uint32_t i = 0; i < 3; i++) {
			cpuid(0x80000002 + i, 0, r);
			memcpy(f->brand + 16 * i, r, 16);
		}
		f->brand[48] = '\0';
	}
	if (max_ext >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		f->invariant_tsc = r[3] & (1u << 8);
	}
	cpu_caches_decode(cpuid_instruction, NULL, &cpu_caches);

	/* What generic code asks of a CPU, from the words above. */
	struct arch_cpu_info *g = &arch_cpu_info;
	_Static_assert(sizeof(g->vendor) >= sizeof(f->vendor) &&
		       sizeof(g->brand) >= sizeof(f->brand) &&
		       sizeof(g->hypervisor) >= sizeof(f->hypervisor), "CPUID strings fit");
	memcpy(g->vendor, f->vendor, sizeof(f->vendor));
	memcpy(g->brand, f->brand, sizeof(f->brand));
	memcpy(g->hypervisor, f->hypervisor, sizeof(f->hypervisor));
	g->has_hypervisor = f->has_hypervisor;
	g->huge_1g = f->pdpe1gb;
	g->nx = f->nx;
	g->family = f->family;
	g->model = f->model;
	g->stepping = f->stepping;
}

/* The x2APIC id from leaf 0xb where the CPU has it (valid in either APIC
 * mode), else the initial APIC id of leaf 1 (SDM vol. 3A 11.4.6); no APIC
 * access, so it works before the APIC is set up. */
uint32_t arch_cpu_hwid(void)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		if (r[1] != 0)
			return r[3];
	}
	cpuid(1, 0, r);
	return r[1] >> 24;
}

static void set_gate(int vector, uint64_t handler, uint8_t ist)
{
	idt[vector] = (struct idt_gate){
		.offset_low = handler & 0xffff,
		.selector = SEL_CODE,
		.ist = ist,
		.type_attr = 0x8e,      /* present, DPL 0, 64-bit interrupt gate */
		.offset_mid = (handler >> 16) & 0xffff,
		.offset_high = handler >> 32,
	};
}

void arch_idt_set_gate(int vector, void (*handler)(void))
{
	set_gate(vector, (uint64_t)handler, 0);
}

void x86_cpu_init_tables(struct percpu *pc, bool boot)
{
	uint64_t *gdt = pc->gdt;
	struct tss64 *tss = &pc->tss;
	uint64_t tss_base = (uint64_t)tss;
	struct desc_ptr gdtr, idtr;

	pc->self = pc;
	wrmsr(MSR_GS_BASE, (uint64_t)pc);
	tss->ist[IST_DF - 1] = (uint64_t)(pc->ist_stacks[0] + CPU_IST_BYTES);
	tss->ist[IST_NMI - 1] = (uint64_t)(pc->ist_stacks[1] + CPU_IST_BYTES);
	tss->ist[IST_MC - 1] = (uint64_t)(pc->ist_stacks[2] + CPU_IST_BYTES);
	tss->iomap_base = sizeof(*tss);   /* no I/O permission bitmap */

	gdt[0] = 0;
	gdt[1] = 0x00af9a000000ffffULL;   /* 64-bit code */
	gdt[2] = 0x00cf92000000ffffULL;   /* data */
	/* 16-byte available 64-bit TSS descriptor (type 9). */
	gdt[3] = (sizeof(*tss) - 1) | ((tss_base & 0xffffff) << 16) |
		 (0x89ULL << 40) | (((tss_base >> 24) & 0xff) << 56);
	gdt[4] = tss_base >> 32;

	gdtr = (struct desc_ptr){ .limit = sizeof(pc->gdt) - 1, .base = (uint64_t)gdt };
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w3\n\t"
		:
		: "m"(gdtr), "i"(SEL_CODE), "r"(SEL_DATA), "r"(SEL_TSS)
		: "rax", "memory");

	if (boot) {
		for (int v = 0; v < 32; v++) {
			uint8_t ist = v == 8 ? IST_DF : v == 2 ? IST_NMI : v == 18 ? IST_MC : 0;
			set_gate(v, isr_stub_table[v], ist);
		}
	}
	idtr = (struct desc_ptr){ .limit = sizeof(idt) - 1, .base = (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(idtr) : "memory");
}

size_t arch_percpu_bytes(void)
{
	return sizeof(struct percpu);
}

void arch_percpu_init(void *area, struct cpu_state *cs, uint32_t fw_nmi_pins)
{
	struct percpu *pc = area;

	/* All but the interrupt stacks, which need no zeroing (48 KiB a CPU). */
	memset(pc, 0, offsetof(struct percpu, ist_stacks));
	pc->self = pc;
	pc->state = cs;
	pc->lint_nmi = fw_nmi_pins;
	cs->arch = pc;
}

void arch_percpu_init_boot(struct cpu_state *cs)
{
	cs->stack_bottom = (uint64_t)boot_stack_bottom;
	cs->stack_top = (uint64_t)boot_stack_top;
	arch_percpu_init(&boot_percpu, cs, 0);
	x86_cpu_init_tables(&boot_percpu, true);
}

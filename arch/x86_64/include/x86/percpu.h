/*
 * x86/percpu.h: x86_64's per-CPU area (arch/percpu.h's arch area): what
 * the hardware needs, reached through %gs.
 *
 * Each CPU's struct percpu holds its descriptor tables (GDT, TSS with
 * interrupt stacks), the LINT pins the firmware wires to NMI, and a pointer
 * to the kernel's generic per-CPU state (struct cpu_state,
 * kernel/services/percpu.h: logical id, APIC id as hwid, stack, node,
 * start-up handshake, job mailbox). The boot CPU's lives in .bss
 * (arch_percpu_init_boot()); every other CPU's is allocated from its own
 * node's memory, right above its kernel stack, which sits above an unmapped
 * guard page (a stack overflow faults instead of corrupting memory).
 *
 * Invariant: %gs base points at the CPU's own struct percpu, whose first
 * field points at itself, so this_cpu() is one load, and whose second field
 * points at its struct cpu_state, so arch_this_cpu_state() is one load too.
 */
#ifndef MEMBOOT_X86_PERCPU_H
#define MEMBOOT_X86_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/percpu.h"
#include "kernel/services/limits.h"

/* The design limit (kernel/services/limits.h): only CPU masks are sized by it. */
#define MAX_CPUS MEMBOOT_MAX_CPUS
/*
 * Each interrupt stack (#DF, NMI, #MC) holds a whole fatal report:
 * arch_trap() runs kernel_exit() on it (the registers, the backtrace, the
 * consoles drained, the summary, `done`), which took 10.6 KiB after a
 * kernel stack overflow (memboot.fault=df, measured by filling the stack
 * with a pattern). With 4 KiB stacks the report ran 6.5 KiB below its
 * stack, over the TSS, the GDT and whatever lay below them. As the kernel
 * stacks: 16 KiB.
 */
#define CPU_IST_BYTES (16 * 1024)

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "64-bit TSS is 104 bytes (SDM vol. 3A 8.7)");

struct percpu {
	struct percpu *self;            /* must stay first: %gs:0 */
	struct cpu_state *state;        /* must stay second: %gs:8 */
	/* LINT pins the MADT wires to NMI (kernel/firmware/acpi acpi_lint_nmi_of()):
	 * bit 0/1 LINT0/LINT1 is NMI, bit 2/3 it is active low. */
	uint32_t lint_nmi;

	uint64_t gdt[5] __attribute__((aligned(16)));
	struct tss64 tss __attribute__((aligned(16)));
	uint8_t ist_stacks[3][CPU_IST_BYTES] __attribute__((aligned(16)));
};
_Static_assert(__builtin_offsetof(struct percpu, state) == 8,
	       "arch_this_cpu_state() loads %gs:8");
_Static_assert(_Alignof(struct percpu) <= ARCH_PERCPU_ALIGN, "arch_percpu_bytes()' alignment");

/* This CPU's struct percpu: one %gs-relative load. */
static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

#endif

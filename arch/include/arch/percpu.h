/*
 * arch/percpu.h: the link between a CPU and its per-CPU data.
 *
 * Generic code reaches its CPU's data only through struct cpu_state
 * (kernel/services/percpu.h). Beside it each CPU has an arch area that
 * generic code allocates but never looks into (x86_64: the GDT, the TSS and
 * its interrupt stacks; arm64 and POWER: their exception state). A register
 * of the architecture points at the area, whose second pointer-sized word
 * points at the CPU's struct cpu_state, so arch_this_cpu_state() is two
 * loads at most:
 *
 *   x86_64   %gs base (IA32_GS_BASE) -> area; %gs:8 is the state
 *   arm64    TPIDR_EL1 -> area (the per-CPU register Linux uses too)
 *   POWER    r13 -> area (as Linux's r13 -> paca)
 */
#ifndef MEMBOOT_ARCH_PERCPU_H
#define MEMBOOT_ARCH_PERCPU_H

#include <stddef.h>
#include <stdint.h>

struct cpu_state;   /* kernel/services/percpu.h */

/* Inline, per architecture: arch_this_cpu_state(), the running CPU's
 * struct cpu_state; valid once arch_percpu_init_boot() (boot CPU) or the
 * start-up (every other CPU) has pointed the register at its area. */
#include "asm/percpu.h"

/* The alignment an arch area needs (a cache line: 64 bytes). */
#define ARCH_PERCPU_ALIGN 64

/* Bytes of one CPU's arch area: what generic code allocates for each CPU
 * it starts, ARCH_PERCPU_ALIGN aligned, on the CPU's own node. */
size_t arch_percpu_bytes(void);

/*
 * Set up the arch area at @area (arch_percpu_bytes(); its contents need
 * not be zeroed) of the CPU whose state is @cs (cs->cpu, cs->hwid and its
 * stack filled in), before it is started: the CPU loads it as its first step.
 * @fw_nmi_pins: the firmware's NMI wiring of this CPU (ACPI MADT NMI
 * entries, acpi_lint_nmi_of(); 0 where there is none). Sets cs->arch.
 */
void arch_percpu_init(void *area, struct cpu_state *cs, uint32_t fw_nmi_pins);

/*
 * The boot CPU's area: arch's own (there is no memory to take it from yet,
 * as for the boot stack), pointed at @cs and made current, with the CPU's
 * tables loaded (x86_64: GDT, TSS, IDT). Sets cs->arch and cs's stack from
 * the boot stack. First thing in phase early.
 */
void arch_percpu_init_boot(struct cpu_state *cs);

#endif

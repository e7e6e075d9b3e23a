/*
 * arch/cpu.h: the running CPU, as generic code sees it: its hardware id,
 * the spin hint, interrupts off and on, idle, halting, and the features
 * generic code asks about. One interface for every architecture; each
 * defines the inline part in its asm/cpu.h (arch/NAME/include/asm/) and the
 * rest in arch/NAME/.
 *
 *   hwid        x86_64: the APIC id (CPUID leaf 0xb, else leaf 1 EBX[31:24]);
 *               arm64: MPIDR_EL1 packed, Aff3 << 24 | Aff2 << 16 | Aff1 << 8 |
 *               Aff0; POWER: the PIR. Unique per CPU, what the firmware's CPU
 *               tables list (MADT, device tree) and what an IPI is sent to.
 *   interrupts  x86_64: RFLAGS.IF (cli/sti); arm64: PSTATE.I (msr daifset/
 *               daifclr, #2); POWER: MSR[EE].
 */
#ifndef MEMBOOT_ARCH_CPU_H
#define MEMBOOT_ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Inline, per architecture: arch_cpu_relax(), arch_irq_disable(),
 * arch_irq_enable(), arch_irq_enable_and_wait(), arch_irq_save_enable(),
 * arch_irq_restore(), arch_halt_forever(), and ARCH_HWID_NAME, the hwid's
 * name in messages ("APIC" on x86_64: "APIC 0x2").
 */
#include "asm/cpu.h"

/* What generic code needs to know of the CPU it runs on (the boot CPU's
 * answer stands for every CPU); filled once by arch_cpu_identify(). */
struct arch_cpu_info {
	char vendor[16];         /* "GenuineIntel", "AuthenticAMD"; "" if unknown */
	char brand[64];          /* the model's name for the banner; "" if none */
	char hypervisor[16];     /* "TCGTCGTCGTCG", "KVMKVMKVM"; "" on bare metal */
	bool has_hypervisor;     /* a virtual CPU: emulator exits and fw_cfg may exist */
	bool huge_1g;            /* 1 GiB leaf mappings (x86_64: CPUID PDPE1GB) */
	bool nx;                 /* no-execute mappings (x86_64: CPUID NX, EFER.NXE on) */
	uint32_t family, model, stepping;   /* as the vendor numbers them; 0 if none */
};

/* The running machine's CPU, valid after arch_cpu_identify(). */
extern struct arch_cpu_info arch_cpu_info;

/* Identify the boot CPU: fill arch_cpu_info (and arch's own feature
 * words). Called once, first thing in phase early; no memory needed. */
void arch_cpu_identify(void);

/* The running CPU's hardware id (see above); valid on any CPU at any time,
 * before its per-CPU data exists. */
uint32_t arch_cpu_hwid(void);

#endif

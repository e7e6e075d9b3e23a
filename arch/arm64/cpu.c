/*
 * cpu.c (arm64): the CPU's identity (arch/cpu.h), the per-CPU register
 * (arch/percpu.h), the caches (arch/memory.h) and the counter's rate
 * (arch/clock.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/clock.h"
#include "arch/cpu.h"
#include "arch/memory.h"
#include "arch/percpu.h"
#include "a64/percpu.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "port/given_clock.h"

#define SYSREG(name) ({ uint64_t v_; __asm__ volatile("mrs %0, " #name : "=r"(v_)); v_; })

extern char boot_stack_bottom[], boot_stack_top[];

struct arch_cpu_info arch_cpu_info;
static struct arch_caches caches = { .llc_source = "none" };

/* MIDR_EL1's implementer codes (Arm ARM D19, MIDR_EL1.Implementer). */
static const char *implementer_name(unsigned imp)
{
	switch (imp) {
	case 0x41: return "Arm";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x50: return "APM";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	default: return "";
	}
}

/*
 * The data and unified caches from CLIDR_EL1's Ctype fields and each
 * level's CCSIDR_EL1 (selected by CSSELR_EL1; Arm ARM D19): sets x ways x
 * line. Which CPUs share a level is not in these registers (the device
 * tree's or PPTT's business): the slice counts each level whole.
 */
static void read_caches(void)
{
	const uint64_t clidr = SYSREG(clidr_el1);

	for (unsigned level = 0; level < 7; level++) {
		const unsigned ctype = (clidr >> (3 * level)) & 7;
		if (ctype == 0)
			break;
		if (ctype < 2)
			continue;            /* instruction cache only */
		__asm__ volatile("msr csselr_el1, %0; isb" : : "r"((uint64_t)level << 1));
		const uint64_t ccsidr = SYSREG(ccsidr_el1);
		/* Without FEAT_CCIDX: LineSize [2:0], Associativity [12:3],
		 * NumSets [27:13], each minus one (the line log2(bytes) - 4). */
		const uint64_t line = 16ULL << (ccsidr & 7);
		const uint64_t ways = ((ccsidr >> 3) & 0x3ff) + 1;
		const uint64_t sets = ((ccsidr >> 13) & 0x7fff) + 1;
		const uint64_t bytes = line * ways * sets;
		caches.slice_bytes += bytes;
		if (bytes >= caches.llc_bytes) {
			caches.llc_bytes = bytes;
			static char src[8];
			snprintf(src, sizeof(src), "L%u", level + 1);
			caches.llc_source = src;
		}
	}
}

/*
 * MIDR_EL1 names the implementer, part and revision; nothing architectural
 * says whether the CPU is virtual. QEMU's TCG and KVM both run the guest at
 * EL1 (TCG's named models with their real MIDRs), so a hypervisor is taken
 * to be there when the kernel was entered at EL1, not EL2: firmware on
 * hardware normally enters a kernel at EL2 (booting.rst recommends it), and
 * QEMU's virt enters at EL1 unless virtualization=on. Which one is known
 * only for TCG's -cpu max (below); otherwise the name says how it was
 * guessed. The semihosting
 * exit and fw_cfg, which only exist under QEMU, are used only in that case.
 */
void arch_cpu_identify(void)
{
	extern uint64_t arm64_entry_el;
	const uint64_t midr = SYSREG(midr_el1);
	const unsigned imp = (midr >> 24) & 0xff;

	memset(&arch_cpu_info, 0, sizeof(arch_cpu_info));
	snprintf(arch_cpu_info.vendor, sizeof(arch_cpu_info.vendor), "%s", implementer_name(imp));
	snprintf(arch_cpu_info.brand, sizeof(arch_cpu_info.brand),
		 "MIDR 0x%08llx (implementer 0x%02x, part 0x%03llx, r%llup%llu)",
		 (unsigned long long)midr, imp, (unsigned long long)((midr >> 4) & 0xfff),
		 (unsigned long long)((midr >> 20) & 0xf), (unsigned long long)(midr & 0xf));
	arch_cpu_info.has_hypervisor = arm64_entry_el == 1;
	/* Implementer 0x00 is reserved for software use: QEMU's TCG "max" CPU
	 * reads as implementer 0x00, part 0x051 ('Q'); under KVM "max" is the
	 * host's own MIDR. So that part names the emulator (whose figures are
	 * not the machine's, numaperf), anything else stays a guess. */
	if (arch_cpu_info.has_hypervisor && imp == 0x00 && ((midr >> 4) & 0xfff) == 0x051)
		strcpy(arch_cpu_info.hypervisor, "TCG");
	else if (arch_cpu_info.has_hypervisor)
		strcpy(arch_cpu_info.hypervisor, "EL1 entry");
	arch_cpu_info.huge_1g = true;   /* 1 GiB blocks at level 1 with 4 KiB granules */
	arch_cpu_info.nx = true;        /* PXN/UXN always exist */
	arch_cpu_info.family = (midr >> 16) & 0xf;    /* the architecture field */
	arch_cpu_info.model = (midr >> 4) & 0xfff;    /* the part number */
	arch_cpu_info.stepping = midr & 0xf;          /* the revision */
	read_caches();
}

/* MPIDR_EL1's Aff3 [39:32], Aff2 [23:16], Aff1 [15:8], Aff0 [7:0] packed. */
uint32_t arch_cpu_hwid(void)
{
	const uint64_t mpidr = SYSREG(mpidr_el1);

	return (uint32_t)(((mpidr >> 32) & 0xff) << 24 | (mpidr & 0xffffff));
}

struct arch_caches arch_caches(void)
{
	return caches;
}

/* The arch area (a64/percpu.h): TPIDR_EL1 points at it. */
static struct arm64_percpu boot_percpu __attribute__((aligned(ARCH_PERCPU_ALIGN)));

size_t arch_percpu_bytes(void)
{
	return sizeof(struct arm64_percpu);
}

void arch_percpu_init(void *area, struct cpu_state *cs, uint32_t fw_nmi_pins)
{
	struct arm64_percpu *pc = area;

	(void)fw_nmi_pins;
	pc->self = pc;
	pc->state = cs;
	pc->stack_top = cs->stack_top;
	pc->exc_top = (uint64_t)(uintptr_t)(pc->exc_stack + sizeof(pc->exc_stack));
	pc->gicr = 0;
	cs->arch = pc;
}

void arch_percpu_init_boot(struct cpu_state *cs)
{
	cs->stack_bottom = (uint64_t)boot_stack_bottom;
	cs->stack_top = (uint64_t)boot_stack_top;
	arch_percpu_init(&boot_percpu, cs, 0);
	__asm__ volatile("msr tpidr_el1, %0" : : "r"(&boot_percpu) : "memory");
}

/*
 * The counter's rate is CNTFRQ_EL0, which firmware programs and the
 * architecture publishes (Arm ARM D11.1.2, "The system counter"): given,
 * not measured (arch/common/given_clock.c). No second reference exists
 * here to check it against.
 */
uint64_t given_clock_hz(struct given_clock_source *src)
{
	src->method = "cntfrq";
	src->missing = "CNTFRQ_EL0 reads 0";
	return SYSREG(cntfrq_el0) & 0xffffffff;
}

/*
 * cpu.c (ppc64le): the CPU's identity (arch/cpu.h), the per-CPU register
 * (arch/percpu.h), the caches (arch/memory.h) and the timebase's rate
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
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "port/given_clock.h"
#include "p64/ofw.h"
#include "p64/opal.h"
#include "p64/regs.h"

#define MFSPR(n) ({ uint64_t v_; __asm__ volatile("mfspr %0, %1" : "=r"(v_) : "i"(n)); v_; })

extern char boot_stack_bottom[], boot_stack_top[];

struct arch_cpu_info arch_cpu_info;

/* The Processor Version Register's version field (PVR bits 0:15). */
static const char *pvr_name(unsigned version)
{
	switch (version) {
	case 0x004b: return "POWER8E";
	case 0x004c: return "POWER8NVL";
	case 0x004d: return "POWER8";
	case 0x004e: return "POWER9";
	case 0x0080: return "POWER10";
	case 0x0082: return "POWER11";
	default: return "";
	}
}

/*
 * The PVR names the processor. Entered by Open Firmware (pseries), the
 * kernel runs in an LPAR under a hypervisor (PowerVM, KVM or QEMU's
 * TCG; which one is not asked yet); entered by skiboot (PowerNV), it is
 * the hypervisor itself, OPAL the firmware beside it; under QEMU's
 * powernv machines (the tree's root says so) the CPU is still a virtual
 * one, so the boot ends the emulator (arch/machine.h) rather than halting.
 */
void arch_cpu_identify(void)
{
	const uint64_t pvr = MFSPR(SPR_PVR);
	const unsigned version = (pvr >> 16) & 0xffff;

	memset(&arch_cpu_info, 0, sizeof(arch_cpu_info));
	strcpy(arch_cpu_info.vendor, "IBM");
	snprintf(arch_cpu_info.brand, sizeof(arch_cpu_info.brand), "%s%sPVR 0x%08llx",
		 pvr_name(version), *pvr_name(version) ? " " : "", (unsigned long long)pvr);
	arch_cpu_info.has_hypervisor = !ppc_powernv() || ppc_firmware.qemu_powernv;
	strcpy(arch_cpu_info.hypervisor,
	       !ppc_powernv() ? "PAPR" : ppc_firmware.qemu_powernv ? "QEMU powernv" : "");
	arch_cpu_info.huge_1g = true;   /* radix: 1 GiB leaves at the PUD level */
	arch_cpu_info.nx = true;        /* radix leaves carry execute rights */
	arch_cpu_info.family = version;
	arch_cpu_info.model = (pvr >> 8) & 0xf;   /* the major revision */
	arch_cpu_info.stepping = pvr & 0xf;       /* the minor revision */
}

/* The Processor Identification Register: the thread's server number,
 * what the device tree's cpu nodes list. */
uint32_t arch_cpu_hwid(void)
{
	return (uint32_t)MFSPR(SPR_PIR);
}

/* The caches are the device tree's (d-cache-size, l2-cache...): not read
 * yet, so none is reported. */
struct arch_caches arch_caches(void)
{
	return (struct arch_caches){ .llc_source = "none" };
}

/* The arch area: r13 points at it; word 1 is the struct cpu_state
 * (asm/percpu.h), word 2 the stack top a started CPU loads (entry.S's
 * ppc_secondary_entry). */
struct ppc_percpu {
	struct ppc_percpu *self;
	struct cpu_state *state;
	uint64_t stack_top;
};
static struct ppc_percpu boot_percpu __attribute__((aligned(ARCH_PERCPU_ALIGN)));

size_t arch_percpu_bytes(void)
{
	return sizeof(struct ppc_percpu);
}

void arch_percpu_init(void *area, struct cpu_state *cs, uint32_t fw_nmi_pins)
{
	struct ppc_percpu *pc = area;

	(void)fw_nmi_pins;
	pc->self = pc;
	pc->state = cs;
	pc->stack_top = cs->stack_top;
	cs->arch = pc;
}

void arch_percpu_init_boot(struct cpu_state *cs)
{
	cs->stack_bottom = (uint64_t)boot_stack_bottom;
	cs->stack_top = (uint64_t)boot_stack_top;
	arch_percpu_init(&boot_percpu, cs, 0);
	__asm__ volatile("mr 13, %0" : : "r"(&boot_percpu) : "memory");   /* r13 is never the compiler's */
}

/*
 * The timebase's rate is the device tree's timebase-frequency (a cpu
 * node's; Power ISA Book II, "Time Base"): given by the firmware, read by
 * boot/ofw before the kernel started (arch/common/given_clock.c). No
 * second reference checks it.
 */
uint64_t given_clock_hz(struct given_clock_source *src)
{
	src->method = "timebase-frequency";
	src->missing = "the device tree gives no timebase-frequency";
	return ppc_firmware.timebase_hz;
}

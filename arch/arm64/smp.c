/*
 * smp.c (arm64): starting the other CPUs and waking them (arch/smp.h).
 *
 * Each CPU is started by PSCI CPU_ON (a64/psci.h) with the physical
 * address of arm64_secondary_entry (secondary.S) and, as its context id,
 * its per-CPU area (a64/percpu.h): every CPU_ON is issued before any CPU is
 * waited for, so they all start at once. A started CPU enters at EL1 with
 * the MMU off; it takes the boot CPU's translation registers (saved here by
 * arch_smp_prepare()), its stacks and vectors, wakes its GICv3
 * redistributor (gic.c) and calls percpu_ap_main(). A CPU is woken by the
 * GIC's wake SGI; it waits for one in WFI with interrupts unmasked
 * (arch_irq_enable_and_wait()).
 *
 * Without a PSCI conduit or a GICv3 in the firmware's tables every other
 * CPU is refused by arch_smp_unreachable(), and phase smp names it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "a64/gic.h"
#include "a64/percpu.h"
#include "a64/psci.h"
#include "arch/cpu.h"
#include "arch/smp.h"
#include "kernel/services/cmdline.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"

bool a64_psci_smc;

struct smp_entry {
	uint32_t hwid;
	struct arm64_percpu *pc;
};

static uint32_t boot_hwid;
static uint32_t cpu_on_fn;
static const char *why_not;          /* no CPU but the boot CPU can be started */
static struct smp_entry *table;
static uint32_t table_cap, table_count;

/* The boot CPU's MAIR, TCR, TTBR0, TTBR1 and SCTLR, which a started CPU
 * loads with its MMU off (secondary.S). */
uint64_t arm64_smp_regs[5];

extern char arm64_secondary_entry[];
void arm64_ap_main(struct arm64_percpu *pc);

/* No arm64 start-up keys yet: an empty table. */
const struct param_table arch_smp_param_table = { .owner = "smp-arm64", .params = NULL,
						  .count = 0 };

bool arch_smp_setup(const struct arch_smp_firmware *fw)
{
	boot_hwid = arch_cpu_hwid();
	why_not = NULL;
	if (fw->start_call == ARCH_FW_CALL_NONE) {
		/* No conduit is guessed: CPU_ON through one the firmware did
		 * not give could trap to nothing. */
		why_not = fw->have_table
			? "the firmware gives no PSCI conduit (the FADT's ARM boot flags lack PSCI_COMPLIANT)"
			: "the firmware names no PSCI method (the device tree's /psci)";
		return true;
	}
	a64_psci_smc = fw->start_call == ARCH_FW_CALL_SMC;
	cpu_on_fn = fw->start_fn ? fw->start_fn : PSCI_CPU_ON_64;
	why_not = arm64_gic_setup(fw);
	/* The boot CPU's own interface now: the others are refused if it fails. */
	if (!why_not && !arm64_gic_init_cpu())
		why_not = "the boot CPU's GIC could not be set up";
	return why_not != NULL;
}

/* The phrase after a refused CPU's id. */
static char unreachable_phrase[160];

const char *arch_smp_unreachable(uint32_t hwid)
{
	if (hwid == boot_hwid || !why_not)
		return NULL;
	snprintf(unreachable_phrase, sizeof(unreachable_phrase), "is not started: %s", why_not);
	return unreachable_phrase;
}

void arch_smp_report(void *arg)
{
	const struct arch_smp_firmware *fw = arg;

	if (why_not && fw->nr_unreachable) {
		pr_warn("smp: %u CPU%s cannot be started: %s", fw->nr_unreachable,
			fw->nr_unreachable == 1 ? "" : "s", why_not);
		return;
	}
	if (why_not)
		return;
	pr_info("smp: PSCI CPU_ON (0x%x) over %s; GICv3 distributor at 0x%llx, %u redistributor region%s; wake-up SGI %u",
		cpu_on_fn, a64_psci_smc ? "SMC" : "HVC", (unsigned long long)fw->irqc_dist,
		fw->nr_irqc_regions, fw->nr_irqc_regions == 1 ? "" : "s", A64_WAKE_SGI);
}

void arch_smp_init_boot_cpu(uint32_t fw_nmi_pins)
{
	(void)fw_nmi_pins;     /* its GIC is set up with the decision (arch_smp_setup()) */
}

size_t arch_smp_low_page_bytes(void)
{
	return 0;
}

uint64_t arch_smp_low_page_limit(void)
{
	return 0;
}

/* The translation registers for the started CPUs: the kernel's root in
 * both halves (TTBR1_EL1 holds it; TTBR0_EL1 may hold a test's space). */
void arch_smp_prepare(uint64_t page_phys)
{
	uint64_t root;

	(void)page_phys;
	__asm__ volatile("mrs %0, mair_el1" : "=r"(arm64_smp_regs[0]));
	__asm__ volatile("mrs %0, tcr_el1" : "=r"(arm64_smp_regs[1]));
	__asm__ volatile("mrs %0, ttbr1_el1" : "=r"(root));
	arm64_smp_regs[2] = root;
	arm64_smp_regs[3] = root;
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(arm64_smp_regs[4]));
	/* Read with the MMU off, so uncached: to the point of coherency. */
	__asm__ volatile("dc cvac, %0\n\tdsb sy" : : "r"(arm64_smp_regs) : "memory");
}

size_t arch_smp_table_bytes(uint32_t n)
{
	return (size_t)n * sizeof(struct smp_entry);
}

void arch_smp_set_table(void *mem, uint32_t n)
{
	table = mem;
	table_cap = n;
	table_count = 0;
}

bool arch_smp_register(const struct cpu_state *cs)
{
	if (table_count >= table_cap)
		return false;
	table[table_count++] = (struct smp_entry){ .hwid = cs->hwid, .pc = cs->arch };
	return true;
}

/* PSCI's return codes (DEN 0022, 5.2.2). */
static const char *psci_error(int64_t r)
{
	switch (r) {
	case -1: return "NOT_SUPPORTED";
	case -2: return "INVALID_PARAMETERS";
	case -3: return "DENIED";
	case -4: return "ALREADY_ON";
	case -5: return "ON_PENDING";
	case -6: return "INTERNAL_FAILURE";
	case -7: return "NOT_PRESENT";
	case -8: return "DISABLED";
	case -9: return "INVALID_ADDRESS";
	default: return "an unknown error";
	}
}

/* The packed hwid (arch/cpu.h) as MPIDR_EL1's affinity fields. */
static uint64_t mpidr_of(uint32_t hwid)
{
	return (uint64_t)(hwid >> 24) << 32 | (hwid & 0xffffff);
}

/* CPU_ON for each of @hwids, one call each, without waiting for any: a
 * CPU the firmware refuses is named with PSCI's error and settled as
 * refused, so phase smp does not wait for it. */
void arch_smp_start(const uint32_t *hwids, unsigned n, uint64_t page_phys)
{
	uint32_t at = 0;

	(void)page_phys;
	for (unsigned i = 0; i < n; i++) {
		struct arm64_percpu *pc = NULL;

		/* Registered in the order they are started: look from the last. */
		for (uint32_t k = 0; k < table_count && !pc; k++, at = (at + 1) % table_count)
			if (table[at].hwid == hwids[i])
				pc = table[at].pc;
		if (!pc) {
			pr_err("smp: MPIDR 0x%x was never registered; not started", hwids[i]);
			continue;
		}
		const int64_t r = a64_psci_call(cpu_on_fn, mpidr_of(hwids[i]),
						(uint64_t)(uintptr_t)arm64_secondary_entry,
						(uint64_t)(uintptr_t)pc);
		if (r == 0)
			continue;
		pr_err("smp: PSCI CPU_ON for MPIDR 0x%x failed: %s (%lld)", hwids[i], psci_error(r),
		       (long long)r);
		/* Not waited for (arch/smp.h); a CPU that came up anyway (ON_PENDING
		 * from an earlier call) has won already. */
		uint32_t waiting = SMP_AP_WAITING;
		__atomic_compare_exchange_n(&pc->state->boot_state, &waiting, SMP_AP_REFUSED, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
}

bool arch_smp_start_delay(void)
{
	return false;
}

void arch_wake_cpu(uint32_t hwid)
{
	arm64_gic_wake(hwid);
}

/* First C code on a started CPU (secondary.S): its GIC, then the
 * kernel's side. A CPU that cannot be woken never goes online: phase smp
 * names it when its wait ends. */
void arm64_ap_main(struct arm64_percpu *pc)
{
	(void)pc;
	if (!arm64_gic_init_cpu())
		arch_halt_forever();
	percpu_ap_main();
}

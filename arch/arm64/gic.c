/*
 * gic.c (arm64): the GICv3 (Arm IHI 0069, "GICv3 and GICv4 Architecture
 * Specification") as far as waking an idle CPU needs it:
 *
 *  - the distributor (GICD): affinity routing (ARE) and Group 1 enabled;
 *  - each CPU's redistributor, found by walking the redistributor regions
 *    for the frame whose GICR_TYPER affinity is the CPU's MPIDR (12.11.37;
 *    GICR_TYPER.Last ends a region), woken through GICR_WAKER (12.11.42),
 *    the wake SGI put in Group 1 and enabled, everything else disabled;
 *  - the CPU interface through its system registers: ICC_SRE_EL1.SRE,
 *    ICC_PMR_EL1, ICC_IGRPEN1_EL1; SGIs through ICC_SGI1R_EL1 (12.2.23:
 *    Aff3.Aff2.Aff1 and a 16-bit target list of Aff0 values, RS selecting
 *    which 16); ICC_IAR1_EL1 / ICC_EOIR1_EL1 in the IRQ vector.
 *
 * The registers are named by their encodings (S3_0_C12_...) so that any
 * assembler takes them.
 */
#include "a64/gic.h"

#include <stddef.h>

#include "a64/percpu.h"
#include "arch/cpu.h"
#include "arch/smp.h"
#include "kernel/services/log.h"

#define GICD_CTLR 0x0000
#define GICD_CTLR_RWP (1u << 31)
#define GICD_CTLR_ARE (1u << 4)       /* ARE, or ARE_NS in the Non-secure view */
#define GICD_CTLR_GRP1 (3u << 0)      /* EnableGrp0/1, or EnableGrp1/1A */

#define GICR_CTLR 0x0000
#define GICR_CTLR_RWP (1u << 3)
#define GICR_TYPER 0x0008
#define GICR_TYPER_VLPIS (1u << 1)    /* four 64 KiB frames, not two */
#define GICR_TYPER_LAST (1u << 4)
#define GICR_WAKER 0x0014
#define GICR_WAKER_SLEEP (1u << 1)    /* ProcessorSleep */
#define GICR_WAKER_ASLEEP (1u << 2)   /* ChildrenAsleep */
#define GICR_SGI 0x10000              /* SGI_base: the second frame */
#define GICR_IGROUPR0 0x0080
#define GICR_ISENABLER0 0x0100
#define GICR_ICENABLER0 0x0180
#define GICR_IPRIORITYR 0x0400

#define ICC_SRE_EL1 "S3_0_C12_C12_5"
#define ICC_PMR_EL1 "S3_0_C4_C6_0"
#define ICC_BPR1_EL1 "S3_0_C12_C12_3"
#define ICC_CTLR_EL1 "S3_0_C12_C12_4"
#define ICC_IGRPEN1_EL1 "S3_0_C12_C12_7"
#define ICC_SGI1R_EL1 "S3_0_C12_C11_5"
#define ICC_IAR1_EL1 "S3_0_C12_C12_0"
#define ICC_EOIR1_EL1 "S3_0_C12_C12_1"

#define MAX_REGION_BYTES (1ULL << 30)

/* Register polls: far beyond what hardware or QEMU takes. */
#define POLL_LIMIT 10000000u

static uint64_t gicd;
static uint32_t nr_regions;
static struct { uint64_t base, bytes; } regions[ARCH_SMP_MAX_IRQC_REGIONS];

static inline uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)(uintptr_t)a;
}

static inline uint64_t rd64(uint64_t a)
{
	return *(volatile uint64_t *)(uintptr_t)a;
}

static inline void wr32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)a = v;
}

static inline void wr8(uint64_t a, uint8_t v)
{
	*(volatile uint8_t *)(uintptr_t)a = v;
}

static bool poll_clear(uint64_t reg, uint32_t bits)
{
	for (uint32_t i = 0; i < POLL_LIMIT; i++)
		if (!(rd32(reg) & bits))
			return true;
	return false;
}

const char *arm64_gic_setup(const struct arch_smp_firmware *fw)
{
	if (!fw->irqc_dist || !fw->nr_irqc_regions)
		return "the firmware names no GICv3 (distributor and redistributors) to wake it";
	if (!arm64_map_device(fw->irqc_dist, 0x10000))
		return "the GICv3 distributor's registers could not be mapped";
	for (uint32_t i = 0; i < fw->nr_irqc_regions; i++) {
		if (!fw->irqc_regions[i].bytes)
			continue;
		/* 4096 CPUs' frames of 256 KiB: beyond it the tables are wrong,
		 * and walking it would read what is not there. */
		if (fw->irqc_regions[i].bytes > MAX_REGION_BYTES)
			return "a GICv3 redistributor region is larger than 1 GiB: the firmware's tables are wrong";
		if (!arm64_map_device(fw->irqc_regions[i].base, fw->irqc_regions[i].bytes))
			return "a GICv3 redistributor region could not be mapped";
		regions[nr_regions].base = fw->irqc_regions[i].base;
		regions[nr_regions++].bytes = fw->irqc_regions[i].bytes;
	}
	gicd = fw->irqc_dist;
	/* Affinity routing first, with the groups off; then the groups. */
	uint32_t ctlr = rd32(gicd + GICD_CTLR);
	if (!(ctlr & GICD_CTLR_ARE)) {
		wr32(gicd + GICD_CTLR, ctlr & ~GICD_CTLR_GRP1);
		poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP);
		wr32(gicd + GICD_CTLR, (ctlr & ~GICD_CTLR_GRP1) | GICD_CTLR_ARE);
		poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP);
	}
	wr32(gicd + GICD_CTLR, rd32(gicd + GICD_CTLR) | GICD_CTLR_ARE | GICD_CTLR_GRP1);
	if (!poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP))
		return "the GICv3 distributor never finished a register write (GICD_CTLR.RWP)";
	if (!(rd32(gicd + GICD_CTLR) & GICD_CTLR_ARE))
		return "the GICv3 distributor refuses affinity routing (GICD_CTLR.ARE)";
	return NULL;
}

/* The redistributor whose GICR_TYPER affinity is @hwid; 0 if none. */
static uint64_t find_redistributor(uint32_t hwid)
{
	for (uint32_t r = 0; r < nr_regions; r++) {
		for (uint64_t off = 0; off + 2 * 0x10000 <= regions[r].bytes;) {
			const uint64_t typer = rd64(regions[r].base + off + GICR_TYPER);

			if ((uint32_t)(typer >> 32) == hwid)
				return regions[r].base + off;
			if (typer & GICR_TYPER_LAST)
				break;
			off += (typer & GICR_TYPER_VLPIS) ? 4 * 0x10000 : 2 * 0x10000;
		}
	}
	return 0;
}

bool arm64_gic_init_cpu(void)
{
	struct arm64_percpu *pc = a64_this_percpu();
	const uint32_t hwid = arch_cpu_hwid();
	const uint64_t rd = find_redistributor(hwid);
	uint64_t sre;

	if (!rd) {
		pr_err("gic: no redistributor for MPIDR 0x%x in the %u region%s", hwid, nr_regions,
		       nr_regions == 1 ? "" : "s");
		return false;
	}
	wr32(rd + GICR_WAKER, rd32(rd + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	if (!poll_clear(rd + GICR_WAKER, GICR_WAKER_ASLEEP)) {
		pr_err("gic: the redistributor of MPIDR 0x%x at 0x%llx stays asleep (GICR_WAKER)",
		       hwid, (unsigned long long)rd);
		return false;
	}
	/* The wake SGI alone, Group 1, in the middle of the priorities. */
	wr32(rd + GICR_SGI + GICR_ICENABLER0, ~(1u << A64_WAKE_SGI));
	poll_clear(rd + GICR_CTLR, GICR_CTLR_RWP);
	wr32(rd + GICR_SGI + GICR_IGROUPR0, rd32(rd + GICR_SGI + GICR_IGROUPR0) | 1u << A64_WAKE_SGI);
	wr8(rd + GICR_SGI + GICR_IPRIORITYR + A64_WAKE_SGI, 0x80);
	wr32(rd + GICR_SGI + GICR_ISENABLER0, 1u << A64_WAKE_SGI);

	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	__asm__ volatile("msr " ICC_SRE_EL1 ", %0; isb" : : "r"(sre | 7));   /* SRE, DFB, DIB */
	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	if (!(sre & 1)) {
		pr_err("gic: MPIDR 0x%x: the CPU interface's system registers cannot be enabled (ICC_SRE_EL1.SRE)",
		       hwid);
		return false;
	}
	__asm__ volatile("msr " ICC_PMR_EL1 ", %0\n\t"
			 "msr " ICC_BPR1_EL1 ", xzr\n\t"
			 "msr " ICC_CTLR_EL1 ", xzr\n\t"
			 "msr " ICC_IGRPEN1_EL1 ", %1\n\t"
			 "isb" : : "r"(0xf0ULL), "r"(1ULL) : "memory");
	pc->gicr = rd;
	return true;
}

void arm64_gic_wake(uint32_t hwid)
{
	const uint64_t aff0 = hwid & 0xff, aff1 = (hwid >> 8) & 0xff;
	const uint64_t aff2 = (hwid >> 16) & 0xff, aff3 = (hwid >> 24) & 0xff;
	const uint64_t v = aff3 << 48 | (aff0 >> 4) << 44 | aff2 << 32 |
			   (uint64_t)A64_WAKE_SGI << 24 | aff1 << 16 | 1ULL << (aff0 & 15);

	/* The mailbox's stores seen before the interrupt is. */
	__asm__ volatile("dsb ishst\n\tmsr " ICC_SGI1R_EL1 ", %0\n\tisb" : : "r"(v) : "memory");
}

void arm64_gic_irq(void)
{
	uint64_t iar;

	__asm__ volatile("mrs %0, " ICC_IAR1_EL1 : "=r"(iar) : : "memory");
	if ((iar & 0xffffff) >= 1020 && (iar & 0xffffff) <= 1023)
		return;      /* spurious: nothing to end */
	__asm__ volatile("msr " ICC_EOIR1_EL1 ", %0\n\tisb" : : "r"(iar) : "memory");
}

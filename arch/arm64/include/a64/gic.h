/*
 * a64/gic.h: the GICv3 as memboot uses it (arch/arm64/gic.c): one
 * software-generated interrupt that wakes an idle CPU from WFI.
 */
#ifndef MEMBOOT_A64_GIC_H
#define MEMBOOT_A64_GIC_H

#include <stdbool.h>
#include <stdint.h>

struct arch_smp_firmware;

/* The SGI that wakes a CPU (SGIs are INTIDs 0-15). */
#define A64_WAKE_SGI 1

/* The distributor and the redistributor regions @fw names: mapped, the
 * distributor's affinity routing and Group 1 enabled. NULL when the GIC is
 * usable, else why not (a phrase). Once, on the boot CPU. */
const char *arm64_gic_setup(const struct arch_smp_firmware *fw);

/* This CPU's redistributor (found by its MPIDR affinity in GICR_TYPER) woken
 * and the wake SGI enabled in it; its CPU interface through the system
 * registers. False, with the reason printed, if the CPU cannot be woken. */
bool arm64_gic_init_cpu(void);

/* Send the wake SGI to the CPU with packed MPIDR affinity @hwid (arch/cpu.h). */
void arm64_gic_wake(uint32_t hwid);

/* The IRQ vector: acknowledge and end whatever interrupt is pending. */
void arm64_gic_irq(void);

/* Map @bytes of device registers at @phys (paging.c): false if the map has
 * something else there or no table page is left. */
bool arm64_map_device(uint64_t phys, uint64_t bytes);

#endif

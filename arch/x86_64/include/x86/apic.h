/*
 * x86/apic.h: the local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode.
 *
 * The mode is chosen once, before SMP, from the MADT and the APIC IDs
 * (x86/apic_mode.h, arch_smp_setup()); QEMU 7.2 under TCG has no x2APIC at
 * all, so there the xAPIC path is the one exercised.
 */
#ifndef MEMBOOT_ARCH_APIC_H
#define MEMBOOT_ARCH_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_WAKE_VECTOR 0xf0       /* job runner wake-up IPI */
#define APIC_SPURIOUS_VECTOR 0xff

/* The mode every CPU is brought up in, and bringing this CPU up in it. */
void apic_set_mode(bool x2apic);
void apic_init_this_cpu_in_mode(void);
/* Whether firmware left x2APIC mode on (read before the first init). */
bool apic_firmware_x2apic(void);
void apic_send_init(uint32_t apic_id);
void apic_send_sipi(uint32_t apic_id, uint8_t vector);
void apic_send_ipi(uint32_t apic_id, uint8_t vector);
void apic_eoi(void);

#endif
